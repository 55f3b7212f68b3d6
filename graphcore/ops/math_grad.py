"""Gradients of the math ops (TF's math_grad.py: broadcasting binary ops reduce the
gradient over the broadcast dimensions, then reshape it to the input's shape)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import array_ops, math_ops

for _op_type in ("Less", "LessEqual", "Greater", "GreaterEqual", "Equal", "NotEqual",
                 "LogicalAnd", "LogicalOr", "LogicalNot", "ArgMax", "ArgMin", "Range",
                 "BroadcastGradientArgs", "BitwiseAnd", "BitwiseOr",
                 "BitwiseXor", "Invert", "Floor", "Ceil", "Round", "Rint"):
    NotDifferentiable(_op_type)


def _shape_tuple(t: ops_lib.Tensor) -> tuple | None:
    if t.shape.ndims is None:
        return None
    return tuple(t.shape.as_list())


def _static_reduction_indices(sx: tuple, sy: tuple) -> tuple[list[int], list[int]]:
    """BroadcastGradientArgs of two static shapes, computed in Python."""
    if sx == sy:
        return [], []
    n = max(len(sx), len(sy))
    px = [1] * (n - len(sx)) + list(sx)
    py = [1] * (n - len(sy)) + list(sy)
    return [i for i, d in enumerate(px) if d == 1], [i for i, d in enumerate(py) if d == 1]


def _broadcast_args(x: ops_lib.Tensor, y: ops_lib.Tensor, grad: Any) -> tuple:
    """TF's SmartBroadcastGradientArgs: ((sx, rx, must_reduce_x), (sy, ry, must_reduce_y))
    with Python values when every shape is static, tensors otherwise."""
    sx_t, sy_t = _shape_tuple(x), _shape_tuple(y)
    g_t = _shape_tuple(grad) if isinstance(grad, ops_lib.Tensor) else None
    if sx_t is None or None in sx_t or sy_t is None or None in sy_t or g_t is None:
        sx = array_ops.shape(x)
        sy = array_ops.shape(y)
        rx, ry = math_ops.broadcast_gradient_args(sx, sy)
        return (sx, rx, True), (sy, ry, True)
    rx, ry = _static_reduction_indices(sx_t, sy_t)
    return (list(sx_t), rx, sx_t != g_t), (list(sy_t), ry, sy_t != g_t)


def _reduce_to(g: Any, shape: Any, axes: Any, must_reduce: bool) -> Any:
    if g is None or not must_reduce:
        return g
    return array_ops.reshape(math_ops.reduce_sum(g, axes), shape)


def _binary_grads(op: ops_lib.Operation, grad: Any, gx: Any, gy: Any) -> tuple:
    x, y = op.inputs[0], op.inputs[1]
    (sx, rx, mx), (sy, ry, my) = _broadcast_args(x, y, grad)
    return _reduce_to(gx, sx, rx, mx), _reduce_to(gy, sy, ry, my)


def _same_static_shapes(*tensors: ops_lib.Tensor) -> bool:
    shapes = [_shape_tuple(t) for t in tensors]
    return shapes[0] is not None and None not in shapes[0] and all(s == shapes[0]
                                                                   for s in shapes)


# -- binary ops ----------------------------------------------------------------------------

@RegisterGradient("AddV2")
@RegisterGradient("Add")
def _add_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    if isinstance(grad, ops_lib.Tensor) and _same_static_shapes(op.inputs[0], op.inputs[1],
                                                                  grad):
        return grad, grad
    return _binary_grads(op, grad, grad, grad)


@RegisterGradient("Sub")
def _sub_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    if isinstance(grad, ops_lib.Tensor) and _same_static_shapes(op.inputs[0], op.inputs[1],
                                                                  grad):
        return grad, -grad
    return _binary_grads(op, grad, grad, -grad)


@RegisterGradient("Mul")
def _mul_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    return _binary_grads(op, grad, math_ops.multiply(grad, y), math_ops.multiply(x, grad))


@RegisterGradient("RealDiv")
def _real_div_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    return _binary_grads(op, grad, math_ops.realdiv(grad, y),
                         grad * math_ops.realdiv(math_ops.realdiv(-x, y), y))


@RegisterGradient("Div")
def _div_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    return _binary_grads(op, grad, math_ops.div(grad, y),
                         grad * math_ops.div(math_ops.div(-x, y), y))


@RegisterGradient("DivNoNan")
def _div_no_nan_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    return _binary_grads(op, grad, math_ops.div_no_nan(grad, y),
                         grad * math_ops.div_no_nan(math_ops.div_no_nan(-x, y), y))


@RegisterGradient("FloorDiv")
def _floor_div_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return None, None


@RegisterGradient("FloorMod")
def _floor_mod_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    return _binary_grads(op, grad, grad, grad * math_ops.negative(math_ops.floor_div(x, y)))


@RegisterGradient("Pow")
def _pow_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = math_ops.conj(op.inputs[0]), math_ops.conj(op.inputs[1])
    z = math_ops.conj(op.outputs[0])
    gx = grad * y * math_ops.pow(x, y - 1)
    if x.dtype.is_complex:
        mask = math_ops.not_equal(x, 0)
    else:
        mask = x > 0  # no sensible real value for x < 0: 0, as TF
    safe_x = math_ops.select(mask, x, array_ops.ones_like(x))
    log_x = math_ops.select(mask, math_ops.log(safe_x), array_ops.zeros_like(x))
    gy = grad * z * log_x
    return _binary_grads(op, grad, gx, gy)


def _maximum_minimum_grad(op: ops_lib.Operation, grad: Any, selector: Any) -> tuple:
    x, y = op.inputs[0], op.inputs[1]
    zeros = array_ops.zeros_like(grad)
    xmask = selector(x, y)
    gx = math_ops.where_v2(xmask, grad, zeros)
    gy = math_ops.where_v2(xmask, zeros, grad)
    return _binary_grads(op, grad, gx, gy)


@RegisterGradient("Maximum")
def _maximum_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return _maximum_minimum_grad(op, grad, math_ops.greater_equal)


@RegisterGradient("Minimum")
def _minimum_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return _maximum_minimum_grad(op, grad, math_ops.less_equal)


@RegisterGradient("ClipByValue")
def _clip_by_value_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y, z = op.inputs
    zeros = array_ops.zeros(array_ops.shape(grad), grad.dtype)
    xymask = math_ops.less(x, y)
    xzmask = math_ops.greater(x, z)
    _, ry = math_ops.broadcast_gradient_args(array_ops.shape(x), array_ops.shape(y))
    _, rz = math_ops.broadcast_gradient_args(array_ops.shape(x), array_ops.shape(z))
    xgrad = math_ops.where_v2(math_ops.logical_or(xymask, xzmask), zeros, grad)
    ygrad = math_ops.where_v2(xymask, grad, zeros)
    zgrad = math_ops.where_v2(xzmask, grad, zeros)
    gy = array_ops.reshape(math_ops.reduce_sum(ygrad, ry), array_ops.shape(y))
    gz = array_ops.reshape(math_ops.reduce_sum(zgrad, rz), array_ops.shape(z))
    return xgrad, gy, gz


@RegisterGradient("SquaredDifference")
def _squared_difference_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = op.inputs[0], op.inputs[1]
    with ops_lib.control_dependencies([grad]):
        x_grad = math_ops.scalar_mul(2.0, grad) * (x - y)
    return _binary_grads(op, grad, x_grad, -x_grad)


# -- unary ops -----------------------------------------------------------------------------

@RegisterGradient("Neg")
def _neg_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return -grad


@RegisterGradient("Abs")
def _abs_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return grad * math_ops.sign(op.inputs[0])


@RegisterGradient("Sign")
def _sign_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return array_ops.zeros_like(op.inputs[0])


@RegisterGradient("Square")
def _square_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[0]
    with ops_lib.control_dependencies([grad]):
        x = math_ops.conj(x)
        y = array_ops.constant(2.0, dtype=x.dtype)
        return math_ops.multiply(grad, math_ops.multiply(x, y))


@RegisterGradient("Sqrt")
def _sqrt_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return math_ops._op("SqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Rsqrt")
def _rsqrt_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return math_ops._op("RsqrtGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Exp")
def _exp_grad(op: ops_lib.Operation, grad: Any) -> Any:
    y = op.outputs[0]
    with ops_lib.control_dependencies([grad]):
        return grad * math_ops.conj(y)


@RegisterGradient("Cos")
def _cos_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[0]
    with ops_lib.control_dependencies([grad]):
        return -grad * math_ops.sin(math_ops.conj(x))


@RegisterGradient("Sin")
def _sin_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[0]
    with ops_lib.control_dependencies([grad]):
        return grad * math_ops.cos(math_ops.conj(x))


@RegisterGradient("Reciprocal")
def _reciprocal_op_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return math_ops._op("ReciprocalGrad", y=op.outputs[0], dy=grad)


@RegisterGradient("Log")
def _log_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[0]
    with ops_lib.control_dependencies([grad]):
        x = math_ops.conj(x)
        return grad * _reciprocal(x)


@RegisterGradient("Log1p")
def _log1p_grad(op: ops_lib.Operation, grad: Any) -> Any:
    x = op.inputs[0]
    with ops_lib.control_dependencies([grad]):
        x = math_ops.conj(x)
        return grad * _reciprocal(1 + x)


def _reciprocal(x: ops_lib.Tensor) -> ops_lib.Tensor:
    return math_ops.realdiv(array_ops.constant(1, dtype=x.dtype.base_dtype), x)


@RegisterGradient("Tanh")
def _tanh_grad(op: ops_lib.Operation, grad: Any) -> Any:
    y = op.outputs[0]
    with ops_lib.control_dependencies([grad]):
        y = math_ops.conj(y)
        return math_ops._op("TanhGrad", y=y, dy=grad)


@RegisterGradient("Sigmoid")
def _sigmoid_grad(op: ops_lib.Operation, grad: Any) -> Any:
    y = op.outputs[0]
    with ops_lib.control_dependencies([grad]):
        y = math_ops.conj(y)
        return math_ops._op("SigmoidGrad", y=y, dy=grad)


@RegisterGradient("TanhGrad")
def _tanh_grad_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    with ops_lib.control_dependencies([grad]):
        a = math_ops.conj(op.inputs[0])
        b = math_ops.conj(op.inputs[1])
        return grad * -2.0 * b * a, math_ops._op("TanhGrad", y=a, dy=grad)


@RegisterGradient("SigmoidGrad")
def _sigmoid_grad_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    with ops_lib.control_dependencies([grad]):
        a = math_ops.conj(op.inputs[0])
        b = math_ops.conj(op.inputs[1])
        gb = grad * b
        return gb - 2.0 * gb * a, math_ops._op("SigmoidGrad", y=a, dy=grad)


@RegisterGradient("SqrtGrad")
def _sqrt_grad_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    a = op.inputs[0]
    y = op.outputs[0]  # y = 0.5 * b / conj(a)
    with ops_lib.control_dependencies([grad]):
        ga = grad / a
        return -math_ops.conj(ga) * y, 0.5 * ga


@RegisterGradient("RsqrtGrad")
def _rsqrt_grad_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    a = op.inputs[0]  # a = x^{-1/2}
    b = op.inputs[1]  # the backprop gradient of a
    with ops_lib.control_dependencies([grad]):
        ca = math_ops.conj(a)
        cg = math_ops.conj(grad)
        grad_a = -1.5 * cg * b * math_ops.square(ca)
        grad_b = math_ops._op("RsqrtGrad", y=ca, dy=grad)
        return grad_a, grad_b


@RegisterGradient("Conj")
def _conj_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return math_ops.conj(grad)


_FLOAT_TYPES = (dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.float64,
                dtypes_lib.bfloat16, dtypes_lib.complex64, dtypes_lib.complex128)


@RegisterGradient("Cast")
def _cast_grad(op: ops_lib.Operation, grad: Any) -> Any:
    src_type = op.inputs[0].dtype.base_dtype
    dst_type = grad.dtype.base_dtype
    if src_type in _FLOAT_TYPES and dst_type in _FLOAT_TYPES:
        return math_ops.cast(grad, src_type)
    return None


# -- select / add_n / matmul -----------------------------------------------------------------

@RegisterGradient("Select")
def _select_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    c, x = op.inputs[0], op.inputs[1]
    zeros = array_ops.zeros_like(x)
    return None, math_ops.select(c, grad, zeros), math_ops.select(c, zeros, grad)


@RegisterGradient("SelectV2")
def _select_v2_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    c, x, y = op.inputs
    z = op.outputs[0]
    zeros = array_ops.zeros([], dtype=grad.dtype.base_dtype)
    out = []
    for operand, g in ((x, math_ops.where_v2(c, grad, zeros)),
                       (y, math_ops.where_v2(c, zeros, grad))):
        s_operand = array_ops.shape(operand)
        reduce_axes, _ = math_ops.broadcast_gradient_args(s_operand, array_ops.shape(z))
        g = math_ops.reduce_sum(g, keepdims=True, axis=reduce_axes)
        out.append(array_ops.reshape(g, s_operand))
    return None, out[0], out[1]


@RegisterGradient("AddN")
def _add_n_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [grad] * len(op.inputs)


@RegisterGradient("MatMul")
def _matmul_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    t_a = op.get_attr("transpose_a")
    t_b = op.get_attr("transpose_b")
    a = math_ops.conj(op.inputs[0])
    b = math_ops.conj(op.inputs[1])

    def mm(p: Any, q: Any, ta: bool = False, tb: bool = False) -> ops_lib.Tensor:
        return math_ops._op("MatMul", a=p, b=q, transpose_a=ta, transpose_b=tb)

    if not t_a and not t_b:
        return mm(grad, b, tb=True), mm(a, grad, ta=True)
    if not t_a and t_b:
        return mm(grad, b), mm(grad, a, ta=True)
    if t_a and not t_b:
        return mm(b, grad, tb=True), mm(a, grad)
    return mm(b, grad, ta=True, tb=True), mm(grad, a, ta=True, tb=True)


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_v2_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, y = op.inputs[0], op.inputs[1]
    adj_x = op.get_attr("adj_x")
    adj_y = op.get_attr("adj_y")
    mm = math_ops.matmul
    if not adj_x:
        if not adj_y:
            grad_x = mm(grad, y, adjoint_a=False, adjoint_b=True)
            grad_y = mm(x, grad, adjoint_a=True, adjoint_b=False)
        else:
            grad_x = mm(grad, y, adjoint_a=False, adjoint_b=False)
            grad_y = mm(grad, x, adjoint_a=True, adjoint_b=False)
    elif not adj_y:
        grad_x = mm(y, grad, adjoint_a=False, adjoint_b=True)
        grad_y = mm(x, grad, adjoint_a=False, adjoint_b=False)
    else:
        grad_x = mm(y, grad, adjoint_a=True, adjoint_b=True)
        grad_y = mm(grad, x, adjoint_a=True, adjoint_b=True)
    sx_static, sy_static = x.shape, y.shape
    if not (sx_static.ndims is None or sy_static.ndims is None or sx_static.ndims > 2
            or sy_static.ndims > 2):
        return grad_x, grad_y
    sx = array_ops.shape(x)
    sy = array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx[:-2], sy[:-2])
    grad_x = array_ops.reshape(math_ops.reduce_sum(grad_x, rx), sx)
    grad_y = array_ops.reshape(math_ops.reduce_sum(grad_y, ry), sy)
    return grad_x, grad_y


# -- reductions ------------------------------------------------------------------------------

def _static_axes(op: ops_lib.Operation) -> list[int] | None:
    """The reduction axes made non-negative, when the input rank and axes are static."""
    rank = op.inputs[0].shape.ndims
    axes = tensor_util.constant_value(op.inputs[1])
    if rank is None or axes is None:
        return None
    return sorted({int(a) % rank if rank else 0 for a in np.asarray(axes).reshape(-1)})


def _kept_shape_and_tiles(op: ops_lib.Operation) -> tuple[Any, Any]:
    """(the output shape with reduced dims kept as 1, the tiling that restores the input
    shape), as Python lists when static, tensors otherwise."""
    x = op.inputs[0]
    in_shape = _shape_tuple(x)
    axes = _static_axes(op)
    if in_shape is not None and None not in in_shape and axes is not None:
        kept = [1 if i in axes else d for i, d in enumerate(in_shape)]
        tiles = [d // max(k, 1) for d, k in zip(in_shape, kept)]
        return kept, tiles
    input_shape = array_ops.shape(x)
    kept = math_ops.reduced_shape(input_shape, op.inputs[1])
    tiles = math_ops.floor_div(input_shape, math_ops.maximum(kept, 1))
    return kept, tiles


def _sum_grad_to_input(op: ops_lib.Operation, grad: Any) -> ops_lib.Tensor:
    kept, tiles = _kept_shape_and_tiles(op)
    grad = array_ops.reshape(grad, kept)
    return array_ops.tile(grad, tiles)


@RegisterGradient("Sum")
def _sum_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    return _sum_grad_to_input(op, grad), None


@RegisterGradient("Mean")
def _mean_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    sum_grad = _sum_grad_to_input(op, grad)
    in_shape = _shape_tuple(op.inputs[0])
    out_shape = _shape_tuple(op.outputs[0])
    if in_shape is not None and out_shape is not None and None not in in_shape \
            and None not in out_shape:
        factor = int(np.prod(in_shape)) // max(int(np.prod(out_shape)), 1)
        factor = array_ops.constant(factor, dtype=sum_grad.dtype.base_dtype)
    else:
        in_size = math_ops.reduce_prod(array_ops.shape(op.inputs[0]))
        out_size = math_ops.reduce_prod(array_ops.shape(op.outputs[0]))
        factor = math_ops.floor_div(in_size, math_ops.maximum(out_size, 1))
    return math_ops.truediv(sum_grad, math_ops.cast(factor, sum_grad.dtype)), None


def _min_or_max_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    kept, _ = _kept_shape_and_tiles(op)
    y = array_ops.reshape(op.outputs[0], kept)
    grad = array_ops.reshape(grad, kept)
    # Ties share the gradient equally.
    indicators = math_ops.cast(math_ops.equal(y, op.inputs[0]), grad.dtype)
    num_selected = array_ops.reshape(math_ops.reduce_sum(indicators, op.inputs[1]), kept)
    return [math_ops.divide(indicators, num_selected) * grad, None]


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


@RegisterGradient("Prod")
def _prod_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    """The product of all other elements of each reduced group (exclusive cumprods from
    both sides, so zeros are handled), as TF's _ProdGrad."""
    x = op.inputs[0]
    axes = _static_axes(op)
    if axes is None:
        raise NotImplementedError("The gradient of Prod needs a static input rank and "
                                  "constant reduction axes")
    rank = x.shape.ndims
    grad = _sum_grad_to_input(op, grad)
    input_shape = array_ops.shape(x)
    other = [i for i in range(rank) if i not in axes]
    perm = axes + other
    reduced_num = math_ops.reduce_prod(array_ops.gather(input_shape, axes)) if axes \
        else array_ops.constant(1)
    other_num = math_ops.reduce_prod(array_ops.gather(input_shape, other)) if other \
        else array_ops.constant(1)
    permuted = array_ops.transpose(x, perm)
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, array_ops.stack([reduced_num, other_num]))
    left = math_ops.cumprod(reshaped, axis=0, exclusive=True)
    right = math_ops.cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = array_ops.reshape(math_ops.conj(left) * math_ops.conj(right), permuted_shape)
    inverse = [perm.index(i) for i in range(rank)]
    out = grad * array_ops.transpose(y, inverse)
    return array_ops.reshape(out, input_shape), None


@RegisterGradient("Cumsum")
def _cumsum_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    axis = op.inputs[1]
    return math_ops.cumsum(grad, axis, exclusive=op.get_attr("exclusive"),
                           reverse=not op.get_attr("reverse")), None


@RegisterGradient("Cumprod")
def _cumprod_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    x, axis = op.inputs[0], op.inputs[1]
    exclusive, reverse = op.get_attr("exclusive"), op.get_attr("reverse")
    prod = math_ops.cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = math_ops.cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return math_ops.div_no_nan(out, x), None
