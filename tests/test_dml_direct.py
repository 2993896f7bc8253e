"""dml-direct against the real DirectML.dll (Wine lane on Linux, or Windows): the smoke suite CI runs.

With CI set, a missing lane or rejected numbers FAIL; elsewhere the tests skip and say why.
Nothing here is simulated: every number comes from DirectML executing a description.
"""
import json
import subprocess
import sys

import numpy as np
import pytest
from needs import missing

from conformance.backends import base
from conformance.caseset.case import Case


def _lane():
    from conformance.backends import dml_direct
    ready, why = dml_direct.available()
    if not ready:
        missing(f"the dml-direct lane is missing: {why}")
    return dml_direct


@pytest.fixture(scope="module")
def backend():
    dml_direct = _lane()
    backend = dml_direct.DmlDirectBackend("dml-direct", {})
    yield backend
    backend.close()


def case(op, dtype, shape, params, in_place=False, id=None):
    return Case(id=id or f"{op}/{dtype}/{list(shape)}/{params}", op=op, dtype=dtype, shape=tuple(shape), params=params,
                generator={"kind": "test"}, required_level="3_0", tolerance=0, in_place=in_place)


def test_device_reports_its_feature_level_and_data_types(backend):
    from conformance import featurelevels
    meta = backend.metadata()
    assert meta["feature_level_max"] in featurelevels.LEVELS
    assert featurelevels.at_least(meta["feature_level_max"], "5_0"), meta["feature_level_max"]
    assert meta["data_types"]["float16"] is True and meta["data_types"]["float32"] is True
    assert meta["directml"] and meta["directml"].startswith("1.")
    assert meta["feature_level_min_requested"] == "1_0"
    assert meta["worker_timings"]["create_descriptor_heap_s"] >= 0
    if sys.platform != "win32":  # vkd3d's virtual heaps, as dml-wine's (wine_lane.VKD3D_CONFIG), seen by the worker
        assert meta["vkd3d_config"] == meta["provider_options"]["vkd3d_config"] == "virtual_heaps", meta


def test_float16_celu_every_rank_no_padding(backend):
    """FLOAT16 CELU (ONNX Runtime rejects it) at ranks 1 to 8, checked against the oracle."""
    import oracle
    items = []
    rng = np.random.default_rng(1)
    for rank in range(1, 9):
        shape = (2, 3, 1, 2, 1, 1, 2, 1)[:rank]
        items.append((case("ACTIVATION_CELU", "float16", shape, {"Alpha": 0.5}),
                      rng.uniform(-6, 6, shape).astype(np.float16)))
    outcomes = backend.run_many(items)
    for (c, x), outcome in zip(items, outcomes):
        assert outcome.status == base.OK, outcome.message
        assert outcome.output.shape == x.shape and outcome.output.dtype == np.float16
        expected = oracle.evaluate("ACTIVATION_CELU", x, "float16", Alpha=0.5).astype(np.float64)
        assert np.max(np.abs(outcome.output.astype(np.float64) - expected)) <= 2e-3 * np.max(np.abs(expected))
    assert backend.stats()["dispatches"] >= 8


def test_scale_bias_is_applied(backend):
    """DML_SCALE_BIAS on CLIP and CONSTANT_POW: the outputs differ from the ones without it, as the page says."""
    x = np.linspace(-2, 2, 9, dtype=np.float32)
    with_sb, without = backend.run_many([
        (case("ELEMENT_WISE_CLIP", "float32", (9,), {"ScaleBias": {"Scale": 2.0, "Bias": 0.5}, "Min": -1.0,
                                                   "Max": 2.0}), x),
        (case("ELEMENT_WISE_CLIP", "float32", (9,), {"ScaleBias": None, "Min": -1.0, "Max": 2.0}), x)])
    assert with_sb.status == without.status == base.OK
    np.testing.assert_array_equal(with_sb.output, np.clip(x * 2.0 + 0.5, -1.0, 2.0))
    np.testing.assert_array_equal(without.output, np.clip(x, -1.0, 2.0))
    (pow_,) = backend.run_many([(case("ELEMENT_WISE_CONSTANT_POW", "float32", (9,),
                                      {"ScaleBias": {"Scale": 0.5, "Bias": 2.0}, "Exponent": 2.0}), x)])
    assert pow_.status == base.OK
    np.testing.assert_allclose(pow_.output, (x * 0.5 + 2.0) ** 2, rtol=1e-6)


