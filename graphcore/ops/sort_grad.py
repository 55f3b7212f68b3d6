"""The gradients of TopKV2 and ApproxTopK (TF's ``nn_grad._TopKGrad`` and
``_ApproxTopKGradient``)."""

from __future__ import annotations

import functools
import itertools
import operator
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops, scatter_ops, sort_ops  # noqa: F401


@RegisterGradient("TopKV2")
def _top_k_grad(op: ops_lib.Operation, grad: Any, _: Any) -> list:
    in_shape = array_ops.shape(op.inputs[0])
    ind_shape = array_ops.shape(op.outputs[1])
    ind_lastdim = array_ops.gather(math_ops.cast(ind_shape, dtypes_lib.int64),
                                   array_ops.size(ind_shape) - 1)
    ind_2d = array_ops.reshape(op.outputs[1], array_ops.stack([-1, ind_lastdim]))
    in_lastdim = array_ops.gather(math_ops.cast(in_shape, dtypes_lib.int64),
                                  array_ops.size(in_shape) - 1)
    outerdim = array_ops.shape(ind_2d)[0]
    ind = array_ops.reshape(
        ind_2d + math_ops.cast(array_ops.expand_dims(
            math_ops.range(0, math_ops.cast(outerdim, dtypes_lib.int64) * in_lastdim,
                           in_lastdim), -1), dtypes_lib.int32), [-1])
    return [
        array_ops.reshape(
            scatter_ops.scatter_nd(array_ops.expand_dims(ind, -1),
                                   array_ops.reshape(grad, [-1]),
                                   [math_ops.reduce_prod(in_shape)]), in_shape),
        array_ops.zeros([], dtype=dtypes_lib.int32),
    ]


@RegisterGradient("ApproxTopK")
def _approx_top_k_grad(op: ops_lib.Operation, grad: Any, _: Any) -> Any:
    idx_shape = op.outputs[1].shape.as_list()
    lifted_idx_shape = idx_shape + [1]
    flat_shape_len = functools.reduce(operator.mul, idx_shape)
    rank = len(idx_shape)
    reduction_dim = op.get_attr("reduction_dimension")
    if reduction_dim < 0:
        reduction_dim = rank + reduction_dim

    def lifted_idx(d: int) -> Any:
        if d == reduction_dim:
            return array_ops.reshape(op.outputs[1], lifted_idx_shape)
        iota_shape = list(itertools.repeat(1, rank + 1))
        iota_shape[d] = idx_shape[d]
        iota = array_ops.reshape(math_ops.range(idx_shape[d]), iota_shape)
        return apply_op("BroadcastTo", input=iota, shape=lifted_idx_shape).outputs[0]

    lifted = array_ops.concat([lifted_idx(d) for d in range(rank)], axis=rank)
    flat_idx = array_ops.reshape(lifted, [flat_shape_len, rank])
    flat_grad = array_ops.reshape(grad, [flat_shape_len])
    return scatter_ops.scatter_nd(flat_idx, flat_grad, op.inputs[0].shape.as_list())
