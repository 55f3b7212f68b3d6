"""The rest of TF's stateless random ops: binomial, gamma, poisson and parameterized
truncated normal over a ``seed``; the key/counter ops (StatelessRandomGetKeyCounter,
Stateless*V2) that ``tf.random.split``/``fold_in`` and ``tf.random.Generator`` build on; and
the RNG algorithms. Kernels: :mod:`graphcore.kernels.stateless_random_kernels` (the same
seed gives the same values; GetKeyCounter and the Philox uniform/normal/truncated-normal/
int V2 draws are TF's values, binomial/gamma/poisson/shuffle and ThreeFry numpy's)."""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, manip_ops, math_ops, random_ops

__all__ = ["Algorithm", "create_rng_state", "stateless_random_normal",
           "stateless_random_uniform", "stateless_truncated_normal", "fold_in", "index_shuffle", "random_index_shuffle",
           "split", "stateless_random_binomial",
           "stateless_random_gamma", "stateless_random_poisson",
           "stateless_parameterized_truncated_normal"]


class Algorithm(enum.Enum):
    """The counter-based RNG algorithms (TF's ``tf.random.Algorithm``)."""

    PHILOX = 1
    THREEFRY = 2
    AUTO_SELECT = 3


# The state sizes (int64 words) of a Generator's state variable, per algorithm.
STATE_SIZES = {Algorithm.PHILOX.value: 3, Algorithm.THREEFRY.value: 2,
               Algorithm.AUTO_SELECT.value: 3}


def convert_alg_to_int(alg: Any) -> int:
    """``alg`` (an Algorithm, its name or its number) as TF's int (``convert_alg_to_int``)."""
    if isinstance(alg, Algorithm):
        return alg.value
    if isinstance(alg, int):
        return alg
    if isinstance(alg, str):
        key = alg.strip().lower().replace("-", "_")
        for member in Algorithm:
            if member.name.lower() == key:
                return member.value
    raise ValueError(f"Unknown algorithm name: {alg}")


def _output_shape(op: ops_lib.Operation) -> list:
    return [random_ops.shape_from_shape_tensor(op.inputs[0])]


def _check_seed(seed: ops_lib.Tensor) -> None:
    dim = seed.shape.with_rank(1)[0]
    if dim is not None and dim != 2:
        raise ValueError(f"Dimension must be 2 but is {dim}")


def _seeded_shape(op: ops_lib.Operation) -> list:
    _check_seed(op.inputs[1])
    return _output_shape(op)


def _key_counter_shape(op: ops_lib.Operation) -> list:
    _check_seed(op.inputs[0])
    return [shape_lib.TensorShape([1]), shape_lib.TensorShape([2])]


_reg = op_registry.register_op
_SEEDED = "Tseed: {int32, int64} = DT_INT64"
_NUM = "{half, float, double, int32, int64}"
_reg("StatelessRandomGetKeyCounter").input("seed: Tseed").output("key: uint64") \
    .output("counter: uint64").attr(_SEEDED).shape_fn(_key_counter_shape)
_reg("StatelessRandomBinomial").input("shape: S").input("seed: Tseed").input("counts: T") \
    .input("probs: T").output("output: dtype").attr("S: {int32, int64}").attr(_SEEDED) \
    .attr(f"T: {_NUM} = DT_DOUBLE").attr(f"dtype: {_NUM} = DT_INT64") \
    .shape_fn(_seeded_shape)
_reg("StatelessRandomPoisson").input("shape: T").input("seed: Tseed").input("lam: Rtype") \
    .output("output: dtype").attr(f"Rtype: {_NUM}").attr(f"dtype: {_NUM}") \
    .attr("T: {int32, int64}").attr(_SEEDED).shape_fn(_seeded_shape)
_reg("StatelessParameterizedTruncatedNormal").input("shape: S").input("seed: Tseed") \
    .input("means: dtype").input("stddevs: dtype").input("minvals: dtype") \
    .input("maxvals: dtype").output("output: dtype").attr("S: {int32, int64}") \
    .attr(_SEEDED).attr("dtype: {half, float, double}").shape_fn(_seeded_shape)