def test_clip_min_above_max_and_int64(backend):
    """CLIP itself (not CLIP1): Min > Max gives Min; INT64 tensors at FL 5_0."""
    x = np.arange(-5, 6, dtype=np.int64) * 1000
    a, b = backend.run_many([
        (case("ELEMENT_WISE_CLIP", "float32", (5,), {"ScaleBias": None, "Min": 2.0, "Max": -1.0}),
         np.array([-3, -1, 0, 1, 3], np.float32)),
        (case("ELEMENT_WISE_CLIP", "int64", (11,), {"ScaleBias": None, "Min": -3.7, "Max": 2500.0}), x)])
    assert a.status == base.OK and np.all(a.output == 2.0)
    assert b.status == base.OK
    np.testing.assert_array_equal(b.output, np.clip(x, -3, 2500))


def _other_operator(name, parameters=(), **changes):
    """A spec for a DirectML operator the shipped specs may not have: the description's layout comes
    from the spec alone (conformance/dmldirect/layout.py), so it runs as soon as it is registered."""
    import dataclasses

    from conformance import specs
    return dataclasses.replace(specs.get("ACTIVATION_CELU"), name=name, struct=f"DML_{name}_OPERATOR_DESC",
                               parameters=tuple(parameters), **changes)


def test_every_field_kind_and_an_output_type_of_its_own_reach_directml(backend, monkeypatch):
    """An enum field (ROUND's RoundingMode, IS_INFINITY's InfinityMode), a UINT8 output (IS_NAN,
    IS_INFINITY), DML_SCALAR_UNION bounds typed by a DML_TENSOR_DATA_TYPE field (CLIP1: int64 bounds
    no double holds, float16 bounds in the union's first two bytes): DirectML computes each as the
    page says."""
    from conformance import specs
    from conformance.specs.base import SCALE_BIAS, Parameter
    rounding = {"DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN": 0, "DML_ROUNDING_MODE_TOWARD_ZERO": 1,
                "DML_ROUNDING_MODE_TOWARD_INFINITY": 2}  # DirectML.h enum DML_ROUNDING_MODE
    infinity = {"DML_IS_INFINITY_MODE_EITHER": 0, "DML_IS_INFINITY_MODE_POSITIVE": 1,
                "DML_IS_INFINITY_MODE_NEGATIVE": 2}  # DirectML.h enum DML_IS_INFINITY_MODE
    uint8 = {"output_dtype": lambda dtype: "uint8"}
    for spec in (
            _other_operator("ELEMENT_WISE_ROUND", [Parameter("RoundingMode", "enum", None, "", choices=tuple(rounding),
                                                             enum_values=rounding)]),
            _other_operator("ELEMENT_WISE_IS_NAN", **uint8),
            _other_operator("ELEMENT_WISE_IS_INFINITY", [Parameter("InfinityMode", "enum", None, "",
                                                                   choices=tuple(infinity), enum_values=infinity)],
                            **uint8),
            _other_operator("ELEMENT_WISE_CLIP1", [SCALE_BIAS, Parameter("MinMaxDataType", "data_type", None, ""),
                                                   Parameter("Min", "scalar", None, "", typed_by="MinMaxDataType"),
                                                   Parameter("Max", "scalar", None, "", typed_by="MinMaxDataType")])):
        monkeypatch.setitem(specs.SPECS, spec.name, spec)
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.7, -3.7], np.float32)
    specials = np.array([np.nan, -np.inf, np.inf, 0.0, -1.0, 65504.0], np.float16)
    big = np.array([-(1 << 63), -9007199254740994, -9007199254740993, 0, 9007199254740993,
                    9007199254740994, (1 << 63) - 1], np.int64)
    bounds = {"ScaleBias": None, "MinMaxDataType": "int64", "Min": -9007199254740993, "Max": 9007199254740993}
    outcomes = backend.run_many([
        (case("ELEMENT_WISE_ROUND", "float32", halves.shape, {"RoundingMode": "DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN"}),
         halves),
        (case("ELEMENT_WISE_ROUND", "float32", halves.shape, {"RoundingMode": "DML_ROUNDING_MODE_TOWARD_ZERO"}), halves),
        (case("ELEMENT_WISE_IS_NAN", "float16", specials.shape, {}), specials),
        (case("ELEMENT_WISE_IS_INFINITY", "float16", specials.shape, {"InfinityMode": "DML_IS_INFINITY_MODE_POSITIVE"}),
         specials),
        (case("ELEMENT_WISE_CLIP1", "int64", big.shape, bounds), big),
        (case("ELEMENT_WISE_CLIP1", "float16", specials.shape,
              {"ScaleBias": None, "MinMaxDataType": "float16", "Min": -0.1, "Max": 0.3}), specials)])
    for outcome in outcomes:
        assert outcome.status == base.OK, outcome.message
    even, toward_zero, nan, positive_infinity, clipped, clipped_half = (o.output for o in outcomes)
    np.testing.assert_array_equal(even, np.round(halves))
    np.testing.assert_array_equal(toward_zero, np.trunc(halves))
    assert nan.dtype == positive_infinity.dtype == np.uint8
    assert nan.tolist() == [1, 0, 0, 0, 0, 0] and positive_infinity.tolist() == [0, 0, 1, 0, 0, 0]
    assert clipped.dtype == np.int64
    assert clipped.tolist() == [-9007199254740993, -9007199254740993, -9007199254740993, 0, 9007199254740993,
                                9007199254740993, 9007199254740993]
    assert clipped_half.dtype == np.float16
    # Direct3D max/min: NaN gives the other operand (Max, then Min); the bounds are float16 values.
    assert clipped_half.tolist() == np.array([0.3, -0.1, 0.3, 0.0, -0.1, 0.3], np.float16).tolist()


