"""tf.nn.experimental's dropouts (TF's ``nn_ops._dropout``): general_dropout with a
caller's uniform sampler, and stateless_dropout drawing from StatelessRandomUniformV2,
so the same seed drops the same elements."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops, random_ops, stateless_random_ops
from graphcore.ops.nn_ops import _get_noise_shape

__all__ = ["general_dropout", "stateless_dropout"]


def _dropout(x: Any, rate: Any, noise_shape: Any, uniform_sampler: Callable,
             name: str | None, default_name: str) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, default_name, [x]):
        is_rate_number = isinstance(rate, numbers.Real)
        if is_rate_number and (rate < 0 or rate >= 1):
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        x_dtype = x.dtype
        if not x_dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be "
                             f"scaled. Received: x_dtype={x_dtype}")
        if is_rate_number and rate == 0:
            return x
        if not isinstance(rate, ops_lib.Tensor):
            if not is_rate_number:
                raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: "
                                 f"rate={rate}")
            scale = convert_to_tensor(1 / (1 - rate), dtype=x_dtype)
            ret = apply_op("Mul", x=x, y=scale).outputs[0]
        else:
            rate.get_shape().assert_has_rank(0)
            if rate.dtype != x_dtype:
                if not rate.dtype.is_compatible_with(x_dtype):
                    raise ValueError("`x.dtype` must be compatible with `rate.dtype`. "
                                     f"Received: x.dtype={x_dtype} and "
                                     f"rate.dtype={rate.dtype}")
                rate = apply_op("Cast", x=rate, DstT=x_dtype, name="rate").outputs[0]
            one_tensor = array_ops.constant(1, dtype=x_dtype)
            ret = apply_op("RealDiv", x=x,
                           y=apply_op("Sub", x=one_tensor, y=rate).outputs[0]).outputs[0]
        noise_shape = _get_noise_shape(x, noise_shape)
        random_tensor = uniform_sampler(shape=noise_shape, dtype=x_dtype)
        keep_mask = random_tensor >= rate
        zero_tensor = array_ops.constant(0, dtype=x_dtype)
        ret = apply_op("SelectV2", condition=keep_mask, t=ret, e=zero_tensor).outputs[0]
        ret.set_shape(x.get_shape())
        return ret


def _stateless_uniform(shape: Any, seed: Any, dtype: Any, alg: Any) -> ops_lib.Tensor:
    """Uniform [0, 1) values fixed by ``seed`` (TF2's stateless_random_uniform, floats)."""
    dtype = dtypes_lib.as_dtype(dtype)
    with ops_lib.name_scope(None, "stateless_random_uniform", [shape, seed]) as name:
        shape_t = random_ops._shape_tensor(shape)
        minval = convert_to_tensor(0, dtype=dtype, name="min")
        maxval = convert_to_tensor(1, dtype=dtype, name="max")
        key, counter = apply_op("StatelessRandomGetKeyCounter", seed=seed).outputs
        alg = stateless_random_ops.convert_alg_to_int("auto_select" if alg is None else alg)
        rnd = apply_op("StatelessRandomUniformV2", shape=shape_t, key=key, counter=counter,
                       alg=alg, dtype=dtype).outputs[0]
        result = math_ops.add(rnd * (maxval - minval), minval, name=name)
        if not isinstance(shape, ops_lib.Tensor):
            result.set_shape(shape)
        return result


def stateless_dropout(x: Any, rate: Any, seed: Any, rng_alg: Any = None,
                      noise_shape: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """Dropout whose mask is fixed by the [2] ``seed``."""
    def sampler(shape: Any, dtype: Any) -> ops_lib.Tensor:
        return _stateless_uniform(shape, seed, dtype, rng_alg)

    return _dropout(x, rate, noise_shape, sampler, name, "stateless_dropout")


def general_dropout(x: Any, rate: Any, uniform_sampler: Callable, noise_shape: Any = None,
                    name: str | None = None) -> ops_lib.Tensor:
    """Dropout with ``uniform_sampler(shape=, dtype=)`` drawing the keep mask's noise."""
    return _dropout(x, rate, noise_shape, uniform_sampler, name, "general_dropout")