_reg("StatelessRandomGammaV3").input("shape: shape_dtype").input("key: uint64") \
    .input("counter: uint64").input("alg: int32").input("alpha: dtype") \
    .output("output: dtype").attr("dtype: {half, float, double}") \
    .attr("shape_dtype: {int32, int64} = DT_INT32").shape_fn(_output_shape)
for _op_type in ("StatelessRandomUniformV2", "StatelessRandomNormalV2",
                 "StatelessTruncatedNormalV2"):
    _reg(_op_type).input("shape: Tshape").input("key: uint64").input("counter: uint64") \
        .input("alg: int32").output("output: dtype") \
        .attr("dtype: {half, bfloat16, float, double} = DT_FLOAT") \
        .attr("Tshape: {int32, int64} = DT_INT32").shape_fn(_output_shape)
_reg("StatelessRandomUniformFullIntV2").input("shape: Tshape").input("key: uint64") \
    .input("counter: uint64").input("alg: int32").output("output: dtype") \
    .attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64") \
    .attr("Tshape: {int32, int64} = DT_INT32").shape_fn(_output_shape)
_reg("StatelessRandomUniformIntV2").input("shape: Tshape").input("key: uint64") \
    .input("counter: uint64").input("alg: int32").input("minval: dtype") \
    .input("maxval: dtype").output("output: dtype") \
    .attr("dtype: {int32, int64, uint32, uint64}") \
    .attr("Tshape: {int32, int64} = DT_INT32").shape_fn(_output_shape)
_reg("StatelessShuffle").input("value: T").input("key: uint64").input("counter: uint64") \
    .input("alg: int32").output("output: T").attr("T: type") \
    .shape_fn(lambda op: [op.inputs[0].shape])


def _index_shuffle_shape(op: ops_lib.Operation) -> list:
    index, seed, max_index = (t.shape for t in op.inputs)
    if seed.ndims is not None:
        if seed.ndims not in (1, 2) or seed[-1] not in (None, 3):
            raise ValueError(f"Seed must have shape [3] or [n, 3] but got "
                             f"[{', '.join('?' if d is None else str(d) for d in seed)}].")
    for what, shape in (("index", index), ("max_index", max_index)):
        if shape.ndims is not None and shape.ndims > 1:
            raise ValueError(f"Input {what} must be a scalar or vector, got shape {shape}")
    dims = [d for shape in (index, max_index, seed[:-1] if seed.ndims else seed)
            if shape.ndims for d in shape.as_list()]
    known = [d for d in dims if d is not None]
    if not dims:
        return [shape_lib.TensorShape([])]
    return [shape_lib.TensorShape([known[0] if known else None])]


_reg("RandomIndexShuffle").input("index: dtype").input("seed: Tseed") \
    .input("max_index: dtype").output("output: dtype").attr("rounds: int = 4") \
    .attr("dtype: {int32, uint32, int64, uint64}") \
    .attr("Tseed: {int32, uint32, int64, uint64}").shape_fn(_index_shuffle_shape)
for _op_type in ("RandomIndexShuffle", "StatelessRandomGetKeyCounter", "StatelessRandomBinomial",
                 "StatelessRandomPoisson", "StatelessParameterizedTruncatedNormal",
                 "StatelessRandomUniformV2",
                 "StatelessRandomNormalV2", "StatelessTruncatedNormalV2",
                 "StatelessRandomUniformFullIntV2", "StatelessRandomUniformIntV2",
                 "StatelessShuffle"):
    NotDifferentiable(_op_type)


def key_counter(seed: Any) -> tuple:
    """(key, counter) of a [2] seed (the StatelessRandomGetKeyCounter op)."""
    op = apply_op("StatelessRandomGetKeyCounter", seed=convert_to_tensor(seed, name="seed"))
    return op.outputs[0], op.outputs[1]


def _alg_tensor(alg: Any) -> ops_lib.Tensor:
    return array_ops.constant(convert_alg_to_int(alg), dtype=dtypes_lib.int32, name="alg")


