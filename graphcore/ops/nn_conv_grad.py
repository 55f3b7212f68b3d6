"""Gradients of the convolution ops (TF's ``nn_grad.py``): Conv2D/Conv3D and their
backprops, DepthwiseConv2dNative and its backprops, Dilation2D."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import (
    array_ops,
    nn_conv_ops,  # noqa: F401 - registers the ops
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
