"""The harness's side of dml-direct: an operator's spec -> the layout of its DML_*_OPERATOR_DESC,
and a case -> the request the worker builds that description from.

The worker (conformance/dmldirect/service.py, under the Windows Python) has no conformance.specs,
so every case carries its description: the DML_OPERATOR_TYPE name, the struct's name and its fields
in declaration order (InputTensor, OutputTensor, then the spec's fields, each with its
Parameter.kind; a fused activation as its own description's layout and values; a "tensor_type"
parameter is no field: it types tensors), and the field values in the forms
describe.OperatorDescription reads. Only this module reads the specs; no operator is named here or
in the worker.
"""
import numpy as np

from conformance import specs
from conformance.dmldirect import abi
from conformance.specs import fused
from conformance.specs.base import flags_of, flags_word

FLAG_PREFIX = "DML_EXECUTION_FLAG_"


class NoDescription(Exception):
    """DirectML.h has no operator type for this spec: dml-direct cannot reach it."""


def layout(spec, absent=()) -> dict:
    """{"type", "struct", "fields": [[name, kind], ...], "outputs": [name, ...]} of spec's operator
    description; absent: the optional tensors a case leaves NULL (kind absent_tensor)."""
    type_name = f"DML_OPERATOR_{spec.name}"
    if type_name not in abi.ENUMS:
        raise NoDescription(f"dml-direct: DirectML.h (DML_OPERATOR_TYPE) has no {type_name}")
    kinds = {}
    for tensor in (*spec.inputs, *spec.outputs):  # a tensor array: its count, then a pointer to its descs
        if tensor.count:
            kinds[tensor.count] = "count"
        kinds[tensor.name] = "tensor_array" if tensor.count else "tensor"
    order = list(kinds)
    for p in spec.fields:
        if p.array and p.count and p.count not in kinds:
            kinds[p.count] = "count"
            order.append(p.count)
        kinds[p.name] = p.kind
        order.append(p.name)
    if spec.struct_order:
        if sorted(spec.struct_order) != sorted(order):
            raise ValueError(f"{spec.name}: struct_order {list(spec.struct_order)} names other fields than its "
                             f"tensors, counts and parameters ({', '.join(order)})")
        order = list(spec.struct_order)
    fields = [[name, "absent_tensor" if name in absent else kinds[name]] for name in order]
    unknown = [f"{name} ({kind})" for name, kind in fields if kind not in abi.DESC_FIELD_KINDS
               or kind == "tensor" and name not in (*(o.name for o in spec.outputs), *(i.name for i in spec.inputs))]
    if unknown:
        raise ValueError(f"{spec.name}: no description field kind for {', '.join(unknown)}; "
                         f"known: {', '.join(k for k in abi.DESC_FIELD_KINDS if k != 'tensor')}")
    # the output tensors by name: an input may be named Output... too (OutputScaleTensor, a quantizer's)
    return {"type": type_name, "struct": spec.struct, "fields": fields, "outputs": [o.name for o in spec.outputs]}


def request(spec, dtype: str, shape, params: dict, in_place: bool = False, inputs=(), output_strides=(),
            output_shape=None, output_shapes=None, input_strides=()) -> dict:
    """What the worker needs to build and run a case's description (its input travels apart).
    spec: an OperatorSpec or its name; params: DirectML field names, fields left out take the
    spec's defaults; inputs: a case's CaseInputs (several inputs: each one's type, own shape and
    broadcast dimensions, which become zero strides), in_place: True, or the input the output
    aliases. output_strides: the output's strides in elements (empty: packed); input_strides: the one
    input's (its storage, conformance/caseset/strides.py, travels in place of the input). output_shapes: each
    output's sizes, for an operator of several outputs (each output's type from the spec).
    execution_flags: the DML_EXECUTION_FLAGS the worker compiles with (the case's ExecutionFlags). Raises NoDescription (not reachable), or KeyError / ValueError naming the operator or
    field that cannot be written."""
    spec = specs.get(spec) if isinstance(spec, str) else spec
    unknown = set(params) - set(spec.defaults())
    if unknown:
        raise KeyError(f"{spec.name} has no field(s) {', '.join(sorted(unknown))}")
    values = {**spec.defaults(), **params}
    dtype = str(np.dtype(dtype))
    names = [i.name for i in inputs]
    aliased = (names.index(in_place) if isinstance(in_place, str) else 0) if in_place else None
    bound = spec.outputs_for(values)
    output_dtype = str(np.dtype(spec.tensor_type(bound[0].name, dtype, values)))
    outputs = [{"name": o.name, "dtype": str(np.dtype(spec.tensor_type(o.name, dtype, values))),
                "shape": [int(n) for n in shape]} for o, shape in zip(bound, output_shapes or ())]
    return {"op": spec.name, "dtype": dtype, "output_dtype": output_dtype,
            "shape": [int(s) for s in shape], "in_place": bool(in_place), "in_place_input": aliased,
            "desc": layout(spec, spec.absent_tensors(values)), "params": _wired(spec, values, dtype),
            "inputs": [{"dtype": str(np.dtype(i.dtype)), "shape": [int(n) for n in i.shape],
                        "broadcast": [int(d) for d in i.broadcast],
                        **({"sizes": [int(n) for n in i.sizes]} if getattr(i, "sizes", ()) else {})}
                       for i in inputs],
            "output_strides": [int(s) for s in output_strides] or None,
            "input_strides": [int(s) for s in input_strides] or None,
            "output_shape": None if output_shape is None else [int(n) for n in output_shape],
            "outputs": outputs if spec.tuple_outputs(values) else None,
            "execution_flags": flags_value(flags_of(values))}


