"""Elementwise math ops whose Python API is the raw op (TF's ``gen_math_ops`` names):
trigonometric and hyperbolic functions, special functions, float predicates, complex
parts, truncating division; with TF's OpDefs and shape functions. Gradients are in
:mod:`graphcore.ops.elementwise_grad`, kernels in
:mod:`graphcore.kernels.elementwise_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

_FLOAT = "{bfloat16, half, float, double}"
_FLOAT_COMPLEX = "{bfloat16, half, float, double, complex64, complex128}"

# op type -> (its Python name, TF's type set)
UNARY = {
    "Acos": ("acos", _FLOAT_COMPLEX), "Acosh": ("acosh", _FLOAT_COMPLEX),
    "Asin": ("asin", _FLOAT_COMPLEX), "Asinh": ("asinh", _FLOAT_COMPLEX),
    "Atan": ("atan", _FLOAT_COMPLEX), "Atanh": ("atanh", _FLOAT_COMPLEX),
    "Cosh": ("cosh", _FLOAT_COMPLEX), "Sinh": ("sinh", _FLOAT_COMPLEX),
    "Tan": ("tan", _FLOAT_COMPLEX), "Expm1": ("expm1", _FLOAT_COMPLEX),
    "Erf": ("erf", _FLOAT), "Erfc": ("erfc", _FLOAT), "Erfinv": ("erfinv", _FLOAT),
    "Ndtri": ("ndtri", _FLOAT), "Lgamma": ("lgamma", _FLOAT),
    "Digamma": ("digamma", _FLOAT),
}
PREDICATES = {"IsNan": "is_nan", "IsInf": "is_inf", "IsFinite": "is_finite"}
BINARY = {
    "Atan2": ("atan2", _FLOAT, ("y", "x")),
    "TruncateDiv": ("truncatediv", "{bfloat16, half, float, double, uint8, int8, uint16, int16, "
                                   "int32, uint32, uint64, int64, complex64, complex128}",
                    ("x", "y")),
    "TruncateMod": ("truncatemod", "{int32, int64, bfloat16, half, float, double}", ("x", "y")),
    "Igamma": ("igamma", _FLOAT, ("a", "x")), "Igammac": ("igammac", _FLOAT, ("a", "x")),
    "Polygamma": ("polygamma", "{float, double}", ("a", "x")),
    "Zeta": ("zeta", "{float, double}", ("x", "q")),
    "Xlogy": ("xlogy", "{half, bfloat16, float, double, complex64, complex128}", ("x", "y")),
    "Xdivy": ("xdivy", "{half, bfloat16, float, double, complex64, complex128}", ("x", "y")),
}

__all__ = sorted([n for n, _ in UNARY.values()] + list(PREDICATES.values())
                 + [b[0] for b in BINARY.values()]
                 + ["angle", "betainc", "complex", "count_nonzero", "imag", "lbeta",
                    "log_sigmoid", "real", "reduce_logsumexp"])

for _op_type, (_name, _types) in UNARY.items():
    op_registry.register_op(_op_type).input("x: T").output("y: T").attr(f"T: {_types}") \
        .shape_fn(common_shapes.unchanged_shape)
for _op_type in PREDICATES:
    op_registry.register_op(_op_type).input("x: T").output("y: bool").attr(f"T: {_FLOAT}") \
        .shape_fn(common_shapes.unchanged_shape)
for _op_type, (_name, _types, (_a, _b)) in BINARY.items():
    op_registry.register_op(_op_type).input(f"{_a}: T").input(f"{_b}: T").output("z: T") \
        .attr(f"T: {_types}").shape_fn(common_shapes.broadcast_binary)
def _betainc_shape(op: ops_lib.Operation) -> list:
    """The inputs' common shape; scalars go with any shape (TF's Betainc)."""
    out = shape_lib.TensorShape([])
    for t in op._inputs:
        if t.shape.ndims != 0:
            out = t.shape if out.ndims == 0 else out.merge_with(t.shape)
    return [out]


op_registry.register_op("Betainc").input("a: T").input("b: T").input("x: T").output("z: T") \
    .attr("T: {float, double}").shape_fn(_betainc_shape)
# d igamma(a, x) / da: Igamma's gradient for ``a`` (TF's raw op, no public wrapper).
op_registry.register_op("IgammaGradA").input("a: T").input("x: T").output("z: T") \
    .attr("T: {float, double}").shape_fn(common_shapes.broadcast_binary)
for _op_type in ("Real", "Imag", "Angle"):
    op_registry.register_op(_op_type).input("input: T").output("output: Tout") \
        .attr("T: {complex64, complex128} = DT_COMPLEX64") \
        .attr("Tout: {float, double} = DT_FLOAT").shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("Complex").input("real: T").input("imag: T").output("out: Tout") \
    .attr("T: {float, double} = DT_FLOAT").attr("Tout: {complex64, complex128} = DT_COMPLEX64") \
    .shape_fn(common_shapes.broadcast_binary)


def _unary_wrapper(op_type: str, py_name: str):
    def fn(x: Any, name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, x=x).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = f"The elementwise ``{op_type}`` of ``x``."
    return fn


def _binary_wrapper(op_type: str, py_name: str, args: tuple[str, str]):
    def fn(a: Any, b: Any, name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, **{args[0]: a, args[1]: b}).outputs[0]

    fn.__name__ = py_name
    fn.__doc__ = f"The elementwise ``{op_type}({args[0]}, {args[1]})``, broadcasting."
    return fn


# The generated wrappers by Python name (made module attributes below).
_FNS = {**{n: _unary_wrapper(t, n) for t, (n, _) in UNARY.items()},
        **{n: _unary_wrapper(t, n) for t, n in PREDICATES.items()},
        **{n: _binary_wrapper(t, n, args) for t, (n, _, args) in BINARY.items()}}
globals().update(_FNS)


def betainc(a: Any, b: Any, x: Any, name: str | None = None) -> ops_lib.Tensor:
    """The regularized incomplete beta function I_x(a, b)."""
    return apply_op("Betainc", name=name, a=a, b=b, x=x).outputs[0]


_REAL_OF = {dtypes_lib.complex64: dtypes_lib.float32, dtypes_lib.complex128: dtypes_lib.float64}


def _complex_part(op_type: str, input: Any, name: str | None, real_default: Any) -> Any:  # noqa: A002
    with ops_lib.name_scope(name, op_type, [input]) as scope:
        x = convert_to_tensor(input, name="input")
        if x.dtype.is_complex:
            return apply_op(op_type, name=scope, input=x,
                            Tout=_REAL_OF[x.dtype.base_dtype]).outputs[0]
        return real_default(x, scope)


def real(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The real part of a complex tensor; a real tensor itself."""
    return _complex_part("Real", input, name, lambda x, scope: x)


