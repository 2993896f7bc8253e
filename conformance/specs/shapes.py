"""Shape rules: each input has its own shape, and a spec's output shapes are a function of them and of
its fields. A family gives the default rule (families.py); a spec whose shapes follow its fields gives
its own (OperatorSpec.output_shapes_rule, shape_check).

output_shapes(input_shapes, params) -> a tuple of output shapes (several outputs allowed);
check(input_shapes, params) -> None, or one line saying why the case cannot be (refused at load)."""
import numpy as np


def broadcast_output(input_shapes, params) -> tuple:
    """Element-wise: one output, the inputs broadcast against each other."""
    return (tuple(int(n) for n in np.broadcast_shapes(*input_shapes)),)


def broadcast_check(input_shapes, params) -> str | None:
    try:
        np.broadcast_shapes(*input_shapes)
    except ValueError:
        return "the input shapes " + ", ".join(str(list(s)) for s in input_shapes) + " do not broadcast"
    ranks = {len(s) for s in input_shapes}
    if len(ranks) > 1:
        return "the inputs have " + ", ".join(map(str, sorted(ranks))) + " dimensions: DirectML tensors of one " \
               "operator have one dimension count"
    return None


def reduced_output(input_shapes, params) -> tuple:
    """Reduction: one output of the input's dimension count, each axis in Axes of size 1."""
    axes = set(params.get("Axes") or ())
    return (tuple(1 if i in axes else int(n) for i, n in enumerate(input_shapes[0])),)


def reduced_check(input_shapes, params) -> str | None:
    axes, rank = params.get("Axes"), len(input_shapes[0])
    if not axes:
        return "Axes is required: at least one axis to reduce"
    outside = [a for a in axes if not 0 <= a < rank]
    if outside:
        return f"Axes {list(axes)}: values must be in the range [0, InputTensor.DimensionCount - 1] = [0, {rank - 1}]"
    if len(set(axes)) != len(axes):
        return f"Axes {list(axes)} names an axis twice"
    empty = [a for a in axes if input_shapes[0][a] == 0]
    if empty:
        return f"Axes {list(axes)} reduces axis {empty[0]} of size 0: a slice with no element has no index"
    return None


# An operator of no input tensor (FILL_VALUE_*, DIAGONAL_MATRIX): OutputTensor's sizes are the case's shape,
# which the loader gives this no-field parameter (Parameter(..., sizes_of="OutputTensor")) where a case leaves it
# unset; the oracle, the ONNX route and the faults read them from it.
OUTPUT_SIZES = "OutputSizes"


def generated_output(input_shapes, params) -> tuple:
    """No input: one output of the sizes the case gives (OUTPUT_SIZES)."""
    return (tuple(int(n) for n in params[OUTPUT_SIZES]),)


def generated_check(input_shapes, params) -> str | None:
    if params.get(OUTPUT_SIZES) is None:
        return f"{OUTPUT_SIZES} (OutputTensor's sizes: the case's shape) is required"
    return None
