"""What a DirectML operator page says, as data."""
import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Callable

import numpy as np

from conformance import featurelevels
from conformance.specs.families import ELEMENT_WISE, Family


class NotReachable(Exception):
    """The case cannot be expressed through this route (e.g. ONNX Runtime)."""


@dataclass(frozen=True)
class SupportTable:
    level: str  # the table applies from this feature level on
    ranks: tuple
    dtypes: tuple
    # Inputs whose row gives other dimension counts than `ranks` (MATRIX_MULTIPLY_INTEGER's zero points: 1 to 4
    # where A has 2 to 4): (short name, ranks) pairs; a case's level is the lowest table allowing every input's
    tensor_ranks: tuple = ()

    def ranks_of(self, tensor: str | None = None) -> tuple:
        """The dimension counts this table gives the input of that short name (None: the table's own)."""
        return dict(self.tensor_ranks).get(tensor, self.ranks)


@dataclass(frozen=True)
class Parameter:
    name: str  # the DirectML field name
    # "float", "scale_bias", "uint", "int", "enum", "data_type" or "scalar": a field of the struct;
    # an ARRAY_KINDS kind: a list-valued field (a pointer in the struct) with its count field `count`;
    # "tensor_type": no field, the data type of the tensors named in `tensors` where the page lets a
    # case choose it (DEQUANTIZE_LINEAR's FLOAT16 scale and output); unset: what `unset` says;
    # "execution_flags": no field, the DML_EXECUTION_FLAGS the operator is compiled with (execution_flags())
    kind: str
    default: object
    description: str
    choices: tuple = ()  # an enum's value names
    enum_values: dict = field(default_factory=dict)  # an enum's name -> value (DirectML.h)
    typed_by: str | None = None  # a "scalar" field: the "data_type" field that types it
    # tensor data type -> what the description holds for this field when a case leaves it unset
    # (None), where the page gives no default (dml-direct writes every field)
    unset: Callable | None = None
    tensors: tuple = ()  # a "tensor_type": the tensors (struct field names) whose data type it is
    # An array field: the struct's count field before it (AxisCount, DimensionCount), the array's
    # length; implied, never written by a case. Arrays naming one count field have one length.
    count: str | None = None
    # An array that is no field of the struct: the sizes of the tensor it names ("OutputTensor"), where
    # the page lets a case choose them within what the fields allow (SLICE1's output: any
    # 1 <= OutputSizes[i] <= MaxCopiedElements[i]); None: the spec's shape rule's own sizes
    sizes_of: str | None = None
    # An array that is no field of the struct: one value per tensor of the tensor array it names (JOIN's
    # InputTensors, SPLIT's OutputTensors: each one's size along Axis); its `count` is that array's, so
    # its length is the number of tensors a case gives (Input.count, Output.count)
    per_tensor: str | None = None
    # A float_array field read per element along a dimension (VALUE_SCALE_2D's Bias: Bias[c] along
    # dimension 1, the channel): the d3d formula names it as an input, input_("Bias"), and the judge
    # gives each element its own value (conformance/judge/per_element.py)
    along: int | None = None
    # The other fields `unset` reads, as keywords (REDUCE's OutputType: UINT32 for ARGMAX, else the input's)
    unset_reads: tuple = ()

    def unset_value(self, dtype: str, params: dict):
        """What `unset` holds for this field in a case of data type dtype with these field values."""
        return self.unset(dtype, **{name: (params or {}).get(name) for name in self.unset_reads})

    @property
    def array(self) -> bool:
        return self.kind in ARRAY_KINDS


# A list-valued field's kind -> the kind of each element (Axes, Sizes: UINT; Offsets: INT; Scales: FLOAT).
# size_2d: a DML_SIZE_2D held by value (UPSAMPLE_2D's ScaleSize), written as the list [Width, Height] of
# its UINT members in the header's order; no count field.
ARRAY_KINDS = {"uint_array": "uint", "int_array": "int", "float_array": "float", "size_2d": "uint"}


