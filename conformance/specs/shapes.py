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
