"""What JOIN and SPLIT share: their pages' support tables (from the sdk-api pages), Axis, the per-tensor
sizes along it (AxisSizes: no field, a case's choice of each joined input's or split output's size, its
length the tensor array's count), and the arithmetic of where each element lies along Axis."""
import numpy as np

from conformance.specs.base import FLOATS, INTEGERS_32, INTEGERS_64, ONE_TO_EIGHT, Parameter, SupportTable

EVERY_TYPE = ("float64",) + FLOATS + INTEGERS_64 + INTEGERS_32
TYPES_1_0 = ("float32", "float16", "int32", "int16", "uint32", "uint16")
TABLE_4_1 = SupportTable("4_1", ONE_TO_EIGHT, EVERY_TYPE)
TABLE_2_1 = SupportTable("2_1", (4,), FLOATS + INTEGERS_32)
TABLE_1_0 = SupportTable("1_0", (4,), TYPES_1_0)

AXIS = Parameter("Axis", "uint", None, "The index of the dimension to join or split along, in "
                 "[0, DimensionCount - 1]; the page gives no default: a case gives it.")


def axis_sizes(count: str, tensors: str, what: str) -> Parameter:
    return Parameter("AxisSizes", "uint_array", None,
                     f"No field: each of {tensors}' size along Axis, in order ({what}); its length is {count}, "
                     "each larger than 0.", count=count, per_tensor=tensors)


def axis_problem(shape, params) -> str | None:
    axis, sizes = params.get("Axis"), params.get("AxisSizes")
    if axis is None:
        return "Axis is required"
    if not 0 <= axis < len(shape):
        return f"Axis {axis} must be in [0, {len(shape) - 1}] for {len(shape)} dimensions"
    if not sizes:
        return "AxisSizes is required: one size along Axis per tensor of the array (its count, at least 1)"
    if any(s <= 0 for s in sizes):
        return f"AxisSizes {list(sizes)}: every size along Axis must be larger than 0"
    if sum(sizes) != shape[axis]:
        return f"AxisSizes {list(sizes)} sum to {sum(sizes)}, not the joined size {shape[axis]} along Axis {axis}"
    return None


def cut(shape, params) -> tuple:
    """The shape cut along Axis into one shape per AxisSizes value."""
    axis = params["Axis"]
    return tuple(tuple(s if d == axis else n for d, n in enumerate(shape)) for s in params["AxisSizes"])


def starts(params) -> np.ndarray:
    """Where each tensor of the array begins along Axis in the joined tensor."""
    return np.concatenate([[0], np.cumsum(params["AxisSizes"])[:-1]]).astype(np.intp)


NOTES = ("DirectML.h: a tensor array is the count (InputCount, OutputCount) and a pointer to that many "
         "DML_TENSOR_DESCs; the harness binds every tensor of it, in order, as one binding each.",
         "AxisSizes is no field of the struct: a case's choice of each tensor's size along Axis, the tensor "
         "array's count its length. The tensors have no size of 0: DML_BUFFER_TENSOR_DESC calls a size of 0 "
         "invalid, and JOIN's page says the join axis 'may contain any non-zero size'; a case giving 0 is "
         "refused at load.")
