"""Gradients of :mod:`graphcore.ops.special_math_ops` (TF's ``math_grad.py``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_grad, math_ops, special_math_ops


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


def _fn(op_type: str, x: Any) -> ops_lib.Tensor:
    return getattr(special_math_ops, special_math_ops.SPECIAL[op_type])(x)


def _unary(op_type: str, derivative: Any) -> None:
    """Registers ``grad * derivative(x, y)`` (x the input, y the output), computed after
    ``grad`` as TF's are."""

    @RegisterGradient(op_type)
    def grad_fn(op: ops_lib.Operation, grad: Any) -> Any:
        with ops_lib.control_dependencies([grad]):
            return grad * derivative(op.inputs[0], op.outputs[0])


def _where_zero(x: Any, at_zero: float, elsewhere: Any) -> Any:
    return math_ops.where_v2(math_ops.equal(x, 0.), math_ops.cast(at_zero, x.dtype),
                              elsewhere)


_unary("Dawsn", lambda x, y: 1. - 2 * x * y)
_unary("Expint", lambda x, y: math_ops.exp(x) / x)
_unary("FresnelCos", lambda x, y: math_ops.cos((np.pi / 2.) * math_ops.square(x)))
_unary("FresnelSin", lambda x, y: math_ops.sin((np.pi / 2.) * math_ops.square(x)))
_unary("Spence", lambda x, y: array_ops.where(
    math_ops.equal(x, 1.), -array_ops.ones_like(x), math_ops.log(x) / (1 - x)))
_unary("BesselI0", lambda x, y: _fn("BesselI1", x))
_unary("BesselI0e", lambda x, y: _fn("BesselI1e", x) - math_ops.sign(x) * y)
_unary("BesselI1", lambda x, y: _where_zero(x, 1., _fn("BesselI0", x) - math_ops.div(y, x)))
_unary("BesselI1e", lambda x, y: _where_zero(
    x, 0.5, _fn("BesselI0e", x) - y * (math_ops.sign(x) + math_ops.reciprocal(x))))
_unary("BesselK0", lambda x, y: -_fn("BesselK1", x))
_unary("BesselK0e", lambda x, y: y - _fn("BesselK1e", x))
_unary("BesselK1", lambda x, y: -_fn("BesselK0", x) - math_ops.div(y, x))
_unary("BesselK1e", lambda x, y: y * (1. - math_ops.reciprocal(x)) - _fn("BesselK0e", x))
_unary("BesselJ0", lambda x, y: -_fn("BesselJ1", x))
_unary("BesselJ1", lambda x, y: _where_zero(x, 0.5, _fn("BesselJ0", x) - math_ops.div(y, x)))
_unary("BesselY0", lambda x, y: -_fn("BesselY1", x))
_unary("BesselY1", lambda x, y: _fn("BesselY0", x) - math_ops.div(y, x))


@RegisterGradient("MulNoNan")
def _mul_no_nan_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = op.inputs
    gx = _op1("MulNoNan", x=grad, y=y)
    gy = _op1("MulNoNan", x=x, y=grad)
    if isinstance(grad, ops_lib.Tensor) and math_grad._same_static_shapes(x, y, grad):
        return gx, gy
    return math_grad._binary_grads(op, grad, gx, gy)


@RegisterGradient("Xlog1py")
def _xlog1py_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = op.inputs
    with ops_lib.control_dependencies([grad]):
        not_zero_x = math_ops.cast(
            math_ops.not_equal(x, math_ops.cast(0., dtype=x.dtype)), dtype=x.dtype)
        partial_x = _op1("Xlog1py", x=not_zero_x, y=y)
        partial_y = _op1("Xdivy", x=x, y=y + 1.)
        return math_grad._binary_grads(op, grad, partial_x * grad, partial_y * grad)


@RegisterGradient("NextAfter")
def _next_after_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x1, x2 = op.inputs
    with ops_lib.control_dependencies([grad]):
        partial_x1 = array_ops.ones(array_ops.shape(x1), dtype=x1.dtype)
        partial_x2 = array_ops.zeros(array_ops.shape(x2), dtype=x2.dtype)
        return math_grad._binary_grads(op, grad, partial_x1 * grad, partial_x2 * grad)


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    output = op.outputs[0]
    if not op.get_attr("keep_dims"):
        kept = math_ops.reduced_shape(array_ops.shape(op.inputs[0]), op.inputs[1])
        output = array_ops.reshape(output, kept)
        grad = array_ops.reshape(grad, kept)
    return math_ops.truediv(op.inputs[0], output / grad), None


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op: ops_lib.Operation, grad: Any) -> list:
    x, axis = op.inputs
    out = op.outputs[0]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    log_grad_positive = math_ops.where_v2(math_ops.greater(grad, 0), math_ops.log(grad),
                                           grad.dtype.min)
    log_grad_negative = math_ops.where_v2(math_ops.less(grad, 0), math_ops.log(-grad),
                                           grad.dtype.min)
    output_pos = math_ops.exp(special_math_ops.cumulative_logsumexp(
        log_grad_positive - out, axis=axis, reverse=not reverse, exclusive=exclusive) + x)
    output_neg = math_ops.exp(special_math_ops.cumulative_logsumexp(
        log_grad_negative - out, axis=axis, reverse=not reverse, exclusive=exclusive) + x)
    return [output_pos - output_neg, None]
