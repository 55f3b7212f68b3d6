"""Gradients of the segment reductions (TF's math_grad): gathers of the output gradient,
split evenly among the elements that reached a max or min."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.ops import array_ops, math_ops, segment_ops


@RegisterGradient("SegmentSum")
def _segment_sum_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return array_ops.gather(grad, op.inputs[1]), None


@RegisterGradient("SegmentMean")
def _segment_mean_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    input_rank = array_ops.rank(op.inputs[0])
    ones_shape = array_ops.concat(
        [array_ops.shape(op.inputs[1]),
         array_ops.ones(array_ops.expand_dims(input_rank - 1, 0), dtype=dtypes_lib.int32)], 0)
    ones = array_ops.ones(ones_shape, dtype=grad.dtype)
    scaled_grad = math_ops.divide(grad, segment_ops.segment_sum(ones, op.inputs[1]))
    return array_ops.gather(scaled_grad, op.inputs[1]), None


def _segment_min_or_max_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    zeros = array_ops.zeros_like(op.inputs[0])
    gathered_outputs = array_ops.gather(op.outputs[0], op.inputs[1])
    is_selected = math_ops.equal(op.inputs[0], gathered_outputs)
    num_selected = segment_ops.segment_sum(math_ops.cast(is_selected, grad.dtype),
                                           op.inputs[1])
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads = array_ops.gather(weighted_grads, op.inputs[1])
    return array_ops.where(is_selected, gathered_grads, zeros), None


RegisterGradient("SegmentMax")(_segment_min_or_max_grad)
RegisterGradient("SegmentMin")(_segment_min_or_max_grad)


def gather_drop_negatives(params: Any, ids: Any, zero_clipped_indices: Any = None,
                          is_positive: Any = None) -> tuple:
    """TF's ``_GatherDropNegatives``: ``params`` gathered at ``ids``, zero where the id is
    negative."""
    if zero_clipped_indices is None:
        zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered = array_ops.gather(params, zero_clipped_indices)
    if is_positive is None:
        is_positive = math_ops.greater_equal(ids, 0)
        is_positive_shape = array_ops.shape(is_positive)
        broadcastable_shape = array_ops.concat(
            [is_positive_shape,
             array_ops.ones([array_ops.rank(gathered) - array_ops.rank(is_positive)],
                            dtype=is_positive_shape.dtype)], axis=0)
        is_positive = array_ops.reshape(is_positive, broadcastable_shape)
        is_positive = math_ops.logical_and(
            is_positive, array_ops.ones_like(gathered, dtype=dtypes_lib.bool))
    zero_slice = array_ops.zeros_like(gathered)
    return (array_ops.where(is_positive, gathered, zero_slice), zero_clipped_indices,
            is_positive)


def _unsorted_segment_min_or_max_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    gathered_outputs, zero_clipped_indices, is_positive = gather_drop_negatives(
        op.outputs[0], op.inputs[1])
    is_selected = math_ops.logical_and(math_ops.equal(op.inputs[0], gathered_outputs),
                                       is_positive)
    num_selected = array_ops.unsorted_segment_sum(math_ops.cast(is_selected, grad.dtype),
                                                  op.inputs[1], op.inputs[2])
    weighted_grads = math_ops.divide(grad, num_selected)
    gathered_grads, _, _ = gather_drop_negatives(weighted_grads, None, zero_clipped_indices,
                                                 is_positive)
    zeros = array_ops.zeros_like(gathered_grads)
    return array_ops.where(is_selected, gathered_grads, zeros), None, None


RegisterGradient("UnsortedSegmentMax")(_unsorted_segment_min_or_max_grad)
RegisterGradient("UnsortedSegmentMin")(_unsorted_segment_min_or_max_grad)


@RegisterGradient("UnsortedSegmentProd")
def _unsorted_segment_prod_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    data, ids, num = op.inputs
    is_zero = math_ops.equal(data, array_ops.zeros_like(data))
    num_zeros = array_ops.unsorted_segment_sum(math_ops.cast(is_zero, dtypes_lib.int32),
                                               ids, num)
    grad = math_ops.where_v2(math_ops.greater(num_zeros, 1), array_ops.zeros_like(grad), grad)
    non_zero_data = math_ops.where_v2(is_zero, array_ops.ones_like(data), data)
    non_zero_prod = segment_ops.unsorted_segment_prod(non_zero_data, ids, num)
    zero_clipped_indices = math_ops.maximum(ids, array_ops.zeros_like(ids))
    gathered_prod = array_ops.gather(op.outputs[0], zero_clipped_indices)
    gathered_non_zero_prod = array_ops.gather(non_zero_prod, zero_clipped_indices)
    prod_divided_by_el = gathered_prod / data
    partial_derivative = math_ops.where_v2(is_zero, gathered_non_zero_prod, prod_divided_by_el)
    gathered_grad = gather_drop_negatives(grad, ids, zero_clipped_indices)[0]
    return gathered_grad * partial_derivative, None, None
