"""Gradients of the scatter/gather family (TF's array_grad and data_flow_grad): GatherNd
gives IndexedSlices for single-axis index tuples, else a ScatterNd; the functional
scatters route the gradient to the tensor and gather it for the updates; DynamicPartition
and DynamicStitch invert each other. The in-place scatters into variables have no
gradient, as in TF."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.ops import array_ops, math_ops, scatter_ops

for _op_type in (*scatter_ops.SCATTER_TYPES, *scatter_ops.SCATTER_ND_TYPES):
    NotDifferentiable(_op_type)
    NotDifferentiable("Resource" + _op_type)


@RegisterGradient("GatherNd")
def _gather_nd_grad(op: ops_lib.Operation, grad: Any) -> list:
    ref, indices = op.inputs
    ref_shape = array_ops.shape(ref, out_type=indices.dtype)
    if indices.shape.ndims == 2 and indices.shape.dims[-1].value == 1:
        return [IndexedSlices(grad, array_ops.squeeze(indices, axis=-1), ref_shape), None]
    return [scatter_ops.scatter_nd(indices, grad, ref_shape), None]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [None, scatter_ops.gather_nd(grad, op.inputs[0]), None]


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op: ops_lib.Operation, grad: Any) -> list:
    indices = op.inputs[1]
    updates_grad = scatter_ops.gather_nd(grad, indices)
    tensor_grad = scatter_ops.tensor_scatter_update(
        array_ops.identity(grad), indices, array_ops.zeros_like(op.inputs[2], dtype=grad.dtype))
    return [tensor_grad, None, updates_grad]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op: ops_lib.Operation, grad: Any) -> list:
    updates_grad = scatter_ops.gather_nd(grad, op.inputs[1])
    return [array_ops.identity(grad), None, updates_grad]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op: ops_lib.Operation, grad: Any) -> list:
    updates_grad = scatter_ops.gather_nd(grad, op.inputs[1])
    return [array_ops.identity(grad), None, -updates_grad]


@RegisterGradient("TensorScatterMin")
@RegisterGradient("TensorScatterMax")
def _tensor_scatter_min_or_max_grad(op: ops_lib.Operation, grad: Any) -> list:
    """The gradient goes to the elements equal to the result, split between ties."""
    indices = op.inputs[1]
    x, y = op.inputs[0], op.inputs[2]
    output = op.outputs[0]
    x_indicators = math_ops.cast(math_ops.equal(x, output), grad.dtype)
    y_output = scatter_ops.gather_nd(output, indices)
    y_indicators = math_ops.cast(math_ops.equal(y, y_output), grad.dtype)
    ys_indicators = scatter_ops.scatter_nd(indices, y_indicators,
                                           array_ops.shape(x, out_type=indices.dtype))
    indicators = x_indicators + ys_indicators
    x_grad = grad * x_indicators / indicators
    y_grad = scatter_ops.gather_nd(grad / indicators, indices) * y_indicators
    return [x_grad, None, y_grad]


@RegisterGradient("DynamicPartition")
def _dynamic_partition_grads(op: ops_lib.Operation, *grads: Any) -> list:
    """The partitions' gradients stitched back in ``data``'s order."""
    data, indices = op.inputs
    num_partitions = op.get_attr("num_partitions")
    prefix_shape = array_ops.shape(indices)
    original_indices = array_ops.reshape(
        math_ops.range(math_ops.reduce_prod(prefix_shape)), prefix_shape)
    partitioned_indices = scatter_ops.dynamic_partition(original_indices, indices,
                                                        num_partitions)
    reconstructed = scatter_ops.parallel_dynamic_stitch(partitioned_indices, list(grads))
    reconstructed = array_ops.reshape(reconstructed, array_ops.shape(data))
    return [reconstructed, None]


@RegisterGradient("DynamicStitch")
@RegisterGradient("ParallelDynamicStitch")
def _dynamic_stitch_grads(op: ops_lib.Operation, grad: Any) -> list:
    """Each piece's gradient: ``grad`` gathered at its indices."""
    num_values = len(op.inputs) // 2
    indices_grad: list = [None] * num_values

    def as_int32(x: Any) -> Any:
        return x if op.inputs[0].dtype == dtypes_lib.int32 else \
            math_ops.cast(x, dtypes_lib.int32)

    inputs = [as_int32(op.inputs[i]) for i in range(num_values)]
    if isinstance(grad, IndexedSlices):
        output_shape = array_ops.shape(op.outputs[0])
        grad = array_ops.unsorted_segment_sum(grad.values, grad.indices, output_shape[0])
    values_grad = [array_ops.gather(grad, inp) for inp in inputs]
    return indices_grad + values_grad
