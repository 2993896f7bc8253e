"""An accumulating operator's formula, in steps the judge composes into a sound acceptance interval
(conformance/judge/accumulated.py evaluates them; the error model is stated there once).

A spec's `accumulation` is a tuple of alternatives (each a tuple of steps, the last giving the
output; an element's interval is the union over alternatives, where the page's formula may be
computed by more than one method, as LOG_SUM_EXP with or without the maximum subtracted). A step
names its result, which later steps read as input_(name), broadcast against the inputs:

- Sum(name, term, reduce): term, a formula in primitives (conformance/specs/primitives.py) of the
  input elements, evaluated per element; then summed by reduce(array) -> the sums (keeping the
  reduced axes as size 1, so that later steps broadcast), in any order a device chooses.
- Dot(name, exact, magnitude, count, addend): a sum of exact products that only a float64 routine affords
  (GEMM, CONVOLUTION): (inputs, params) -> the float64 sums, the sums of the products' magnitudes,
  and the number of products per sum (arrays broadcastable to the step's shape); addend: a term the
  device may add into the same accumulator (CONVOLUTION's bias, GEMM's Beta * C), first, last or
  between: one more term of the sum.
- Product(name, term, reduce): term's values multiplied together by reduce (np.multiply.reduce's
  shape), in any order.
- Extreme(name, term, reduce, largest): the maximum (largest) or minimum of term's values, Direct3D's
  max/min (a NaN operand yields the other): exact.
- Then(name, formula): element-wise, of the inputs and earlier steps.
"""
from dataclasses import dataclass
from typing import Callable

from conformance.specs.primitives import Expr, lift


@dataclass(frozen=True)
class Sum:
    name: str
    term: Expr
    reduce: Callable  # (params) -> (array) -> the sums
    # reduce takes the inputs' own shapes too, (params, shapes=...) -> ..., where the axes follow from an
    # input's shape (BATCH_NORMALIZATION_TRAINING: where ScaleTensor's sizes are 1)
    shaped: bool = False


@dataclass(frozen=True)
class Dot:
    name: str
    exact: Callable  # (inputs, params) -> float64 sums of products
    magnitude: Callable  # (inputs, params) -> float64 sums of |products|
    count: Callable  # (inputs, params) -> products per sum (an int or an array)
    # Where the device computes the coefficients itself from the fields (RESAMPLE's linear weights from float32
    # coordinates): (inputs, params) -> how far the exact sum may move over the coefficients' possible values
    # (a half-width, added to the bound); None: the coefficients are exact inputs
    spread: Callable | None = None
    # Where the coefficients the device computes may read an element the exact ones read with weight 0 or not at all
    # (a coordinate at an integer, which may round to either side): (inputs, params) -> (number, nan, +inf, -inf),
    # boolean arrays of where the sum in IEEE arithmetic over the coefficients' possible values may be a number, NaN,
    # +inf, -inf (a NaN or infinite element times 0 is NaN; not read, it is no term); None: the exact coefficients'
    # sum alone decides
    reach: Callable | None = None
    # (inputs, params) -> a term a device may start the accumulator with or add into it anywhere (a bias, Beta * C),
    # as one more term of the sum (the step's result includes it); None: the sum is of the products alone
    addend: Callable | None = None


@dataclass(frozen=True)
class Product:
    name: str
    term: Expr
    reduce: Callable  # (params) -> (array) -> the products' shape (np.multiply.reduce's, keepdims)
    # Where the page fixes the order up to association (a running product: each partial product that of a
    # contiguous run of factors): (params) -> (log2 |smallest factor|, log2 |largest factor|) -> (the least,
    # the greatest log2 of a partial product), reduce's shape; None: any subset, in any order
    runs: Callable | None = None


@dataclass(frozen=True)
class Extreme:
    name: str
    term: Expr
    reduce: Callable  # (params) -> (array, ufunc) -> the ufunc reduced over the same elements
    largest: bool


@dataclass(frozen=True)
class Then:
    name: str
    formula: Expr


def steps_text(steps) -> str:
    """One alternative in words: `conformance specs` prints it."""
    from conformance.specs.primitives import render
    said = []
    for step in steps:
        if isinstance(step, Sum):
            said.append(f"{step.name} = sum of {render(lift(step.term))}")
        elif isinstance(step, Product):
            said.append(f"{step.name} = product of {render(lift(step.term))}")
        elif isinstance(step, Extreme):
            said.append(f"{step.name} = {'max' if step.largest else 'min'} of {render(lift(step.term))}")
        elif isinstance(step, Dot):
            said.append(f"{step.name} = sum of products" + (" and one more term (the accumulator started with it)"
                                                            if step.addend is not None else ""))
        else:
            said.append(f"{step.name} = {render(lift(step.formula))}")
    return "; ".join(said)


def count_of(name: str) -> Expr:
    """The number of terms the Sum step `name` adds per element (AVERAGE's n), as a float."""
    from conformance.specs.primitives import input_
    return input_(name + "_n")


def gamma(count, u: float):
    """Higham's gamma(k) = k u / (1 - k u), infinite where k u >= 1: the relative bound of k roundings of
    unit roundoff u (conformance/judge/accumulated.py states the error model with it; a spec's own
    bounds, as QUANTIZED_LINEAR_AVERAGE_POOLING's, take it from here)."""
    import numpy as np
    k = np.maximum(np.asarray(count, dtype=np.float64), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(k * u < 1.0, k * u / (1.0 - k * u), np.inf)
