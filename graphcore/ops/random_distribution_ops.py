"""More random ops (the rest of TF1's random_ops and its stateless_random_ops):
multinomial / categorical, random_gamma, random_poisson, random_crop, and the stateless
categorical op whose values depend only on ``seed``, and the registrations of TF 1's
StatelessRandomUniform/Normal/TruncatedNormal(Int) ops (TF 2.21's tf.random.stateless_*
build the key/counter V2 ops of :mod:`graphcore.ops.stateless_random_ops`).
The StatelessRandomUniform/Normal/TruncatedNormal(Int) and (stateless) multinomial
kernels draw TF's Philox values; gamma and poisson draw numpy's, not TF's."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, manip_ops, math_ops, random_ops

__all__ = ["multinomial", "random_crop", "random_gamma", "random_poisson"]

_FLOATS = "{half, bfloat16, float, double}"


def _multinomial_shape(op: ops_lib.Operation) -> list:
    logits = op._inputs[0].shape.with_rank(2)
    op._inputs[1].shape.with_rank(0)
    n = tensor_util.constant_value(op._inputs[1])
    return [shape_lib.TensorShape([logits[0], None if n is None else int(n)])]


def _shape_then(op: ops_lib.Operation) -> list:
    shape = random_ops.shape_from_shape_tensor(op._inputs[0])
    return [shape.concatenate(op._inputs[1].shape)]


def _stateless_shape(op: ops_lib.Operation) -> list:
    op._inputs[1].shape.with_rank(1)
    return [random_ops.shape_from_shape_tensor(op._inputs[0])]


_reg = op_registry.register_op
_reg("Multinomial").input("logits: T").input("num_samples: int32") \
    .output("output: output_dtype").attr("seed: int = 0").attr("seed2: int = 0") \
    .attr("T: realnumbertype").attr("output_dtype: {int32, int64} = DT_INT64").stateful() \
    .shape_fn(_multinomial_shape)
_reg("RandomGamma").input("shape: S").input("alpha: T").output("output: T") \
    .attr("seed: int = 0").attr("seed2: int = 0").attr("S: {int32, int64}") \
    .attr("T: {half, float, double}").stateful().shape_fn(_shape_then)
# d sample / d alpha of standard gamma samples (implicit reparameterization): the
# gradient of RandomGamma, in random_distribution_grad.py.
_reg("RandomGammaGrad").input("alpha: T").input("sample: T").output("output: T") \
    .attr("T: {float, double}").shape_fn(common_shapes.broadcast_binary)
_reg("RandomPoissonV2").input("shape: S").input("rate: R").output("output: dtype") \
    .attr("seed: int = 0").attr("seed2: int = 0").attr("S: {int32, int64}") \
    .attr("R: {half, float, double, int32, int64} = DT_DOUBLE") \
    .attr("dtype: {half, float, double, int32, int64} = DT_INT64").stateful() \
    .shape_fn(_shape_then)
for _op_type in ("StatelessRandomUniform", "StatelessRandomNormal",
                 "StatelessTruncatedNormal"):
    _reg(_op_type).input("shape: T").input("seed: Tseed").output("output: dtype") \
        .attr(f"dtype: {_FLOATS} = DT_FLOAT").attr("T: {int32, int64} = DT_INT32") \
        .attr("Tseed: {int32, int64} = DT_INT64").shape_fn(_stateless_shape)
_reg("StatelessRandomUniformInt").input("shape: T").input("seed: Tseed") \
    .input("minval: dtype").input("maxval: dtype").output("output: dtype") \
    .attr("dtype: {int32, int64}").attr("T: {int32, int64}") \
    .attr("Tseed: {int32, int64} = DT_INT64").shape_fn(_stateless_shape)
_reg("StatelessMultinomial").input("logits: T").input("num_samples: int32") \
    .input("seed: Tseed").output("output: output_dtype").attr("T: realnumbertype") \
    .attr("Tseed: {int32, int64} = DT_INT64") \
    .attr("output_dtype: {int32, int64} = DT_INT64").shape_fn(_multinomial_shape)
for _op_type in ("Multinomial", "RandomPoissonV2", "StatelessRandomUniform",
                 "StatelessRandomNormal", "StatelessTruncatedNormal",
                 "StatelessRandomUniformInt", "StatelessMultinomial"):
    NotDifferentiable(_op_type)


def _seeds(seed: int | None) -> dict:
    seed1, seed2 = random_ops.get_seed(seed)
    return {"seed": seed1, "seed2": seed2}


def multinomial(logits: Any, num_samples: Any, seed: int | None = None,
                name: str | None = None, output_dtype: Any = None) -> ops_lib.Tensor:
    """``num_samples`` class indices per row of ``logits`` (unnormalized log-probs)."""
    with ops_lib.name_scope(name, "multinomial", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        return apply_op("Multinomial", logits=logits, num_samples=num_samples,
                        output_dtype=output_dtype or dtypes_lib.int64,
                        **_seeds(seed)).outputs[0]


def categorical(logits: Any, num_samples: Any, dtype: Any = None, seed: int | None = None,
                name: str | None = None) -> ops_lib.Tensor:
    """``tf.random.categorical``: ``multinomial`` under TF 2's name."""
    with ops_lib.name_scope(name, "categorical", [logits]):
        return multinomial(logits, num_samples, seed=seed, output_dtype=dtype)


