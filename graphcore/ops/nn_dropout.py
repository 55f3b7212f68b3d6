"""tf.nn.experimental's dropouts (TF's ``nn_ops._dropout``): general_dropout with a
caller's uniform sampler, and stateless_dropout drawing from StatelessRandomUniformV2,
so the same seed drops the same elements."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import math_ops, random_ops, stateless_random_ops
from graphcore.ops.nn_ops import _dropout

__all__ = ["general_dropout", "stateless_dropout"]


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
