from conformance.specs.cumulative import cumulative_spec

SPEC = cumulative_spec(
    "CUMULATIVE_SUMMATION", "2_1", "HasExclusiveSum", product=False,
    onnx=("CumSum", 14, ("float32", "float16", "int32", "int64")),
    summary="Sums the elements of a tensor along an axis, writing the running tally of the summation into the "
            "output tensor.",
    notes=())
