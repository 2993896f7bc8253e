"""Faults of the pooling family, for `python:faults_pooling:<name>`: each a device that pools wrongly
in one way the pages forbid."""
import oracle


def ignores_dilation(op, x, dtype, **params):
    """A window read as if its positions were adjacent (Dilations taken as 1), cut to the output's sizes."""
    expected = oracle.evaluate(op, x, dtype, **params)
    if "Dilations" not in params:
        return expected
    undilated = dict(params, Dilations=[1] * len(params["Dilations"]))
    from oracle import windows
    if windows.problem(x.shape, undilated):
        return expected
    wrong = oracle.evaluate(op, x, dtype, **undilated)
    shape = _first(expected).shape
    if not all(w >= e for w, e in zip(_first(wrong).shape, shape)):
        return expected
    cut = tuple(slice(0, n) for n in shape)
    return tuple(w[cut] for w in wrong) if isinstance(wrong, tuple) else wrong[cut]


def _first(outputs):
    return outputs[0] if isinstance(outputs, tuple) else outputs


def padding_read_as_zero(op, x, dtype, **params):
    """The padding read as zeros, not as no element (a zero-padded input's maximum)."""
    import numpy as np
    pads = [(0, 0), (0, 0)] + list(zip(params["StartPadding"], params["EndPadding"]))
    padded = np.pad(x, pads)
    unpadded = dict(params, StartPadding=[0] * len(pads[2:]), EndPadding=[0] * len(pads[2:]))
    return oracle.evaluate(op, padded, dtype, **unpadded)


def window_transposed(op, x, dtype, **params):
    """A window of WindowSize's last two values swapped (height and width confused)."""
    size = list(params["WindowSize"])
    if size[-1] == size[-2]:
        return oracle.evaluate(op, x, dtype, **params)
    size[-2], size[-1] = size[-1], size[-2]
    from oracle import windows
    swapped = dict(params, WindowSize=size)
    expected_shape = windows.output_sizes(x.shape, params)
    if windows.problem(x.shape, swapped) or windows.output_sizes(x.shape, swapped) != expected_shape:
        return oracle.evaluate(op, x, dtype, **params)
    return oracle.evaluate(op, x, dtype, **swapped)


def unfold_rows_window_major(op, x, dtype, **params):
    """UNFOLD's rows ordered window position first (k * C + c), not channel first (c * K + k)."""
    import numpy as np
    result = oracle.evaluate(op, x, dtype, **params)
    c, k = x.shape[1], result.shape[1] // x.shape[1]
    return result.reshape(result.shape[0], c, k, -1).transpose(0, 2, 1, 3).reshape(result.shape)


def padding_at_the_wrong_end(op, x, dtype, **params):
    """StartPadding and EndPadding swapped."""
    swapped = dict(params, StartPadding=params["EndPadding"], EndPadding=params["StartPadding"])
    return oracle.evaluate(op, x, dtype, **swapped)


def indices_of_the_last_equal_maximum(op, x, dtype, **params):
    """MAX_POOLING1/2's OutputIndicesTensor naming the last of equal maxima in each window, where the
    pages say "the later equal values are ignored" (the first)."""
    import numpy as np
    from oracle import windows
    result = oracle.evaluate(op, x, dtype, **params)
    if not isinstance(result, tuple):
        return result
    values, indices = result
    index, valid = windows.taps(x.shape, params)
    flat = np.ravel_multi_index(index, x.shape)
    equal = valid & (np.asarray(x)[index] == values[..., None])
    last = equal.shape[-1] - 1 - np.argmax(equal[..., ::-1], axis=-1)
    return values, np.take_along_axis(flat, last[..., None], -1)[..., 0].astype(indices.dtype)