@dataclass(frozen=True)
class OnnxNode:
    op_type: str
    opset: int
    attributes: dict = field(default_factory=dict)
    constant_inputs: tuple = ()  # numpy arrays, passed as initializers after x
    domain: str = ""  # "" for ONNX itself, e.g. "com.microsoft" for ONNX Runtime's contrib operators
    output_type: str | None = None  # the ONNX output's numpy type where it is not the input's (IsNaN: bool)
    # Several inputs: each graph input's numpy type, in the page's order (set by the backends from the
    # spec's inputs; empty: one input of the case's type)
    input_types: tuple = ()
    # Nodes applied in turn to this node's output, each of one input (ADD1: Add, then its activation)
    then: tuple = ()
    # Its graph holds no other node: a shared graph feeds the nodes a run does not use ones of shape
    # (1,), which a node blocked by 1 (QuantizeLinear's element-wise scale) takes as per tensor and refuses
    alone: bool = False
    # Its outputs, where several (TopK: Values, Indices): the graph's y, y_1, ...; the backends give a tuple
    outputs: int = 1
    # Each output's DirectML type where ONNX's differs (TopK's int64 indices: UINT32), read as that type
    directml_types: tuple = ()
    # Its outputs are a tuple even where there is one (SPLIT into one tensor: a tensor array of one)
    tuple_outputs: bool = False
    # The node's inputs, where its order is not the graph inputs then constant_inputs: positions in that
    # list (OneHot's (indices, depth, values): the depth initializer between two graph inputs, (0, 2, 1))
    input_order: tuple = ()
    # The graph has no input (an operator of no input tensor: ConstantOfShape, Range): the node reads
    # its initializers alone (set by onnx_models.node_for)
    reads_no_input: bool = False


@dataclass(frozen=True)
class Input:
    """One input tensor of an operator, as its page names it (the DML_*_OPERATOR_DESC field)."""
    name: str  # "InputTensor", "ATensor", "BTensor", "ConditionTensor", ...
    # "data": of the case's data type; other roles name what the input is for ("indices": an index
    # tensor, its values drawn within OperatorSpec.index_bounds by the `indices` generator)
    role: str = "data"
    broadcast: bool = True  # may be broadcast (zero strides in its DML_BUFFER_TENSOR_DESC)
    aliases_output: bool = True  # the output may alias it in place (where the page allows in-place)
    # case data type -> this input's data type, where it is not the case's (IF's condition: uint8)
    dtype: Callable | None = None
    # A tensor array (JOIN's InputTensors): the struct's count field (InputCount) before a pointer to
    # that many DML_TENSOR_DESCs; a case gives the count through the Parameter naming it (per_tensor)
    count: str | None = None
    # A tensor array whose k-th tensor the page gives its own role and type (QUANTIZE's QuantizationTensors:
    # the scale, then the zero point): each member an Input, and params -> how many a case binds (the
    # first that many; QuantizationType SCALE: 1, SCALE_ZERO_POINT: 2), in place of a per_tensor parameter
    members: tuple = ()
    length: Callable | None = None
    # _Maybenull_ (DIAGONAL_MATRIX1's InputTensor): a case chooses it by a Parameter of kind "optional_tensor"
    # of its name; an absent one is NULL in the description and no input of the case
    optional: bool = False
    # Where the page's tables give this input dimension counts of its own (ROI_ALIGN's ROITensor: 2 to 4), else
    # None: the spec's (its tables')
    ranks: tuple | None = None

    @property
    def short(self) -> str:
        """The name without "Tensor" (A, B, Condition; a tensor array's k-th: Inputs[1]): case ids,
        reports, oracle keywords."""
        return short_name(self.name)

    def data_type(self, case_dtype: str) -> str:
        """This input's data type by the page's rule (OperatorSpec.tensor_type: as a case chooses)."""
        return self.dtype(case_dtype) if self.dtype else case_dtype


def short_name(name: str) -> str:
    """A tensor field's name without "Tensor": InputTensor -> Input, InputTensors[1] -> Inputs[1]."""
    return re.sub(r"Tensor(?=s?(\[\d+\])?$)", "", name) or name


def expand(tensors, params: dict, parameters) -> tuple:
    """Inputs or Outputs with each tensor array (count set) replaced by its tensors, name[k], as many as
    the case's per_tensor parameter has values (none where it is unset)."""
    result = []
    for tensor in tensors:
        if tensor.count is None:
            result.append(tensor)
            continue
        if getattr(tensor, "members", ()):
            chosen = tensor.members[:tensor.length(params or {})]
            result += [replace(m, name=f"{tensor.name}[{k}]", count=None) for k, m in enumerate(chosen)]
            continue
        given = next((params.get(p.name) for p in parameters if p.per_tensor == tensor.name), None) or ()
        result += [replace(tensor, name=f"{tensor.name}[{k}]", count=None) for k in range(len(given))]
    return tuple(result)


ONE_INPUT = (Input("InputTensor"),)
A_B = (Input("ATensor"), Input("BTensor"))


