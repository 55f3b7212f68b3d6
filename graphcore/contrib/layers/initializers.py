"""``tf.contrib.layers`` initializers (TF 1.15): ``xavier_initializer`` and contrib's own
``variance_scaling_initializer``, whose truncated-normal stddev is ``sqrt(1.3 * factor / n)``
(core's VarianceScaling divides by 0.8796 instead) and whose fans multiply every dimension
before the last two into both fan_in and fan_out."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.ops import random_ops

__all__ = ["variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d"]

_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")


def _check_floating(dtype: Any) -> dtypes_lib.DType:
    dtype = dtypes_lib.as_dtype(dtype)
    if not dtype.is_floating:
        raise TypeError("Cannot create initializer for non-floating point type.")
    return dtype


def variance_scaling_initializer(factor: float = 2.0, mode: str = "FAN_IN",
                                 uniform: bool = False, seed: int | None = None,
                                 dtype: Any = dtypes_lib.float32) -> Any:
    """An initializer ``fn(shape, dtype, partition_info)``: uniform in
    ``+-sqrt(3 * factor / n)``, or truncated normal of stddev ``sqrt(1.3 * factor / n)``,
    with n the fan_in, fan_out or their mean (He et al. by default)."""
    default_dtype = _check_floating(dtype)
    if mode not in _MODES:
        raise TypeError(f"Unknown mode {mode} [FAN_IN, FAN_OUT, FAN_AVG]")

    def _initializer(shape: Any, dtype: Any = default_dtype, partition_info: Any = None) -> Any:
        del partition_info
        dtype = _check_floating(dtype)
        shape = [int(d) for d in shape]
        if shape:
            fan_in = float(shape[-2]) if len(shape) > 1 else float(shape[-1])
            fan_out = float(shape[-1])
        else:
            fan_in = fan_out = 1.0
        for dim in shape[:-2]:
            fan_in *= float(dim)
            fan_out *= float(dim)
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return random_ops.random_uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)

    return _initializer


def xavier_initializer(uniform: bool = True, seed: int | None = None,
                       dtype: Any = dtypes_lib.float32) -> Any:
    """Glorot & Bengio's initializer: ``variance_scaling_initializer(1.0, 'FAN_AVG')``, so
    uniform in ``+-sqrt(6 / (fan_in + fan_out))``."""
    return variance_scaling_initializer(factor=1.0, mode="FAN_AVG", uniform=uniform,
                                        seed=seed, dtype=dtype)


xavier_initializer_conv2d = xavier_initializer