def _with_static_shape(result: ops_lib.Tensor, shape: Any) -> ops_lib.Tensor:
    if not isinstance(shape, ops_lib.Tensor):
        result.set_shape(shape_lib.TensorShape(list(np.asarray(shape).reshape(-1))))
    return result


def stateless_random_binomial(shape: Any, seed: Any, counts: Any, probs: Any,
                              output_dtype: Any = dtypes_lib.int32,
                              name: str | None = None) -> ops_lib.Tensor:
    """Binomial(counts, probs) samples of shape ``shape``, fixed by ``seed``."""
    with ops_lib.name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]):
        shape_t = random_ops._shape_tensor(shape)
        probs = convert_to_tensor(probs, dtype_hint=dtypes_lib.float32, name="probs")
        counts = convert_to_tensor(counts, dtype_hint=probs.dtype, name="counts")
        result = apply_op("StatelessRandomBinomial", shape=shape_t, seed=seed, counts=counts,
                          probs=probs, dtype=output_dtype).outputs[0]
        return _with_static_shape(result, shape)


def stateless_random_gamma(shape: Any, seed: Any, alpha: Any, beta: Any = None,
                           dtype: Any = dtypes_lib.float32,
                           name: str | None = None) -> ops_lib.Tensor:
    """Gamma(alpha, beta) samples of shape ``shape`` (ending in alpha/beta's broadcast
    shape), fixed by ``seed``; never below the dtype's smallest normal number."""
    dtype = dtypes_lib.as_dtype(dtype)
    with ops_lib.name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]):
        shape_t = random_ops._shape_tensor(shape)
        alpha = convert_to_tensor(alpha, dtype=dtype, name="alpha")
        beta = convert_to_tensor(1 if beta is None else beta, dtype=dtype, name="beta")
        broadcast = manip_ops.broadcast_dynamic_shape(array_ops.shape(alpha),
                                                      array_ops.shape(beta))
        alpha_broadcast = manip_ops.broadcast_to(alpha, broadcast)
        key, counter = key_counter(seed)
        sample = apply_op("StatelessRandomGammaV3", shape=shape_t, key=key, counter=counter,
                          alg=_alg_tensor(Algorithm.AUTO_SELECT),
                          alpha=alpha_broadcast).outputs[0]
        tiny = np.finfo(dtype.as_numpy_dtype).tiny
        result = math_ops.maximum(array_ops.constant(tiny, dtype=dtype), sample / beta)
        return _with_static_shape(result, shape)


def stateless_random_poisson(shape: Any, seed: Any, lam: Any, dtype: Any = dtypes_lib.int32,
                             name: str | None = None) -> ops_lib.Tensor:
    """Poisson(lam) samples of shape ``shape`` (ending in lam's shape), fixed by ``seed``."""
    with ops_lib.name_scope(name, "stateless_random_poisson", [shape, seed, lam]):
        shape_t = random_ops._shape_tensor(shape)
        result = apply_op("StatelessRandomPoisson", shape=shape_t, seed=seed,
                          lam=convert_to_tensor(lam, name="lam"), dtype=dtype).outputs[0]
        return _with_static_shape(result, shape)


def stateless_parameterized_truncated_normal(shape: Any, seed: Any, means: Any = 0.0,
                                             stddevs: Any = 1.0, minvals: Any = -2.0,
                                             maxvals: Any = 2.0,
                                             name: str | None = None) -> ops_lib.Tensor:
    """Normal(means, stddevs) samples kept within [minvals, maxvals], fixed by ``seed``."""
    with ops_lib.name_scope(name, "stateless_parameterized_truncated_normal",
                            [shape, means, stddevs, minvals, maxvals]):
        shape_t = random_ops._shape_tensor(shape)
        means = convert_to_tensor(means, name="means")
        stddevs = convert_to_tensor(stddevs, dtype=means.dtype, name="stddevs")
        minvals = convert_to_tensor(minvals, dtype=means.dtype, name="minvals")
        maxvals = convert_to_tensor(maxvals, dtype=means.dtype, name="maxvals")
        result = apply_op("StatelessParameterizedTruncatedNormal", shape=shape_t, seed=seed,
                          means=means, stddevs=stddevs, minvals=minvals,
                          maxvals=maxvals).outputs[0]
        return _with_static_shape(result, shape)


