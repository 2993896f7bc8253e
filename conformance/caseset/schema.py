"""The structure of a case file, as JSON Schema (checked with jsonschema)."""
from conformance.caseset import arrays

NUMBER = {"type": "number"}
TOLERANCE = {"oneOf": [{"type": "integer", "minimum": 0},
                       {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}]}
SCALE_BIAS = {"oneOf": [{"type": "null"},
                        {"type": "object", "additionalProperties": False, "required": ["Scale", "Bias"],
                         "properties": {"Scale": NUMBER, "Bias": NUMBER}}]}
# A FusedActivation field (conformance/specs/fused.py): an activation's name (a string) or this.
FUSED_ACTIVATION = {"type": "object", "required": ["Type"], "properties": {"Type": {"type": "string"}},
                    "additionalProperties": NUMBER}
# An array field's one value (conformance/caseset/arrays.py): {array: [1, 2]}, never a bare list (a grid).
ARRAY = {"type": "object", "additionalProperties": False, "required": [arrays.KEY],
         "properties": {arrays.KEY: {"type": "array", "items": NUMBER}}}
PARAM_VALUE = {"oneOf": [NUMBER, SCALE_BIAS, FUSED_ACTIVATION, ARRAY, {"type": "string"}]}  # strings: enum, data type
SHAPE = {"oneOf": [{"type": "array", "items": {"type": "integer", "minimum": 0}},
                   {"const": "auto"},
                   {"type": "object", "additionalProperties": False, "required": ["rank"],
                    "properties": {"rank": {"type": "integer"}}},
                   # Inputs of their own shapes (GATHER's Input and Indices): each input named, its shape
                   {"type": "object", "minProperties": 1, "propertyNames": {"not": {"const": "rank"}},
                    "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 0}}}]}
GENERATOR = {
    "type": "object", "additionalProperties": False, "required": ["kind"],
    "properties": {
        "kind": {"enum": ["uniform", "specials", "integer_extremes", "exhaustive_float16", "values",
                          "sweep", "exhaustive_float32", "exhaustive_float16_pairs", "indices"]},
        "low": NUMBER, "high": NUMBER, "count": {"type": "integer", "minimum": 1},
        # exhaustive_float32: bit patterns start, start + step, ... below stop (default all 2**32);
        # exhaustive_float16_pairs: the same over the pair index (A = p >> 16, B = p & 0xFFFF)
        "start": {"type": "integer", "minimum": 0, "maximum": 1 << 32},
        "stop": {"type": "integer", "minimum": 0, "maximum": 1 << 32},
        "step": {"type": "integer", "minimum": 1, "maximum": 1 << 32},
        "values": {"type": "array", "items": NUMBER, "minItems": 1},
        "label": {"type": "string", "pattern": "^[A-Za-z0-9_.+=,\\-\\[\\]]+$"},
        "cross": {"type": "boolean"},  # several inputs: every combination of the generator's values
        # indices: negative ones too (counting from the end), where the page allows them
        "negative": {"type": "boolean"},
        "distinct": {"type": "boolean"},  # indices: no two index tuples alike (SCATTER_ND: no colliding writes)
    },
}
# Several inputs: one generator per input, by the page's input names (A, B or ATensor, BTensor).
EACH = {
    "type": "object", "additionalProperties": False, "required": ["each"],
    "properties": {"each": {"type": "object", "additionalProperties": GENERATOR, "minProperties": 1},
                   "label": GENERATOR["properties"]["label"]},
}
# Several inputs: input name -> the output dimensions along which it is broadcast (size 1, zero strides).
BROADCAST = {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "integer", "minimum": 0}}}
# The output's DML_BUFFER_TENSOR_DESC strides (dml-direct only; other routes have a packed output):
# "padded" (a gap after every element and every row), or the strides in elements, one per dimension.
OUTPUT_STRIDES = {"oneOf": [{"const": "padded"}, {"type": "array", "items": {"type": "integer", "minimum": 0}}]}
OUTPUT_STRIDES_WANTED = "'padded' or a list of strides in elements, one per dimension"
GROUP = {
    "type": "object", "additionalProperties": False, "required": ["dtypes", "shapes"],  # inputs: none for an operator of no input tensor
    "properties": {
        "name": {"type": "string"},
        "description": {"type": "string"},
        "dtypes": {"type": "array", "items": {"type": "string"}, "minItems": 1},
        "shapes": {"type": "array", "items": SHAPE, "minItems": 1},
        "params": {"type": "object",
                   "additionalProperties": {"oneOf": [PARAM_VALUE,
                                                      {"type": "array", "items": PARAM_VALUE, "minItems": 1}]}},
        "inputs": {"type": "array", "items": {"oneOf": [GENERATOR, EACH]}, "minItems": 1},
        "broadcast": {"oneOf": [BROADCAST, {"type": "array", "items": BROADCAST, "minItems": 1}]},
        "tolerance": TOLERANCE,
        "flush": {"enum": ["allow", "forbid"]},
        "nan_rule": {"enum": ["d3d", "propagate"]},
        "in_place": {"oneOf": [{"type": "boolean"}, {"type": "string"}]},  # a string: the aliased input
        "output_strides": OUTPUT_STRIDES,
        # The input's DML_BUFFER_TENSOR_DESC strides in elements, one per dimension (a transpose, a
        # broadcast): one input, read as the strided view of a packed storage (caseset/strides.py)
        "input_strides": {"type": "array", "items": {"type": "integer", "minimum": 0}},
    },
}
CASE_FILE = {
    "type": "object", "additionalProperties": False, "required": ["operator", "groups"],
    "properties": {
        "operator": {"type": "string"},
        "description": {"type": "string"},
        "tolerance": TOLERANCE,
        "flush": {"enum": ["allow", "forbid"]},
        "nan_rule": {"enum": ["d3d", "propagate"]},
        "smoke": {"type": "string", "minLength": 1},  # a -k expression: the file's smoke cases
        "groups": {"type": "array", "items": GROUP, "minItems": 1},
    },
}