def flags_value(names) -> int:
    """Execution flag names (specs.base.flags_of) -> the DML_EXECUTION_FLAGS value CompileOperator takes."""
    return sum(abi.ENUMS[FLAG_PREFIX + name] for name in names)


def flag_names(value: int) -> str:
    """A DML_EXECUTION_FLAGS value as a case writes it (specs.base.flags_word): what a record says."""
    return flags_word({name[len(FLAG_PREFIX):] for name, bit in abi.ENUMS.items()
                       if name.startswith(FLAG_PREFIX) and bit and value & bit})


def _wired(spec, values, dtype) -> dict:
    """Every field after the tensors as the worker reads it; a count field is its arrays' length."""
    wired = {p.name: _wire(spec, p, values, dtype) for p in spec.fields}
    for p in spec.fields:
        if p.array and p.count:
            wired[p.count] = len(wired[p.name])
    for tensor in (*spec.inputs, *spec.outputs):
        if tensor.count:  # the number of tensors a case gives its tensor array (not the plain tensors beside it)
            given = spec.input_tensors(values) if tensor in spec.inputs else spec.outputs_for(values)
            wired[tensor.count] = sum(t.name.startswith(f"{tensor.name}[") for t in given)
    return wired


def _given(spec, parameter, values, dtype):
    """A field's value; an unset one (None) takes what its Parameter.unset says for the tensor type."""
    value = values[parameter.name]
    if value is None and parameter.kind not in ("scale_bias", "fused_activation"):
        if parameter.unset is None:
            raise ValueError(f"{spec.name}: field {parameter.name} is unset and its spec gives no value "
                             "for the description (Parameter.unset)")
        value = parameter.unset_value(dtype, values)
    return value


def _wire(spec, parameter, values, dtype):
    value = _given(spec, parameter, values, dtype)
    kind = parameter.kind
    if kind == "float":
        return float(value)
    if kind == "scale_bias":
        return None if value is None else {"Scale": float(value["Scale"]), "Bias": float(value["Bias"])}
    if kind == "fused_activation":  # the activation's own description, its tensors left NULL by the worker
        if value is None:
            return None
        activation, fields = fused.split(value)
        values = {**activation.defaults(), **fields}
        return {"desc": layout(activation),
                "params": {p.name: _wire(activation, p, values, dtype) for p in activation.fields}}
    if kind == "enum":
        if value not in parameter.enum_values:
            raise ValueError(f"{spec.name}: {parameter.name} {value!r} is not one of "
                             f"{', '.join(parameter.enum_values)} (Parameter.enum_values)")
        return int(parameter.enum_values[value])
    if kind in ("uint", "int"):
        low, high = (0, 1 << 32) if kind == "uint" else (-(1 << 31), 1 << 31)
        whole = isinstance(value, int) or float(value).is_integer()
        if not whole or not low <= int(value) < high:
            raise ValueError(f"{spec.name}: {parameter.name} {value!r} is not a {kind.upper()} (32 bits)")
        return int(value)
    if kind == "data_type":
        return str(np.dtype(value))
    if parameter.array:
        return [float(v) if kind == "float_array" else int(v) for v in value]
    if kind == "scalar":
        typed_by = spec.parameter(parameter.typed_by or "")
        if typed_by is None or typed_by.kind != "data_type":
            raise ValueError(f"{spec.name}: scalar field {parameter.name} names no data_type field in "
                             f"typed_by ({parameter.typed_by!r})")
        return {"type": str(np.dtype(_given(spec, typed_by, values, dtype))), "value": value}
    raise ValueError(f"{spec.name}: no description field kind {kind!r} ({parameter.name})")


__all__ = ["NoDescription", "layout", "request", "flags_value", "flag_names"]
