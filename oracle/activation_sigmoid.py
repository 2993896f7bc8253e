"""DML_ACTIVATION_SIGMOID: f(x) = 1 / (1 + exp(-x))."""
import numpy as np

OPERATOR = "ACTIVATION_SIGMOID"
DEFAULTS = {}


def sigmoid(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)); also SWISH's Sigmoid."""
    return 1.0 / (1.0 + np.exp(-x))


def reference(x: np.ndarray, dtype: str, nan_rule="d3d") -> np.ndarray:
    return sigmoid(x)
