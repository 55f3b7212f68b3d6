"""Gradients of :mod:`graphcore.ops.elementwise_ops` (TF's math_grad formulas)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, elementwise_ops, math_grad, math_ops

for _op_type in ("IsNan", "IsInf", "IsFinite", "TruncateDiv", "TruncateMod"):
    NotDifferentiable(_op_type)

_fns = elementwise_ops._FNS


def _one_minus_square(x: Any) -> Any:
    return math_ops.subtract(array_ops.ones_like(x), math_ops.square(x))


def _elementwise(op_type: str, derivative: Any) -> None:
    """Registers ``grad * derivative(x, y)`` (x the input, y the output) as the gradient,
    computed after ``grad`` as TF's unary gradients are."""

    @RegisterGradient(op_type)
    def grad_fn(op: ops_lib.Operation, grad: Any) -> Any:
        x = math_ops.conj(op.inputs[0]) if op.inputs[0].dtype.is_complex else op.inputs[0]
        with ops_lib.control_dependencies([grad]):
            return grad * derivative(x, op.outputs[0])


_elementwise("Acos", lambda x, y: -math_ops.reciprocal(math_ops.sqrt(_one_minus_square(x))))
_elementwise("Asin", lambda x, y: math_ops.reciprocal(math_ops.sqrt(_one_minus_square(x))))
_elementwise("Atan", lambda x, y: math_ops.reciprocal(
    math_ops.add(array_ops.ones_like(x), math_ops.square(x))))
_elementwise("Acosh", lambda x, y: math_ops.reciprocal(_fns["sinh"](y)))
_elementwise("Asinh", lambda x, y: math_ops.reciprocal(_fns["cosh"](y)))
_elementwise("Atanh", lambda x, y: math_ops.reciprocal(_one_minus_square(x)))
_elementwise("Cosh", lambda x, y: _fns["sinh"](x))
_elementwise("Sinh", lambda x, y: _fns["cosh"](x))
_elementwise("Tan", lambda x, y: math_ops.square(math_ops.reciprocal(math_ops.cos(x))))
_elementwise("Expm1", lambda x, y: math_ops.exp(x))
_elementwise("Erf", lambda x, y: math_ops.multiply(
    math_ops.cast(2 / np.sqrt(np.pi), x.dtype), math_ops.exp(-math_ops.square(x))))
_elementwise("Erfc", lambda x, y: math_ops.multiply(
    math_ops.cast(-2 / np.sqrt(np.pi), x.dtype), math_ops.exp(-math_ops.square(x))))
_elementwise("Erfinv", lambda x, y: math_ops.multiply(
    math_ops.cast(np.sqrt(np.pi) / 2, x.dtype), math_ops.exp(math_ops.square(y))))
_elementwise("Ndtri", lambda x, y: math_ops.multiply(
    math_ops.cast(np.sqrt(2 * np.pi), x.dtype), math_ops.exp(math_ops.square(y) / 2.0)))
_elementwise("Lgamma", lambda x, y: _fns["digamma"](x))
_elementwise("Digamma", lambda x, y: _fns["polygamma"](array_ops.ones_like(x), x))


@RegisterGradient("Atan2")
def _atan2_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    y, x = op.inputs
    with ops_lib.control_dependencies([grad]):
        grad_inv = grad / (math_ops.square(x) + math_ops.square(y))
        return math_grad._binary_grads(op, grad, x * grad_inv, -y * grad_inv)


@RegisterGradient("Xlogy")
def _xlogy_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = op.inputs
    not_zero_x = math_ops.cast(math_ops.not_equal(x, array_ops.zeros_like(x)), x.dtype)
    with ops_lib.control_dependencies([grad]):
        partial_x = _fns["xlogy"](not_zero_x, y)
        partial_y = _fns["xdivy"](x, y)
        return math_grad._binary_grads(op, grad, partial_x * grad, partial_y * grad)


@RegisterGradient("Igamma")
def _igamma_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    a, x = op.inputs
    with ops_lib.control_dependencies([grad]):
        partial_a = apply_op("IgammaGradA", a=a, x=x).outputs[0]
        partial_x = math_ops.exp(-x + (a - 1) * math_ops.log(x) - _fns["lgamma"](a))
        return math_grad._binary_grads(op, grad, partial_a * grad, partial_x * grad)


@RegisterGradient("Igammac")
def _igammac_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    grad_a, grad_x = _igamma_grad(op, grad)
    return -grad_a, -grad_x


@RegisterGradient("Betainc")
def _betainc_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    """The gradient for ``x`` only, as TF's (none for ``a`` and ``b``)."""
    a, b, x = op.inputs
    lgamma = _fns["lgamma"]
    log_beta = lgamma(a) + lgamma(b) - lgamma(a + b)
    partial_x = math_ops.exp(apply_op("Xlog1py", x=b - 1, y=-x).outputs[0]
                             + _fns["xlogy"](a - 1, x) - log_beta)
    _, rx = math_ops.broadcast_gradient_args(array_ops.shape(a), array_ops.shape(x))
    return (None, None, array_ops.reshape(math_ops.reduce_sum(partial_x * grad, rx),
                                          array_ops.shape(x)))


@RegisterGradient("Real")
def _real_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return elementwise_ops.complex(grad, array_ops.zeros_like(grad))


@RegisterGradient("Imag")
def _imag_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return elementwise_ops.complex(array_ops.zeros_like(grad), grad)


@RegisterGradient("Complex")
def _complex_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return math_grad._binary_grads(op, grad, elementwise_ops.real(grad),
                                   elementwise_ops.imag(grad))
