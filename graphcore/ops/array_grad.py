"""Gradients of the array ops (TF's array_grad.py; gathers give IndexedSlices, as TF).

Gradient functions are registered by op type in graphcore.framework.gradient_registry.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.indexed_slices import IndexedSlices
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops
from graphcore.ops.indexed_slices_ops import indexed_slices_to_tensor_no_warning

# -- helpers: the few math ops these gradients need ----------------------------------------


def _require(op_type: str) -> None:
    if op_registry.lookup(op_type) is None:
        raise NotImplementedError(f"This gradient needs the {op_type} op, which is not "
                                  "registered yet")


def _sub(x: Any, y: Any) -> ops_lib.Tensor:
    """x - y, folded to a constant when both are known."""
    xv, yv = tensor_util.constant_value(x), tensor_util.constant_value(y)
    if xv is not None and yv is not None:
        return array_ops.constant(np.asarray(xv - yv, dtype=xv.dtype), name="sub")
    _require("Sub")
    return apply_op("Sub", name="sub", x=x, y=y).outputs[0]


def _range_of_rank(t: ops_lib.Tensor, start: int = 0, delta: int = 1) -> Any:
    """[start, start + delta, ...) up to rank(t): a constant when the rank is known."""
    r = t.shape.ndims
    if r is not None:
        return np.arange(start, r, delta, dtype=np.int32)
    _require("Range")
    return apply_op("Range", name="range", start=start, limit=array_ops.rank(t),
                    delta=delta).outputs[0]


def _reduce_sum(x: ops_lib.Tensor, axes: Any) -> ops_lib.Tensor:
    _require("Sum")
    return apply_op("Sum", name="Sum", input=x, reduction_indices=axes,
                    keep_dims=False).outputs[0]


# -- not differentiable --------------------------------------------------------------------

for _op_type in ("Const", "ConcatOffset", "ZerosLike", "OnesLike", "StopGradient",
                 "InvertPermutation", "Shape", "ShapeN", "Rank", "Size", "OneHot", "Where"):
    NotDifferentiable(_op_type)


# -- identity-like -------------------------------------------------------------------------

@RegisterGradient("Identity")
def _identity_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return grad


@RegisterGradient("PlaceholderWithDefault")
def _placeholder_with_default_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(op: ops_lib.Operation, *grads: Any) -> list:
    return list(grads)


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op: ops_lib.Operation, grad: Any) -> Any:
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


# -- pack / concat / split -----------------------------------------------------------------

@RegisterGradient("Pack")
def _pack_grad(op: ops_lib.Operation, grad: Any) -> list:
    return array_ops.unstack(grad, num=op.get_attr("N"), axis=op.get_attr("axis"))


@RegisterGradient("Unpack")
def _unpack_grad(op: ops_lib.Operation, *grads: Any) -> Any:
    return array_ops.stack(list(grads), axis=op.get_attr("axis"))


@RegisterGradient("ConcatV2")
def _concat_grad(op: ops_lib.Operation, grad: Any) -> list:
    values = op.inputs[:-1]
    concat_dim = op.inputs[-1]
    axis = tensor_util.constant_value(concat_dim)
    rank = values[0].shape.ndims
    if axis is not None and rank is not None:
        non_neg = int(axis) % rank
    else:
        non_neg = concat_dim  # ConcatOffset accepts a negative dim
    sizes = [array_ops.shape(x) for x in values]
    if any(s.op.type != "Const" for s in sizes):
        sizes = array_ops.shape_n(values)
    offsets = apply_op("ConcatOffset", concat_dim=non_neg, shape=list(sizes)).outputs
    out = [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]
    return out + [None]


@RegisterGradient("Split")
def _split_grad(op: ops_lib.Operation, *grads: Any) -> list:
    return [None, array_ops.concat(list(grads), op.inputs[0])]


@RegisterGradient("SplitV")
def _split_v_grad(op: ops_lib.Operation, *grads: Any) -> list:
    return [array_ops.concat(list(grads), op.inputs[2]), None, None]


# -- slicing ---------------------------------------------------------------------------------

@RegisterGradient("Slice")
def _slice_grad(op: ops_lib.Operation, grad: Any) -> list:
    input_vec, begin_vec = op.inputs[0], op.inputs[1]
    input_rank = array_ops.rank(input_vec)
    index_dtype = begin_vec.dtype
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    shape = array_ops.stack([input_rank, 1])
    before_pad = array_ops.reshape(begin_vec, shape)
    after_pad = array_ops.reshape(
        _sub(_sub(array_ops.shape(input_vec, out_type=index_dtype), slice_size), begin_vec),
        shape)
    paddings = array_ops.concat([before_pad, after_pad], 1)
    return [array_ops.pad(grad, paddings), None, None]


def _masks(op: ops_lib.Operation) -> dict:
    return {k: op.get_attr(k) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                         "new_axis_mask", "shrink_axis_mask")}


def _static_or(t: ops_lib.Tensor) -> Any:
    value = tensor_util.constant_value(t)
    return t if value is None else value


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op: ops_lib.Operation, grad: Any) -> list:
    begin, end, strides = op.inputs[1], op.inputs[2], op.inputs[3]
    x = array_ops.shape(op.inputs[0], out_type=begin.dtype)
    return [array_ops.strided_slice_grad(_static_or(x), _static_or(begin), _static_or(end),
                                         _static_or(strides), grad, **_masks(op)),
            None, None, None]


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [None, None, None, None,
            array_ops.strided_slice(grad, op.inputs[1], op.inputs[2], op.inputs[3],
                                    **_masks(op))]


def _get_batch_indices(params_shape: Any, indices: Any, batch_dims: int) -> Any:
    """``indices`` plus the offsets of their batch positions (TF's _GetBatchIndices)."""
    batch_indices = indices
    indices_dtype = indices.dtype.base_dtype
    casted_params_shape = math_ops.cast(params_shape, indices_dtype)
    accum_dim_value = array_ops.ones((), dtype=indices_dtype)
    for dim in range(batch_dims, 0, -1):
        dim_value = casted_params_shape[dim - 1]
        accum_dim_value *= casted_params_shape[dim]
        start = array_ops.zeros((), dtype=indices_dtype)
        step = array_ops.ones((), dtype=indices_dtype)
        dim_indices = math_ops.range(start, dim_value, step)
        dim_indices *= accum_dim_value
        dim_shape = array_ops.concat(
            [array_ops.tile([1], [dim - 1]), [dim_value],
             array_ops.tile([1], [array_ops.rank(indices) - dim])], axis=0)
        batch_indices += array_ops.reshape(dim_indices, dim_shape)
    return batch_indices


def _batch_gather_grad(params_shape: Any, values: Any, indices: Any, batch_dims: int,
                       gather_dim_size: Any) -> Any:
    """The dense gradient of a gather along the first non-batch axis."""
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = apply_op("Prod", input=outer_shape, reduction_indices=[0],
                              keep_dims=False).outputs[0]
        flat_values_shape = array_ops.concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _get_batch_indices(params_shape, indices, batch_dims)
        values = array_ops.reshape(indexed_slices_to_tensor_no_warning(values),
                                   flat_values_shape)
    indices = array_ops.reshape(indices, indices_size)
    params_grad = array_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = array_ops.reshape(
            params_grad, array_ops.concat([outer_shape, flat_values_shape], 0))
    return params_grad


@RegisterGradient("Gather")
def _gather_v1_grad(op: ops_lib.Operation, grad: Any) -> list:
    """IndexedSlices of ``grad``'s rows at ``indices`` (TF's _GatherGrad)."""
    params = op.inputs[0]
    with ops_lib.colocate_with(params.op):
        params_shape = array_ops.shape(params)
    indices = op.inputs[1]
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(indexed_slices_to_tensor_no_warning(grad), values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


@RegisterGradient("GatherV2")
def _gather_grad(op: ops_lib.Operation, grad: Any) -> list:
    """Axis 0: IndexedSlices of ``grad``'s rows at ``indices`` (what sparse optimizer
    updates consume); other axes and batch_dims: a dense sum (TF's _GatherV2Grad)."""
    params = op.inputs[0]
    with ops_lib.colocate_with(params.op):
        params_shape = array_ops.shape(params)
    indices = op.inputs[1]
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    axis = op.inputs[2]
    axis_static = tensor_util.constant_value(axis)
    batch_dims = int(op.get_attr("batch_dims"))
    if batch_dims < 0:
        if indices.shape.ndims is None:
            raise ValueError(
                "Currently, it is unsupported to take the gradient of tf.gather when "
                "batch_dims < 0 and the rank of the indices is unknown. Please pass a "
                "positive batch_dims or use tf.ensure_shape to update the shape of indices "
                f"when calling tf.gather. Got batch_dims={batch_dims} and indices={indices}")
        batch_dims += indices.shape.ndims
    if axis_static is not None and int(axis_static) == 0:
        params_tail_shape = params_shape[1:]
        values_shape = array_ops.concat([indices_size, params_tail_shape], 0)
        values = array_ops.reshape(indexed_slices_to_tensor_no_warning(grad), values_shape)
        indices = array_ops.reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches_indices = math_ops.range(batch_dims)
    batch_axis_indices = math_ops.range(batch_dims, axis_dims)
    inner_axes_indices = math_ops.range(axis_dims + 1, values_dims)
    values = array_ops.reshape(indexed_slices_to_tensor_no_warning(grad), values_shape)
    transpose_dims = array_ops.concat(
        [outer_batches_indices, [axis_dims], batch_axis_indices, inner_axes_indices], 0)
    values_transpose = array_ops.transpose(values, transpose_dims)
    params_shape_transpose = array_ops.gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(params_shape_transpose, values_transpose, indices,
                                     batch_dims, params_shape[axis])
    invert_transpose_dims = array_ops.concat(
        [outer_batches_indices, batch_axis_indices + 1, [batch_dims], inner_axes_indices], 0)
    params_grad = array_ops.transpose(params_grad, invert_transpose_dims)
    # Keeps zero-sized dimensions right (TF's comment: shape mismatches otherwise).
    params_grad = array_ops.reshape(params_grad, array_ops.shape(params))
    return [params_grad, None, None]


@RegisterGradient("UnsortedSegmentSum")
def _unsorted_segment_sum_grad(op: ops_lib.Operation, grad: Any) -> list:
    """Gathers ``grad`` at the segment ids (ids < 0 get zero, as in TF)."""
    ids = op.inputs[1]
    value = tensor_util.constant_value(ids)
    if value is not None and (np.asarray(value) >= 0).all():
        return [array_ops.gather(grad, ids), None, None]
    for needed in ("Maximum", "GreaterEqual", "SelectV2"):
        _require(needed)
    zero = array_ops.constant(0, dtype=ids.dtype)
    clipped = apply_op("Maximum", x=ids, y=zero).outputs[0]
    gathered = array_ops.gather(grad, clipped)
    is_positive = apply_op("GreaterEqual", x=ids, y=zero).outputs[0]
    extra = gathered.shape.ndims - ids.shape.ndims if gathered.shape.ndims is not None \
        and ids.shape.ndims is not None else None
    if extra is None:
        raise NotImplementedError("UnsortedSegmentSum gradient needs known ranks")
    for _ in range(extra):
        is_positive = array_ops.expand_dims(is_positive, -1)
    is_positive = apply_op("LogicalAnd", x=is_positive,
                           y=array_ops.ones_like(gathered, dtype=dtypes_lib.bool)).outputs[0] \
        if op_registry.lookup("LogicalAnd") is not None else is_positive
    zeros = array_ops.zeros_like(gathered)
    return [apply_op("SelectV2", condition=is_positive, t=gathered, e=zeros).outputs[0],
            None, None]


# -- reshaping ---------------------------------------------------------------------------------

@RegisterGradient("Reshape")
def _reshape_grad(op: ops_lib.Operation, grad: Any) -> list:
    input_shape = op.inputs[0].shape
    if input_shape.ndims is not None and not input_shape.is_fully_defined():
        dims = input_shape.as_list()
        undefined = [i for i, d in enumerate(dims) if d is None]
        if len(undefined) == 1 and 0 not in dims:
            dims[undefined[0]] = -1
            return [array_ops.reshape(grad, dims), None]
    return [array_ops.reshape(grad, array_ops.shape(op.inputs[0])), None]


def _reshape_to_input(op: ops_lib.Operation, grad: Any) -> ops_lib.Tensor:
    return array_ops.reshape(grad, array_ops.shape(op.inputs[0]))


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [_reshape_to_input(op, grad), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op: ops_lib.Operation, grad: Any) -> ops_lib.Tensor:
    return _reshape_to_input(op, grad)


@RegisterGradient("Transpose")
def _transpose_grad(op: ops_lib.Operation, grad: Any) -> list:
    p = op.inputs[1]
    return [array_ops.transpose(grad, array_ops.invert_permutation(p)), None]


@RegisterGradient("ReverseV2")
def _reverse_v2_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [array_ops.reverse(grad, op.inputs[1]), None]


# -- tile / pad / fill -------------------------------------------------------------------------

@RegisterGradient("Tile")
def _tile_grad(op: ops_lib.Operation, grad: Any) -> list:
    input_shape = array_ops.shape(op.inputs[0], out_type=op.inputs[1].dtype)
    split_shape = array_ops.reshape(
        array_ops.transpose(array_ops.stack([op.inputs[1], input_shape])), [-1])
    rank = op.inputs[0].shape.ndims
    if rank is not None:
        axes: Any = np.arange(0, 2 * rank, 2, dtype=np.int32)
    else:
        _require("Range")
        axes = apply_op("Range", name="range", start=0, limit=array_ops.size(split_shape),
                        delta=2).outputs[0]
    input_grad = _reduce_sum(array_ops.reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


def _pad_grad(op: ops_lib.Operation, grad: Any) -> list:
    x, a = op.inputs[0], op.inputs[1]
    pad_before = array_ops.slice(a, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(pad_before, [-1])
    sizes = array_ops.shape(x, out_type=begin.dtype)
    x_grad = array_ops.slice(grad, begin, sizes)
    return [x_grad] + [None] * (len(op.inputs) - 1)


RegisterGradient("Pad")(_pad_grad)
RegisterGradient("PadV2")(_pad_grad)


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [apply_op("MirrorPadGrad", input=grad, paddings=op.inputs[1],
                     mode=op.get_attr("mode")).outputs[0], None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [apply_op("MirrorPad", input=grad, paddings=op.inputs[1],
                     mode=op.get_attr("mode")).outputs[0], None]


@RegisterGradient("Fill")
def _fill_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [None, _reduce_sum(grad, _range_of_rank(grad))]