def imag(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor."""
    return _complex_part("Imag", input, name,
                         lambda x, scope: array_ops.zeros_like(x, name=scope))


def angle(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The argument of a complex tensor; 0 or pi for a real one, as TF's."""
    def real_angle(x: Any, scope: str) -> Any:
        import numpy as np

        return math_ops.multiply(math_ops.cast(math_ops.less(x, 0), x.dtype),
                                 np.pi, name=scope)

    return _complex_part("Angle", input, name, real_angle)


def complex(real: Any, imag: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """``real + imag * 1j`` (complex64 from float32, complex128 from float64)."""
    with ops_lib.name_scope(name, "Complex", [real, imag]) as scope:
        r = convert_to_tensor(real, name="real")
        i = convert_to_tensor(imag, name="imag")
        out = {dtypes_lib.float32: dtypes_lib.complex64,
               dtypes_lib.float64: dtypes_lib.complex128}.get(r.dtype.base_dtype)
        if out is None or i.dtype.base_dtype != r.dtype.base_dtype:
            raise TypeError(f"real and imag have incorrect types: {r.dtype.name} "
                            f"{i.dtype.name}")
        return apply_op("Complex", name=scope, real=r, imag=i, Tout=out).outputs[0]


def log_sigmoid(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """log(sigmoid(x)), computed as -softplus(-x) (TF's construction)."""
    with ops_lib.name_scope(name, "LogSigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        softplus = apply_op("Softplus", features=math_ops.negative(x)).outputs[0]
        return math_ops.negative(softplus, name=scope)


def lbeta(x: Any, name: str = "lbeta") -> ops_lib.Tensor:
    """log(|Beta(x)|) over the last dimension: sum(lgamma(x)) - lgamma(sum(x))."""
    with ops_lib.name_scope(name, values=[x]):
        x = convert_to_tensor(x, name="x")
        log_prod_gamma_x = math_ops.reduce_sum(_FNS["lgamma"](x), axis=[-1])
        sum_x = math_ops.reduce_sum(x, axis=[-1])
        return log_prod_gamma_x - _FNS["lgamma"](sum_x)


def reduce_logsumexp(input_tensor: Any, axis: Any = None, keepdims: Any = None,
                     name: str | None = None, reduction_indices: Any = None,
                     keep_dims: Any = None) -> ops_lib.Tensor:
    """log(sum(exp(x))) over ``axis``, stabilized by the maximum (TF's construction)."""
    keepdims = keepdims if keepdims is not None else bool(keep_dims)
    axis = axis if axis is not None else reduction_indices
    with ops_lib.name_scope(name, "ReduceLogSumExp", [input_tensor]) as scope:
        x = convert_to_tensor(input_tensor)
        raw_max = math_ops.reduce_max(x, axis=axis, keepdims=True)
        my_max = array_ops.stop_gradient(apply_op(
            "SelectV2", condition=_FNS["is_finite"](raw_max), t=raw_max, e=0).outputs[0])
        result = math_ops.log(math_ops.reduce_sum(
            math_ops.exp(math_ops.subtract(x, my_max)), axis=axis, keepdims=keepdims))
        if not keepdims:
            my_max = array_ops.reshape(my_max, apply_op("Shape", input=result).outputs[0])
        return math_ops.add(result, my_max, name=scope)


def count_nonzero(input_tensor: Any = None, axis: Any = None, keepdims: Any = None,
                  dtype: Any = dtypes_lib.int64, name: str | None = None,
                  reduction_indices: Any = None, keep_dims: Any = None,
                  input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """How many elements of ``input_tensor`` along ``axis`` are not zero."""
    input_tensor = input if input_tensor is None else input_tensor
    keepdims = keepdims if keepdims is not None else bool(keep_dims)
    axis = axis if axis is not None else reduction_indices
    with ops_lib.name_scope(name, "count_nonzero", [input_tensor]):
        x = convert_to_tensor(input_tensor, name="input_tensor")
        zero = array_ops.zeros([], dtype=x.dtype)
        return math_ops.cast(
            math_ops.reduce_sum(math_ops.cast(math_ops.not_equal(x, zero), dtypes_lib.int64),
                                axis=axis, keepdims=keepdims), dtype=dtype)

