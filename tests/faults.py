"""Devices that are wrong on purpose, with oracle.evaluate's signature (python:faults:NAME)."""
import zlib

import numpy as np

import oracle
from conformance.caseset.operands import is_subnormal


def _float_positions(result, count=3):
    flat = result.reshape(-1)
    finite = np.flatnonzero(np.isfinite(flat.astype(np.float64)) & (flat != 0))
    return flat, finite[:count]


def off_by_tolerance_plus_one(op, x, dtype, **params):
    """Three elements moved tolerance + 1 ULP away (CELU float32: 19 ULP)."""
    result = oracle.evaluate(op, x, dtype, **params)
    flat, where = _float_positions(result)
    for position in where:
        value = flat[position]
        for _ in range(19):
            value = np.nextafter(value, np.inf, dtype=result.dtype)
        flat[position] = value
    return result


def off_by_tolerance(op, x, dtype, **params):
    """Every element moved exactly 18 ULP: within CELU's tolerance, so it must pass."""
    result = oracle.evaluate(op, x, dtype, **params)
    flat = result.reshape(-1)
    finite = np.isfinite(flat) & (np.abs(flat) < np.finfo(flat.dtype).max / 2)
    bits = flat.view(np.uint32 if flat.dtype == np.float32 else np.uint16)
    positive = finite & (flat > 0)
    bits[positive] += 18
    return result


def flush_denormals(op, x, dtype, **params):
    """Direct3D style: subnormal inputs (every input of several) read as zero, subnormal outputs
    written as zero."""
    flush = lambda v: np.where(is_subnormal(v), np.copysign(np.zeros_like(v), v), v)  # noqa: E731
    x = tuple(map(flush, x)) if isinstance(x, tuple) else flush(x)
    result = oracle.evaluate(op, x, dtype, **params)
    if result.dtype.kind != "f":  # a comparison's UINT8 output has nothing to flush
        return result
    return np.where(is_subnormal(result), np.copysign(np.zeros_like(result), result), result)


def stores_half_toward_zero(op, x, dtype, **params):
    """Computes in float32 and stores float16 rounded toward zero (what Direct3D's conversion rules
    allow: about half of a float16 sweep's elements one ULP below the exactly rounded value)."""
    single = np.asarray(oracle.reference(op, x, dtype, **params), dtype=np.float64).astype(np.float32)
    if dtype != "float16":
        return single.astype(dtype)
    nearest = single.astype(np.float16)
    away = np.isfinite(single) & (np.abs(nearest.astype(np.float32)) > np.abs(single))
    return np.where(away, np.nextafter(nearest, np.float16(0)), nearest).astype(np.float16)


def swallow_nan(op, x, dtype, **params):
    result = oracle.evaluate(op, x, dtype, **params)
    return np.where(np.isnan(result), np.zeros_like(result), result)


def propagate_nan(op, x, dtype, **params):
    """NaN in, NaN out: IEEE min/max where DirectML's Direct3D rule returns the other operand."""
    result = oracle.evaluate(op, x, dtype, **params)
    return np.where(np.isnan(x), x, result)


def all_zeros(op, x, dtype, **params):
    return np.zeros(np.broadcast_shapes(*(v.shape for v in x)) if isinstance(x, tuple) else x.shape, dtype=dtype)


def raises(op, x, dtype, **params):
    raise RuntimeError("device lost: DXGI_ERROR_DEVICE_REMOVED")


def wrong_dtype(op, x, dtype, **params):
    return oracle.evaluate(op, x, dtype, **params).astype(np.float64)


def wrong_shape(op, x, dtype, **params):
    return oracle.evaluate(op, x, dtype, **params).reshape(-1)[:-1] if x.size else np.zeros(1, dtype)


def die_at_clip(op, x, dtype, **params):
    """A backend that takes the whole process down (a segfaulting driver, say) at the first CLIP."""
    import os
    if op == "ELEMENT_WISE_CLIP":
        os._exit(70)
    return oracle.evaluate(op, x, dtype, **params)


def interrupt_at_clip(op, x, dtype, **params):
    """Ctrl-C (SIGINT to the harness) while the device runs the first CLIP case."""
    import signal
    if op == "ELEMENT_WISE_CLIP":
        signal.raise_signal(signal.SIGINT)
    return oracle.evaluate(op, x, dtype, **params)


def ignores_second_input(op, x, dtype, **params):
    """An operator of several inputs that reads its first input where the second belongs."""
    if isinstance(x, tuple):
        first = np.broadcast_to(x[0], np.broadcast_shapes(*(v.shape for v in x)))
        x = (first, first) + x[2:]
    return oracle.evaluate(op, x, dtype, **params)


def broadcasts_the_wrong_dimension(op, x, dtype, **params):
    """Zero strides one dimension off: an input broadcast along d is read as if broadcast along d + 1
    (its own packed strides elsewhere, the flat offset wrapping within its buffer)."""
    if not isinstance(x, tuple):
        return oracle.evaluate(op, x, dtype, **params)
    shape = np.broadcast_shapes(*(v.shape for v in x))
    read = []
    for v in x:
        dims = [d for d in range(len(shape)) if v.shape[d] == 1 and shape[d] != 1]
        if not dims:
            read.append(v)
            continue
        strides = [int(np.prod(v.shape[d + 1:])) for d in range(len(shape))]
        for d in dims:
            strides[(d + 1) % len(shape)] = 0
            strides[d] = int(np.prod(v.shape[d + 1:]))
        index = sum(np.arange(n).reshape([-1 if k == d else 1 for k in range(len(shape))]) * s
                    for d, (n, s) in enumerate(zip(shape, strides)))
        read.append(v.reshape(-1)[np.asarray(index) % v.size])
    return oracle.evaluate(op, tuple(read), dtype, **params)


