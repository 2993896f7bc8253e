from conformance.specs.softmaxes import LOG_SOFTMAX, softmax_spec

SPEC = softmax_spec(
    LOG_SOFTMAX, False,
    'Performs a natural log-of-softmax activation function on each element of InputTensor, placing the '
    'result into the corresponding element of OutputTensor.',
    (
        "Judged by the sound interval of its steps (conformance specs shows them): m the slice's maximum "
        "(Direct3D's max, exact), S = sum(exp(x - m)) within gamma(n - 1) * S in any order, exp, log and "
        "the division with Direct3D's accuracy, then the store; float16 summed in float32 unless the "
        "case's ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
        'Judged by x - m - log(sum(exp(x - m))) alone (overflow-free). A NaN in a slice makes the slice '
        "NaN; +inf: NaN or any value (inf - inf, which the interval model leaves open, reaches log(S)).",
        "The page's sum ends at exp(x_j), j 'the total number of elements along that axis': an off-by-one"
        ' typo (the LOG_SOFTMAX1 and SOFTMAX pages end at x[j-1]).',
        'The `ulp` model: WebNN has no logSoftmax; its softmax count 3 * Width + 3 is used.',
    ),
)
