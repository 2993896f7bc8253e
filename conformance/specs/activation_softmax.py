from conformance.specs.softmaxes import SOFTMAX, softmax_spec

SPEC = softmax_spec(
    SOFTMAX, False,
    'Performs a softmax activation function on InputTensor, placing the result into the corresponding '
    'element of OutputTensor.',
    (
        "Judged by the sound interval of its steps (conformance specs shows them): m the slice's maximum "
        "(Direct3D's max, exact), S = sum(exp(x - m)) within gamma(n - 1) * S in any order, exp, log and "
        "the division with Direct3D's accuracy, then the store; float16 summed in float32 unless the "
        "case's ExecutionFlags hold ALLOW_HALF_PRECISION_COMPUTATION.",
        "The page's exp(x) / sum(exp(x)) computed as written overflows float32 from x = 89: only the "
        'max-subtracted formula is accepted. A NaN in a slice makes every element of the slice NaN (so '
        'is S); +inf: NaN, or 0 at the finite elements (x - m = -inf) and any value at the infinity (inf - '
        "inf, which the interval model leaves open); -inf contributes exp(-inf) = 0.",
        "The `ulp` model: WebNN's softmax tolerance, 3 * Width + 3 ULP.",
    ),
)