def test_in_place_binds_the_input_buffer(backend):
    x = np.linspace(-4, 4, 120, dtype=np.float32).reshape(2, 3, 4, 5)
    (outcome,) = backend.run_many([(case("ACTIVATION_SCALED_ELU", "float32", x.shape,
                                         {"Alpha": 1.0, "Gamma": 2.0}, in_place=True), x)])
    assert outcome.status == base.OK
    expected = np.where(x > 0, 2.0 * x, 2.0 * np.expm1(x.astype(np.float64)))
    np.testing.assert_allclose(outcome.output, expected, rtol=2e-6, atol=1e-6)


def test_invalid_descriptions_are_typed_refusals_and_the_device_survives(backend):
    x9 = np.zeros((1,) * 8 + (3,), np.float32)
    bad_rank, bad_type, good = backend.run_many([
        (case("ACTIVATION_CELU", "float32", x9.shape, {"Alpha": 1.0}), x9),
        (case("ACTIVATION_CELU", "int32", (3,), {"Alpha": 1.0}), np.array([1, -2, 3], np.int32)),
        (case("ACTIVATION_CELU", "float32", (3,), {"Alpha": 1.0}), np.array([1, -2, 3], np.float32))])
    for refused in (bad_rank, bad_type):
        assert refused.status == base.UNSUPPORTED
        assert "E_INVALIDARG (0x80070057)" in refused.message and "CreateOperator" in refused.message
    assert good.status == base.OK and good.output[0] == 1.0


def test_size_zero_dimension_is_refused_as_documented(backend):
    x = np.zeros((2, 0, 3), np.float32)
    (outcome,) = backend.run_many([(case("ACTIVATION_CELU", "float32", x.shape, {"Alpha": 1.0}), x)])
    assert outcome.status == base.OK and outcome.output.shape == (2, 0, 3)
    assert "E_INVALIDARG" in outcome.message