@dataclass(frozen=True)
class Output:
    """One output tensor, as its page names it (OutputTensor; TOP_K's OutputValueTensor, OutputIndexTensor)."""
    name: str
    # case data type -> this output's type, where it is not spec.output_dtype's (an index output's UINT32)
    dtype: Callable | None = None
    # An index output (judged by the set of indices the page allows: conformance/judge/indices.py):
    # (inputs, params) -> a boolean array of this output's shape + (n,), True where index j is allowed
    allowed: Callable | None = None
    # params -> whether this output is an index (REDUCE's OutputTensor: for ARGMAX and ARGMIN alone); None: always
    allowed_when: Callable | None = None
    # A value output selected by an index output: that output's name, and (inputs, indices, params) ->
    # the values those indices select (judged against them where the device's indices are allowed)
    indices_from: str | None = None
    gather: Callable | None = None
    # _Maybenull_: a case may leave it NULL, by a Parameter of kind "optional_tensor" of its name
    # (optional_tensor(): "present" or "absent"); OperatorSpec.outputs_for gives those a case binds
    optional: bool = False
    count: str | None = None  # a tensor array (SPLIT's OutputTensors), as Input.count
    # A computed output that is neither a copy nor an index (conformance/judge/bounded.py): (inputs,
    # params) -> (lo, hi), each element's bounds in its type where the rules allow more than one value
    # (DYNAMIC_QUANTIZE_LINEAR's float32 scale); without bounds or derived: the oracle's value exactly
    bounds: Callable | None = None
    # An output the page computes from other outputs (DYNAMIC_QUANTIZE_LINEAR's quantized tensor from its
    # scale and zero point): their names, and (inputs, {name: the device's value}, params) -> its value,
    # judged exactly against what the device's own outputs give where those passed their judgement
    derived_from: tuple = ()
    derived: Callable | None = None
    # An index output whose indices count over a slice of the first input (ARGMAX, TOP_K): a wrong one is
    # named by that slice and the input values at its indices; False: by the indices alone (NONZERO_COORDINATES)
    slice_of_input: bool = True
    # (inputs, params) -> a boolean mask of this output's shape, True where the page leaves the element
    # undefined (NONZERO_COORDINATES' rows past the count): any value is accepted there
    undefined: Callable | None = None
    # An index output written one-hot in the input's shape (HARDMAX: 1 at the index allowed over its slice,
    # 0 elsewhere): params -> the axes the slice spans (negative: from the last). Output.allowed counts
    # the slice row-major over them in ascending order; the judge reads the device's 1 as that index.
    indicator_axes: Callable | None = None

    @property
    def short(self) -> str:
        """The name without "Tensor" (OutputValue, OutputIndex; Outputs[1]): records and reports."""
        return short_name(self.name)


ONE_OUTPUT = (Output("OutputTensor"),)
PRESENT, ABSENT = "present", "absent"
# Parameters that are no field of the struct, each a choice among its `choices`: a tensor's data type,
# an optional tensor's presence, the DML_EXECUTION_FLAGS the operator is compiled with
NO_FIELD_KINDS = ("tensor_type", "optional_tensor", "execution_flags")

# DML_EXECUTION_FLAGS (DirectML.h) that IDMLDevice::CompileOperator takes, named without their
# DML_EXECUTION_FLAG_ prefix (their values: conformance/dmldirect/abi.py). A case's value names them
# joined by "|", as DirectML.h's C code ORs them. Half precision is a permission, not a fact: with
# ALLOW_HALF_PRECISION_COMPUTATION DirectML may compute in float16, so the judge allows for that
# (half_precision_allowed) whether or not a device takes it. docs/execution-flags.md.
EXECUTION_FLAGS = "ExecutionFlags"
NO_EXECUTION_FLAGS = "NONE"
ALLOW_HALF_PRECISION = "ALLOW_HALF_PRECISION_COMPUTATION"
DISABLE_META_COMMANDS = "DISABLE_META_COMMANDS"
FLAG_SEPARATOR = "|"
_FLAG_ORDER = (ALLOW_HALF_PRECISION, DISABLE_META_COMMANDS)  # DirectML.h's order (0x1, 0x2)


def optional_tensor(name: str, description: str) -> Parameter:
    """The presence of the _Maybenull_ tensor field `name`, which a case chooses: "present" (the
    default) or "absent" (NULL in the description; no such output in the results)."""
    return Parameter(name, "optional_tensor", PRESENT, f"Not a field: whether {name} is bound. {description}",
                     choices=(PRESENT, ABSENT))