def tile_with_two_repeats_swapped(op, x, dtype, **params):
    """A tile whose Repeats of the first two axes that differ are swapped, written into the output
    buffer of the right size (the same element count) in order."""
    expected = oracle.evaluate(op, x, dtype, **params)
    repeats = list(params.get("Repeats") or ())
    pair = next(((i, j) for i in range(len(repeats)) for j in range(i + 1, len(repeats))
                 if repeats[i] != repeats[j]), None)
    if pair is None:
        return expected
    i, j = pair
    repeats[i], repeats[j] = repeats[j], repeats[i]
    return oracle.evaluate(op, x, dtype, **{**params, "Repeats": repeats}).reshape(expected.shape)


def tile_one_element_off(op, x, dtype, **params):
    """A tile whose source index along the last dimension is one too far (o + 1 mod its size)."""
    x = np.asarray(x)
    return oracle.evaluate(op, np.roll(x, -1, axis=-1) if x.ndim else x, dtype, **params)


def ignores_fused_activation(op, x, dtype, **params):
    """An operator with a FusedActivation field that computes as if it held none (the plain sum)."""
    if params.get("FusedActivation") is not None:
        params = dict(params, FusedActivation=None)
    return oracle.evaluate(op, x, dtype, **params)
def stored_toward_zero(op, x, dtype, **params):
    """A float16 output computed in float32 and stored toward zero (Direct3D's float to half
    conversion; 65504 for a finite float32 beyond it): inside the d3d model, not always at 0 ULP."""
    result = oracle.evaluate(op, x, dtype, **params)
    if result.dtype != np.float16:
        return result
    wide = oracle.reference(op, x, dtype, **params).astype(np.float32)
    nearest = wide.astype(np.float16)
    away = np.isfinite(wide) & (np.abs(nearest.astype(np.float32)) > np.abs(wide))
    nearest[away] = np.nextafter(nearest[away], np.float16(0))
    return nearest


def ignores_output_type(op, x, dtype, **params):
    """QUANTIZE_LINEAR saturated to its default UINT8 range whatever the case's OutputType (INT8),
    written into the tensor of the type asked for."""
    asked = oracle.output_dtype(op, dtype, **params)
    return oracle.evaluate(op, x, dtype, **{**params, "OutputType": None}).astype(np.int16).astype(asked)


def scale_bias_on_the_first_input_only(op, x, dtype, **params):
    """ScaleBias applied to the first input alone (POW's base, not its exponent): the reading the
    harness held before DirectML showed otherwise."""
    from oracle.scale_bias import apply_scale_bias
    first = apply_scale_bias(x[0].astype(np.float64), params.get("ScaleBias")).astype(x[0].dtype)
    return oracle.evaluate(op, (first, *x[1:]), dtype, **{**params, "ScaleBias": None})


def mixed_behaviour(op: str, dtype: str, shape) -> str:
    """Which of MIXED a case of this operator, type and output shape gets (the same in every run)."""
    return MIXED[zlib.crc32(f"{op}|{dtype}|{tuple(shape)}".encode()) % len(MIXED)]


def mixed(op, x, dtype, **params):
    """A device of five behaviours, one a case: exact (the oracle), three elements tolerance + 1 ULP
    off, denormals flushed, NaN swallowed, all zeros. One run of it takes the verification down every
    path the five single-fault devices take, each on a fifth of the cases."""
    shape = _case_shape(x, params)
    return globals()[mixed_behaviour(op, dtype, shape)](op, x, dtype, **params)


def _case_shape(x, params) -> tuple:
    """A case's shape from its input or inputs: several broadcast to it, or (inputs of their own shapes,
    GATHER's) the first input's; an operator of no input (FILL_VALUE_CONSTANT): its output's sizes."""
    if not isinstance(x, tuple):
        return x.shape
    if not x:
        return tuple(params["OutputSizes"])
    try:
        return np.broadcast_shapes(*(v.shape for v in x))
    except ValueError:
        return x[0].shape


def exact(op, x, dtype, **params):
    return oracle.evaluate(op, x, dtype, **params)


MIXED = ("exact", "off_by_tolerance_plus_one", "flush_denormals", "swallow_nan", "all_zeros")


def slow(op, x, dtype, **params):
    """The oracle, a tenth of a second a case: a run long enough to be signalled in the middle."""
    import time
    time.sleep(0.1)
    return oracle.evaluate(op, x, dtype, **params)


def slow_to_close(op, x, dtype, **params):
    """The oracle, on a device whose close takes two minutes (workers that are slow to shut down)."""
    return oracle.evaluate(op, x, dtype, **params)


def _close_slowly():
    import os
    import time
    marker = os.environ.get("DMLC_TEST_CLOSING")
    if marker:  # tells a test the close has begun
        open(marker, "w").close()
    time.sleep(120)


slow_to_close.close = _close_slowly