def test_operators_are_compiled_once_per_description(backend):
    before = backend.sessions_created
    x = np.array([0.5, -0.5], np.float32)
    c = case("ACTIVATION_CELU", "float32", (2,), {"Alpha": 3.25})
    backend.run_many([(c, x), (c, x * 2)])
    backend.run_many([(c, x * 3)])
    assert backend.sessions_created == before + 1


def test_device_removal_and_worker_death_are_survived(monkeypatch):
    dml_direct = _lane()
    monkeypatch.setenv("DMLC_WORKER_TEST_HOOKS", "1")
    backend = dml_direct.DmlDirectBackend("dml-direct", {"timeout": "120"})
    try:
        reply, _ = backend.request({"op": "debug", "action": "remove_device"}, [], 60)
        removal = reply
        x = np.array([1.0, -1.0], np.float32)
        c = case("ACTIVATION_CELU", "float32", (2,), {"Alpha": 1.0})
        (outcome,) = backend.run_many([(c, x)])
        if removal.get("removed"):
            # A removed device is detected (GetDeviceRemovedReason), reported, and rebuilt.
            assert outcome.status == base.OK or "removed" in outcome.message, outcome.message
            (again,) = backend.run_many([(c, x)])
            assert again.status == base.OK
        else:
            assert outcome.status == base.OK  # no ID3D12Device5 on this driver: nothing was removed
        # A hard crash of the worker process: the case fails as crash, the next batch gets a new worker.
        print("remove_device:", removal)
        backend.protocol.send(backend.sock, {"op": "debug", "action": "die"})
        backend.process.wait(60)
        (crashed,) = backend.run_many([(c, x)])
        assert crashed.status in (base.OK, base.CRASH)  # a dead socket is found on send or on receive
        (after,) = backend.run_many([(c, x)])
        assert after.status == base.OK
        assert backend.workers_started >= 2
    finally:
        backend.close()


def test_a_small_descriptor_heap_splits_a_batch_into_submissions():
    dml_direct = _lane()
    backend = dml_direct.DmlDirectBackend("dml-direct", {"heap_descriptors": "12"})
    try:
        x = np.array([-2.0, 0.5, 2.0], np.float32)
        items = [(case("ELEMENT_WISE_CLIP", "float32", (3,), {"ScaleBias": None, "Min": -1.0 + i / 8, "Max": 1.0}), x)
                 for i in range(10)]
        outcomes = backend.run_many(items)
        for i, outcome in enumerate(outcomes):
            assert outcome.status == base.OK
            np.testing.assert_array_equal(outcome.output, np.clip(x, np.float32(-1.0 + i / 8), 1.0))
        assert backend.stats()["submissions"] >= 2 and backend.stats()["dispatches"] == 10
    finally:
        backend.close()


def test_bad_adapter_index_is_reported():
    dml_direct = _lane()
    from conformance.backends.base import BackendUnavailable
    with pytest.raises(BackendUnavailable, match="DXGI_ERROR_NOT_FOUND"):
        dml_direct.DmlDirectBackend("dml-direct", {"device_id": "7"})


def test_vulkan_device_picks_the_gpu_wine_creates_the_device_on():
    """Wine's DXGI lists one adapter however many GPUs there are, so a worker a GPU picks it on the
    Vulkan side (vkd3d's VKD3D_VULKAN_DEVICE). Here lavapipe is the one Vulkan device: index 0 runs
    and names it in the header; index 1, which vkd3d would quietly replace by another, is refused."""
    dml_direct = _lane()
    backend = dml_direct.DmlDirectBackend("dml-direct", {"vulkan_device": "0"})
    try:
        meta = backend.metadata()
        assert meta["provider_options"]["vulkan_device"] == "0"
        assert meta["vulkan_device"]["index"] == 0 and meta["vulkan_device"]["name"] == meta["device"]
        x = np.linspace(-4, 3, 8, dtype=np.float32)
        outcome = backend.run(case("ELEMENT_WISE_ABS", "float32", (8,), {}), x)
        np.testing.assert_array_equal(outcome.output, np.abs(x))
    finally:
        backend.close()
    with pytest.raises(base.BadInput, match=r"vulkan_device=1: this machine's Vulkan has 1 device\(s\) \(0: "):
        dml_direct.DmlDirectBackend("dml-direct", {"vulkan_device": "1"})
    with pytest.raises(base.BadInput, match="vulkan_device=gpu1: expected a Vulkan device index"):
        dml_direct.DmlDirectBackend("dml-direct", {"vulkan_device": "gpu1"})