def _full_int(shape: Any, seed: ops_lib.Tensor, dtype: Any, alg: Any) -> ops_lib.Tensor:
    with ops_lib.name_scope(None, "stateless_random_uniform", [shape, seed]) as scope:
        key, counter = key_counter(seed)
        return apply_op("StatelessRandomUniformFullIntV2", name=scope,
                        shape=random_ops._shape_tensor(shape), key=key, counter=counter,
                        alg=_alg_tensor(alg), dtype=dtype).outputs[0]


def split(seed: Any, num: int = 2, alg: Any = "auto_select") -> ops_lib.Tensor:
    """``num`` new [2] seeds (a [num, 2] tensor) drawn from ``seed``."""
    seed = convert_to_tensor(seed)
    return _full_int([num, 2], seed, seed.dtype, alg)


def fold_in(seed: Any, data: Any, alg: Any = "auto_select") -> ops_lib.Tensor:
    """A new [2] seed from ``seed`` and the integer ``data``."""
    data = convert_to_tensor(data)
    seed1 = _full_int([], convert_to_tensor(seed), data.dtype, alg)
    return array_ops.stack([seed1, data])


def _uint_to_int(n: int) -> int:
    return n - 2**64 if isinstance(n, int) and n >= 2**63 else n


def create_rng_state(seed: Any, alg: Any) -> ops_lib.Tensor:
    """The int64 state of a Generator of algorithm ``alg`` from ``seed``: a Python integer
    is cut into the state's 64-bit words (low first); a list is truncated to the state's
    size or zero-padded on the left (TF's ``_make_1d_state``)."""
    size = STATE_SIZES[convert_alg_to_int(alg)]
    if isinstance(seed, int):
        words = []
        for _ in range(size):
            words.append(seed & (2**64 - 1))
            seed >>= 64
        seed = words
    if isinstance(seed, (list, tuple)):
        seed = [_uint_to_int(int(s)) for s in seed]
    seed = array_ops.reshape(math_ops.cast(seed, dtypes_lib.int64), [-1])[0:size]
    seed_size = seed.shape[0] if seed.shape[0] is not None else array_ops.shape(seed)[0]
    padding = array_ops.zeros([math_ops.maximum(size - seed_size, 0)], seed.dtype)
    seed = array_ops.concat([padding, seed], axis=0)
    seed.set_shape([size])
    return seed


def stateless_shuffle(value: Any, seed: Any, alg: Any = "auto_select",
                      name: str | None = None) -> ops_lib.Tensor:
    """``value`` shuffled along its first dimension, the order fixed by ``seed``."""
    with ops_lib.name_scope(name, "stateless_shuffle", [value, seed]) as name:
        key, counter = key_counter(seed)
        return apply_op("StatelessShuffle", name=name, value=convert_to_tensor(value),
                        key=key, counter=counter, alg=_alg_tensor(alg)).outputs[0]


def random_index_shuffle(index: Any, seed: Any, max_index: Any, rounds: int = 4,
                         name: str | None = None) -> ops_lib.Tensor:
    """The RandomIndexShuffle op: where ``index`` lands in a pseudorandom permutation of
    [0, max_index] fixed by ``seed`` [3] (or [n, 3])."""
    index = convert_to_tensor(index, name="index")
    return apply_op("RandomIndexShuffle", name=name, index=index,
                    seed=convert_to_tensor(seed, name="seed"),
                    max_index=convert_to_tensor(max_index, dtype=index.dtype,
                                                name="max_index"),
                    rounds=rounds).outputs[0]


