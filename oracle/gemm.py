"""DML_GEMM: Output = FusedActivation(Alpha * TransA(A) x TransB(B) + Beta * C), BatchCount *
ChannelCount independent {M,K} x {K,N} products over the last two dimensions. The products of
float32 (or float16) values are exact in float64 and the sums float64's (the judge bounds their own
error: conformance/judge/accumulated.py). Without CTensor, C is 0 and Beta ignored (the page). With
an activation: the GEMM's result rounded to the tensor type, then the activation's own oracle (the
unfused layers, which fused activations reproduce: conformance/specs/fused.py)."""
import numpy as np

OPERATOR = "GEMM"
NONE, TRANSPOSE = "DML_MATRIX_TRANSFORM_NONE", "DML_MATRIX_TRANSFORM_TRANSPOSE"
TRANSFORMS = (NONE, TRANSPOSE)  # DirectML.h's DML_MATRIX_TRANSFORM, in order
PRESENT = "present"
DEFAULTS = {"CTensor": PRESENT, "TransA": NONE, "TransB": NONE, "Alpha": 1.0, "Beta": 1.0, "FusedActivation": None,
            "ExecutionFlags": "NONE"}
OWN_SHAPES = True


def transformed(matrix: np.ndarray, transform: str) -> np.ndarray:
    """TransA(A) or TransB(B): the last two dimensions swapped where the transform is TRANSPOSE."""
    return np.swapaxes(matrix, -1, -2) if transform == TRANSPOSE else matrix


def product(a, b, TransA=NONE, TransB=NONE) -> np.ndarray:
    """TransA(A) x TransB(B) in float64, batch by batch."""
    return np.matmul(transformed(np.asarray(a, np.float64), TransA), transformed(np.asarray(b, np.float64), TransB))


def reference(x, dtype: str, nan_rule="d3d", CTensor=PRESENT, TransA=NONE, TransB=NONE, Alpha=1.0, Beta=1.0,
              FusedActivation=None, ExecutionFlags="NONE") -> np.ndarray:
    a, b = x[0], x[1]
    total = np.float64(np.float32(Alpha)) * product(a, b, TransA, TransB)
    if CTensor == PRESENT:
        total = total + np.float64(np.float32(Beta)) * np.asarray(x[2], np.float64)
    if FusedActivation is None:
        return total
    import oracle  # this package: its registry imports this module while it discovers operators
    from oracle.rounding import round_to
    fields = {k: v for k, v in FusedActivation.items() if k != "Type"}
    return oracle.reference(FusedActivation["Type"], round_to(total, dtype), dtype, nan_rule=nan_rule, **fields)
