"""Faults of ROI_POOLING and VALUE_SCALE_2D, for `python:faults_roi_value_scale:<name>`: each a device that
computes one thing the pages fix otherwise."""
import numpy as np

import oracle
from oracle import roi_pooling


def roi_not_scaled(op, x, dtype, **params):
    """The ROI coordinates used as given, not multiplied by SpatialScale."""
    return oracle.evaluate(op, x, dtype, **dict(params, SpatialScale=1.0))


def bin_start_rounded_up(op, x, dtype, **params):
    """StartY and StartX divided rounding up, (Y * RegionHeight + PooledSize.Height - 1) / PooledSize.Height,
    where the page's integer division rounds down."""
    def rule(roi, size, pooled, scale, lower, upper, rounding):
        start, end = roi_pooling.bins(roi, size, pooled, scale, lower, upper, rounding)
        first = int(rounding(float(np.float32(roi[lower])) * float(np.float32(scale))))
        region = int(rounding(float(np.float32(roi[upper])) * float(np.float32(scale)))) - first + 1
        index = np.arange(pooled)
        return np.clip((index * region + pooled - 1) // pooled + first, 0, size), end
    data, rois = x
    which = roi_pooling.sources(data, rois, params["SpatialScale"], params["PooledSize"],
                                params.get("nan_rule", "d3d"), rule=rule)
    out = np.zeros(which.shape, dtype=data.dtype)
    out[which >= 0] = data.reshape(-1)[which[which >= 0]]
    return out


def bias_of_the_next_channel(op, x, dtype, **params):
    """Channel c biased by Bias[(c + 1) mod ChannelCount]."""
    bias = list(params["Bias"])
    return oracle.evaluate(op, x, dtype, **dict(params, Bias=bias[1:] + bias[:1]))
