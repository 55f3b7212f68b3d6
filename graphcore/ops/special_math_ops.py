"""tf.math leftovers as TF defines them: the special functions of ``tf.math.special``
(Bessel, Dawson, exponential integral, Fresnel, Spence), MulNoNan, NextAfter, Xlog1py,
EuclideanNorm, CumulativeLogsumexp and SobolSample. Gradients in
:mod:`graphcore.ops.special_math_grad`, kernels in
:mod:`graphcore.kernels.special_math_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import gen_math_ops, math_ops

_FLOAT = "{bfloat16, half, float, double}"

# op type -> its Python name (each ``name(x, name=None)`` in a name scope of that name)
SPECIAL = {
    "BesselI0": "bessel_i0", "BesselI0e": "bessel_i0e", "BesselI1": "bessel_i1",
    "BesselI1e": "bessel_i1e", "BesselJ0": "bessel_j0", "BesselJ1": "bessel_j1",
    "BesselK0": "bessel_k0", "BesselK0e": "bessel_k0e", "BesselK1": "bessel_k1",
    "BesselK1e": "bessel_k1e", "BesselY0": "bessel_y0", "BesselY1": "bessel_y1",
    "Dawsn": "dawsn", "Expint": "expint", "FresnelCos": "fresnel_cos",
    "FresnelSin": "fresnel_sin", "Spence": "spence",
}

__all__ = sorted(list(SPECIAL.values()) + [
    "cumulative_logsumexp", "multiply_no_nan", "nextafter", "reduce_euclidean_norm",
    "sobol_sample", "xlog1py"])

for _op_type in SPECIAL:
    op_registry.register_op(_op_type).input("x: T").output("y: T").attr(f"T: {_FLOAT}") \
        .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("MulNoNan").input("x: T").input("y: T").output("z: T") \
    .attr("T: {bfloat16, half, float, double, complex64, complex128}") \
    .shape_fn(common_shapes.broadcast_binary)
op_registry.register_op("Xlog1py").input("x: T").input("y: T").output("z: T") \
    .attr("T: {half, bfloat16, float, double, complex64, complex128}") \
    .shape_fn(common_shapes.broadcast_binary)
op_registry.register_op("NextAfter").input("x1: T").input("x2: T").output("output: T") \
    .attr("T: {double, float} = DT_FLOAT").shape_fn(common_shapes.broadcast_binary)
op_registry.register_op("EuclideanNorm").input("input: T") \
    .input("reduction_indices: Tidx").output("output: T").attr("keep_dims: bool = false") \
    .attr("T: numbertype").attr("Tidx: {int32, int64} = DT_INT32") \
    .shape_fn(gen_math_ops._reduction_shape_fn)
op_registry.register_op("CumulativeLogsumexp").input("x: T").input("axis: Tidx") \
    .output("out: T").attr("exclusive: bool = false").attr("reverse: bool = false") \
    .attr(f"T: {_FLOAT}").attr("Tidx: {int32, int64} = DT_INT32") \
    .shape_fn(common_shapes.unchanged_shape)


def _sobol_shape(op: ops_lib.Operation) -> list:
    for t in op.inputs:
        if t.shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.ndims}")
    dim, num_results = (tensor_util.constant_value(t) for t in op.inputs[:2])
    return [shape_lib.TensorShape([None if num_results is None else int(num_results),
                                   None if dim is None else int(dim)])]


op_registry.register_op("SobolSample").input("dim: int32").input("num_results: int32") \
    .input("skip: int32").output("samples: dtype").attr("dtype: {float, double} = DT_FLOAT") \
    .shape_fn(_sobol_shape)


def _special(op_type: str, py_name: str):
    def fn(x: Any, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, py_name, [x]):
            return apply_op(op_type, x=x).outputs[0]

    fn.__name__ = fn.__qualname__ = py_name
    fn.__doc__ = f"The elementwise ``{op_type}`` of ``x``."
    return fn


globals().update({n: _special(t, n) for t, n in SPECIAL.items()})


def multiply_no_nan(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x * y, but 0 wherever y is 0 (even if x is NaN or infinite)."""
    with ops_lib.name_scope(name, "multiply_no_nan", [x, y]) as name:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        if x.dtype.base_dtype != y.dtype.base_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got "
                            f"{x.dtype.base_dtype!r} != {y.dtype.base_dtype!r}")
        return apply_op("MulNoNan", name=name, x=x, y=y).outputs[0]


def xlog1py(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x * log1p(y), 0 where x is 0."""
    with ops_lib.name_scope(name, "xlog1py", [x]):
        return apply_op("Xlog1py", x=x, y=y).outputs[0]


def nextafter(x1: Any, x2: Any, name: str | None = None) -> ops_lib.Tensor:
    """The next representable value after x1 in the direction of x2."""
    return apply_op("NextAfter", name=name, x1=x1, x2=x2).outputs[0]


def reduce_euclidean_norm(input_tensor: Any, axis: Any = None, keepdims: bool = False,
                          name: str | None = None) -> ops_lib.Tensor:
    """sqrt(sum(x * conj(x))) over ``axis`` (all when None)."""
    keepdims = bool(keepdims)
    out = apply_op("EuclideanNorm", name=name, input=input_tensor,
                   reduction_indices=math_ops._reduction_dims(input_tensor, axis),
                   keep_dims=keepdims).outputs[0]
    return math_ops._may_reduce_to_scalar(keepdims, axis, out)


def cumulative_logsumexp(x: Any, axis: Any = 0, exclusive: bool = False,
                         reverse: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """log(cumsum(exp(x))) along ``axis``, computed stably."""
    with ops_lib.name_scope(name, "CumulativeLogsumexp", [x]) as name:
        x = convert_to_tensor(x, name="x")
        return apply_op("CumulativeLogsumexp", name=name, x=x, axis=axis,
                        exclusive=exclusive, reverse=reverse).outputs[0]


def sobol_sample(dim: Any, num_results: Any, skip: Any = 0, dtype: Any = dtypes_lib.float32,
                 name: str | None = None) -> ops_lib.Tensor:
    """[num_results, dim] points of the Sobol sequence (Joe and Kuo's direction numbers),
    after its first (zero) point and ``skip`` more."""
    with ops_lib.name_scope(name, "sobol", [dim, num_results, skip]):
        return apply_op("SobolSample", dim=dim, num_results=num_results, skip=skip,
                        dtype=dtype).outputs[0]
