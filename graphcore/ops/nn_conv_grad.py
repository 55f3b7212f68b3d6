"""Gradients of the convolution ops (TF's ``nn_grad.py``): Conv2D/Conv3D and their
backprops, DepthwiseConv2dNative and its backprops, Dilation2D, ExtractVolumePatches."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.ops import (
    array_ops,
    math_ops,
    nn_conv_ops,  # noqa: F401 - registers the ops
    sparse_ops,
)


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


_CONV_ATTRS = {
    "Conv2D": ("dilations", "strides", "padding", "explicit_paddings", "use_cudnn_on_gpu",
               "data_format"),
    "Conv3D": ("dilations", "strides", "padding", "data_format"),
    "DepthwiseConv2dNative": ("dilations", "strides", "padding", "explicit_paddings",
                              "data_format"),
}

# (forward, input backprop, filter backprop) op types of each convolution family.
_FAMILIES = {
    "Conv2D": ("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"),
    "Conv3D": ("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"),
    "DepthwiseConv2dNative": ("DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
                              "DepthwiseConv2dNativeBackpropFilter"),
}


def _attrs(op: ops_lib.Operation, family: str) -> dict:
    return {name: op.get_attr(name) for name in _CONV_ATTRS[family]}


def _register_family(family: str) -> None:
    forward, backprop_input, backprop_filter = _FAMILIES[family]

    @RegisterGradient(forward)
    def _forward_grad(op: ops_lib.Operation, grad: Any) -> Any:
        attrs = _attrs(op, family)
        # TF's depthwise gradient takes each Shape just before the op that uses it.
        shape_n = family != "DepthwiseConv2dNative"
        shapes = array_ops.shape_n([op.inputs[0], op.inputs[1]]) if shape_n else None
        dx = _op1(backprop_input,
                  input_sizes=shapes[0] if shape_n else array_ops.shape(op.inputs[0]),
                  filter=op.inputs[1], out_backprop=grad, **attrs)
        dw = _op1(backprop_filter, input=op.inputs[0],
                  filter_sizes=shapes[1] if shape_n else array_ops.shape(op.inputs[1]),
                  out_backprop=grad, **attrs)
        return [dx, dw]

    @RegisterGradient(backprop_input)
    def _backprop_input_grad(op: ops_lib.Operation, grad: Any) -> Any:
        attrs = _attrs(op, family)
        return [
            None,
            _op1(backprop_filter, input=grad, filter_sizes=array_ops.shape(op.inputs[1]),
                 out_backprop=op.inputs[2], **attrs),
            _op1(forward, input=grad, filter=op.inputs[1], **attrs),
        ]

    @RegisterGradient(backprop_filter)
    def _backprop_filter_grad(op: ops_lib.Operation, grad: Any) -> Any:
        attrs = _attrs(op, family)
        return [
            _op1(backprop_input, input_sizes=array_ops.shape(op.inputs[0]), filter=grad,
                 out_backprop=op.inputs[2], **attrs),
            None,
            _op1(forward, input=op.inputs[0], filter=grad, **attrs),
        ]


for _family in _FAMILIES:
    _register_family(_family)


@RegisterGradient("Dilation2D")
def _dilation2d_grad(op: ops_lib.Operation, grad: Any) -> Any:
    attrs = {"strides": op.get_attr("strides"), "rates": op.get_attr("rates"),
             "padding": op.get_attr("padding")}
    return [
        _op1("Dilation2DBackpropInput", input=op.inputs[0], filter=op.inputs[1],
             out_backprop=grad, **attrs),
        _op1("Dilation2DBackpropFilter", input=op.inputs[0], filter=op.inputs[1],
             out_backprop=grad, **attrs),
    ]


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op: ops_lib.Operation, grad: Any) -> Any:
    """TF's: a sparse [input cell, patch cell] incidence matrix times the flat gradient."""
    _, planes_in, rows_in, cols_in, _ = op.inputs[0].shape.as_list()
    input_bphwc = array_ops.shape(op.inputs[0])
    batch_size, channels = input_bphwc[0], input_bphwc[4]
    input_indices_num = 1 + planes_in * rows_in * cols_in
    input_idx = array_ops.reshape(
        math_ops.range(1, input_indices_num, dtype=dtypes_lib.int64),
        (1, planes_in, rows_in, cols_in, 1))
    input_idx_patched = _op1("ExtractVolumePatches", input=input_idx,
                             ksizes=op.get_attr("ksizes"), strides=op.get_attr("strides"),
                             padding=op.get_attr("padding"))
    _, planes_out, rows_out, cols_out, _ = op.outputs[0].shape.as_list()
    _, ksize_p, ksize_r, ksize_c, _ = op.get_attr("ksizes")
    prc_indices_num = planes_out * rows_out * cols_out
    output_indices_num = prc_indices_num * ksize_p * ksize_r * ksize_c
    output_idx = array_ops.reshape(
        math_ops.range(output_indices_num, dtype=dtypes_lib.int64),
        (1, planes_out, rows_out, cols_out, ksize_p * ksize_r * ksize_c))
    idx_matrix = array_ops.concat([array_ops.expand_dims(input_idx_patched, axis=-1),
                                   array_ops.expand_dims(output_idx, axis=-1)], axis=-1)
    idx_map = array_ops.reshape(idx_matrix, (-1, 2))
    sp_shape = (input_indices_num, output_indices_num)
    sp_mat_full = SparseTensor(idx_map, array_ops.ones([output_indices_num], dtype=grad.dtype),
                               sp_shape)
    sp_mat = sparse_ops.sparse_slice(sp_mat_full, (1, 0),
                                     (input_indices_num - 1, output_indices_num))
    grad_expanded = array_ops.transpose(
        array_ops.reshape(grad, (batch_size, planes_out, rows_out, cols_out, ksize_p, ksize_r,
                                 ksize_c, channels)), (1, 2, 3, 4, 5, 6, 0, 7))
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    jac = sparse_ops.sparse_tensor_dense_matmul(sp_mat, grad_flat)
    grad_out = array_ops.reshape(jac, (planes_in, rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (3, 0, 1, 2, 4))]
