"""Gradients of :mod:`graphcore.ops.space_ops` (TF's ``array_grad.py``): each
rearrangement's gradient is its inverse; ExtractImagePatches scatters the patch gradients
back with an unsorted segment sum over the patched pixel indices."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops, space_ops


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


@RegisterGradient("SpaceToBatch")
def _space_to_batch_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [_op1("BatchToSpace", input=grad, crops=op.inputs[1],
                 block_size=op.get_attr("block_size")), None]


@RegisterGradient("BatchToSpace")
def _batch_to_space_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [_op1("SpaceToBatch", input=grad, paddings=op.inputs[1],
                 block_size=op.get_attr("block_size")), None]


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [space_ops.batch_to_space_nd(grad, op.inputs[1], op.inputs[2]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [space_ops.space_to_batch_nd(grad, op.inputs[1], op.inputs[2]), None, None]


def _depth_grad(inverse: str):
    def grad_fn(op: ops_lib.Operation, grad: Any) -> Any:
        data_format = op.get_attr("data_format")
        if data_format == b"NCHW_VECT_C":
            raise ValueError(f"Cannot compute {op.type} gradient with NCHW_VECT_C. "
                             "NCHW_VECT_C requires qint8 data type.")
        return _op1(inverse, input=grad, block_size=op.get_attr("block_size"),
                    data_format=data_format)

    return grad_fn


RegisterGradient("SpaceToDepth")(_depth_grad("DepthToSpace"))
RegisterGradient("DepthToSpace")(_depth_grad("SpaceToDepth"))


@RegisterGradient("ExtractImagePatches")
def _extract_image_patches_grad(op: ops_lib.Operation, grad: Any) -> list:
    input_bhwc = array_ops.shape(op.inputs[0], out_type=dtypes_lib.int64)
    batch_size, rows_in, cols_in, channels = array_ops.unstack(input_bhwc)
    output_bhwc = array_ops.shape(op.outputs[0], out_type=dtypes_lib.int64)
    rows_out, cols_out = array_ops.unstack(output_bhwc[1:3])
    _, ksize_r, ksize_c, _ = op.get_attr("ksizes")
    input_indices_num = rows_in * cols_in
    input_idx = array_ops.reshape(
        math_ops.range(1, input_indices_num + 1, dtype=dtypes_lib.float32),
        (1, rows_in, cols_in, 1))
    input_idx_patched = _op1("ExtractImagePatches", images=input_idx,
                             ksizes=op.get_attr("ksizes"), strides=op.get_attr("strides"),
                             rates=op.get_attr("rates"), padding=op.get_attr("padding"))
    input_idx_patched = math_ops.cast(input_idx_patched, dtypes_lib.int64)
    grad_expanded = array_ops.transpose(
        array_ops.reshape(grad, (batch_size, rows_out, cols_out, ksize_r, ksize_c,
                                 channels)), (1, 2, 3, 4, 0, 5))
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    segment_ids = array_ops.reshape(input_idx_patched, [-1]) - 1
    grad_out = array_ops.unsorted_segment_sum(grad_flat, segment_ids,
                                             num_segments=input_indices_num)
    grad_out = array_ops.reshape(grad_out, (rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (2, 0, 1, 3))]