def index_shuffle(index: Any, seed: Any, max_index: Any) -> ops_lib.Tensor:
    """``tf.random.experimental.index_shuffle``: ``seed`` [2] (or [n, 2]), padded in
    front to the op's [3] with TF's constant."""
    seed = convert_to_tensor(seed)
    rank = seed.shape.ndims
    paddings = [[1, 0]] + ([] if rank is None else (rank - 1) * [[0, 0]])
    seed = array_ops.pad(seed, paddings, constant_values=498247692)
    return random_index_shuffle(index, seed=seed, max_index=max_index, rounds=4)


def _key_counter_draw(op_type: str, shape: Any, seed: Any, dtype: Any, alg: Any,
                      name: str | None = None, **extra: Any) -> ops_lib.Tensor:
    """A key/counter V2 op drawing ``shape`` values from ``seed`` (TF's
    stateless_random_* since 2.5: StatelessRandomGetKeyCounter, then the V2 op)."""
    shape_t = random_ops._shape_tensor(shape)
    key_op = apply_op("StatelessRandomGetKeyCounter", seed=seed)
    return apply_op(op_type, name=name, shape=shape_t, key=key_op.outputs[0],
                    counter=key_op.outputs[1], alg=convert_alg_to_int(alg), dtype=dtype,
                    **extra).outputs[0]


def stateless_random_uniform(shape: Any, seed: Any, minval: Any = 0, maxval: Any = None,
                             dtype: Any = dtypes_lib.float32, name: str | None = None,
                             alg: Any = "auto_select") -> ops_lib.Tensor:
    """Uniform values in [minval, maxval) fixed by ``seed`` [2]; for integer dtypes
    ``minval=maxval=None`` draws the dtype's full range."""
    dtype = dtypes_lib.as_dtype(dtype)
    if dtype.is_integer and (minval is None) != (maxval is None):
        raise ValueError(f"For integer dtype {dtype}, minval and maxval must be both "
                         f"`None` or both non-`None`; got minval={minval} and "
                         f"maxval={maxval}.")
    if not dtype.is_integer and maxval is None:
        maxval = 1
    with ops_lib.name_scope(name, "stateless_random_uniform",
                            [shape, seed, minval, maxval]) as name:
        shape = random_ops._shape_tensor(shape)
        if dtype.is_integer and minval is None:
            return _key_counter_draw("StatelessRandomUniformFullIntV2", shape, seed, dtype,
                                     alg, name=name)
        minval = convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        if dtype.is_integer:
            shape_t = shape
            key_op = apply_op("StatelessRandomGetKeyCounter", seed=seed)
            alg_t = array_ops.constant(convert_alg_to_int(alg), dtypes_lib.int32, name="alg")
            return apply_op("StatelessRandomUniformIntV2", name=name, shape=shape_t,
                            key=key_op.outputs[0], counter=key_op.outputs[1], alg=alg_t,
                            minval=minval, maxval=maxval).outputs[0]
        rnd = _key_counter_draw("StatelessRandomUniformV2", shape, seed, dtype, alg)
        return math_ops.add(rnd * (maxval - minval), minval, name=name)


def _stateless_normal_like(op_type: str, default_name: str):
    def fn(shape: Any, seed: Any, mean: Any = 0.0, stddev: Any = 1.0,
           dtype: Any = dtypes_lib.float32, name: str | None = None,
           alg: Any = "auto_select") -> ops_lib.Tensor:
        with ops_lib.name_scope(name, default_name, [shape, seed, mean, stddev]) as name:
            shape = random_ops._shape_tensor(shape)
            mean = convert_to_tensor(mean, dtype=dtype, name="mean")
            stddev = convert_to_tensor(stddev, dtype=dtype, name="stddev")
            rnd = _key_counter_draw(op_type, shape, seed, dtype, alg)
            return math_ops.add(rnd * stddev, mean, name=name)

    fn.__name__ = default_name
    fn.__doc__ = (f"{'Truncated normal' if 'Truncated' in op_type else 'Normal'} values "
                  "(mean, stddev) fixed by ``seed`` [2].")
    return fn


stateless_random_normal = _stateless_normal_like("StatelessRandomNormalV2",
                                                 "stateless_random_normal")
stateless_truncated_normal = _stateless_normal_like("StatelessTruncatedNormalV2",
                                                    "stateless_truncated_normal")
