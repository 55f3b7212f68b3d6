"""Gradients of :mod:`graphcore.ops.nn_activation_ops` (TF's ``nn_grad.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, nn_activation_ops  # noqa: F401 - registers the ops


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


@RegisterGradient("LeakyRelu")
def _leaky_relu_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("LeakyReluGrad", gradients=grad, features=op.inputs[0],
                alpha=op.get_attr("alpha"))


@RegisterGradient("LeakyReluGrad")
def _leaky_relu_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[1]
    return (_op1("LeakyReluGrad", gradients=grad, features=x, alpha=op.get_attr("alpha")),
            array_ops.zeros_like(x))


@RegisterGradient("Selu")
def _selu_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("SeluGrad", gradients=grad, outputs=op.outputs[0])


@RegisterGradient("SeluGrad")
def _selu_grad_grad(op: ops_lib.Operation, grad: Any) -> Any:
    selu_x = op.inputs[1]
    return (_op1("SeluGrad", gradients=grad, outputs=selu_x),
            array_ops.where(selu_x < 0., grad * op.inputs[0], array_ops.zeros_like(selu_x)))


@RegisterGradient("Softsign")
def _softsign_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return _op1("SoftsignGrad", gradients=grad, features=op.inputs[0])
