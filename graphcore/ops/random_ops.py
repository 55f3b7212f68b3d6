"""Random ops (RandomUniform, RandomStandardNormal, TruncatedNormal, RandomUniformInt,
RandomShuffle) and TF's graph-level / op-level seed rules.

``get_seed(op_seed)`` turns the graph seed (``tf.set_random_seed``) and an op seed into
the ``(seed, seed2)`` attrs exactly as TensorFlow's ``random_seed.get_seed`` does: both
given -> (graph, op); graph seed only -> (graph, per-graph counter 0, 1, 2, ...); op seed
only -> (87654321, op); neither -> (0, 0), which the kernels read as "fresh entropy".
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor

__all__ = [
    "get_seed",
    "set_random_seed",
    "random_uniform",
    "random_normal",
    "truncated_normal",
    "random_shuffle",
]

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1

_seed_lock = threading.Lock()
_graph_to_seed_dict: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _truncate_seed(seed: int) -> int:
    return int(seed) % _MAXINT32


def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
    """The (seed, seed2) an op should use given its op-level seed (TF's ``get_seed``)."""
    graph = ops_lib.get_default_graph()
    global_seed = graph.seed
    if global_seed is not None:
        if op_seed is None:
            # TF 2.x: a per-graph counter of seedless random ops (TF 1.x used the graph's
            # last op id); either way each op gets its own deterministic stream.
            with _seed_lock:
                op_seed = _graph_to_seed_dict.setdefault(graph, 0)
                _graph_to_seed_dict[graph] = op_seed + 1
        seeds: tuple[int | None, int | None] = (_truncate_seed(global_seed),
                                                _truncate_seed(op_seed))
    elif op_seed is not None:
        seeds = DEFAULT_GRAPH_SEED, _truncate_seed(op_seed)
    else:
        seeds = None, None
    if seeds == (0, 0):
        return 0, _MAXINT32
    return seeds


def set_random_seed(seed: int | None) -> None:
    """Sets the graph-level random seed of the default graph."""
    ops_lib.get_default_graph().seed = seed


# -- shape helpers -------------------------------------------------------------------------

def shape_from_shape_tensor(t: ops_lib.Tensor) -> shape_lib.TensorShape:
    """The (possibly partial) shape a 1-D shape tensor stands for (TF's
    ``MakeShapeFromShapeTensor``); ValueError for a tensor of the wrong rank."""
    rank = t.shape.ndims
    if rank is not None and rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {rank}")
    value = tensor_util.constant_value(t)
    if value is not None:
        dims = [int(d) for d in np.asarray(value).reshape(-1)]
        for d in dims:
            if d < -1:
                raise ValueError(f"Dimension {d} must be >= -1")
        return shape_lib.TensorShape([None if d == -1 else d for d in dims])
    if t.op.type == "Pack":
        dims = []
        for x in t.op.inputs:
            v = tensor_util.constant_value(x)
            dims.append(None if v is None or int(v) == -1 else int(v))
        return shape_lib.TensorShape(dims)
    if rank == 1 and t.shape.as_list()[0] is not None:
        return shape_lib.unknown_shape(rank=t.shape.as_list()[0])
    return shape_lib.unknown_shape()


def _random_shape(op: ops_lib.Operation) -> list:
    return [shape_from_shape_tensor(op.inputs[0])]


def _random_int_shape(op: ops_lib.Operation) -> list:
    for t, arg in ((op.inputs[1], "minval"), (op.inputs[2], "maxval")):
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims} ({arg})")
    return [shape_from_shape_tensor(op.inputs[0])]


def _unchanged(op: ops_lib.Operation) -> list:
    return [op.inputs[0].shape]


_FLOATS = "{half, bfloat16, float, double}"

for _op_type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal"):
    op_registry.register_op(_op_type).input("shape: T").output("output: dtype") \
        .attr("seed: int = 0").attr("seed2: int = 0").attr(f"dtype: {_FLOATS}") \
        .attr("T: {int32, int64}").stateful().shape_fn(_random_shape)

op_registry.register_op("RandomUniformInt").input("shape: T").input("minval: Tout") \
    .input("maxval: Tout").output("output: Tout").attr("seed: int = 0") \
    .attr("seed2: int = 0").attr("Tout: {int32, int64}").attr("T: {int32, int64}") \
    .stateful().shape_fn(_random_int_shape)

