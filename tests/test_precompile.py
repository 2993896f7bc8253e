"""`conformance compile` builds, ahead of a run, every compiled loop the run verifies with.

Each process below has its own numba cache directory (NUMBA_CACHE_DIR): the first compiles the loops
for a case file, the second verifies a slice of that sweep with a device that gets elements wrong
(every path: reference, comparison, bad-element statistics, the fused d3d intervals) and counts the
loops numba had to compile rather than load.
"""
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest
from needs import missing

from conformance.backends.wine_lane import processes_with
from conformance.caseset.caseload import load_paths
from conformance.judge import fast_kernels, precompile

SWEEP = textwrap.dedent("""\
    operator: ELEMENT_WISE_CLIP
    groups:
      - dtypes: [float32]
        shapes: [auto]
        params: {Min: -1.5, Max: [2.0, 3.0]}
        inputs:
          - {kind: exhaustive_float32, start: 0x3f000000, stop: 0x40400000, step: 8}
    """)

# A slice of the sweep verified with the compiled loops against a device one ULP off on every other
# element; prints the loops compiled in this process (numba cache misses) and those loaded.
VERIFY = textwrap.dedent("""\
    import json, sys
    import numpy as np
    from conformance.caseset.caseload import load_paths
    from conformance.caseset import inputs
    from conformance.judge import fast, fast_kernels, fast_intervals_jit, fused_intervals
    from conformance.judge.expected import expected_for
    kernels = fast_kernels.load()
    case = load_paths([sys.argv[1]])[0]
    x = inputs.streamed_input("exhaustive_float32", 0x3f000000, 8, 1 << 20)
    expected = expected_for(case, x)[0]
    actual = expected.copy()
    actual.view(np.uint32)[::2] += 1
    with fast.Verifier(jobs=2, kernel="always") as verifier:
        verifier.check(case, x, actual)
    dispatchers = [f for m in (kernels, fast_intervals_jit, fused_intervals) for f in vars(m).values()
                   if hasattr(f, "stats") and hasattr(f.stats, "cache_misses")]
    dispatchers += list(fused_intervals._COMPILED.values())
    print(json.dumps({"compiled": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
                      "loaded": sum(sum(d.stats.cache_hits.values()) for d in dispatchers)}))
    """)


@pytest.fixture(autouse=True)
def numba():
    if not fast_kernels.AVAILABLE:
        missing("numba is not installed (a dependency: scripts/setup.sh installs it)")


