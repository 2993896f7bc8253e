"""DML_QUANTIZATION_TYPE (DirectML.h), which QUANTIZE and DEQUANTIZE share, and their blocked scales:
each dimension of InputTensor cut into QuantizationSizes[i] blocks of InputTensor.Sizes[i] /
QuantizationSizes[i] elements, one scale (and zero point) per block (the harness's reading: the pages
say TBD; a quantization size of 1 is one value for the dimension, of InputTensor.Sizes[i] one per element)."""
import numpy as np

QUANTIZATION_TYPES = {"DML_QUANTIZATION_TYPE_NONE": 0, "DML_QUANTIZATION_TYPE_SCALE": 1,
                      "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT": 2}
SCALE, SCALE_ZERO_POINT = "DML_QUANTIZATION_TYPE_SCALE", "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT"


def tensor_count(params) -> int:
    """QuantizationTensorCount: the scale, and the zero point where QuantizationType says so."""
    return 2 if params.get("QuantizationType", SCALE_ZERO_POINT) == SCALE_ZERO_POINT else 1


def spread(values, shape) -> np.ndarray:
    """A quantization tensor repeated over its blocks to the input's shape."""
    values = np.asarray(values)
    for axis, (n, m) in enumerate(zip(shape, values.shape)):
        values = np.repeat(values, n // m if m else 0, axis=axis)
    return values