op_registry.register_op("RandomShuffle").input("value: T").output("output: T") \
    .attr("seed: int = 0").attr("seed2: int = 0").attr("T: type").stateful() \
    .shape_fn(_unchanged)

for _op_type in ("RandomUniform", "RandomStandardNormal", "TruncatedNormal",
                 "RandomUniformInt", "RandomShuffle"):
    NotDifferentiable(_op_type)


# -- wrappers ------------------------------------------------------------------------------

def _shape_tensor(shape: Any) -> ops_lib.Tensor:
    """TF's ``shape_util.shape_tensor``: a shape-like value as an int tensor named 'shape'."""
    dtype = None
    if isinstance(shape, shape_lib.TensorShape):
        shape = shape.as_list()
    if isinstance(shape, (tuple, list)):
        if not shape:
            dtype = dtypes_lib.int32
        else:
            shape = tuple(shape_lib.dimension_value(d) for d in shape)
    return convert_to_tensor(shape, dtype=dtype, name="shape")


def _math():
    from graphcore.ops import math_ops

    return math_ops


def _attr_seeds(seed: int | None) -> dict:
    seed1, seed2 = get_seed(seed)
    return {"seed": seed1, "seed2": seed2}


def random_uniform(shape: Any, minval: Any = 0, maxval: Any = None,
                   dtype: Any = dtypes_lib.float32, seed: int | None = None,
                   name: str | None = None) -> ops_lib.Tensor:
    """Uniform values in [minval, maxval) (``maxval`` defaults to 1 for floats)."""
    dtype = dtypes_lib.as_dtype(dtype)
    accepted = (dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32, dtypes_lib.float64,
                dtypes_lib.int32, dtypes_lib.int64)
    if dtype not in accepted:
        raise ValueError(f"Argument `dtype` got invalid value {dtype}. Accepted dtypes are "
                         f"{accepted}.")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError("Must specify maxval for integer dtype %r" % dtype)
        maxval = 1
    with ops_lib.name_scope(name, "random_uniform", [shape, minval, maxval]) as name:
        shape = _shape_tensor(shape)
        minval_is_zero = isinstance(minval, int) and minval == 0
        maxval_is_one = isinstance(maxval, int) and maxval == 1
        if not minval_is_zero or not maxval_is_one or dtype.is_integer:
            minval = convert_to_tensor(minval, dtype=dtype, name="min")
            maxval = convert_to_tensor(maxval, dtype=dtype, name="max")
        seeds = _attr_seeds(seed)
        if dtype.is_integer:
            return apply_op("RandomUniformInt", name=name, shape=shape, minval=minval,
                            maxval=maxval, **seeds).outputs[0]
        result = apply_op("RandomUniform", shape=shape, dtype=dtype, **seeds).outputs[0]
        math_ops = _math()
        if minval_is_zero:
            if not maxval_is_one:
                result = math_ops.multiply(result, maxval)
        else:
            result = math_ops.add(result * (maxval - minval), minval, name=name)
        return result


def random_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                  dtype: Any = dtypes_lib.float32, seed: int | None = None,
                  name: str | None = None) -> ops_lib.Tensor:
    """Normally distributed values (``mean + stddev * N(0, 1)``)."""
    with ops_lib.name_scope(name, "random_normal", [shape, mean, stddev]) as name:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op("RandomStandardNormal", shape=shape_t, dtype=dtype,
                       **_attr_seeds(seed)).outputs[0]
        return _math().add(rnd * stddev_t, mean_t, name=name)


def truncated_normal(shape: Any, mean: Any = 0.0, stddev: Any = 1.0,
                     dtype: Any = dtypes_lib.float32, seed: int | None = None,
                     name: str | None = None) -> ops_lib.Tensor:
    """Normal values with those more than 2 stddevs from the mean re-drawn."""
    with ops_lib.name_scope(name, "truncated_normal", [shape, mean, stddev]) as name:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op("TruncatedNormal", shape=shape_t, dtype=dtype,
                       **_attr_seeds(seed)).outputs[0]
        return _math().add(rnd * stddev_t, mean_t, name=name)


def random_shuffle(value: Any, seed: int | None = None,
                   name: str | None = None) -> ops_lib.Tensor:
    """``value`` with its first dimension randomly permuted."""
    return apply_op("RandomShuffle", name=name, value=value, **_attr_seeds(seed)).outputs[0]


# ``tf.random.uniform`` / ``normal`` / ``shuffle`` (TF1 compat names of the above).
uniform = random_uniform
normal = random_normal
shuffle = random_shuffle
