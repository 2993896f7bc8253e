"""DML_PADDING: OutputTensor.Sizes[i] = InputTensor.Sizes[i] + StartPadding[i] + EndPadding[i], the
input copied into the middle and the padding regions filled as PaddingMode says (numpy's pad names
the same modes):

- CONSTANT: PaddingValue everywhere in the padding (a FLOAT: in an integer tensor truncated toward
  zero, "10.6 will become 10"; beyond the type's range wrapped, two's complement, where the page is
  silent: what DirectML 1.15 does, docs/findings/issue25-padding.md);
- EDGE: each dimension's edge value repeated;
- REFLECTION: mirrored about the edge element, which is not repeated; padding wider than the input
  folds again over the padding already made (periodic, period 2 * (Sizes[i] - 1));
- SYMMETRIC (FL 3_0): mirrored with the edge element repeated (period 2 * Sizes[i]);
- WRAP (FL 6_4; DirectML.h and the 1.15 release notes, no page text): the input repeated
  periodically, as ONNX's Pad mode wrap.

REFLECTION of a dimension of one element has nothing to mirror but that element: it is copied (the
page is silent). A copy: float inputs keep their bits (READS_BITS), NaN payloads included."""
import numpy as np

from oracle.rounding import float_param

OPERATOR = "PADDING"
# DirectML.h's DML_PADDING_MODE in declaration order: the enum values are 0 to 4.
MODES = ("DML_PADDING_MODE_CONSTANT", "DML_PADDING_MODE_EDGE", "DML_PADDING_MODE_REFLECTION",
         "DML_PADDING_MODE_SYMMETRIC", "DML_PADDING_MODE_WRAP")
# The page gives no typical values; the padding arrays are required (one value per dimension).
DEFAULTS = {"PaddingMode": MODES[0], "PaddingValue": 0.0, "StartPadding": None, "EndPadding": None}
READS_BITS = True
NUMPY_MODES = dict(zip(MODES, ("constant", "edge", "reflect", "symmetric", "wrap")))


def value_in_tensor_type(value, dtype: str):
    """The FLOAT PaddingValue in the tensor's type: a float rounded to it; an integer truncated toward
    zero and wrapped into the type (-10.6 in UINT8: 246)."""
    value = float_param(value)
    target = np.dtype(dtype)
    if target.kind == "f":
        with np.errstate(over="ignore"):
            return np.array(value, dtype=np.float64).astype(target)
    bits = 8 * target.itemsize
    whole = int(value) % (1 << bits)
    return target.type(whole - (1 << bits) if target.kind == "i" and whole >> (bits - 1) else whole)


def padded(x: np.ndarray, mode: str, value, start, end) -> np.ndarray:
    """x padded by start and end elements per dimension; value (in x's type) fills CONSTANT's padding."""
    if mode not in NUMPY_MODES:
        raise ValueError(f"PaddingMode {mode!r}; DML_PADDING_MODE has {', '.join(MODES)}")
    if len(start) != x.ndim or len(end) != x.ndim:
        raise ValueError(f"StartPadding {list(start)} and EndPadding {list(end)} need {x.ndim} values each")
    widths = [(int(s), int(e)) for s, e in zip(start, end)]
    if NUMPY_MODES[mode] == "constant":
        out = np.empty(tuple(n + s + e for n, (s, e) in zip(x.shape, widths)), dtype=x.dtype)
        out[...] = value
        out[tuple(slice(s, s + n) for n, (s, _) in zip(x.shape, widths))] = x  # bits copied
        return out
    # numpy's reflect repeats a one-element dimension (its only element), as the docstring says
    return np.pad(x, widths, mode=NUMPY_MODES[mode])


def reference(x: np.ndarray, dtype: str, nan_rule="d3d", PaddingMode=MODES[0], PaddingValue=0.0,
              StartPadding=None, EndPadding=None) -> np.ndarray:
    return padded(x, PaddingMode, value_in_tensor_type(PaddingValue, dtype), StartPadding, EndPadding)
