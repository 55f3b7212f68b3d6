"""Gradients of the pooling ops (TF's ``nn_grad.py``): max and average pooling in 2-D and
3-D, MaxPoolV2, MaxPoolWithArgmax, max pooling's gradient-of-gradient ops, and fractional
max/average pooling."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import (
    array_ops,
    nn_fractional_pool_ops,  # noqa: F401 - registers the ops
    nn_pool_ops,  # noqa: F401 - registers the ops
)


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


def _window(op: ops_lib.Operation, explicit: bool = False) -> dict:
    attrs = {"ksize": op.get_attr("ksize"), "strides": op.get_attr("strides"),
             "padding": op.get_attr("padding"), "data_format": op.get_attr("data_format")}
    if explicit:
        attrs["explicit_paddings"] = op.get_attr("explicit_paddings")
    return attrs


@RegisterGradient("MaxPool")
def _max_pool_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("MaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0], grad=grad,
                **_window(op, explicit=True))


@RegisterGradient("MaxPool3D")
def _max_pool3d_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("MaxPool3DGrad", orig_input=op.inputs[0], orig_output=op.outputs[0],
                grad=grad, **_window(op))


def _register_grad_grad(grad_op: str, grad_grad_op: str) -> None:
    """MaxPool(3D)Grad and MaxPool(3D)GradGrad are each other's gradients."""
    for this, other in ((grad_op, grad_grad_op), (grad_grad_op, grad_op)):
        def _grad(op: ops_lib.Operation, grad: Any, other: str = other) -> Any:
            return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
                    _op1(other, orig_input=op.inputs[0], orig_output=op.inputs[1], grad=grad,
                         **_window(op)))

        RegisterGradient(this)(_grad)


_register_grad_grad("MaxPoolGrad", "MaxPoolGradGrad")
_register_grad_grad("MaxPool3DGrad", "MaxPool3DGradGrad")


@RegisterGradient("MaxPoolV2")
def _max_pool_v2_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("MaxPoolGradV2", orig_input=op.inputs[0], orig_output=op.outputs[0],
                grad=grad, ksize=op.inputs[1], strides=op.inputs[2],
                padding=op.get_attr("padding"),
                data_format=op.get_attr("data_format")), None, None


@RegisterGradient("MaxPoolGradV2")
def _max_pool_grad_v2_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return (array_ops.zeros_like(op.inputs[0]), array_ops.zeros_like(op.inputs[1]),
            _op1("MaxPoolGradGradV2", orig_input=op.inputs[0], orig_output=op.inputs[1],
                 grad=grad, ksize=op.inputs[3], strides=op.inputs[4],
                 padding=op.get_attr("padding"), data_format=op.get_attr("data_format")),
            None, None)


@RegisterGradient("MaxPoolWithArgmax")
def _max_pool_with_argmax_grad(op: ops_lib.Operation, grad: Any, unused_argmax_grad: Any) -> Any:
    del unused_argmax_grad
    return _op1("MaxPoolGradWithArgmax", input=op.inputs[0], grad=grad, argmax=op.outputs[1],
                ksize=op.get_attr("ksize"), strides=op.get_attr("strides"),
                padding=op.get_attr("padding"),
                include_batch_in_index=op.get_attr("include_batch_in_index"))


@RegisterGradient("AvgPool")
def _avg_pool_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("AvgPoolGrad",
                orig_input_shape=array_ops.shape(op.inputs[0], out_type=dtypes_lib.int32),
                grad=grad, **_window(op))


@RegisterGradient("AvgPool3D")
def _avg_pool3d_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("AvgPool3DGrad", orig_input_shape=array_ops.shape(op.inputs[0]), grad=grad,
                **_window(op))


@RegisterGradient("AvgPoolGrad")
def _avg_pool_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return (array_ops.stop_gradient(op.inputs[0]),
            _op1("AvgPool", value=grad, **_window(op)))


@RegisterGradient("AvgPool3DGrad")
def _avg_pool3d_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return (array_ops.stop_gradient(op.inputs[0]),
            _op1("AvgPool3D", input=grad, **_window(op)))


@RegisterGradient("FractionalMaxPool")
def _fractional_max_pool_grad(op: ops_lib.Operation, grad_0: Any, unused_grad_1: Any,
                              unused_grad_2: Any) -> Any:
    return _op1("FractionalMaxPoolGrad", orig_input=op.inputs[0], orig_output=op.outputs[0],
                out_backprop=grad_0, row_pooling_sequence=op.outputs[1],
                col_pooling_sequence=op.outputs[2], overlapping=op.get_attr("overlapping"))


@RegisterGradient("FractionalAvgPool")
def _fractional_avg_pool_grad(op: ops_lib.Operation, grad_0: Any, unused_grad_1: Any,
                              unused_grad_2: Any) -> Any:
    return _op1("FractionalAvgPoolGrad",
                orig_input_tensor_shape=op.inputs[0].get_shape().as_list(),
                out_backprop=grad_0, row_pooling_sequence=op.outputs[1],
                col_pooling_sequence=op.outputs[2], overlapping=op.get_attr("overlapping"))
