"""What a test needs from the machine and CI provisions (a lane, a browser, numba, a provider;
scripts/setup.sh and scripts/ci.d/): with the environment variable CI set, a missing piece FAILS
the test, so that a lane that did not provision cannot pass as skipped; elsewhere the test skips
and says why."""
import os

import pytest

IN_CI = bool(os.environ.get("CI"))


def missing(reason: str):
    if IN_CI:
        pytest.fail(f"CI: {reason}", pytrace=False)
    pytest.skip(reason)
