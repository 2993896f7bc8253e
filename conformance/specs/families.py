"""The families of DirectML operators, defined once. A spec declares its family (OperatorSpec.family);
what differs between families asks the family, never the operator's name.

Decided by the family today: `pointwise` (the judge's chunked, grouped and tabulated paths and the
compiled loops of conformance/judge/fast.py and precompile.py), `copies` (the judge's entry,
conformance/judge/entry.py: exact, naming each wrong element's source) and the default shape rule and check
(conformance/specs/shapes.py; a spec may give its own). Later steps of issue 25 hang here, one field
each, only where a family has an operator to exercise it: its input generators, the judge's error
model, and the faults tests/faults.py injects. A family without a shipped operator decides nothing
yet: its specs give their own shape rule.
"""
from dataclasses import dataclass
from typing import Callable

from conformance.specs import shapes


@dataclass(frozen=True)
class Family:
    name: str  # as `conformance specs` and the docs spell it
    description: str
    # Each output element depends on the input elements at its own index alone, in a shape the inputs
    # broadcast to: inputs may be chunked, grouped with other cases and tabulated
    pointwise: bool = False
    # Each output element is one input element copied unchanged: judged exactly, a wrong element named
    # by the input index it comes from (conformance/judge/moved.py; the spec's source_index)
    copies: bool = False
    # The default shape rule and check of its specs (conformance/specs/shapes.py); None: each spec gives its own
    output_shapes: Callable | None = None
    shape_check: Callable | None = None
    # A case's shape is OutputTensor's sizes: the loader gives them to the spec's shapes.OUTPUT_SIZES parameter
    # where the case leaves it unset (operators of no input tensor; DIAGONAL_MATRIX1's optional input has them too)
    sized_by_case: bool = False


ELEMENT_WISE = Family("element-wise", "each output element a function of the input elements at its index "
                      "(ELEMENT_WISE_*, ACTIVATION_*)", pointwise=True,
                      output_shapes=shapes.broadcast_output, shape_check=shapes.broadcast_check)
REDUCTION = Family("reduction", "output elements reduce slices along axes (REDUCE, ARGMIN, ARGMAX)",
                   output_shapes=shapes.reduced_output, shape_check=shapes.reduced_check)
CONTRACTION = Family("contraction", "sums of products over a shared dimension (GEMM, CONVOLUTION)")
WINDOW = Family("window", "each output element from a window of the input (pooling, FOLD, UNFOLD)")
NORMALIZATION = Family("normalization", "elements scaled by statistics of their slice (BATCH_NORMALIZATION)")
DATA_MOVEMENT = Family("data movement", "input elements copied to other places, unchanged (SLICE, TILE, PADDING)",
                       copies=True)
INDEX = Family("index", "elements chosen or placed by index tensors (GATHER, SCATTER, ONE_HOT)")
GENERATOR = Family("generator", "no input tensor: the output made from the fields alone, of the sizes a case gives "
                   "(FILL_VALUE_CONSTANT, FILL_VALUE_SEQUENCE, DIAGONAL_MATRIX)",
                   output_shapes=shapes.generated_output, shape_check=shapes.generated_check, sized_by_case=True)

FAMILIES = (ELEMENT_WISE, REDUCTION, CONTRACTION, WINDOW, NORMALIZATION, DATA_MOVEMENT, INDEX, GENERATOR)