def test_cli_smoke_run_with_feature_level_auto(tmp_path):
    """The CI smoke run: every seed operator, the cases ONNX Runtime cannot reach, numbers judged."""
    _lane()
    results = tmp_path / "smoke.jsonl"
    selection = ("(ACTIVATION_CELU/float16 and rank4 and uniform) "
                 "or (Bias and float32 and (ELEMENT_WISE_CLIP/ or ELEMENT_WISE_CONSTANT_POW/)) "
                 "or (in-place and ELEMENT_WISE_CLIP/) or (ELEMENT_WISE_CLIP/int64 and rank8) "
                 "or (ACTIVATION_SCALED_ELU/float16 and rank5 and uniform) "
                 "or (ELEMENT_WISE_CONSTANT_POW/float32 and rank3)")
    command = [sys.executable, "-m", "conformance", "run", "--backend", "dml-direct", "--feature-level", "auto",
               "-k", selection, "--results", str(results), "--quiet",
               "--provider-option", "min_feature_level=5_0"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    records = [json.loads(line) for line in results.read_text().splitlines()]
    header, cases = records[0], [r for r in records if r.get("type") == "case"]
    assert "feature level auto: " in done.stderr
    assert header["feature_level"] == header["feature_level_max"]
    assert header["feature_level_min_requested"] == "5_0"
    assert len(cases) >= 20
    ops = {r["op"] for r in cases}
    assert ops == {"ACTIVATION_CELU", "ACTIVATION_SCALED_ELU", "ELEMENT_WISE_CLIP", "ELEMENT_WISE_CONSTANT_POW"}
    assert not [r for r in cases if r["status"] == "not-reachable"]
    rejected = [f"{r['id']}: {r['status']} {r['message'][:200]}" for r in cases if r["status"] != "pass"]
    assert not rejected, "\n".join(rejected)
    assert done.returncode == 0, done.stderr[-2000:]
    assert any(r["dtype"] == "float16" and r["op"] == "ACTIVATION_CELU" for r in cases)
    assert any(r["params"].get("ScaleBias") for r in cases) and any(r["in_place"] for r in cases)
    assert any(r["rank"] == 8 for r in cases)


def test_fused_activation_and_output_strides_reach_directml(backend):
    """ADD1 with fused activations, and outputs with padded and column-major strides, judged by the
    runner: a device that ignored the activation or wrote the output packed would fail them."""
    from conformance import statuses
    from conformance.run import runner
    from conformance.caseset.caseload import load_paths
    from conformance.run.results import ResultsWriter
    from conformance.caseset.selection import select
    chosen = select(load_paths(), "(ELEMENT_WISE_ADD1/float32/rank4[2x3x4x5] and (RELU/uniform or SIGMOID/uniform) "
                                  "and not broadcast and not in-place) or output-strides")
    assert len(chosen) >= 25
    records = runner.run(chosen, backend, "6_0", ResultsWriter(None)).records
    assert {r["status"] for r in records} == {statuses.PASS}, [(r["id"], r["message"]) for r in records
                                                                if r["status"] != statuses.PASS]


def test_a_case_past_the_timeout_is_a_timeout_naming_where_the_worker_was(tmp_path):
    """A float32 GEMM of 4096 x 2048 x 2048 (34 GFLOP: seconds on lavapipe) with timeout=1: the case is a
    timeout whose message gives the worker's last words (executing it on the device, by its id), and the next
    case runs on a new worker."""
    dml_direct = _lane()
    from conformance.caseset.caseload import load_paths
    path = tmp_path / "gemm.yaml"
    path.write_text("operator: GEMM\ngroups:\n  - dtypes: [float32]\n"
                    "    shapes: [{A: [4096, 2048], B: [2048, 2048]}]\n"
                    "    params: {CTensor: absent}\n    inputs:\n      - {kind: uniform, low: -1, high: 1}\n")
    (long,) = load_paths([path])
    backend = dml_direct.DmlDirectBackend("dml-direct", {"timeout": "1"})
    try:
        (outcome,) = backend.run_many([(long, long.make_input())])
        assert outcome.status == base.TIMEOUT, f"expected a timeout, came {outcome.status}: {outcome.message}"
        assert "did not answer in 1 s; restarted; its last words: executing 1 case(s) on the device, from " \
               f"{long.id}" in outcome.message, outcome.message
        x = np.array([1.0, -1.0], np.float32)
        (after,) = backend.run_many([(case("ACTIVATION_CELU", "float32", (2,), {"Alpha": 1.0}), x)])
        assert after.status == base.OK, after.message
        assert backend.workers_started == 2
    finally:
        backend.close()


def test_submit_each_and_buffers_each_give_the_same_bytes(backend):
    """The diagnosis options (a submission per initializer and dispatch; a buffer per tensor) change how
    the work reaches the device, not what it computes: several inputs, two outputs, in place."""
    dml_direct = _lane()
    from conformance.caseset.caseload import load_paths
    from pathlib import Path
    cases = [c for path in ("batch_normalization.yaml", "top_k.yaml")
             for c in load_paths([Path(__file__).resolve().parents[1] / "cases" / path])
             if c.dtype == "float32" and c.rank in (1, 4)][::5][:8]
    assert {c.op for c in cases} == {"BATCH_NORMALIZATION", "TOP_K"}
    x = np.linspace(-4, 4, 24, dtype=np.float32).reshape(2, 3, 4)
    items = [(c, c.make_input()) for c in cases] + [
        (case("ACTIVATION_SCALED_ELU", "float32", x.shape, {"Alpha": 1.0, "Gamma": 2.0}, in_place=True), x)]
    expected = backend.run_many(items)
    each = dml_direct.DmlDirectBackend("dml-direct", {"submit": "each", "buffers": "each"})
    try:
        came = each.run_many(items)
        assert each.stats()["submissions"] >= 2 * len(items)
    finally:
        each.close()
    for (c, _), want, got in zip(items, expected, came):
        assert want.status == got.status == base.OK, (c.id, want.message, got.message)
        for a, b in zip(*(o.output if isinstance(o.output, (list, tuple)) else [o.output] for o in (want, got))):
            np.testing.assert_array_equal(a, b, err_msg=c.id)


def test_the_diagnosis_options_are_checked():
    dml_direct = _lane()
    with pytest.raises(base.BadInput, match="submit=all: expected one of batch, each"):
        dml_direct.DmlDirectBackend("dml-direct", {"submit": "all"})


def test_last_words_quote_the_log_and_the_consoles_last_lines(tmp_path):
    """A timeout's last words: the worker log's last line, then the last three lines its console got
    (vkd3d's own "Push constants size 260 exceeds ..." told the H100's hang), or the log alone."""
    from types import SimpleNamespace

    from conformance.backends.dml_direct import DmlDirectBackend
    from conformance.backends.wine_lane import console_path
    log = tmp_path / "worker1.log"
    log.write_text("compiling A\nexecuting 1 case(s) on the device, from B\n")
    worker = SimpleNamespace(log_path=log)
    assert DmlDirectBackend._last_words(worker) == "executing 1 case(s) on the device, from B"
    console_path(log).write_text("one\ntwo\nthree\nvkd3d:fixme: Push constants size 260 exceeds 256\n")
    assert DmlDirectBackend._last_words(worker) == ("executing 1 case(s) on the device, from B; its console: "
                                                    "...two | three | vkd3d:fixme: Push constants size 260 exceeds 256")
    log.unlink()
    assert DmlDirectBackend._last_words(worker).startswith("no log")