def flags_word(flags) -> str:
    """A set of execution flag names as a case writes it: in DirectML.h's order, joined by "|"; NONE."""
    unknown = set(flags) - set(_FLAG_ORDER)
    if unknown:
        raise ValueError(f"no DML_EXECUTION_FLAG_{', '.join(sorted(unknown))} a case may choose")
    return FLAG_SEPARATOR.join(f for f in _FLAG_ORDER if f in flags) or NO_EXECUTION_FLAGS


EXECUTION_FLAG_CHOICES = tuple(flags_word(chosen) for chosen in
                               ((), (ALLOW_HALF_PRECISION,), (DISABLE_META_COMMANDS,), _FLAG_ORDER))


def execution_flags() -> Parameter:
    """The DML_EXECUTION_FLAGS a case's operator is compiled with: NONE (the default),
    ALLOW_HALF_PRECISION_COMPUTATION, DISABLE_META_COMMANDS or both (EXECUTION_FLAG_CHOICES)."""
    return Parameter(EXECUTION_FLAGS, "execution_flags", NO_EXECUTION_FLAGS,
                     "Not a field: the DML_EXECUTION_FLAGS IDMLDevice::CompileOperator gets. "
                     "ALLOW_HALF_PRECISION_COMPUTATION lets DirectML compute in float16 (the judge allows for it); "
                     "DISABLE_META_COMMANDS makes it run its own shaders instead of the driver's metacommands.",
                     choices=EXECUTION_FLAG_CHOICES)


def flags_of(params) -> set:
    """The execution flag names a case's fields choose (none where its spec has no ExecutionFlags)."""
    value = (params or {}).get(EXECUTION_FLAGS) or NO_EXECUTION_FLAGS
    return set(value.split(FLAG_SEPARATOR)) - {NO_EXECUTION_FLAGS}


def computed_fields(params) -> dict:
    """The fields that say what an operator computes, which the oracle takes: all but ExecutionFlags
    (how DirectML may compute it)."""
    return {name: value for name, value in (params or {}).items() if name != EXECUTION_FLAGS}


def half_precision_allowed(params) -> bool:
    """Whether the case lets DirectML compute in float16 (ALLOW_HALF_PRECISION_COMPUTATION)."""
    return ALLOW_HALF_PRECISION in flags_of(params)


def same_type(dtype: str) -> str:
    """The output data type of an operator whose output has its input's data type."""
    return dtype


