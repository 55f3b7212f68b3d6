"""Gradients of the nn ops (TF's ``nn_grad.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import (
    array_ops,
    math_ops,
    nn_ops,  # noqa: F401 - registers the ops
)


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


def _is_zeros(t: Any) -> bool:
    if t is None or getattr(t, "_is_zeros_tensor", False):
        return True
    if isinstance(t, ops_lib.Tensor):
        if t.op.type == "ZerosLike":
            return True
        value = tensor_util.constant_value(t)
        if value is not None and not value.any():
            return True
    return False


@RegisterGradient("Relu")
def _relu_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("ReluGrad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Relu6")
def _relu6_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("Relu6Grad", gradients=grad, features=op.outputs[0])


@RegisterGradient("Elu")
def _elu_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("EluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("Softplus")
def _softplus_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return grad * math_ops.sigmoid(op.inputs[0])


@RegisterGradient("ReluGrad")
def _relu_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[1]
    return _op1("ReluGrad", gradients=grad, features=x), array_ops.zeros_like(x)


@RegisterGradient("Relu6Grad")
def _relu6_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[1]
    return _op1("Relu6Grad", gradients=grad, features=x), array_ops.zeros_like(x)


@RegisterGradient("Softmax")
def _softmax_grad(op: ops_lib.Operation, grad_softmax: Any) -> Any:
    softmax = op.outputs[0]
    sum_channels = math_ops.reduce_sum(grad_softmax * softmax, -1, keepdims=True)
    return (grad_softmax - sum_channels) * softmax


@RegisterGradient("LogSoftmax")
def _log_softmax_grad(op: ops_lib.Operation, grad: Any) -> Any:
    softmax = math_ops.exp(op.outputs[0])
    return grad - math_ops.reduce_sum(grad, -1, keepdims=True) * softmax


@RegisterGradient("BiasAdd")
def _bias_add_grad(op: ops_lib.Operation, received_grad: Any) -> Any:
    data_format = op.get_attr("data_format")
    return received_grad, _op1("BiasAddGrad", out_backprop=received_grad,
                               data_format=data_format)


@RegisterGradient("BiasAddGrad")
def _bias_add_grad_grad(op: ops_lib.Operation, received_grad: Any) -> Any:
    data_format = op.get_attr("data_format")
    shape = array_ops.shape(op.inputs[0])
    bias_shape = array_ops.shape(received_grad)
    if data_format == b"NCHW":
        expanded_shape = array_ops.concat([
            array_ops.ones_like(shape[:1]), bias_shape, array_ops.ones_like(shape[2:])], 0)
        tile_mults = array_ops.concat([shape[:1], [1], shape[2:]], 0)
    else:
        expanded_shape = array_ops.concat([array_ops.ones_like(shape[:-1]), bias_shape], 0)
        tile_mults = array_ops.concat([shape[:-1], [1]], 0)
    expanded_grad = array_ops.reshape(received_grad, expanded_shape)
    return array_ops.tile(expanded_grad, tile_mults)


def _broadcast_mul(vec: Any, mat: Any) -> Any:
    return array_ops.expand_dims(vec, -1) * mat


def _xent_grad_grad_term(logits: Any, grad_grad: Any) -> Any:
    softmax = _op1("Softmax", logits=logits)
    return (grad_grad - array_ops.squeeze(
        math_ops.matmul(array_ops.expand_dims(grad_grad, 1),
                        array_ops.expand_dims(softmax, 2)), axis=1)) * softmax


@RegisterGradient("SoftmaxCrossEntropyWithLogits")
def _softmax_xent_grad(op: ops_lib.Operation, grad_loss: Any, grad_grad: Any) -> Any:
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if not _is_zeros(grad_grad):
        grad += _xent_grad_grad_term(logits, grad_grad)
    return grad, _broadcast_mul(grad_loss, -_op1("LogSoftmax", logits=logits))


@RegisterGradient("SparseSoftmaxCrossEntropyWithLogits")
def _sparse_softmax_xent_grad(op: ops_lib.Operation, grad_loss: Any, grad_grad: Any) -> Any:
    softmax_grad = op.outputs[1]
    grad = _broadcast_mul(grad_loss, softmax_grad)
    logits = op.inputs[0]
    if not _is_zeros(grad_grad):
        grad += _xent_grad_grad_term(logits, grad_grad)
    return grad, None


@RegisterGradient("L2Loss")
def _l2_loss_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return op.inputs[0] * grad


NotDifferentiable("InTopKV2")