def random_gamma(shape: Any, alpha: Any, beta: Any = None, dtype: Any = dtypes_lib.float32,
                 seed: int | None = None, name: str | None = None) -> ops_lib.Tensor:
    """Gamma(alpha, beta) samples of shape ``shape + shape(alpha, beta)``."""
    with ops_lib.name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape = random_ops._shape_tensor(shape)
        alpha = convert_to_tensor(alpha, name="alpha", dtype=dtype)
        beta = convert_to_tensor(beta if beta is not None else 1, name="beta", dtype=dtype)
        broadcast_shape = manip_ops.broadcast_dynamic_shape(array_ops.shape(alpha),
                                                            array_ops.shape(beta))
        alpha_broadcast = manip_ops.broadcast_to(alpha, broadcast_shape)
        sample = apply_op("RandomGamma", shape=shape, alpha=alpha_broadcast,
                          **_seeds(seed)).outputs[0]
        # Samples that underflow become the smallest normal float, as TF's.
        tiny = np.finfo(dtypes_lib.as_dtype(dtype).as_numpy_dtype).tiny
        return math_ops.maximum(tiny, sample / beta)


def random_poisson(lam: Any, shape: Any, dtype: Any = dtypes_lib.float32,
                   seed: int | None = None, name: str | None = None) -> ops_lib.Tensor:
    """Poisson(lam) samples of shape ``shape + shape(lam)`` (TF1's argument order)."""
    with ops_lib.name_scope(name, "random_poisson", [lam, shape]):
        shape = random_ops._shape_tensor(shape)
        lam = convert_to_tensor(lam, name="lam")
        return apply_op("RandomPoissonV2", shape=shape, rate=lam, dtype=dtype,
                        **_seeds(seed)).outputs[0]


def poisson(lam: Any, shape: Any, dtype: Any = dtypes_lib.float32, seed: int | None = None,
            name: str | None = None) -> ops_lib.Tensor:
    return random_poisson(lam, shape, dtype=dtype, seed=seed, name=name)


def random_crop(value: Any, size: Any, seed: int | None = None,
                name: str | None = None) -> ops_lib.Tensor:
    """A random slice of ``value`` of shape ``size``."""
    with ops_lib.name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes_lib.int32, name="size")
        shape = array_ops.shape(value)
        limit = shape - size + 1
        offset = random_ops.random_uniform(array_ops.shape(shape), dtype=size.dtype,
                                           maxval=size.dtype.max, seed=seed) % limit
        return array_ops.slice(value, offset, size, name=scope)


def stateless_multinomial(logits: Any, num_samples: Any, seed: Any,
                          output_dtype: Any = dtypes_lib.int64,
                          name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "stateless_multinomial", [logits, seed]):
        return apply_op("StatelessMultinomial", logits=convert_to_tensor(logits),
                        num_samples=num_samples, seed=convert_to_tensor(seed, name="seed"),
                        output_dtype=output_dtype).outputs[0]


def stateless_categorical(logits: Any, num_samples: Any, seed: Any,
                          dtype: Any = dtypes_lib.int64,
                          name: str | None = None) -> ops_lib.Tensor:
    return stateless_multinomial(logits, num_samples, seed, output_dtype=dtype, name=name)