@dataclass(frozen=True)
class OperatorSpec:
    name: str  # e.g. "ACTIVATION_CELU"
    struct: str  # e.g. "DML_ACTIVATION_CELU_OPERATOR_DESC"
    formula: str
    summary: str
    parameters: tuple
    introduced: str
    tables: tuple  # SupportTable, newest first as on the page
    in_place: bool
    constraints: str
    tolerance_ulp: dict  # dtype -> ULP; integer types are exact
    onnx_route: str  # how ONNX Runtime reaches it, in words
    to_onnx: Callable  # (dtype, params) -> OnnxNode, or raises NotReachable
    source: str  # the seed page
    notes: tuple = ()
    # (dtype, params) -> list of inputs that probe this operator's edges
    special_values: Callable | None = None
    # input data type -> output data type, where the page lets them differ (IS_NAN: FLOAT32 -> UINT8)
    output_dtype: Callable[[str], str] = same_type
    # The d3d model: params (FLOAT fields as float32, ScaleBias left out) -> the formula in
    # primitives (conformance/specs/primitives.py) as DirectML's shaders compute it. None: exact.
    d3d: Callable | None = None
    # The d3d model where the rules give each element a set rather than a formula (CAST: either of two
    # roundings, any value where they say none): (flat input, output type) -> (lo, hi, may be a number,
    # may be NaN), lo and hi in the output's type (conformance/specs/conversion.py)
    accepted: Callable | None = None
    keeps_sign: bool = False  # the result never has the opposite sign to the exact one
    output_range: Callable | None = None  # (params, dtype) -> (lowest, highest) the output may be
    family: Family = ELEMENT_WISE  # conformance/specs/families.py: what the judge and the loader ask of it
    # params -> the feature level from which the pages allow these field values (None: any level)
    parameter_level: Callable | None = None
    # The integer semantics, where the page has integer types: (params, dtype) -> a function of one
    # Python int giving the exact result (the page's wrap or saturation applied; where the page is
    # silent, the documented choice), or None where the fields make it a float computation
    # (ScaleBias). Written apart from the oracle, which tests/test_registry.py holds to it.
    integers: Callable | None = None
    # The input tensors in the page's order (the struct's fields before OutputTensor); the oracle,
    # the ONNX graphs and dml-direct's bindings take them in this order.
    inputs: tuple = ONE_INPUT
    # The output tensors in the page's order (Output); the oracle and every backend give a tuple of
    # arrays, one per output, where there are several
    outputs: tuple = ONE_OUTPUT
    # Whether the ONNX node broadcasts its inputs as DirectML's zero strides do (DequantizeLinear's
    # scale is a scalar, per axis or blocked: a broadcast case is not reachable through ONNX Runtime)
    onnx_broadcasts: bool = True
    # (input, dtype, params) -> None, or one line where the ONNX node's result is undefined on some of
    # these input values (Cast of NaN to an integer): the case is then not reachable through ONNX Runtime
    onnx_undefined: Callable | None = None
    # (OnnxNode, case shape) -> the node for a case of that shape, where the node depends on it
    # (QuantizeLinear's one-element scale is per tensor, not blocked)
    onnx_for_shape: Callable | None = None
    # Its own shape rule and check, where its family's do not apply (conformance/specs/shapes.py):
    # (input shapes, params) -> a tuple of output shapes; (input shapes, params) -> None or one line
    output_shapes_rule: Callable | None = None
    shape_check: Callable | None = None
    # The struct's field names in the header's order, where it is not the inputs, OutputTensor, then
    # each parameter (an array's count field just before the first array that names it); DirectML's
    # DML_REDUCE_OPERATOR_DESC starts with Function, then its tensors, then AxisCount and Axes.
    struct_order: tuple = ()
    # An operator each of whose output elements is one input element copied unchanged (every family
    # that copies; MAX_POOLING's values too): (output index, one array per output dimension; the
    # input arrays in the page's order; params) -> (which input, an array, -1 where the page fills a
    # constant instead (PADDING's PaddingValue); the index in it, one array per input dimension).
    # Such an operator is judged exactly (conformance/judge/moved.py), its wrong elements named by source.
    source_index: Callable | None = None
    # Where the page leaves open which of several copies an element holds (SCATTER_ND's colliding
    # writes: "no guarantee of which last write wins"): (output index, inputs, params) -> a list of
    # (which, source) as source_index gives, each an element may equal instead (moved.py accepts any)
    source_alternatives: Callable | None = None
    # An input of role "indices": (input shapes, params) -> an integer array, broadcastable to that
    # input's shape, of the size of the dimension each index element addresses (GATHER: the Axis
    # dimension; GATHER_ND: each coordinate's own). The `indices` generator draws within it.
    index_bounds: Callable | None = None
    # params -> the index input's dimension along which `distinct: true` indices differ (SCATTER: Axis,
    # each line of indices writing one line of the output); None: index tuples along its last dimension
    index_axis: Callable | None = None
    # Where the ONNX node takes an input in another shape than DirectML's (DirectML's leading ones
    # dropped, as Gather's indices): (input shapes, params) -> each input's shape as the node takes
    # it. The ONNX routes reshape the inputs so, and the node's output to the case's output shape (the
    # same elements in the same order).
    onnx_shapes: Callable | None = None
    # Where the inputs' own shapes follow from the case's shape and fields (JOIN: the joined shape cut
    # along Axis into each input's size): (case shape, params) -> each input tensor's shape, in order
    input_shapes_rule: Callable | None = None
    # Where an input's own smaller shape is no broadcast but blocks (QUANTIZE's blocked scales): (inputs,
    # params) -> each input in the output's shape, as the element-wise judge reads them
    spread: Callable | None = None
    # Where the page defines an index outside the dimension it addresses (ONE_HOT: ignored), its words: a
    # case's `values` may then hold such indices. None: an index out of range is refused at load.
    indices_outside: str | None = None
    # Where the page constrains an input's values (ROI_POOLING's ROIs: a BatchID of the input, x2 >= x1):
    # (input short name, its values as a case file gives them ({kind: values}), else None; input shapes;
    # params) -> None or one line; the case is refused at load with its file and line
    values_check: Callable | None = None
    # Where the ONNX node's outputs are laid out otherwise than DirectML's (NonZero's [rank, count] for
    # NONZERO_COORDINATES' count and coordinate rows): (the node's output or outputs, input shapes, params) ->
    # DirectML's output or tuple of outputs. The ONNX routes apply it to every outcome with an output.
    from_onnx: Callable | None = None
    # An accumulating operator (REDUCE, GEMM, softmax, ...): its formula as steps, a tuple of alternatives
    # (conformance/specs/accumulation.py), judged within the sound interval they compose
    # (conformance/judge/accumulated.py), or params -> that tuple where the fields choose the formula
    # (REDUCE's Function; empty: not an accumulation, as REDUCE's ARGMAX); and the `ulp` model's
    # tolerance for a case, WebNN's count: (input shapes, params, dtype) -> ULP
    accumulation: tuple | Callable = ()
    # Where the page's tables differ by field values (REDUCE's by Function): params -> the tables that apply
    # (`tables` then holds every table, for what lists them all)
    tables_by_fields: Callable | None = None
    ulp_tolerance: Callable | None = None
    # params -> whether an accumulation's integer output is its real result converted by a rounding the page
    # does not give (RESAMPLE's LINEAR INT8): any integer from the floor to the ceiling of the real result's
    # float32 interval; None (or False): an integer output is exact (an integer sum)
    rounded_integers: Callable | None = None

    def accumulation_for(self, params: dict | None) -> tuple:
        """The alternatives of steps a case of these field values is judged by (empty: none)."""
        return self.accumulation(params or {}) if callable(self.accumulation) else self.accumulation

    def tables_for(self, params: dict | None) -> tuple:
        """The support tables that apply to a case of these field values (REDUCE's differ by Function)."""
        return self.tables_by_fields(params) if self.tables_by_fields and params is not None else self.tables

    def input_tensors(self, params: dict) -> tuple:
        """Each input tensor of a case with these fields, a tensor array's each (InputTensors[k])."""
        absent = self.absent_tensors(params)
        return expand(tuple(i for i in self.inputs if i.name not in absent), params, self.parameters)

    def output_shapes(self, input_shapes, params: dict) -> tuple:
        """Each output's shape, from each input's shape (in the page's order) and the field values."""
        rule = self.output_shapes_rule or self.family.output_shapes
        if rule is None:
            raise NotImplementedError(f"{self.name}: the {self.family.name} family has no default shape rule; "
                                      "give the spec an output_shapes_rule")
        return tuple(tuple(int(n) for n in shape) for shape in rule(tuple(map(tuple, input_shapes)), params))

    def shape_problem(self, input_shapes, params: dict) -> str | None:
        """Why a case of these input shapes and field values cannot be (one line), or None."""
        check = self.shape_check or self.family.shape_check
        return check(tuple(map(tuple, input_shapes)), params) if check else None

    def outputs_for(self, params) -> tuple:
        """The outputs a case of these field values binds: every one but an optional one left absent, a
        tensor array's each (SPLIT's OutputTensors[k])."""
        absent = self.absent_tensors(params)
        return expand(tuple(o for o in self.outputs if o.name not in absent), params or {}, self.parameters)

    def tuple_outputs(self, params) -> bool:
        """Whether a case's outputs come as a tuple: several bound, or a tensor array's (SPLIT into one)."""
        return len(self.outputs_for(params)) > 1 or self.output_arrays

    def absent_tensors(self, params) -> tuple:
        """The optional tensor fields these values leave NULL."""
        return tuple(t.name for t in (*self.inputs, *self.outputs) if t.optional and (params or {}).get(t.name) == ABSENT)

    @property
    def several_outputs(self) -> bool:
        return len(self.outputs) > 1 or self.output_arrays

    @property
    def output_arrays(self) -> bool:
        """An output is a tensor array (SPLIT's OutputTensors)."""
        return any(o.count for o in self.outputs)

    @property
    def copies(self) -> bool:
        """Each output element is one input element copied unchanged (source_index says which):
        judged exactly (conformance/judge/moved.py), nothing flushed or tabulated."""
        return self.source_index is not None

    @property
    def several_inputs(self) -> bool:
        return len(self.inputs) > 1 or any(i.count for i in self.inputs)

    @property
    def per_element_fields(self) -> tuple:
        """The fields read per element along a dimension (Parameter.along)."""
        return tuple(p for p in self.parameters if p.along is not None)

    def input(self, name: str) -> Input | None:
        """The input named (its struct name or short); a tensor array's k-th (Inputs[1]) is the array."""
        name = re.sub(r"\[\d+\]$", "", name)
        return next((i for i in self.inputs if name in (i.name, i.short)), None)

    @property
    def dtypes(self) -> tuple:
        seen = []
        for table in self.tables:
            seen += [d for d in table.dtypes if d not in seen]
        return tuple(seen)

    @property
    def ranks(self) -> tuple:
        return tuple(sorted({r for table in self.tables for r in table.ranks}))

    def ranks_of(self, tensor: str | None) -> tuple:
        """The dimension counts any table gives the input of that short name (SupportTable.tensor_ranks)."""
        return tuple(sorted({r for table in self.tables for r in table.ranks_of(tensor)}))

    @property
    def fields(self) -> tuple:
        """The parameters that are fields of the struct (after OutputTensor, in order)."""
        return tuple(p for p in self.parameters if p.kind not in NO_FIELD_KINDS and p.sizes_of is None
                     and p.per_tensor is None)

    def tensor_type(self, tensor: str, dtype: str, params: dict | None = None) -> str:
        """The data type of the tensor named (an input's or OutputTensor) in a case of data type dtype
        with these field values: a "tensor_type" field's, where the case gives one, else the page's."""
        for p in self.parameters:
            if p.kind == "tensor_type" and tensor in p.tensors and (params or {}).get(p.name) is not None:
                return params[p.name]
        output = next((o for o in self.outputs if o.name == re.sub(r"\[\d+\]$", "", tensor)), None)
        if output is not None:
            return output.dtype(dtype) if output.dtype else self.output_dtype(dtype)
        if tensor == "OutputTensor":
            return self.output_dtype(dtype)
        member = next((i for i in self.input_tensors(params or {}) if i.name == tensor), None)
        return (member or self.input(tensor)).data_type(dtype)

    def parameter(self, name: str) -> Parameter | None:
        return next((p for p in self.parameters if p.name == name), None)

    def defaults(self) -> dict:
        return {p.name: p.default for p in self.parameters}

    def required_level(self, dtype: str, rank: int, params: dict | None = None, tensor: str | None = None) -> \
            str | None:
        """The lowest feature level at which the page requires (dtype, rank) with these field values; tensor: of
        the input of that short name, where a table gives it dimension counts of its own (None: the tables')."""
        levels = [t.level for t in self.tables_for(params) if dtype in t.dtypes and rank in t.ranks_of(tensor)]
        if not levels:
            return None
        level = min(levels, key=featurelevels.index)
        needed = self.parameter_level(params) if self.parameter_level and params is not None else None
        return max(level, needed, key=featurelevels.index) if needed else level

    def tolerance(self, dtype: str) -> int:
        return self.tolerance_ulp.get(dtype, 0)


