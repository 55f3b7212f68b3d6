"""Gradients of the sparse-tensor ops (TF's sparse_grad): gradients flow to the values
of the SparseTensor operands and to dense operands; indices and shapes get none."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops import array_ops, math_ops, scatter_ops, sparse_ops

for _op_type in ("SparseAddGrad", "SparseConcat"):
    NotDifferentiable(_op_type)


@RegisterGradient("SparseReorder")
def _sparse_reorder_grad(op: ops_lib.Operation, unused_indices_grad: Any,
                         output_values_grad: Any) -> list:
    input_indices, input_shape = op.inputs[0], op.inputs[2]
    num_entries = array_ops.shape(input_indices)[0]
    entry_indices = math_ops.range(num_entries)
    sp_ordered = sparse_ops.sparse_reorder(SparseTensor(input_indices, entry_indices,
                                                        input_shape))
    inverted_permutation = array_ops.invert_permutation(sp_ordered.values)
    return [None, array_ops.gather(output_values_grad, inverted_permutation), None]


@RegisterGradient("SparseAdd")
def _sparse_add_grad(op: ops_lib.Operation, *grads: Any) -> list:
    a_val_grad, b_val_grad = apply_op(
        "SparseAddGrad", backprop_val_grad=grads[1], a_indices=op.inputs[0],
        b_indices=op.inputs[3], sum_indices=op.outputs[0]).outputs
    a_val_grad.set_shape(op.inputs[1].get_shape())
    b_val_grad.set_shape(op.inputs[4].get_shape())
    return [None, a_val_grad, None, None, b_val_grad, None, None]


@RegisterGradient("SparseTensorDenseAdd")
def _sparse_tensor_dense_add_grad(op: ops_lib.Operation, out_grad: Any) -> list:
    return [None, scatter_ops.gather_nd(out_grad, op.inputs[0]), None, out_grad]


@RegisterGradient("SparseReduceSum")
def _sparse_reduce_sum_grad(op: ops_lib.Operation, out_grad: Any) -> list:
    sp_indices, sp_shape = op.inputs[0], op.inputs[2]
    output_shape_kept_dims = math_ops.reduced_shape(sp_shape, op.inputs[3])
    out_grad_reshaped = array_ops.reshape(out_grad, output_shape_kept_dims)
    scale = sp_shape // math_ops.cast(output_shape_kept_dims, dtypes_lib.int64)
    return [None, scatter_ops.gather_nd(out_grad_reshaped, sp_indices // scale), None, None]


@RegisterGradient("SparseSlice")
def _sparse_slice_grad(op: ops_lib.Operation, *grads: Any) -> list:
    val_grad = apply_op("SparseSliceGrad", backprop_val_grad=grads[1],
                        input_indices=op.inputs[0], input_start=op.inputs[3],
                        output_indices=op.outputs[0]).outputs[0]
    val_grad.set_shape(op.inputs[1].get_shape())
    return [None, val_grad, None, None, None]


@RegisterGradient("SparseTensorDenseMatMul")
def _sparse_tensor_dense_matmul_grad(op: ops_lib.Operation, grad: Any) -> list:
    """d(values) = rows of grad · rows of b at each entry; d(b) = A^T grad."""
    a_indices, a_values, a_shape = op.inputs[:3]
    b = op.inputs[3]
    adj_a = op.get_attr("adjoint_a")
    adj_b = op.get_attr("adjoint_b")
    a_type, b_type = a_values.dtype.base_dtype, b.dtype.base_dtype
    if a_type != b_type:
        raise TypeError(f"SparseTensorDenseMatMul op received operands with different types: "
                        f"`{a_type}` and `{b_type}`.")
    b_grad = apply_op("SparseTensorDenseMatMul", a_indices=a_indices, a_values=a_values,
                      a_shape=a_shape, b=grad, adjoint_a=not adj_a).outputs[0]
    if adj_b:
        b_grad = array_ops.transpose(b_grad, [1, 0])
        if b_grad.dtype.is_complex:
            b_grad = math_ops.conj(b_grad)
    rows = a_indices[:, 0]
    cols = a_indices[:, 1]
    parts_a = array_ops.gather(grad, rows if not adj_a else cols)
    parts_b = array_ops.gather(b if not adj_b else array_ops.transpose(b),
                               cols if not adj_a else rows)
    if not adj_a and not adj_b:
        a_values_grad = math_ops.matmul(array_ops.expand_dims(parts_a, -2),
                                        array_ops.expand_dims(parts_b, -2), adjoint_b=True)
    elif adj_a and not adj_b:
        a_values_grad = math_ops.matmul(array_ops.expand_dims(parts_a, -1),
                                        array_ops.expand_dims(parts_b, -1), adjoint_a=True)
    elif not adj_a and adj_b:
        a_values_grad = math_ops.matmul(array_ops.expand_dims(parts_a, -2),
                                        array_ops.expand_dims(parts_b, -1))
    else:
        a_values_grad = math_ops.matmul(array_ops.expand_dims(parts_a, -1),
                                        array_ops.expand_dims(parts_b, -2),
                                        adjoint_a=True, adjoint_b=True)
    return [None, array_ops.squeeze(a_values_grad, axis=[-2, -1]), None, b_grad]


def _sparse_dense_cwise_mul_or_div_grad(op: ops_lib.Operation, grad: Any,
                                        is_mul: bool) -> list:
    x_indices, x_shape, y = op.inputs[0], op.inputs[2], op.inputs[3]
    y_shape = math_ops.cast(array_ops.shape(y), dtypes_lib.int64)
    num_added_dims = array_ops.expand_dims(array_ops.size(x_shape) - array_ops.size(y_shape), 0)
    augmented_y_shape = array_ops.concat(
        [array_ops.ones(num_added_dims, dtypes_lib.int64), y_shape], 0)
    scaling = x_shape // augmented_y_shape
    scaled_indices = x_indices // scaling
    scaled_indices = array_ops.slice(scaled_indices,
                                     array_ops.concat([[0], num_added_dims], 0), [-1, -1])
    dense_vals = scatter_ops.gather_nd(y, scaled_indices)
    if is_mul:
        dx = grad * dense_vals
        dy_val = grad * op.inputs[1]
    else:
        dx = grad / dense_vals
        dy_val = grad * (-op.inputs[1] / math_ops.square(dense_vals))
    dy = sparse_ops.sparse_add(array_ops.zeros_like(y),
                               SparseTensor(scaled_indices, dy_val, y_shape))
    return [None, dx, None, dy]


@RegisterGradient("SparseDenseCwiseMul")
def _sparse_dense_cwise_mul_grad(op: ops_lib.Operation, grad: Any) -> list:
    return _sparse_dense_cwise_mul_or_div_grad(op, grad, True)


@RegisterGradient("SparseDenseCwiseDiv")
def _sparse_dense_cwise_div_grad(op: ops_lib.Operation, grad: Any) -> list:
    return _sparse_dense_cwise_mul_or_div_grad(op, grad, False)


@RegisterGradient("SparseDenseCwiseAdd")
def _sparse_dense_cwise_add_grad(op: ops_lib.Operation, grad: Any) -> list:
    raise NotImplementedError("Gradient for SparseDenseCwiseAdd is not implemented.")


@RegisterGradient("SparseSoftmax")
def _sparse_softmax_grad(op: ops_lib.Operation, grad: Any) -> list:
    """SoftmaxGrad on the present entries: (grad - sum(grad * softmax)) * softmax."""
    indices, shape = op.inputs[0], op.inputs[2]
    out_vals = op.outputs[0]
    sp_output = SparseTensor(indices, out_vals, shape)
    sp_grad = SparseTensor(indices, grad, shape)
    sp_product = SparseTensor(indices, sp_output.values * sp_grad.values, shape)
    sum_reduced = -sparse_ops.sparse_reduce_sum(sp_product, [-1], keepdims=True)
    sp_sum = sparse_ops.sparse_dense_cwise_add(sp_grad, sum_reduced)
    return [None, sp_sum.values * sp_output.values, None]


@RegisterGradient("SparseFillEmptyRows")
def _sparse_fill_empty_rows_grad(op: ops_lib.Operation, unused_indices_grad: Any,
                                 output_grad_values: Any, unused_indicator_grad: Any,
                                 unused_map_grad: Any) -> list:
    d_values, d_default_value = apply_op(
        "SparseFillEmptyRowsGrad", reverse_index_map=op.outputs[3],
        grad_values=output_grad_values).outputs
    return [None, d_values, None, d_default_value]


@RegisterGradient("SparseToDense")
def _sparse_to_dense_grad(op: ops_lib.Operation, grad: Any) -> list:
    sparse_indices, output_shape, _, _ = op.inputs
    sparse_values_grad = scatter_ops.gather_nd(grad, sparse_indices)
    default_value_grad = math_ops.reduce_sum(grad) - math_ops.reduce_sum(sparse_values_grad)
    return [array_ops.zeros_like(sparse_indices), array_ops.zeros_like(output_shape),
            sparse_values_grad, default_value_grad]
