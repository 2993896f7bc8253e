"""The acceleration layer: the same verdicts as expected.expected_for + compare.compare, sooner.

The oracle stays oracle/<op>.py, in float64, rounded once; this layer decides
*how* it is evaluated and how the comparison is summarised
(docs/performance.md tells the whole story, with figures):

- small tensors (check_many): cases of one operator, type and parameter set
  verified together, one oracle call over their concatenation (several inputs:
  each broadcast to the output's shape first); a case whose output is the
  oracle's bit for bit needs no more; the cases with an element off the exactly
  rounded value go through compare.compare_group (ULP figures per case, the d3d
  intervals of all their differing elements in one evaluation);
- large tensors: chunks of CHUNK elements, so that float64 buffers stay in the
  core's cache, shared out over `jobs` threads (numpy and the numba loops
  release the GIL), each chunk split by a compiled pass (fast_kernels) into
  elements equal to the exactly rounded value, counted, and the rest, which
  compare.compare analyses in full (flushing, NaN, intervals, worst elements);
- float32 operators whose oracle module declares a float32_plan: the formula's
  element-wise operations in the compiled pass, around numpy's own np.expm1
  (fast_kernels_jit FORMULAS), registered by the operator, not named here;
- float16: the oracle once on all 65,536 inputs per operator and parameter set,
  then a gather per element;
- memoised f(+0), f(-0) per operator, data type and parameters.

Every path gives the Comparison that compare.compare gives on the whole tensor,
field for field (tests/test_speed_equivalence.py checks it, and
tests/test_speed_runs.py runs the default cases both ways and compares records).
"""
import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import oracle
from conformance import specs
from conformance.caseset import operands
from conformance.judge import compiling, fast_analysis, fast_kernels
from conformance.judge.compare import (HISTOGRAM_BINS, WORST_SHOWN, Comparison, bin_index, compare,
                                       compare_group, empty_interval_summary, histogram_bins)
from conformance.judge.entry import compare_case
from conformance.judge.expected import expected_and_reference, interval_judge, zero_results
from conformance.judge.ulp import fractional_ulp_error, ulp_distance

CHUNK = 1 << 16  # elements per oracle call: its float64 buffers (512 KiB) stay in the core's L2
SMALL = 1 << 14  # tensors up to this size take the small path (no chunks, no threads)
PARALLEL_MIN = 1 << 17  # below this, one thread verifies the whole tensor
# The compiled comparison is loaded (numba, ~0.5 s) once a case this large comes, or once the
# run has verified this many elements the plain way (~40 ns each): small runs never pay for it.
KERNEL_CASE_MIN = 1 << 20
KERNEL_RUN_MIN = 1 << 23
# float16 cases this large build their operator's table (65,536 oracle values): a smaller one costs
# less to evaluate directly, unless the compiled loops read the table for it.
F16_TABLE_MIN = 1 << 18
TABLE_CACHE = 64  # float16 tables kept (one per operator and parameter set, 1.1 MiB each)
_FLOATS = ("float32", "float16")
_D3D_COUNTS = ("checked", "failed", "outside", "semantic", "lowering_defined")  # a d3d summary's counts, added up
BAD_BLOCK = 1 << 16  # elements off the exact value that compare.compare takes at a time


def elementwise(case) -> bool:
    """Only an operator whose output element depends on its input element alone (its family's
    `pointwise`), with an output of its input's type (as the case's fields choose it: CAST's
    OutputType), may be chunked, grouped or tabulated."""
    spec = specs.get(case.op)
    return (spec.family.pointwise and spec.tensor_type("OutputTensor", case.dtype, case.params) == case.dtype
            and not spec.several_inputs)


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _tune_malloc():
    """glibc returns freed 128 KiB blocks to the kernel and faults them in again on the next
    chunk; keep them (the harness's own RSS grows by a few MiB at most)."""
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return
    m_trim_threshold, m_mmap_threshold = -1, -3
    libc.mallopt(m_mmap_threshold, 4 << 20)
    libc.mallopt(m_trim_threshold, 64 << 20)