FLOATS = ("float32", "float16")
SAME_TYPE_AND_SHAPE = "InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes."
INTEGERS_32 = ("int32", "int16", "int8", "uint32", "uint16", "uint8")
INTEGERS_64 = ("int64", "uint64")
ONE_TO_EIGHT = tuple(range(1, 9))
SAME_TENSORS = "InputTensor and OutputTensor must have the same DataType, DimensionCount and Sizes."
# The activations' common history: 4-D at 1_0, 4 to 5-D at 2_0, 1 to 8-D at 3_0, FLOAT32 and FLOAT16.
ACTIVATION_TABLES = (SupportTable("3_0", ONE_TO_EIGHT, FLOATS), SupportTable("2_0", (4, 5), FLOATS),
                     SupportTable("1_0", (4,), FLOATS))
SCALE_BIAS = Parameter("ScaleBias", "scale_bias", None,
                       "Optional DML_SCALE_BIAS {Scale, Bias}: g(x) = x * Scale + Bias before the operator.")


# -- operators of two inputs (A, B) -------------------------------------------------------------------
ALL_TYPES = FLOATS + ("int64", "int32", "int16", "int8", "uint64", "uint32", "uint16", "uint8")
SAME_TYPES_A_B = "ATensor, BTensor, and OutputTensor must have the same DataType, DimensionCount, and Sizes."
ADD_HISTORY = (SupportTable("5_1", ONE_TO_EIGHT, ALL_TYPES),  # ELEMENT_WISE_ADD's page; SUBTRACT and MULTIPLY alike
               SupportTable("4_1", ONE_TO_EIGHT, FLOATS + ("int64", "int32", "uint64", "uint32")),
               SupportTable("3_0", ONE_TO_EIGHT, FLOATS + ("int32", "uint32")),
               SupportTable("2_1", (4, 5), FLOATS + ("int32", "uint32")),
               SupportTable("1_0", (4, 5), FLOATS))


