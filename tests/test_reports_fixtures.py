"""Shared material for the report tests (no tests here): a results file whose every cell is known,
hostile strings, a device whose runtime messages are hostile, and a CLI runner."""
import json
import subprocess
import sys

import numpy as np

import oracle

HOSTILE_ID = "ELEMENT_WISE_CLIP/float32/rank1/defaults/<script>alert(1)</script>"
HOSTILE_MESSAGE = ("Mismatched elements: 1 / 4 <img src=x onerror=\"window.__pwned=1\"> | pipe "
                   "<script>window.__pwned=1</script>\x07\x1b[31m")
HOSTILE_DEVICE = "<b>GPU</b> | \"quoted\" & <script>window.__pwned=1</script>"


def conformance(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, "-m", "conformance", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd, env=env)


def record(case_id, status, dtype="float32", level="3_0", rank=1, op=None, max_ulp=None, **extra):
    op = op or case_id.split("/", 1)[0]
    failed = status == "fail"
    base = {"type": "case", "id": case_id, "op": op, "dtype": dtype, "shape": [4] * rank, "rank": rank,
            "params": {"Min": -1.0, "Max": 1.0}, "generator": {"kind": "uniform"}, "feature_level": level,
            "tolerance": 0, "flush_allowed": True, "nan_rule": "d3d", "in_place": False, "seed": 7,
            "source": f"cases/{op.lower()}.yaml:3", "backend": "dml", "required": extra.pop("required", True),
            "elements": 4 ** rank, "mismatches": 2 if failed else 0, "nan_mismatches": 0, "flushed": 0,
            "max_ulp": max_ulp if max_ulp is not None else (5 if failed else (0 if status == "pass" else None)),
            "max_fractional_ulp": None, "message": "", "placement": {}, "status": status, "seconds": 0.001,
            "worst": [{"index": [1], "input": 3.5, "expected": 1.0, "actual": 1.0000006, "ulp": 5},
                      {"index": [2], "input": "nan", "expected": 1.0, "actual": "nan", "ulp": "nan"}]
            if failed else [],
            "ulp_histogram": {"bins": [[0, 0, 2], [4, 7, 1]], "nan": 1, "flushed": 0} if failed else
            ({"bins": [[0, 0, 4 ** rank]], "nan": 0, "flushed": 0} if status == "pass" else None)}
    base.update(extra)
    return base


HEADER = {"type": "header", "tool": "dml-conformance", "feature_level": "5_0", "seed": 3, "os": "Windows-11",
          "python": "3.11.7", "numpy": "2.1", "onnx": "1.17", "start": "2026-01-02T03:04:05+00:00",
          "argv": ["conformance", "run", "--backend", "dml", "--tolerance", "float16=2"], "backend": "dml",
          "provider": "DmlExecutionProvider", "onnxruntime": "1.20.1",
          "onnxruntime_package": "onnxruntime-directml 1.20.1", "device": HOSTILE_DEVICE,
          "directml": "1.15.2", "driver": "31.0.101.5186"}
FOOTER = {"type": "footer", "seconds": 12.5, "cases": 12, "sessions_created": 4, "interrupted": False,
          "end": "2026-01-02T03:04:18Z"}


def known_records():
    """12 cases. Cells (operator, dtype, FL):
    CLIP float32 1_0 rank 4: 2 pass                       -> pass 2/2
    CLIP float32 3_0 rank 1,2: pass, fail, not-reachable, HOSTILE fail -> fail 2/4 (+1 pass, 1 not reachable)
    CLIP int16 2_1 rank 4: unsupported-required           -> unsupported required 1/1
    CLIP int64 6_0 rank 1: unsupported (not required)     -> unsupported 1/1
    CELU float32 3_0 rank 1,3: pass, crash                -> crash 1/2 (+1 pass)
    CELU float16 3_0 rank 1: 2 not-reachable              -> not reachable 2/2
    """
    clip, celu = "ELEMENT_WISE_CLIP", "ACTIVATION_CELU"
    return [
        record(f"{clip}/float32/rank4[4x4x4x4]/Min=-1,Max=1/uniform[-8,8]", "pass", level="1_0", rank=4),
        record(f"{clip}/float32/rank4[4x4x4x4]/Min=0.5,Max=1/uniform[-8,8]", "pass", level="1_0", rank=4),
        record(f"{clip}/float32/rank1[4]/Min=-1,Max=1/uniform[-8,8]", "pass"),
        record(f"{clip}/float32/rank2[4x4]/Min=2,Max=-1/uniform[-5,5]", "fail", rank=2, max_ulp=1065353216,
               message="Mismatched elements: 2 / 16 (tolerance 0 ULP, max 1065353216 ULP)"),
        record(f"{clip}/float32/rank1[6]/Scale=2,Bias=1/uniform[-8,8]", "not-reachable",
               message="ScaleBias cannot be expressed through ONNX Runtime"),
        record(HOSTILE_ID, "fail", op=clip, message=HOSTILE_MESSAGE,
               params={"Min": -1.0, "Max": 1.0, "Note": "</td><script>window.__pwned=1</script>"}),
        record(f"{clip}/int16/rank4[4x4x4x4]/Min=-3.7,Max=5.9/uniform[-120,120]", "unsupported-required",
               dtype="int16", level="2_1", rank=4, message="NOT_IMPLEMENTED: Clip(13) int16"),
        record(f"{clip}/int64/rank1[4]/Min=-3.7,Max=5.9/uniform[-1000,1000]", "unsupported", dtype="int64",
               level="6_0", required=False, message="NOT_IMPLEMENTED: Clip(13) int64"),
        record(f"{celu}/float32/rank1[7]/Alpha=1/uniform[-10,10]", "pass", op=celu),
        record(f"{celu}/float32/rank3[2x3x4]/Alpha=1/uniform[-10,10]", "crash", op=celu, rank=3,
               message="worker died: exit code 0xC0000005"),
        record(f"{celu}/float16/rank1[7]/Alpha=1/uniform[-10,10]", "not-reachable", dtype="float16", op=celu,
               message="ONNX's Celu schema allows float32 only"),
        record(f"{celu}/float16/rank1[7]/Alpha=0.5/uniform[-10,10]", "not-reachable", dtype="float16", op=celu,
               message="ONNX's Celu schema allows float32 only"),
    ]


def write_results(path, header=None, records=None, footer=None):
    lines = [header or HEADER, *(records if records is not None else known_records()), footer or FOOTER]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def hostile(op, x, dtype, **params):
    """A device (python:test_reports_fixtures:hostile) whose driver messages carry markup:
    CLIP raises with one; other operators answer the oracle, one element off."""
    if op == "ELEMENT_WISE_CLIP":
        raise RuntimeError("driver said <script>window.__pwned=1</script> | <img src=x onerror=alert(1)>")
    result = oracle.evaluate(op, x, dtype, **params)
    flat = result.reshape(-1)
    finite = np.flatnonzero(np.isfinite(flat) & (flat != 0))
    if finite.size:
        flat[finite[0]] = -flat[finite[0]]
    return result
