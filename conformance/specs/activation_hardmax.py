from conformance.specs.softmaxes import HARDMAX, softmax_spec

SPEC = softmax_spec(
    HARDMAX, False,
    'Performs a hardmax function on each element of InputTensor, placing the result into the '
    'corresponding element of OutputTensor.',
    (
        "1 for the first occurrence of the largest value of each row, 0 elsewhere (the page's words): "
        "exact; the device's 1 is read as an index and judged by the set the page allows "
        '(conformance/judge/indices.py).',
        'NaN: the page is silent: a row holding NaN may put its 1 at the first maximum of its other '
        "values (Direct3D's max) or at any of its NaNs; -0 and +0 are equal (a tie).",
    ),
)
