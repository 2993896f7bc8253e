"""The count a family's soundness tests keep (issue 26): each simulated device's outputs judged against the
accumulation judge's intervals (conformance/judge/accumulated.interval), one judgment per device configuration
and output, and the largest fraction of the bound a device reached (|device - exact| over the interval's
half-width on that side), which tells whether the bound is loose. A family's last test reads the tally."""
import numpy as np
import pytest

import accumulation_devices as dev
import oracle
from conformance.judge.accumulated import interval
from conformance.specs.base import computed_fields


# The orders issue 26 names: sequential, pairwise, blocked by 32, 64 and 256 (and strided lanes)
ISSUE_ORDERS = {"sequential", "pairwise", "blocked32", "blocked64", "blocked256", "strided32"}


class Tally:
    def __init__(self, family: str):
        self.family = family
        self.checked = {}  # label -> outputs judged
        self.reached = {}  # label -> the largest fraction of the bound reached

    def judge(self, label, allowed, values, device, exact=None, count=True, key=None):
        """Fail (naming the device, the element, its value and interval) unless every value (float64, any
        shape broadcastable to the interval's) lies in its acceptance set; count the judgments under label, and
        the fraction of the bound reached under key (label unless given: a kind of data, say)."""
        shape = np.shape(values)
        lo, hi, num, nan = (np.broadcast_to(v, shape).reshape(-1) for v in (allowed.lo, allowed.hi, allowed.num,
                                                                             allowed.nan))
        values = np.asarray(values, np.float64).reshape(-1)
        with np.errstate(invalid="ignore"):
            bad = np.flatnonzero(np.where(np.isnan(values), ~nan, ~(num & (values >= lo) & (values <= hi))))
        if count:
            self.checked[label] = self.checked.get(label, 0) + values.size
        if exact is not None:
            exact = np.broadcast_to(np.asarray(exact, np.float64), shape).reshape(-1)
            with np.errstate(all="ignore"):
                side = np.where(values >= exact, hi - exact, exact - lo)
                fraction = np.where(np.isfinite(values) & np.isfinite(exact) & np.isfinite(side) & (side > 0),
                                    np.abs(values - exact) / side, 0.0)
            key = label if key is None else key
            self.reached[key] = max(self.reached.get(key, 0.0), float(fraction.max(initial=0.0)))
        if bad.size:
            r = bad[0]
            pytest.fail(f"{self.family} {label}, device {device}: {bad.size} of {values.size} outputs outside the "
                        f"interval; output {r} gave {values[r]!r}, expected within [{lo[r]!r}, {hi[r]!r}] (NaN "
                        f"allowed: {bool(nan[r])})" + (f", exact {exact[r]!r}" if exact is not None else ""))

    def judge_by_kind(self, label, cases, allowed, exact, values, device, count=True, rounding=""):
        """values: the outputs of every kind's case in turn (cases: [(kind, inputs)]), each judged against its
        own interval (count: one judgment each, and how far into the bound it came, per kind and rounding)."""
        at = 0
        for (kind, _), ok, want in zip(cases, allowed, exact):
            size = want.size
            self.judge(label, ok, values[at:at + size].reshape(want.shape), device, exact=want if count else None,
                       count=count, key=f"{label} {kind} {rounding}".rstrip())
            at += size

    def report_truncating(self) -> str:
        """report(), and that the simulated devices sum in every order of issue 26 (ISSUE_ORDERS) and a truncating
        float32 device came past half the bound somewhere (keys "float32 KIND zero"): else the bound is loose."""
        line = self.report()
        assert ISSUE_ORDERS <= {order for order, *_ in dev.devices("float32")}, \
            f"expected the simulated devices to sum in every order of the issue, {sorted(ISSUE_ORDERS)}, came " \
            f"{dev.ORDERS}"
        reached = max(v for key, v in self.reached.items() if key.startswith("float32 ") and key.endswith(" zero"))
        assert reached > 0.5, f"expected a truncating float32 device past half the bound somewhere, came {self.reached}"
        return line

    def total(self) -> int:
        return sum(self.checked.values())

    def report(self, minimum: int = 10 ** 6) -> str:
        """The line the family's counting test prints; fails below minimum judged outputs."""
        total = self.total()
        line = (f"{self.family}: outputs judged {total} ({self.checked}); the largest fraction of the bound "
                f"reached: { {k: round(v, 3) for k, v in self.reached.items()} }")
        print(line)
        assert total >= minimum, f"{self.family}: expected at least {minimum} outputs judged, came {total}"
        return line


def by_kind(spec, cases, params, dtype, references=True) -> tuple:
    """([each kind's interval], [each kind's oracle reference] or None) for cases: [(kind, inputs)]."""
    return ([interval(spec, inputs, params, dtype) for _, inputs in cases],
            [oracle.reference(spec.name, inputs, dtype, **computed_fields(params)) for _, inputs in cases]
            if references else None)
