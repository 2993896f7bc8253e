from conformance.specs.cumulative import cumulative_spec

SPEC = cumulative_spec(
    "CUMULATIVE_PRODUCT", "3_1", "HasExclusiveProduct", product=True,
    onnx=("CumProd", 26, ("float32", "float16", "int32", "int64", "uint32", "uint64")),
    summary="Multiplies the elements of a tensor along an axis, writing the running tally of the product into the "
            "output tensor.",
    notes=("The page's InputTensor text opens with a paragraph copied from a batch normalization gradient page "
           "(\"typically the same tensor that was provided as the InputTensor to "
           "DML_BATCH_NORMALIZATION_OPERATOR_DESC\"): not read as a requirement.",))