class Tally:
    """Adds up the Comparisons of a tensor's chunks into the Comparison of the whole tensor."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.elements = self.mismatches = self.nan_mismatches = self.flushed = 0
        self.max_ulp = 0
        self.max_fractional = None
        self.histogram = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
        self.histogram_nan = self.histogram_flushed = 0
        self.candidates = []  # (key, flat position, element dict) of the worst so far
        self.problem = None
        self.problem_at = -1  # the offset of the chunk that gave it: the last chunk's problem is the whole's
        self.d3d = empty_interval_summary()
        self.d3d_ratio = None  # the largest ratio so far (float, inf included)
        self.d3d_candidates = []  # (ratio, flat position, element dict)

    def add_fast(self, count, max_distance, fraction_bits, histogram):
        """Elements within tolerance (no NaN mismatch, nothing flushed), summarised: their count,
        max distance, max |fractional error| (float64 bits, None for integer types) and
        histogram by bit length of the distance."""
        self.elements += count
        self.max_ulp = max(self.max_ulp, int(max_distance))
        if count and fraction_bits is not None:  # None: an integer type, which has no fractional error
            fraction = float(np.int64(fraction_bits).view(np.float64))
            self.max_fractional = fraction if self.max_fractional is None else max(self.max_fractional,
                                                                                     fraction)
        self.histogram += histogram

    def add(self, offset, part: Comparison, positions=None):
        """A chunk's Comparison from compare.compare on its flat elements (positions: where
        the compared elements sit in the chunk, if only some of them were compared)."""
        if part.problem and offset >= self.problem_at:
            self.problem, self.problem_at = part.problem, offset
        self.elements += part.elements
        self.mismatches += part.mismatches
        self.nan_mismatches += part.nan_mismatches
        self.flushed += part.flushed
        self.max_ulp = max(self.max_ulp, part.max_ulp)
        if part.max_fractional_ulp is not None:
            self.max_fractional = part.max_fractional_ulp if self.max_fractional is None else max(
                self.max_fractional, part.max_fractional_ulp)
        if part.histogram:
            for low, _, count in part.histogram["bins"]:
                self.histogram[int(bin_index(np.array([low]))[0])] += count
            self.histogram_nan += part.histogram["nan"]
            self.histogram_flushed += part.histogram["flushed"]
        def position(item):
            return offset + (item["index"][0] if positions is None else int(positions[item["index"][0]]))
        for item in part.worst:
            key = np.iinfo(np.int64).max if item["ulp"] == "nan" else item["ulp"]
            self.candidates.append((key, position(item), item))
        if part.d3d is not None:
            for name in _D3D_COUNTS:
                self.d3d[name] += part.d3d[name]
            if part.d3d["max_ratio"] is not None:
                ratio = float(part.d3d["max_ratio"])
                self.d3d_ratio = ratio if self.d3d_ratio is None else max(self.d3d_ratio, ratio)
            self.d3d_candidates += [(float(item["ratio"]), position(item), item) for item in part.d3d["worst"]]
        if len(self.candidates) > 4 * WORST_SHOWN or len(self.d3d_candidates) > 4 * WORST_SHOWN:
            self._trim()

    def merge(self, other: "Tally"):
        """Add another part of the same tensor (other chunks, verified elsewhere): the Comparison of
        the whole is the one a single Tally given every chunk makes, whatever order the parts join in
        (the worst elements are ranked with ties broken by flat position)."""
        if other.problem and other.problem_at >= self.problem_at:
            self.problem, self.problem_at = other.problem, other.problem_at
        for name in ("elements", "mismatches", "nan_mismatches", "flushed", "histogram_nan", "histogram_flushed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.max_ulp = max(self.max_ulp, other.max_ulp)
        self.max_fractional = _larger(self.max_fractional, other.max_fractional)
        self.histogram = self.histogram + other.histogram
        for name in _D3D_COUNTS:
            self.d3d[name] += other.d3d[name]
        self.d3d_ratio = _larger(self.d3d_ratio, other.d3d_ratio)
        self.candidates += other.candidates
        self.d3d_candidates += other.d3d_candidates
        self._trim()
        return self

    def _trim(self):
        # compare._summarise: NaN mismatches first, then larger distances, then earlier positions.
        self.candidates.sort(key=lambda c: (-c[0], c[1]))
        del self.candidates[WORST_SHOWN:]
        self.d3d_candidates.sort(key=lambda c: (-c[0], c[1]))
        del self.d3d_candidates[WORST_SHOWN:]

    def _located(self, candidates) -> list:
        return [{**item, "index": [int(i) for i in np.unravel_index(position, self.shape)] if self.shape else []}
                for _, position, item in candidates]

    def result(self) -> Comparison:
        if self.problem:
            return Comparison(self.elements, mismatches=self.elements, problem=self.problem)
        self._trim()
        histogram = {"bins": histogram_bins(self.histogram), "nan": self.histogram_nan,
                     "flushed": self.histogram_flushed}
        ratio = self.d3d_ratio
        d3d = {**self.d3d, "max_ratio": None if ratio is None else ("inf" if math.isinf(ratio) else ratio),
               "worst": self._located(self.d3d_candidates)}
        return Comparison(elements=self.elements, mismatches=self.mismatches,
                          nan_mismatches=self.nan_mismatches, flushed=self.flushed, max_ulp=self.max_ulp,
                          max_fractional_ulp=self.max_fractional, worst=self._located(self.candidates),
                          histogram=histogram, d3d=d3d)


def _larger(a, b):
    return b if a is None else a if b is None else max(a, b)


def _numpy_split(expected, actual, reference, tolerance):
    """fast_kernels' split in numpy, with ulp.py's own functions (for a run that has not loaded
    the compiled loops): -> (good elements, their max distance, their max |fractional error| as
    float64 bits, their histogram by bit length, positions of the bad elements)."""
    e_nan, a_nan = np.isnan(expected), np.isnan(actual)
    distance = np.where(e_nan | a_nan, 0, ulp_distance(expected, actual))
    bad = (distance > tolerance) | (e_nan != a_nan)
    good = ~bad
    distance = distance[good]
    error = np.abs(fractional_ulp_error(reference[good], actual[good], expected.dtype))
    error = error[np.isfinite(error)]
    fraction = np.float64(error.max() if error.size else 0.0).view(np.int64)
    lengths = bin_index(distance)
    histogram = np.bincount(lengths, minlength=HISTOGRAM_BINS)[:HISTOGRAM_BINS]
    return (int(distance.size), int(distance.max()) if distance.size else 0, int(fraction),
            histogram.astype(np.int64), np.flatnonzero(bad))


def identical(expected, actual, reference=None) -> Comparison:
    """compare.compare's result where actual has the bits of expected everywhere: no distance,
    no NaN mismatch, nothing to flush, every element in the histogram's bin 0; only the
    fractional error (actual against the unrounded reference) is left to compute."""
    n = int(expected.size)
    fractional = None
    if reference is not None:
        with np.errstate(all="ignore"):
            error = np.abs(fractional_ulp_error(np.asarray(reference).reshape(-1), actual.reshape(-1),
                                                expected.dtype))
        finite = np.isfinite(error)
        fractional = float(error[finite].max()) if finite.any() else 0.0
    return Comparison(elements=n, mismatches=0, nan_mismatches=0, flushed=0, max_ulp=0,
                      max_fractional_ulp=fractional, worst=[],
                      histogram={"bins": [[0, 0, n]], "nan": 0, "flushed": 0}, d3d=empty_interval_summary())


def _prepare(kernel, divisor):
    """prepare(x, buffer) of a declared plan: np.expm1(float64(x) / divisor) into the buffer, or
    nothing where the formula reads x alone (divisor None)."""
    if divisor is None:
        return lambda x, buffer: buffer
    power_of_two = divisor > 0 and math.frexp(divisor)[0] == 0.5

    def prepare(x, buffer):
        if power_of_two:  # x / 2**k == x * 2**-k, both correctly rounded
            kernel.multiply(x, 1.0 / divisor, buffer)
        else:
            kernel.divide(x, divisor, buffer)
        return np.expm1(buffer, out=buffer)
    return prepare


class _Float16Table:
    """The oracle on all 65,536 float16 values, for one operator and parameter set."""

    DECODE = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)  # bits -> value

    def __init__(self, op, params):
        every = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
        self.reference = oracle.reference(op, every, "float16", **params)
        self.expected = oracle.round_to(self.reference, "float16")
        self.expected_bits = self.expected.view(np.uint16)
        # The compiled loop reads float64; a bitwise operator's reference is float16 bits (exact in float64).
        self.reference64 = np.asarray(self.reference, dtype=np.float64)


class Verifier:
    """Judges device outputs against the oracle; `jobs` threads share large tensors.

    check(case, x, actual) -> Comparison, identical to
    compare(x, *expected.expected_for(case, x), ...) as runner.judge calls it.
    """

    def __init__(self, jobs: int = 1, chunk: int = CHUNK, accelerate: bool = True, kernel: str = "auto",
                 formulas: bool = True):
        """kernel: "auto" (load the compiled comparison when the work is large enough), "always"
        or "never" (compare.compare on every chunk). formulas: with the compiled comparison,
        make float32 references in the kernel where the operator's oracle module declares a
        float32_plan (fast_kernels_jit: the formula's operations around numpy's np.expm1)
        rather than through oracle/<op>.py's reference()."""
        self.jobs = max(1, int(jobs))
        self.kernel = kernel
        self.formulas = formulas
        self.chunk = int(chunk)
        self.fast = accelerate  # the numpy paths need nothing more; the compiled ones need numba
        self._pool = ThreadPoolExecutor(self.jobs, thread_name_prefix="verify") if self.jobs > 1 else None
        self._zeros, self._bound, self._keys = {}, {}, {}
        self.tables = {}  # float16 oracle tables by operator and parameters, TABLE_CACHE kept
        self._lock = threading.Lock()
        self._plain_elements = 0  # verified without the compiled comparison so far
        if self.fast:
            _tune_malloc()

    def close(self):
        if self._pool:
            self._pool.shutdown()
            self._pool = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- what expected.expected_for gives, memoised where it can be ----------------------------

    def _key(self, case):
        """What the oracle's answer depends on: operator, type, NaN rule, parameters (memoised per
        case object; the entry holds the case, so its id cannot be reused while it is there)."""
        entry = self._keys.get(id(case))
        if entry is None or entry[0] is not case:
            entry = self._keys[id(case)] = (case, (case.op, case.dtype, case.nan_rule,
                                                   repr(sorted(case.params.items()))))
        return entry[1]

    def zeros(self, case):
        """(f(+0), f(-0)) in the target type, as expected.expected_for computes them."""
        key = self._key(case)
        if key not in self._zeros:
            self._zeros[key] = zero_results(case)
        return self._zeros[key]

    def _reference_function(self, case):
        key = self._key(case)
        if key not in self._bound:
            self._bound[key] = oracle.bind(case.op, case.dtype, **case.oracle_params())
        return self._bound[key]

    def float32_plan(self, case, kernel):
        """(formula, p0, p1, prepare): how kernel.float32_stats makes this case's reference.
        prepare(x, buffer) -> what the kernel reads: the literal reference (LITERAL), or
        np.expm1 of the formula's argument, or nothing. The operator's oracle module declares
        its formula (float32_plan); this layer names none."""
        key = (self._key(case), "float32-plan", self.formulas)
        if key in self._bound:
            return self._bound[key]
        declare = getattr(oracle.OPERATORS[oracle.normalise(case.op)], "float32_plan", None)
        declared = declare(**case.oracle_params()) if self.formulas and declare else None
        if declared is None:
            function = self._reference_function(case)
            plan = (kernel.LITERAL, 0.0, 0.0, lambda x, buffer: function(x))
        else:
            plan = (kernel.FORMULAS[declared["formula"]], declared["p0"], declared["p1"],
                    _prepare(kernel, declared["expm1_divisor"]))
        self._bound[key] = plan
        return plan

    def _table(self, case, build: bool):
        key = self._key(case)
        with self._lock:
            table = self.tables.get(key)
            if table is None and build:
                table = _Float16Table(case.op, case.oracle_params())
                if len(self.tables) >= TABLE_CACHE:
                    self.tables.pop(next(iter(self.tables)))
                self.tables[key] = table
        return table

    # -- judging --------------------------------------------------------------------------

    def accelerated(self, case, x, actual) -> bool:
        return (self.fast and elementwise(case) and case.dtype in _FLOATS
                and isinstance(actual, np.ndarray) and actual.dtype == x.dtype == case.dtype
                and actual.shape == x.shape and x.size > 0)

    def _use_kernel(self, n: int) -> bool:
        if not fast_kernels.AVAILABLE:
            return False
        if self.kernel != "auto":
            return self.kernel == "always"
        if fast_kernels.loaded():
            return True
        self._plain_elements += n
        return n >= KERNEL_CASE_MIN or self._plain_elements >= KERNEL_RUN_MIN

    def _takes_small_path(self, case, x) -> bool:
        return self.fast and elementwise(case) and 0 < x.size <= SMALL and (
            case.dtype not in _FLOATS or self.kernel == "never"
            or (self.kernel == "auto" and not fast_kernels.loaded()))

    def check(self, case, x, actual) -> Comparison:
        if not specs.get(case.op).family.pointwise:  # copies, indices, reductions: the judge's entry
            return compare_case(case, x, actual)
        if isinstance(x, tuple):  # several inputs: the plain path
            return self._plain(case, x, actual)
        x = np.asarray(x)
        if self._takes_small_path(case, x):
            return self._small(case, x, actual)
        if not self.accelerated(case, x, actual):
            return self._plain(case, x, actual)
        tally = Tally(x.shape, case.dtype)
        self.add_chunk(tally, case, x, actual, 0)
        return tally.result()

    def check_many(self, items) -> list:
        """[(case, x, actual)] -> [Comparison], each what check(case, x, actual) gives.

        Small cases of one operator, type and parameter set are verified together: one oracle
        call over their concatenation (several inputs: each broadcast to the output's shape
        first), split into per-case figures (numpy's per-call cost, not the arithmetic, is what
        a small case spends). The cases with an element off the exactly rounded value go through
        compare.compare_group: one interval evaluation for the group's differing elements.
        """
        results = [None] * len(items)
        groups = {}
        for number, (case, x, actual) in enumerate(items):
            x = x if isinstance(x, tuple) else np.asarray(x)
            if isinstance(x, tuple) and self._groups_several(case, x, actual):
                groups.setdefault((self._key(case), tuple(v.dtype.str for v in x)), []).append(number)
            elif (not isinstance(x, tuple) and self._takes_small_path(case, x) and isinstance(actual, np.ndarray)
                    and actual.dtype == x.dtype == case.dtype and actual.shape == x.shape):
                groups.setdefault(self._key(case), []).append(number)
            else:
                results[number] = self.check(case, x, actual)
        for members in groups.values():
            if isinstance(items[members[0]][1], tuple):
                self._several_group(items, members, results)
            elif len(members) == 1:
                results[members[0]] = self.check(*items[members[0]])
            else:
                self._small_group(items, members, results)
        return results

    def _small_group(self, items, members, results):
        """check_many's one-input cases of one key (two or more) into results."""
        cases = [items[m][0] for m in members]
        flat_x = [np.asarray(items[m][1]).reshape(-1) for m in members]
        sizes = np.array([v.size for v in flat_x])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        x = np.concatenate(flat_x)
        actual = np.concatenate([np.ascontiguousarray(items[m][2]).reshape(-1) for m in members])
        is_float = np.dtype(cases[0].dtype).kind == "f"
        with np.errstate(all="ignore"):
            reference = self._reference_function(cases[0])(x)
            expected = oracle.round_to(reference, cases[0].dtype)
            nan_mismatch = False
            if is_float:  # as compare.compare: NaN against NaN is no distance, against a number a mismatch
                e_nan, a_nan = np.isnan(expected), np.isnan(actual)
                distance = np.where(e_nan | a_nan, 0, ulp_distance(expected, actual))
                nan_mismatch = e_nan != a_nan
                error = np.abs(fractional_ulp_error(reference, actual, expected.dtype))
                fraction = np.maximum.reduceat(np.where(np.isfinite(error), error, 0.0), starts)
            else:
                distance = ulp_distance(expected, actual)
            # off the exactly rounded value: its interval is judged; out of the case's tolerance: the
            # full analysis (flushing, worst elements); else the figures here are compare's ULP figures
            differs = np.add.reduceat(((distance > 0) | nan_mismatch).astype(np.int64), starts)
            tolerances = np.repeat([case.tolerance for case in cases], sizes)
            over = np.add.reduceat(((distance > tolerances) | nan_mismatch).astype(np.int64), starts)
            max_distance = np.maximum.reduceat(distance, starts)
        lengths = bin_index(distance)
        owner = np.repeat(np.arange(len(members)), sizes)
        bins = HISTOGRAM_BINS
        histograms = np.bincount(owner * bins + lengths, minlength=len(members) * bins).reshape(-1, bins)
        pending, known = [], []
        for k, number in enumerate(members):
            summary = None
            if not over[k]:
                tally = Tally(np.shape(items[number][1]), cases[k].dtype)
                tally.add_fast(int(sizes[k]), int(max_distance[k]),
                               int(np.float64(fraction[k]).view(np.int64)) if is_float else None, histograms[k])
                summary = tally.result()
            if differs[k]:
                pending.append((number, slice(starts[k], starts[k] + sizes[k])))
                known.append(summary)
            else:
                results[number] = summary
        self._compare_pending(items, pending, expected, reference if is_float else None, results, known)

    def _groups_several(self, case, x, actual) -> bool:
        """A small case of several inputs that check_many verifies with others of its key."""
        return (self.fast and specs.get(case.op).family.pointwise and isinstance(actual, np.ndarray)
                and 0 < actual.size <= SMALL and actual.shape == np.broadcast_shapes(*(np.shape(v) for v in x))
                and actual.dtype == oracle.output_dtype(case.op, case.dtype, **case.params))

    def _several_group(self, items, members, results):
        """check_many's several-input cases of one key (and input types) into results: a case whose
        output has the oracle's bits everywhere is identical(), the others compare.compare_group."""
        case = items[members[0]][0]
        shapes = [items[m][2].shape for m in members]
        x = operands.join([operands.flat(items[m][1], shape) for m, shape in zip(members, shapes)])
        actual = np.concatenate([np.ascontiguousarray(items[m][2]).reshape(-1) for m in members])
        with np.errstate(all="ignore"):
            reference = self._reference_function(case)(x)
        expected = oracle.round_to(reference, actual.dtype)
        float_reference = np.dtype(case.dtype).kind == "f"
        pending, start = [], 0
        for number, shape in zip(members, shapes):
            part = slice(start, start + math.prod(shape))
            start = part.stop
            if expected[part].tobytes() == actual[part].tobytes():
                results[number] = identical(expected[part], actual[part], reference[part] if float_reference
                                            and actual.dtype.kind == "f" else None)
            else:
                pending.append((number, part))
        self._compare_pending(items, pending, expected, reference if float_reference else None, results)

    def _compare_pending(self, items, pending, expected, reference, results, known=None):
        """compare.compare_group of the pending (item number, slice of the group's concatenation) of
        one key into results; expected and reference: the group's, concatenated (reference None
        where the comparison takes none); known: compare_group's ulp."""
        if not pending:
            return
        case = items[pending[0][0]][0]
        compared = []
        for number, part in pending:
            item_case, x, actual = items[number]
            shape = actual.shape
            compared.append((x, expected[part].reshape(shape), actual, item_case.tolerance,
                             item_case.flush_allowed, self.zeros(item_case),
                             None if reference is None else reference[part].reshape(shape)))
        for (number, _), result in zip(pending, compare_group(compared, interval_judge(case), known)):
            results[number] = result

    def _small(self, case, x, actual) -> Comparison:
        """A small tensor of any type: the bound oracle (or a float16 table already built); when
        the device's bits equal the oracle's everywhere, the Comparison compare.compare would make
        of that, without its element-wise analysis; otherwise compare.compare."""
        is_float = np.dtype(case.dtype).kind == "f"
        table = self._table(case, build=False) if case.dtype == "float16" and x.dtype == np.float16 else None
        with np.errstate(all="ignore"):
            if table is not None:
                codes = x.view(np.uint16)
                reference, expected = table.reference[codes], table.expected[codes]
            else:
                reference = self._reference_function(case)(x)
                expected = oracle.round_to(reference, case.dtype)
        if (isinstance(actual, np.ndarray) and actual.dtype == expected.dtype
                and actual.shape == expected.shape):
            if expected.tobytes() == np.ascontiguousarray(actual).tobytes():
                return identical(expected, actual, reference if is_float else None)
            if is_float:
                good, max_distance, fraction, histogram, where = _numpy_split(
                    expected.reshape(-1), actual.reshape(-1), reference.reshape(-1), 0)
                if not where.size:  # all within tolerance: nothing for the full analysis to add
                    tally = Tally(x.shape, case.dtype)
                    tally.add_fast(good, max_distance, fraction, histogram)
                    return tally.result()
        return compare(x, expected, actual, case.tolerance, case.flush_allowed,
                       self.zeros(case), reference if is_float else None, interval_judge(case))

    def _plain(self, case, x, actual) -> Comparison:
        """The unaccelerated path, exactly expected.expected_for + compare."""
        expected, reference = expected_and_reference(case, x)
        is_float = np.dtype(case.dtype).kind == "f"
        return compare(x, expected, actual, case.tolerance, case.flush_allowed, self.zeros(case),
                       reference if is_float else None, interval_judge(case))

    def add_chunk(self, tally: Tally, case, x, actual, offset: int):
        """Verify flat x/actual (elements offset.. of the case) into tally, over the threads."""
        self.submit(tally, case, x, actual, offset)()

    def submit(self, tally: Tally, case, x, actual, offset: int):
        """Start verifying a piece of a case (elements offset.. in flat order) into tally; returns
        finish(), which waits for it and adds it to tally. The caller may run the next piece on the
        device meanwhile: the threads work on this one. x may be a tuple of several inputs, each of
        the output's shape (exhaustive_float16_pairs)."""
        if isinstance(x, tuple):
            return self._submit_several(tally, case, x, actual, offset)
        x = np.asarray(x)
        if not self.accelerated(case, x, actual):
            flat_actual = actual.reshape(-1) if isinstance(actual, np.ndarray) and actual.shape == x.shape \
                else actual
            part = self._plain(case, x.reshape(-1), flat_actual)
            return lambda: tally.add(offset, part)
        x, actual = x.reshape(-1), np.ascontiguousarray(actual).reshape(-1)
        n = x.size
        table = None
        kernel = fast_kernels.load() if self._use_kernel(n) else None
        if case.dtype == "float16":
            table = self._table(case, build=n >= F16_TABLE_MIN or kernel is not None)
        return self._spread(tally, n, lambda start, stop: self._span(case, x, actual, offset, start, stop,
                                                                     table, kernel))

    def _spread(self, tally, n, span):
        """span(start, stop) -> partial results, over the threads; returns finish() as submit does."""
        if self._pool is None or n < PARALLEL_MIN:
            parts = [span(0, n)]
            return lambda: self._merge(tally, parts)
        # One span a thread: the failing elements' interval walk holds the GIL between its compiled
        # passes, so fewer, larger spans keep more threads busy (an H100 sweep chunk, all elements off
        # the exact value, 16 threads: 607 ms with four spans a thread and 2**13-element blocks, 177 ms).
        step = -(-n // self.jobs)
        step = -(-step // self.chunk) * self.chunk
        futures = [self._pool.submit(span, start, min(start + step, n)) for start in range(0, n, step)]
        return lambda: self._merge(tally, [future.result() for future in futures])

    def _submit_several(self, tally, case, x, actual, offset):
        """submit() for several inputs of the output's shape: blocks of CHUNK elements, each whose
        output has the oracle's bits everywhere counted without the element-wise analysis
        (identical()), the others through compare.compare."""
        if not (isinstance(actual, np.ndarray) and all(np.shape(v) == actual.shape for v in x)):
            part = self._plain(case, x, actual)  # an output of the wrong shape: a problem, no elements
            return lambda: tally.add(offset, part)
        flat, actual = tuple(np.asarray(v).reshape(-1) for v in x), np.ascontiguousarray(actual).reshape(-1)
        if not self.fast:
            part = self._plain(case, flat, actual)
            return lambda: tally.add(offset, part)
        return self._spread(tally, actual.size, lambda start, stop: self._several_span(case, flat, actual, offset,
                                                                                       start, stop))

    def _several_span(self, case, xs, actual, offset, start, stop) -> list:
        function = self._reference_function(case)
        output = np.dtype(oracle.output_dtype(case.op, case.dtype, **case.params))
        float_reference = np.dtype(case.dtype).kind == "f"
        if (output.name in _FLOATS and float_reference and actual.dtype == output
                and self._use_kernel(stop - start)):
            return self._several_by_kernel(case, xs, actual, offset, start, stop, function, output)
        parts = []
        with np.errstate(all="ignore"):
            for begin in range(start, stop, self.chunk):
                end = min(begin + self.chunk, stop)
                block, actual_s = tuple(v[begin:end] for v in xs), actual[begin:end]
                reference = function(block)
                expected = oracle.round_to(reference, output)
                if actual_s.dtype == output and expected.tobytes() == actual_s.tobytes():
                    part = identical(expected, actual_s, reference if float_reference and output.kind == "f"
                                     else None)
                else:
                    part = compare(block, expected, actual_s, case.tolerance, case.flush_allowed, self.zeros(case),
                                   reference if float_reference else None, interval_judge(case))
                parts.append(("full", offset + begin, part))
        return parts

    def _several_by_kernel(self, case, xs, actual, offset, start, stop, function, output) -> list:
        """_several_span's float outputs in the compiled loop, as _span's one input: elements with the
        oracle's bits are only counted; the others get the full analysis (flushing, NaN, intervals,
        worst elements) once, at the end."""
        span = _Span(output, fast_kernels.load(), self.chunk)
        with np.errstate(all="ignore"), compiling.verifying(case):
            for begin in range(start, stop, self.chunk):
                end = min(begin + self.chunk, stop)
                block = tuple(v[begin:end] for v in xs)
                reference = function(block)
                span.by_kernel(begin, block, actual[begin:end], oracle.round_to(reference, output), reference)
            return span.parts(case, offset, self.zeros)

    @staticmethod
    def _merge(tally, parts):
        for part in parts:
            for kind, *payload in part:
                if kind == "fast":
                    tally.add_fast(*payload)
                else:
                    tally.add(*payload)

    def _span(self, case, x, actual, offset, start, stop, table, kernel):
        """Elements start..stop of the flat chunk -> list of partial results, in order.
        kernel: the compiled loops (fast_kernels.load()), or None (compare.compare every chunk)."""
        with compiling.verifying(case):
            return self._span_of(case, x, actual, offset, start, stop, table, kernel)

    def _span_of(self, case, x, actual, offset, start, stop, table, kernel):
        dtype = np.dtype(case.dtype)
        function = self._reference_function(case)
        plan = self.float32_plan(case, kernel) if kernel is not None and dtype == np.float32 else None
        buffer = np.empty(self.chunk) if plan is not None else None
        span = _Span(dtype, kernel, self.chunk)
        with np.errstate(all="ignore"):
            for begin in range(start, stop, self.chunk):
                end = min(begin + self.chunk, stop)
                xs, actual_s = x[begin:end], actual[begin:end]
                if table is not None and kernel is not None:
                    span.by_table(begin, xs, actual_s, table)
                    continue
                if plan is not None:
                    span.by_formula(begin, xs, actual_s, plan, buffer[:end - begin])
                    continue
                if table is not None:
                    codes = xs.view(np.uint16)
                    reference, expected = table.reference[codes], table.expected[codes]
                else:
                    reference = function(xs)
                    expected = reference.astype(dtype)
                if kernel is None:
                    span.by_numpy(offset, begin, xs, actual_s, expected, reference)
                else:
                    span.by_kernel(begin, xs, actual_s, expected, reference)
            return span.parts(case, offset, self.zeros)


class _Span:
    """What Verifier._span gathers over its chunks: partial results in order, the good elements'
    figures (count, largest distance, largest fractional error's bits, histogram) and the bad
    elements, which get the full analysis (flushing, NaN, worst elements) once, at the end."""

    def __init__(self, dtype, kernel, chunk: int):
        self.dtype, self.kernel = dtype, kernel
        self.scratch = np.empty(chunk, dtype=np.uint8)
        self.positions = np.empty(chunk, dtype=np.int64)
        self.histogram = np.zeros(HISTOGRAM_BINS, dtype=np.int64)
        self.results = []
        self.totals = [0, 0, 0]  # good elements, their max distance and max fractional error (bits)
        self.bad = []  # (positions in x, x, expected, actual, reference) of the bad elements

    def keep(self, begin, xs, actual_s, stats, bad_values):
        """A compiled loop's verdict on a chunk, stats = (bad, max distance, fractional bits): the
        good elements into the totals, the bad ones (bad_values(where) -> their expected and
        reference values) kept for the full analysis."""
        bad, max_distance, fraction_bits = stats
        self.totals[0] += actual_s.size - bad
        self.totals[1] = max(self.totals[1], max_distance)
        self.totals[2] = max(self.totals[2], fraction_bits)
        if bad:
            where = self.positions[:bad].copy()
            bad_expected, bad_reference = bad_values(where)
            self.bad.append((where + begin, operands.take(xs, where), bad_expected, actual_s[where], bad_reference))

    def by_table(self, begin, xs, actual_s, table):
        """float16 through the operator's table, in the compiled loop."""
        codes = xs.view(np.uint16)
        self.keep(begin, xs, actual_s, self.kernel.float16_table_stats(
            codes, actual_s.view(np.uint16), table.reference64, table.expected_bits, table.DECODE,
            0, self.histogram, self.scratch, self.positions),
            lambda where: (table.expected[codes[where]], table.reference[codes[where]]))

    def by_formula(self, begin, xs, actual_s, plan, buffer):
        """float32 with the formula's operations in the compiled loop (Verifier.float32_plan)."""
        formula, p0, p1, prepare = plan
        bits = fast_kernels.FLOAT_LAYOUT[self.dtype][0]
        reference = prepare(xs, buffer)
        self.keep(begin, xs, actual_s, self.kernel.float32_stats[formula](
            xs, reference, p0, p1, actual_s, actual_s.view(bits), 0, self.histogram, self.scratch,
            self.positions),
            lambda where: (reference[where].astype(self.dtype), reference[where]))

    def by_kernel(self, begin, xs, actual_s, expected, reference):
        """The oracle's values, compared in the compiled loop."""
        bits, mask, inf, digits, low = fast_kernels.FLOAT_LAYOUT[self.dtype]
        self.keep(begin, xs, actual_s, self.kernel.float_stats(
            expected.view(bits), actual_s.view(bits), fast_kernels.as_float(actual_s), reference,
            0, mask, inf, digits, low, self.histogram, self.scratch, self.positions),
            lambda where: (expected[where], reference[where]))

    def by_numpy(self, offset, begin, xs, actual_s, expected, reference):
        """The oracle's values, compared with numpy (no compiled loops)."""
        if expected.tobytes() == actual_s.tobytes():
            self.results.append(("full", offset + begin, identical(expected, actual_s, reference)))
            return
        good, max_distance, fraction, good_histogram, where = _numpy_split(expected, actual_s, reference, 0)
        if good:
            self.results.append(("fast", good, max_distance, fraction, good_histogram))
        if where.size:
            self.bad.append((where + begin, xs[where], expected[where], actual_s[where], reference[where]))

    def parts(self, case, offset, zeros) -> list:
        """The partial results: the numpy path's, the bad elements' full analysis, the good totals.
        zeros: Verifier.zeros, asked only where there are bad elements."""
        parts = list(self.results)
        if self.bad:
            # The full analysis (flushing, NaN, worst elements), once, for the bad elements only:
            # in the compiled passes where they apply (fast_analysis), else compare.compare.
            where, xs, expected, actual_s, reference = (operands.join(p) for p in zip(*self.bad))
            judge, accepted_zeros = interval_judge(case), zeros(case)
            if self.kernel is not None and fast_analysis.applies(
                    judge, expected, accepted_zeros):
                parts.append(("full", offset, fast_analysis.compare(
                    self.kernel, xs, expected, actual_s, case.tolerance, case.flush_allowed, accepted_zeros,
                    reference, judge), where))
            else:  # numpy's passes, a block at a time: their arrays stay in the caches
                for at in range(0, where.size, BAD_BLOCK):
                    block = slice(at, at + BAD_BLOCK)
                    parts.append(("full", offset, compare(operands.take(xs, block), expected[block], actual_s[block],
                                                          case.tolerance, case.flush_allowed, accepted_zeros,
                                                          reference[block], judge), where[block]))
        if self.totals[0]:
            parts.append(("fast", *self.totals, self.histogram))
        return parts


__all__ = ["Verifier", "Tally", "CHUNK", "elementwise", "usable_cpus"]