def _run(args, cache, cwd):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache)}
    done = subprocess.run([sys.executable, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_run_after_compile_loads_every_loop_and_compiles_none(tmp_path, jobs):
    sweep = tmp_path / "clip.yaml"
    sweep.write_text(SWEEP)
    verify = tmp_path / "verify.py"
    verify.write_text(VERIFY)
    cold, warm = tmp_path / "cold", tmp_path / "warm"
    out = _run(["-m", "conformance", "compile", "--jobs", jobs, str(sweep)], warm, tmp_path)
    assert "compiled the loops of 2 operator, type and parameter sets" in out, out
    assert out.count("ELEMENT_WISE_CLIP float32") == 2, out
    without = json.loads(_run([str(verify), str(sweep)], cold, tmp_path).splitlines()[-1])
    after = json.loads(_run([str(verify), str(sweep)], warm, tmp_path).splitlines()[-1])
    assert without["compiled"] > 0, without  # the check is able to see a compile
    # Nothing compiled; the loops loaded (the small helpers a cold run compiles as loops of their own
    # come inside the cached machine code of the loops that call them).
    assert after["compiled"] == 0 and after["loaded"] > 0, (without, after)


PAIRS = textwrap.dedent("""\
    operator: ELEMENT_WISE_DIVIDE
    groups:
      - dtypes: [float16]
        shapes: [auto]
        inputs:
          - {kind: exhaustive_float16_pairs, start: 0x3c000000, stop: 0x3c200000}
    """)

# A chunk of the pair sweep through the compiled loops, a device one ULP off on every other element.
VERIFY_PAIRS = textwrap.dedent("""\
    import json, sys
    import numpy as np
    from conformance.caseset.caseload import load_paths
    from conformance.caseset import inputs
    from conformance.judge import fast, fast_kernels, fast_intervals_jit, fused_intervals
    from conformance.judge.expected import expected_for
    kernels = fast_kernels.load()
    case = load_paths([sys.argv[1]])[0]
    _, x = next(inputs.chunks(case.generator, case.dtype, case.shape, 1 << 20))
    expected = expected_for(case, x)[0]
    actual = expected.copy()
    actual.view(np.uint16)[::2] += 1
    with fast.Verifier(jobs=2, kernel="always") as verifier:
        verifier.add_chunk(fast.Tally(case.shape, case.dtype), case, x, actual, 0)
    dispatchers = [f for m in (kernels, fast_intervals_jit, fused_intervals) for f in vars(m).values()
                   if hasattr(f, "stats") and hasattr(f.stats, "cache_misses")]
    dispatchers += list(fused_intervals._COMPILED.values())
    print(json.dumps({"compiled": sum(sum(d.stats.cache_misses.values()) for d in dispatchers),
                      "loaded": sum(sum(d.stats.cache_hits.values()) for d in dispatchers)}))
    """)


def test_a_pair_sweep_after_compile_loads_every_loop_and_compiles_none(tmp_path):
    """Pair sweeps (float16, two inputs) too: their fused intervals per input and format, and the
    bad-element passes, are built by `conformance compile`, not by a sweep's first chunks."""
    sweep = tmp_path / "divide.yaml"
    sweep.write_text(PAIRS)
    verify = tmp_path / "verify.py"
    verify.write_text(VERIFY_PAIRS)
    cold, warm = tmp_path / "cold", tmp_path / "warm"
    out = _run(["-m", "conformance", "compile", str(sweep)], warm, tmp_path)
    assert "compiled the loops of 1 operator, type and parameter sets" in out, out
    without = json.loads(_run([str(verify), str(sweep)], cold, tmp_path).splitlines()[-1])
    after = json.loads(_run([str(verify), str(sweep)], warm, tmp_path).splitlines()[-1])
    assert without["compiled"] > 0, without
    assert after["compiled"] == 0 and after["loaded"] > 0, after


def test_the_code_generation_does_not_depend_on_what_was_imported_first(tmp_path):
    """numba keys its cache by the CPU features: a process that imports fused_intervals before
    fast_kernels.load() must choose the same ones as `conformance compile` (on an AVX-512 machine they
    differed, and a run after compile compiled everything again)."""
    report = "import numba; print(numba.config.CPU_FEATURES, numba.config.CPU_NAME)"
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_CPU")}
    seen = {subprocess.run([sys.executable, "-c", f"{first}; {report}"], env=env, capture_output=True,
                           text=True, check=True).stdout
            for first in ("from conformance.judge import fast_kernels; fast_kernels.load()",  # compile's way
                          "import conformance.judge.fused_intervals",
                          "import conformance.judge.fast_intervals_jit")}
    assert len(seen) == 1, seen


def _cases(tmp_path, group: str):
    path = tmp_path / "cases.yaml"
    path.write_text(group + "    inputs:\n      - {kind: uniform, low: -2, high: 2}\n")
    return load_paths([str(path)])


def test_kinds_are_one_per_operator_type_and_parameters(tmp_path):
    cases = _cases(tmp_path, "operator: ACTIVATION_CELU\ngroups:\n  - dtypes: [float32, float16]\n"
                             "    shapes: [[4], [2, 3], [5, 1, 2]]\n    params: {Alpha: [1.0, 2.0]}\n")
    chosen = precompile.kinds(cases)
    assert len(cases) == 12
    assert sorted((c.dtype, c.params["Alpha"]) for c in chosen) == [
        ("float16", 1.0), ("float16", 2.0), ("float32", 1.0), ("float32", 2.0)]


def test_integer_cases_need_no_loops(tmp_path):
    cases = _cases(tmp_path, "operator: ELEMENT_WISE_ABS\ngroups:\n  - dtypes: [int32, float32]\n    shapes: [[4]]\n")
    assert [c.dtype for c in precompile.kinds(cases)] == ["float32"]


def test_the_made_up_device_takes_every_path():
    x = precompile.sample("float32")
    expected = x.copy()
    actual = precompile.device_output(expected)
    bits, want = actual.view("uint32").astype("int64"), expected.view("uint32").astype("int64")
    finite = (x == x) & (abs(x) != float("inf"))
    assert (bits - want == 1)[finite].sum() > len(x) // 4  # one ULP off
    assert (actual != actual).sum() > (x != x).sum()  # NaN where a number is due
    subnormal = (x != 0) & (abs(x) < 1.1754944e-38)
    assert subnormal.any() and (actual[subnormal] == 0).all()  # flushed
    assert (bits == want).sum() > len(x) // 2  # exact


def test_a_killed_compile_leaves_no_process_compiling(tmp_path):
    token = f"dmlc-compile-{os.getpid()}"
    sweep = tmp_path / "clip.yaml"
    sweep.write_text(SWEEP)  # two kinds: one a process
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "DMLC_WORKER_TOKEN": token}
    compiling = subprocess.Popen([sys.executable, "-m", "conformance", "compile", "--jobs", "2", str(sweep)],
                                 env=env, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while len(processes_with(token, "spawn_main")) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(processes_with(token, "spawn_main")) == 2, processes_with(token, "")
    time.sleep(5)  # both inside numba's compiler (a cold compile of these loops takes over 10 s)
    compiling.kill()
    compiling.wait()
    deadline = time.monotonic() + 30
    while processes_with(token, "") and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not processes_with(token, ""), f"left running: {processes_with(token, '')}"



def test_a_first_run_says_what_it_compiles_and_a_second_run_compiles_nothing(tmp_path):
    sweep = tmp_path / "clip.yaml"
    sweep.write_text(SWEEP)
    command = ["-m", "conformance", "run", str(sweep), "--backend", "python:oracle:evaluate", "--quiet",
               "--results", str(tmp_path / "run.jsonl")]
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    first, second = (subprocess.run([sys.executable, *command], env=env, cwd=tmp_path, capture_output=True,
                                    text=True, timeout=600) for _ in range(2))
    assert first.returncode == second.returncode == 0, (first.stderr[-2000:], second.stderr[-2000:])
    said = [line for line in first.stderr.splitlines() if line.startswith("compiling the verifier's loops")]
    assert said == [f"compiling the verifier's loops for ELEMENT_WISE_CLIP float32 (first run on this machine "
                    f"only; cached in {tmp_path / 'cache'})"], first.stderr
    assert "compiling" not in second.stderr, second.stderr
