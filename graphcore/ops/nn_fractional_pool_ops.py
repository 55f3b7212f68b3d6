"""Fractional max/average pooling (tf.nn.fractional_max_pool, fractional_avg_pool): pooling
regions of random sizes k or k + 1 along height and width (Graham's fractional pooling),
the ops FractionalMaxPool/FractionalAvgPool and their gradient ops."""

from __future__ import annotations

import collections
import math
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops.window_shapes import unchanged_with_rank, with_rank

__all__ = ["fractional_max_pool", "fractional_avg_pool"]

_TYPES = "{float, double, int32, int64}"


def _fractional_pool_shape(op: ops_lib.Operation) -> list:
    ratio = list(op.get_attr("pooling_ratio"))
    if len(ratio) != 4:
        raise ValueError(f"pooling_ratio field must specify 4 dimensions, got {len(ratio)}")
    if ratio[0] != 1.0 or ratio[3] != 1.0:
        raise ValueError("Fractional pooling is not yet supported on the batch nor channel "
                         "dimension.")
    dims = with_rank(op.inputs[0].shape, 4).as_list()
    out = [None if d is None else int(math.floor(d / r)) for d, r in zip(dims, ratio)]
    for d in out:
        if d is not None and d <= 0:
            raise ValueError("Computed output size must be positive, got " + str(d))
    # TF's static shapes of the sequences say [rows] and [cols]; the kernel returns their
    # rows + 1 and cols + 1 boundaries.
    return [shape_lib.TensorShape(out), shape_lib.TensorShape([out[1]]),
            shape_lib.TensorShape([out[2]])]


for _op_type in ("FractionalMaxPool", "FractionalAvgPool"):
    op_registry.register_op(_op_type).input("value: T").output("output: T") \
        .output("row_pooling_sequence: int64").output("col_pooling_sequence: int64") \
        .attr("pooling_ratio: list(float) >= 4").attr("pseudo_random: bool = false") \
        .attr("overlapping: bool = false").attr("deterministic: bool = false") \
        .attr("seed: int = 0").attr("seed2: int = 0").attr(f"T: {_TYPES}") \
        .shape_fn(_fractional_pool_shape)

op_registry.register_op("FractionalMaxPoolGrad").input("orig_input: T") \
    .input("orig_output: T").input("out_backprop: T").input("row_pooling_sequence: int64") \
    .input("col_pooling_sequence: int64").output("output: T") \
    .attr("overlapping: bool = false").attr(f"T: {_TYPES}") \
    .shape_fn(unchanged_with_rank(0, 4))


def _avg_grad_shape(op: ops_lib.Operation) -> list:
    from graphcore.ops.random_ops import shape_from_shape_tensor

    return [with_rank(shape_from_shape_tensor(op.inputs[0]), 4)]


op_registry.register_op("FractionalAvgPoolGrad").input("orig_input_tensor_shape: int64") \
    .input("out_backprop: T").input("row_pooling_sequence: int64") \
    .input("col_pooling_sequence: int64").output("output: T") \
    .attr("overlapping: bool = false").attr(f"T: {_TYPES}").shape_fn(_avg_grad_shape)


_FractionalMaxPoolOutput = collections.namedtuple(
    "FractionalMaxPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])
_FractionalAvgPoolOutput = collections.namedtuple(
    "FractionalAvgPool", ["output", "row_pooling_sequence", "col_pooling_sequence"])


def fractional_max_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, deterministic: bool = False,
                        seed: int = 0, seed2: int = 0, name: str | None = None) -> tuple:
    """(output, row_pooling_sequence, col_pooling_sequence) of fractional max pooling."""
    op = apply_op("FractionalMaxPool", name=name, value=value, pooling_ratio=pooling_ratio,
                  pseudo_random=pseudo_random, overlapping=overlapping,
                  deterministic=deterministic, seed=seed, seed2=seed2)
    return _FractionalMaxPoolOutput(*op.outputs)


def fractional_avg_pool(value: Any, pooling_ratio: Any, pseudo_random: bool = False,
                        overlapping: bool = False, deterministic: bool = False,
                        seed: int = 0, seed2: int = 0, name: str | None = None) -> tuple:
    """(output, row_pooling_sequence, col_pooling_sequence) of fractional average pooling."""
    op = apply_op("FractionalAvgPool", name=name, value=value, pooling_ratio=pooling_ratio,
                  pseudo_random=pseudo_random, overlapping=overlapping,
                  deterministic=deterministic, seed=seed, seed2=seed2)
    return _FractionalAvgPoolOutput(*op.outputs)