def arithmetic_specials(dtype: str, params: dict) -> list:
    """Where a float sum or product turns: one ULP around 1 and -1 (cancellation), half the largest
    finite value and the largest (overflow); integers: the extremes already cover it."""
    if np.dtype(dtype).kind != "f":
        return []
    biggest = float(np.finfo(dtype).max)
    return neighbours([1.0, -1.0, biggest / 2, -biggest / 2, biggest], dtype)


def around(value, dtype: str) -> list:
    """value in the tensor type and its neighbours: one ULP either side for floats, +-1 for integers."""
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            cast = target.type(value)
            return [np.nextafter(cast, target.type(-np.inf)), cast, np.nextafter(cast, target.type(np.inf))]
    info = np.iinfo(target)
    return [v for v in (int(value) - 1, int(value), int(value) + 1) if info.min <= v <= info.max]


def float_tables(first_level: str) -> tuple:
    """The tables of a float-only element-wise page: 1 to 8 dimensions from 3_0, 4 from first_level."""
    return (SupportTable("3_0", ONE_TO_EIGHT, FLOATS), SupportTable(first_level, (4,), FLOATS))


def scale_bias_not_reachable(params: dict):
    if params.get("ScaleBias") is not None:
        raise NotReachable("ScaleBias: ONNX Runtime never fills DML_SCALE_BIAS "
                           "(a Mul+Add graph tests other operators)")


