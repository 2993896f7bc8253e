"""The MEAN_VARIANCE_NORMALIZATION versions' ONNX routes: the node whose formula is the page's for a case.

- no Scale, no Bias, Epsilon 0: MeanVarianceNormalization ((X - mean) / (sqrt(variance) + 1e-9); float32 on
  the CPU provider);
- Scale and Bias per channel, Axes {2, 3}: InstanceNormalization (scale * (x - mean) / sqrt(variance +
  epsilon) + B, scale and B as [C]);
- Scale and Bias of the normalized dimensions' sizes, Axes {k, ..., rank - 1}: LayerNormalization (opset 17).

The node follows from the fields (to_onnx); whether the case's shapes fit it, from its inputs (onnx_undefined),
which also give the shapes the node takes them in (onnx_shapes)."""
import numpy as np

from conformance.specs.base import NotReachable, OnnxNode
from conformance.specs.normalizing import onnx_no_fused, present

MVN, INSTANCE, LAYER = "MeanVarianceNormalization", "InstanceNormalization", "LayerNormalization"
ROUTE = ("with the mean subtracted and divided by the spread, no fused activation: MeanVarianceNormalization (opset "
         "13, axes = the reduced axes) without Scale and Bias at Epsilon 0 (ONNX adds 1e-9 outside the sqrt); with "
         "Scale and Bias, InstanceNormalization (opset 6) over axes {2, 3} with them per channel, or "
         "LayerNormalization (opset 17) over trailing axes with them of the normalized sizes")


def _node(params: dict, use_mean: bool, use_variance: bool, axes) -> str:
    bound = present(params)
    if not (use_mean and use_variance):
        raise NotReachable("ONNX's normalizations always subtract the mean and divide by the spread")
    if not bound:
        if float(params["Epsilon"]) != 0.0:
            raise NotReachable("ONNX MeanVarianceNormalization has no epsilon inside the sqrt (it adds 1e-9 "
                               "outside): only Epsilon 0 is its formula")
        return MVN
    if bound != {"Scale", "Bias"}:
        raise NotReachable("ONNX InstanceNormalization and LayerNormalization take Scale and Bias together here")
    axes = sorted(int(a) for a in axes)
    if axes == [2, 3]:
        return INSTANCE
    if axes == list(range(axes[0], axes[-1] + 1)):
        return LAYER
    raise NotReachable(f"Axes {axes}: ONNX normalizes {{2, 3}} (InstanceNormalization) or trailing axes "
                       "(LayerNormalization) with a Scale and Bias")


def to_onnx(dtype: str, params: dict, use_mean: bool, use_variance: bool, axes) -> OnnxNode:
    node = _node(params, use_mean, use_variance, axes)
    onnx_no_fused(params, node)
    epsilon = float(np.float32(params["Epsilon"]))
    if node == MVN:
        if dtype != "float32":
            raise NotReachable(f"ONNX Runtime's CPU MeanVarianceNormalization has no tensor({dtype}) kernel")
        return OnnxNode(MVN, 13, attributes={"axes": [int(a) for a in axes]}, alone=True)
    if node == INSTANCE:
        return OnnxNode(INSTANCE, 6, attributes={"epsilon": epsilon}, alone=True)
    return OnnxNode(LAYER, 17, attributes={"axis": int(min(axes)), "epsilon": epsilon}, alone=True)


def _wanted(node: str, data: tuple, axes) -> tuple | None:
    """Scale's and Bias's DirectML sizes the node's form needs (None: the case's axes do not fit it)."""
    rank, first = len(data), int(min(axes))
    if sorted(int(a) for a in axes) != list(range(first, rank)):
        return None
    if node == INSTANCE:
        return tuple(data[1] if i == 1 else 1 for i in range(rank))
    return (1,) * first + tuple(data[first:])


def undefined(axes_of, use_of):
    """onnx_undefined: a case whose Scale and Bias (or axes) do not have the node's form is not reachable."""
    def check(x, dtype: str, params: dict) -> str | None:
        node = _node(params, *use_of(params), axes_of(params))
        if node == MVN:
            return None
        data = np.shape(x[0])
        wanted = _wanted(node, data, axes_of(params))
        if wanted is None or any(np.shape(v) != wanted for v in x[1:]):
            return (f"ONNX {node} takes Scale and Bias of {'[C]' if node == INSTANCE else 'the normalized sizes'} "
                    "over its own axes alone")
        return None
    return check


def shapes(axes_of, use_of):
    """onnx_shapes: InstanceNormalization's scale and B as [C], LayerNormalization's as the normalized sizes; a
    case whose inputs do not have that form (not reachable: undefined) keeps its shapes."""
    def reshape(input_shapes, params) -> tuple:
        data, others = tuple(input_shapes[0]), [tuple(s) for s in input_shapes[1:]]
        try:
            node = _node(params, *use_of(params), axes_of(params))
        except NotReachable:
            return (data, *others)
        wanted = None if node == MVN else _wanted(node, data, axes_of(params))
        if wanted is None or any(s != wanted for s in others):
            return (data, *others)
        own = (data[1],) if node == INSTANCE else data[int(min(axes_of(params))):]
        return (data,) + tuple(own for _ in others)
    return reshape
