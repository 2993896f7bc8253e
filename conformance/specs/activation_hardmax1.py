from conformance.specs.softmaxes import HARDMAX, softmax_spec

SPEC = softmax_spec(
    HARDMAX, True,
    'Performs a hardmax function on each element of InputTensor, placing the result into the '
    'corresponding element of OutputTensor.',
    (
        '1 for the first maximum along Axes (ReduceArgMax with DML_AXIS_DIRECTION_INCREASING, the index '
        'counted row-major over Axes), 0 elsewhere: exact; where Axes is not ascending the page does not '
        'say which order counts: either is accepted.',
        'NaN: the page is silent: a slice holding NaN may put its 1 at the first maximum of its other '
        'values or at any of its NaNs; -0 and +0 are equal (a tie).',
    ),
)