def one_node(op_type: str, opset: int, output_type: str | None = None) -> Callable:
    """to_onnx of an operator that ONNX has as one node without attributes (ScaleBias not reachable)."""
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        scale_bias_not_reachable(params)
        return OnnxNode(op_type, opset, output_type=output_type)
    return to_onnx


def no_onnx(reason: str) -> Callable:
    """to_onnx of an operator that no ONNX node reaches: every case is not reachable, for reason."""
    def to_onnx(dtype: str, params: dict) -> OnnxNode:
        raise NotReachable(reason)
    return to_onnx


def one_element_per_tensor(node: OnnxNode, shape) -> OnnxNode:
    """onnx_for_shape of QuantizeLinear and DequantizeLinear blocked by 1 along axis 0 (element-wise):
    a rank-1 case of one element has a one-element 1-D scale, which ONNX Runtime takes as per tensor
    and refuses with a block size ("block_size must be 0 for per-tensor quantization"). Per tensor,
    the default block size 0, is the same arithmetic for one element."""
    if tuple(shape) != (1,):
        return node
    return replace(node, attributes={k: v for k, v in node.attributes.items() if k != "block_size"})


def page(struct: str) -> str:
    """The public address of a DirectML operator description's page."""
    return f"https://learn.microsoft.com/windows/win32/api/directml/ns-directml-{struct.lower()}"


def neighbours(values, dtype: str) -> list:
    """Each value in the tensor type, with the values one step below and above it."""
    result = []
    with np.errstate(over="ignore"):
        for value in values:
            cast = np.array(value, dtype=np.float64).astype(dtype)
            result += [np.nextafter(cast, cast.dtype.type(-np.inf)), cast,
                       np.nextafter(cast, cast.dtype.type(np.inf))]
    return [float(v) for v in result]


def integral_edges(dtype: str) -> list:
    """Where rounding to an integer turns: halves and quarters of both signs (the sign of a zero
    result included), and the last non-integers below 2^(mantissa bits)."""
    whole = 2.0 ** np.finfo(dtype).nmant
    fractions = [0.25, 0.5, 0.75, 1.5, 2.5]
    return fractions + [-v for v in fractions] + neighbours([whole, -whole], dtype)


# -- integer semantics on Python ints (OperatorSpec.integers), written apart from the oracles --------

def wrap(value: int, dtype: str) -> int:
    """Two's complement wraparound into dtype (where a page is silent: |INT_MIN|, -INT_MIN, ~x)."""
    info = np.iinfo(dtype)
    return (value - info.min) % (1 << info.bits) + info.min


def saturate(value: int, dtype: str) -> int:
    info = np.iinfo(dtype)
    return min(max(value, info.min), info.max)


def exact_field(value) -> Fraction:
    """A FLOAT field (a float32) as an exact rational."""
    return Fraction(float(np.float32(value)))


def cast_bound(bound, dtype: str) -> int:
    """A FLOAT bound in an integer tensor's type: toward zero, saturating (NaN: 0)."""
    value = float(np.float32(bound))
    info = np.iinfo(dtype)
    whole = 0 if value != value else info.max if value == math.inf else info.min if value == -math.inf else int(value)
    return saturate(whole, dtype)


def scaled_integers(params: dict, dtype: str):
    """x * Scale + Bias on an integer exactly, truncated toward zero; None without ScaleBias."""
    scale_bias = params.get("ScaleBias")
    if scale_bias is None:
        return None
    scale, bias = exact_field(scale_bias.get("Scale", 1.0)), exact_field(scale_bias.get("Bias", 0.0))
    return lambda x: int(x * scale + bias)
