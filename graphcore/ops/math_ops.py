"""Math ops (TF1's wrappers, creating each op under the name TF1 gives it) and the Tensor
operator overloads that use them. The op definitions are in :mod:`graphcore.ops.gen_math_ops`."""

from __future__ import annotations

import builtins
import collections.abc
from collections.abc import Callable
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    gen_math_ops,  # noqa: F401 - registers the math ops
)
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "abs",
    "add",
    "add_n",
    "argmax",
    "argmin",
    "cast",
    "ceil",
    "cos",
    "cumprod",
    "cumsum",
    "div",
    "div_no_nan",
    "divide",
    "equal",
    "exp",
    "floor",
    "floor_div",
    "floordiv",
    "floormod",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "log",
    "log1p",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "maximum",
    "minimum",
    "mod",
    "multiply",
    "negative",
    "not_equal",
    "pow",
    "range",
    "realdiv",
    "reciprocal",
    "reduce_all",
    "reduce_any",
    "reduce_max",
    "reduce_mean",
    "reduce_min",
    "reduce_prod",
    "reduce_sum",
    "rint",
    "round",
    "saturate_cast",
    "rsqrt",
    "scalar_mul",
    "select",
    "sigmoid",
    "sign",
    "sin",
    "sqrt",
    "square",
    "squared_difference",
    "subtract",
    "tanh",
    "to_double",
    "to_float",
    "to_int32",
    "to_int64",
    "truediv",
    "where_v2",
]


_T = ops_lib.Tensor


def _op(op_type: str, name: str | None = None, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, name=name, **kwargs).outputs[0]


# -- elementwise wrappers -------------------------------------------------------------------

def add(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x + y elementwise with broadcasting (an AddV2 op named 'Add'; Add for strings)."""
    with ops_lib.name_scope(name, "Add", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        op_type = "Add" if x.dtype.base_dtype.name == "string" else "AddV2"
        return _op(op_type, scope, x=x, y=y)


def _add_dispatch(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """The ``+`` operator (TF's math_ops._add_dispatch)."""
    if not isinstance(y, _T):
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
    op_type = "Add" if x.dtype.base_dtype.name == "string" else "AddV2"
    return _op(op_type, name, x=x, y=y)


def subtract(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x - y elementwise (a Sub op)."""
    return _op("Sub", name, x=x, y=y)


def multiply(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x * y elementwise (a Mul op)."""
    return _op("Mul", name, x=x, y=y)


def _mul_dispatch(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """The ``*`` operator: bool operands are multiplied as int32 (TF 2's behaviour)."""
    if (isinstance(x, _T) and x.dtype.base_dtype == dtypes_lib.bool) or \
            (isinstance(y, _T) and y.dtype.base_dtype == dtypes_lib.bool):
        xi = _op("Cast", None, x=x, DstT=dtypes_lib.int32)
        yi = _op("Cast", None, x=y, DstT=dtypes_lib.int32)
        return _op("Cast", None, x=multiply(xi, yi, name=name), DstT=dtypes_lib.bool)
    return multiply(x, y, name=name)


_TRUEDIV_TABLE = {
    dtypes_lib.uint8: dtypes_lib.float32, dtypes_lib.int8: dtypes_lib.float32,
    dtypes_lib.uint16: dtypes_lib.float32, dtypes_lib.int16: dtypes_lib.float32,
    dtypes_lib.uint32: dtypes_lib.float64, dtypes_lib.int32: dtypes_lib.float64,
    dtypes_lib.uint64: dtypes_lib.float64, dtypes_lib.int64: dtypes_lib.float64,
    dtypes_lib.bfloat16: None, dtypes_lib.float16: None, dtypes_lib.float32: None,
    dtypes_lib.float64: None, dtypes_lib.complex64: None, dtypes_lib.complex128: None,
}


def truediv(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x / y with Python 3 semantics: integers are cast to float first (a RealDiv op)."""
    with ops_lib.name_scope(name, "truediv", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, dtype_hint=x.dtype.base_dtype, name="y")
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != "
                            f"{y_dtype!r}.")
        if x_dtype not in _TRUEDIV_TABLE:
            raise TypeError(f"Invalid dtype {x_dtype!r} in __truediv__. Expected one of "
                            f"{{{', '.join(repr(d) for d in _TRUEDIV_TABLE)}}}.")
        dtype = _TRUEDIV_TABLE[x_dtype]
        if dtype is not None:
            x = cast(x, dtype)
            y = cast(y, dtype)
        return _op("RealDiv", scope, x=x, y=y)


class _DivideDelegateWithName:
    def __init__(self, x: Any, name: str):
        self.x = x
        self.name = name

    def __truediv__(self, y: Any) -> ops_lib.Tensor:
        return truediv(self.x, y, self.name)


def divide(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """Python-3 division of x by y (``x / y``)."""
    if name is not None:
        return _DivideDelegateWithName(x, name) / y
    if not isinstance(x, _T):
        dtype = y.dtype.base_dtype if isinstance(y, _T) else None
        x = convert_to_tensor(x, dtype=dtype)
    return x / y


def realdiv(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x / y for real types (a RealDiv op)."""
    return _op("RealDiv", name, x=x, y=y)


def div(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """TF1's Python-2 division: RealDiv for floats, FloorDiv for integers."""
    with ops_lib.name_scope(name, "div", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        x_dtype, y_dtype = x.dtype.base_dtype, y.dtype.base_dtype
        if x_dtype != y_dtype:
            raise TypeError(f"`x` and `y` must have the same dtype, got {x_dtype!r} != "
                            f"{y_dtype!r}.")
        if x_dtype.is_floating or x_dtype.is_complex:
            return _op("RealDiv", scope, x=x, y=y)
        return _op("FloorDiv", scope, x=x, y=y)


def div_no_nan(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x / y, 0 where y is 0 (a DivNoNan op)."""
    with ops_lib.name_scope(name, "div_no_nan", [x, y]) as scope:
        x = convert_to_tensor(x, name="x")
        y = convert_to_tensor(y, name="y", dtype=x.dtype.base_dtype)
        return _op("DivNoNan", scope, x=x, y=y)


def floordiv(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x // y rounding toward -inf (a FloorDiv op)."""
    with ops_lib.name_scope(name, "floordiv", [x, y]) as scope:
        return _op("FloorDiv", scope, x=x, y=y)


def floor_div(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("FloorDiv", name, x=x, y=y)


def floormod(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """x mod y with the sign of y (a FloorMod op)."""
    return _op("FloorMod", name, x=x, y=y)


mod = floormod


def _mod(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """``x % y`` (a FloorMod op named 'mod')."""
    with ops_lib.name_scope(name, "mod", [x, y]) as scope:
        return _op("FloorMod", scope, x=x, y=y)


def pow(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """x ** y elementwise (a Pow op)."""
    with ops_lib.name_scope(name, "Pow", [x]) as scope:
        return _op("Pow", scope, x=x, y=y)


def maximum(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Maximum", name, x=x, y=y)


def minimum(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Minimum", name, x=x, y=y)


def squared_difference(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """(x - y)^2 elementwise."""
    return _op("SquaredDifference", name, x=x, y=y)


def negative(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Neg", name, x=x)


def abs(x: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """|x| elementwise (an Abs op)."""
    with ops_lib.name_scope(name, "Abs", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            raise NotImplementedError("abs of complex tensors (ComplexAbs) is not supported")
        return _op("Abs", scope, x=x)


def sign(x: Any, name: str | None = None) -> ops_lib.Tensor:
    x = convert_to_tensor(x)
    if x.dtype.is_complex:
        raise NotImplementedError("sign of complex tensors is not supported")
    return _op("Sign", name, x=x)


def square(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Square", name, x=x)


def sqrt(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Sqrt", name, x=x)


def rsqrt(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Rsqrt", name, x=x)


def exp(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Exp", name, x=x)


def log(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Log", name, x=x)


def log1p(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Log1p", name, x=x)


def floor(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """Largest integer not greater than x, elementwise (a Floor op)."""
    return _op("Floor", name, x=x)


def ceil(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """Smallest integer not less than x, elementwise (a Ceil op)."""
    return _op("Ceil", name, x=x)


def rint(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """x rounded to the nearest integer, halves to even (a Rint op)."""
    return _op("Rint", name, x=x)


def round(x: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """x rounded half to even; integer tensors come back unchanged, as in TF."""
    x = convert_to_tensor(x, name="x")
    if x.dtype.is_integer:
        return x
    return _op("Round", name, x=x)


def cos(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Cos", name, x=x)


def sin(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Sin", name, x=x)


def reciprocal(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """1 / x, elementwise (a Reciprocal op)."""
    return _op("Reciprocal", name, x=x)


def tanh(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Tanh", name, x=x)


def sigmoid(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """1 / (1 + exp(-x)) (a Sigmoid op)."""
    with ops_lib.name_scope(name, "Sigmoid", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return _op("Sigmoid", scope, x=x)


def conj(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """The complex conjugate (x itself for real tensors)."""
    if isinstance(x, _T) and (x.dtype.is_floating or x.dtype.is_integer):
        return x
    with ops_lib.name_scope(name, "Conj", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex or x.dtype.base_dtype == dtypes_lib.variant:
            return _op("Conj", scope, input=x)
        if x.dtype.is_floating or x.dtype.is_integer:
            return x
        raise TypeError(f"Expected numeric or variant tensor, got dtype {x.dtype!r}.")


def cast(x: Any, dtype: Any, name: str | None = None) -> ops_lib.Tensor:
    """``x`` converted to ``dtype`` (x itself when it already has that dtype)."""
    base_type = dtypes_lib.as_dtype(dtype).base_dtype
    if isinstance(x, _T) and base_type == x.dtype:
        return x
    with ops_lib.name_scope(name, "Cast", [x]) as scope:
        if isinstance(x, SparseTensor):
            return SparseTensor(x.indices, cast(x.values, base_type, name=scope),
                                x.dense_shape)
        x = convert_to_tensor(x, name="x")
        if x.dtype != base_type:
            x = _op("Cast", scope, x=x, DstT=base_type)
        return x


def saturate_cast(value: Any, dtype: Any, name: str | None = None) -> ops_lib.Tensor:
    """``value`` cast to ``dtype``, first clipped (ClipByValue 'clamp') to the largest
    range both dtypes hold exactly (TF 2.21's limits, nudged inward where rounding to the
    input dtype would overshoot)."""
    with ops_lib.name_scope(name, "saturate_cast", [value]) as scope:
        value = convert_to_tensor(value, name="value")
        dtype = dtypes_lib.as_dtype(dtype).base_dtype
        in_dtype = value.dtype.base_dtype
        if in_dtype.is_complex:
            if dtype.is_complex:
                lo, hi = in_dtype.real_dtype, dtype.real_dtype
                if lo.min < hi.min or lo.max > hi.max:
                    value = apply_op(
                        "ClipByValue", name="clamp", t=value,
                        clip_value_min=convert_to_tensor(complex(hi.min, hi.min), in_dtype),
                        clip_value_max=convert_to_tensor(complex(hi.max, hi.max), in_dtype)
                    ).outputs[0]
                return cast(value, dtype, name=scope)
            value = apply_op("Real", input=value, Tout=in_dtype.real_dtype).outputs[0]
            in_dtype = in_dtype.real_dtype
        out_dtype = dtype.real_dtype
        with np.errstate(over="ignore", invalid="ignore"):
            min_limit, max_limit = _saturate_limits(in_dtype, out_dtype)
        value = apply_op("ClipByValue", name="clamp", t=value,
                         clip_value_min=convert_to_tensor(min_limit, dtype=in_dtype),
                         clip_value_max=convert_to_tensor(max_limit, dtype=in_dtype)
                         ).outputs[0]
        return cast(value, dtype, name=scope)


def _saturate_limits(in_dtype: dtypes_lib.DType, out_dtype: dtypes_lib.DType) -> tuple:
    """TF's clamp limits: the tighter of the two ranges, in the input dtype, moved one step
    toward zero where that value exceeds the output range once promoted."""
    np_dtype = in_dtype.as_numpy_dtype
    try:
        promoted_type = np.promote_types(np_dtype, out_dtype.as_numpy_dtype)
    except TypeError:
        promoted_type = float
    min_limit = np_dtype(np.maximum(in_dtype.min, out_dtype.min))
    promoted = np.array([min_limit, out_dtype.min], dtype=promoted_type)
    if promoted[0] < promoted[1]:
        min_limit = np.nextafter(min_limit, np_dtype(0), dtype=np_dtype)
    max_limit = np_dtype(np.minimum(float(in_dtype.max), float(out_dtype.max)))
    promoted = np.array([max_limit, out_dtype.max], dtype=promoted_type)
    if promoted[0] > promoted[1]:
        max_limit = np.nextafter(max_limit, np_dtype(0), dtype=np_dtype)
    return min_limit, max_limit


def to_float(x: Any, name: str = "ToFloat") -> ops_lib.Tensor:
    return cast(x, dtypes_lib.float32, name=name)


def to_double(x: Any, name: str = "ToDouble") -> ops_lib.Tensor:
    return cast(x, dtypes_lib.float64, name=name)


def to_int32(x: Any, name: str = "ToInt32") -> ops_lib.Tensor:
    return cast(x, dtypes_lib.int32, name=name)


def to_int64(x: Any, name: str = "ToInt64") -> ops_lib.Tensor:
    return cast(x, dtypes_lib.int64, name=name)


def equal(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Equal", name, x=x, y=y)


def not_equal(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("NotEqual", name, x=x, y=y)


def less(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Less", name, x=x, y=y)


def less_equal(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("LessEqual", name, x=x, y=y)


def greater(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("Greater", name, x=x, y=y)


def greater_equal(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("GreaterEqual", name, x=x, y=y)


def logical_and(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("LogicalAnd", name, x=x, y=y)


def logical_or(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    return _op("LogicalOr", name, x=x, y=y)


def logical_not(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """Elementwise NOT of a bool tensor."""
    return _op("LogicalNot", name, x=x)


def logical_xor(x: Any, y: Any, name: str = "LogicalXor") -> ops_lib.Tensor:
    """x XOR y: (x | y) & ~(x & y)."""
    return _op("LogicalAnd", name, x=_op("LogicalOr", x=x, y=y),
               y=_op("LogicalNot", x=_op("LogicalAnd", x=x, y=y)))


def _and(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    if x.dtype == dtypes_lib.bool:
        return _op("LogicalAnd", name, x=x, y=y)
    return _op("BitwiseAnd", x=x, y=y)


def _or(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    if x.dtype == dtypes_lib.bool:
        return _op("LogicalOr", name, x=x, y=y)
    return _op("BitwiseOr", x=x, y=y)


def _xor(x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    if x.dtype == dtypes_lib.bool:
        return logical_xor(x, y, name)
    return _op("BitwiseXor", x=x, y=y)


def _invert(x: Any, name: str | None = None) -> ops_lib.Tensor:
    if x.dtype == dtypes_lib.bool:
        return _op("LogicalNot", name, x=x)
    return _op("Invert", name, x=x)


def select(condition: Any, x: Any, y: Any, name: str | None = None) -> ops_lib.Tensor:
    """TF1 ``tf.where(condition, x, y)``: a Select op (condition the shape of x, a vector
    over x's first dimension, or a scalar)."""
    return _op("Select", name, condition=condition, t=x, e=y)


def where_v2(condition: Any, x: Any = None, y: Any = None,
             name: str | None = None) -> ops_lib.Tensor:
    """``tf.where_v2``: a broadcasting SelectV2 (or the coordinates of true elements)."""
    if x is None and y is None:
        return array_ops.where(condition, name=name)
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    return _op("SelectV2", name, condition=condition, t=x, e=y)


def add_n(inputs: Any, name: str | None = None) -> ops_lib.Tensor:
    """The elementwise sum of a list of tensors of one dtype and shape."""
    if not inputs or not isinstance(inputs, collections.abc.Iterable):
        raise ValueError("Inputs must be an iterable of at least one Tensor/IndexedSlices "
                         "with the same dtype and shape.")
    inputs = [convert_to_tensor(v) for v in inputs]
    if len(inputs) == 1:
        if name:
            return array_ops.identity(inputs[0], name=name)
        return inputs[0]
    return _op("AddN", name, inputs=inputs)


def scalar_mul(scalar: Any, x: Any, name: str | None = None) -> ops_lib.Tensor:
    """scalar * x for a 0-D ``scalar`` (a Mul op)."""
    base_dtype = dtypes_lib.as_dtype(x.dtype).base_dtype
    scalar = convert_to_tensor(scalar, dtype=base_dtype, name="scalar")
    shape = scalar.shape
    if shape.ndims == 0:
        return _op("Mul", name, x=scalar, y=x)
    raise ValueError(f"The input scalar must be a 0-D value. Received shape {shape}.")


# -- matmul ---------------------------------------------------------------------------------

def _shape_tuple(t: ops_lib.Tensor) -> tuple | None:
    return None if t.shape.ndims is None else tuple(t.shape.as_list())


def matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
           adjoint_a: bool = False, adjoint_b: bool = False, a_is_sparse: bool = False,
           b_is_sparse: bool = False, output_type: Any = None, grad_a: bool = False,
           grad_b: bool = False, name: str | None = None) -> ops_lib.Tensor:
    """a @ b: a MatMul op for matrices, BatchMatMulV2 (broadcasting batch dims) otherwise."""
    with ops_lib.name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError(f"Only one of `transpose_a` and `adjoint_a` can be True. "
                             f"Received `transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}.")
        if transpose_b and adjoint_b:
            raise ValueError(f"Only one of `transpose_b` and `adjoint_b` can be True. "
                             f"Received `transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}.")
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, dtype_hint=a.dtype.base_dtype, name="b")
        if output_type is not None and (output_type != a.dtype or output_type != b.dtype):
            raise NotImplementedError("matmul with output_type (BatchMatMulV3) is not supported")
        a_shape, b_shape = _shape_tuple(a), _shape_tuple(b)
        batched = (a_shape is None or len(a_shape) > 2) or (b_shape is None or len(b_shape) > 2)
        if batched:
            if transpose_a:
                a = conj(a)
                adjoint_a = True
            if transpose_b:
                b = conj(b)
                adjoint_b = True
            return _op("BatchMatMulV2", scope, x=a, y=b, adj_x=adjoint_a, adj_y=adjoint_b,
                       grad_x=grad_a, grad_y=grad_b)
        if adjoint_a:
            a = conj(a)
            transpose_a = True
        if adjoint_b:
            b = conj(b)
            transpose_b = True
        if _use_sparse_matmul(a, b, a_is_sparse, b_is_sparse):
            # SparseMatMul always returns float32; TF casts a bfloat16 product back.
            ret = _op("SparseMatMul", scope, a=a, b=b, transpose_a=transpose_a,
                      transpose_b=transpose_b, a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
            if a.dtype == dtypes_lib.bfloat16 and b.dtype == dtypes_lib.bfloat16:
                ret = cast(ret, dtypes_lib.bfloat16)
            return ret
        return _op("MatMul", scope, a=a, b=b, transpose_a=transpose_a,
                   transpose_b=transpose_b, grad_a=grad_a, grad_b=grad_b)


def _use_sparse_matmul(a: ops_lib.Tensor, b: ops_lib.Tensor, a_is_sparse: bool,
                       b_is_sparse: bool) -> bool:
    """Whether matmul builds SparseMatMul (TF's rule: a sparse hint on float32/bfloat16
    operands, or bfloat16 mixed with another type but int8/uint8)."""
    types = (dtypes_lib.bfloat16, dtypes_lib.float32)
    use = (a_is_sparse or b_is_sparse) and a.dtype in types and b.dtype in types
    small_ints = (dtypes_lib.int8, dtypes_lib.uint8)
    if (((a.dtype == dtypes_lib.bfloat16 and b.dtype not in small_ints)
         or (b.dtype == dtypes_lib.bfloat16 and a.dtype not in small_ints))
            and a.dtype != b.dtype):
        use = True
    return bool(use)


# -- reductions -------------------------------------------------------------------------------

def _reduction_dims(x: Any, axis: Any) -> Any:
    if axis is not None:
        return axis
    rank = x.shape.ndims if isinstance(x, _T) else None
    if rank:
        return array_ops.constant(np.arange(rank, dtype=np.int32))
    return range(0, array_ops.rank(x))


def _may_reduce_to_scalar(keepdims: bool, axis: Any, output: ops_lib.Tensor) -> ops_lib.Tensor:
    if not output.shape.is_fully_defined() and not keepdims and axis is None:
        output.set_shape(())
    return output


def _make_reduce(op_type: str, doc: str) -> Callable:
    def reduce_fn(input_tensor: Any, axis: Any = None, keepdims: Any = None,
                  name: str | None = None, reduction_indices: Any = None,
                  keep_dims: Any = None) -> ops_lib.Tensor:
        axis = deprecated_argument_lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
        keepdims = False if keepdims is None else builtins.bool(keepdims)
        dims = _reduction_dims(input_tensor, axis)
        out = _op(op_type, name, input=input_tensor, reduction_indices=dims,
                  keep_dims=keepdims)
        return _may_reduce_to_scalar(keepdims, axis, out)

    reduce_fn.__doc__ = doc
    return reduce_fn


reduce_sum = _make_reduce("Sum", "The sum of elements across dimensions ``axis`` (all when "
                                 "None); ``keepdims`` keeps them as size 1.")
reduce_all = _make_reduce("All", "The logical and of elements across dimensions ``axis``.")
reduce_any = _make_reduce("Any", "The logical or of elements across dimensions ``axis``.")
reduce_mean = _make_reduce("Mean", "The mean of elements across dimensions ``axis``.")
reduce_max = _make_reduce("Max", "The maximum of elements across dimensions ``axis``.")
reduce_min = _make_reduce("Min", "The minimum of elements across dimensions ``axis``.")
reduce_prod = _make_reduce("Prod", "The product of elements across dimensions ``axis``.")
for _fn, _n in ((reduce_sum, "reduce_sum"), (reduce_mean, "reduce_mean"),
                (reduce_max, "reduce_max"), (reduce_min, "reduce_min"),
                (reduce_prod, "reduce_prod")):
    _fn.__name__ = _fn.__qualname__ = _n


def _make_arg(op_type: str) -> Callable:
    def arg_fn(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
               dimension: Any = None, output_type: Any = dtypes_lib.int64) -> ops_lib.Tensor:
        axis = deprecated_argument_lookup("axis", axis, "dimension", dimension)
        if axis is None:
            axis = 0
        if hasattr(axis, "dtype"):
            allowed = {dtypes_lib.int8, dtypes_lib.uint8, dtypes_lib.int16, dtypes_lib.uint16,
                       dtypes_lib.int32, dtypes_lib.int64}
            if axis.dtype.base_dtype not in allowed:
                raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
            if axis.dtype.base_dtype in {dtypes_lib.int8, dtypes_lib.int16, dtypes_lib.uint8,
                                         dtypes_lib.uint16}:
                axis = cast(axis, dtypes_lib.int32)
        elif not isinstance(axis, (int, np.integer)):
            raise TypeError("axis must be int or Tensor with integer datatype")
        return _op(op_type, name, input=input, dimension=axis, output_type=output_type)

    arg_fn.__name__ = arg_fn.__qualname__ = op_type.lower()
    arg_fn.__doc__ = f"The index of the {op_type[3:].lower()}imum along ``axis`` (default 0)."
    return arg_fn


argmax = _make_arg("ArgMax")
argmin = _make_arg("ArgMin")


def range(start: Any, limit: Any = None, delta: Any = 1, dtype: Any = None,  # noqa: A001
          name: str = "range") -> ops_lib.Tensor:
    """[start, start + delta, ...) up to ``limit`` (one argument: [0, start))."""
    if limit is None:
        start, limit = 0, start
    with ops_lib.name_scope(name, "Range", [start, limit, delta]) as scope:
        if not isinstance(start, _T):
            start = convert_to_tensor(start, dtype=dtype, name="start")
        if not isinstance(limit, _T):
            limit = convert_to_tensor(limit, dtype=dtype, name="limit")
        if not isinstance(delta, _T):
            delta = convert_to_tensor(delta, dtype=dtype, name="delta")
        if dtype is None:
            hierarchy = [dtypes_lib.int32, dtypes_lib.int64, dtypes_lib.float16,
                         dtypes_lib.bfloat16, dtypes_lib.float32, dtypes_lib.float64]
            for arg in (start, limit, delta):
                if arg.dtype not in hierarchy:
                    raise TypeError(f"Unsupported dtype {arg.dtype!r} for range")
            inferred = builtins.max((arg.dtype for arg in (start, limit, delta)),
                                    key=hierarchy.index)
        else:
            inferred = dtype
        start = cast(start, inferred)
        limit = cast(limit, inferred)
        delta = cast(delta, inferred)
        return _op("Range", scope, start=start, limit=limit, delta=delta)


def _cumulative(op_type: str, default: str) -> Callable:
    def fn(x: Any, axis: Any = 0, exclusive: bool = False, reverse: bool = False,
           name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, default, [x]) as scope:
            x = convert_to_tensor(x, name="x")
            return _op(op_type, scope, x=x, axis=axis, exclusive=exclusive, reverse=reverse)

    fn.__name__ = fn.__qualname__ = default.lower()
    fn.__doc__ = f"The cumulative {default[3:].lower()} of ``x`` along ``axis``."
    return fn


cumsum = _cumulative("Cumsum", "Cumsum")
cumprod = _cumulative("Cumprod", "Cumprod")


def broadcast_gradient_args(s0: Any, s1: Any, name: str | None = None) -> list:
    """The reduction indices of the gradients of two broadcast operands."""
    return apply_op("BroadcastGradientArgs", name=name, s0=s0, s1=s1).outputs


def reduced_shape(input_shape: Any, axes: Any) -> ops_lib.Tensor:
    """``input_shape`` with the dimensions in ``axes`` set to 1 (an int32 tensor)."""
    shape_value = tensor_util.constant_value(input_shape) if isinstance(input_shape, _T) else \
        np.asarray(input_shape)
    axes_value = tensor_util.constant_value(axes) if isinstance(axes, _T) else np.asarray(axes)
    if shape_value is not None and axes_value is not None:
        rank = len(shape_value)
        kept = [int(d) for d in np.asarray(shape_value).reshape(-1)]
        for a in np.asarray(axes_value).reshape(-1).tolist():
            kept[a % rank if rank else 0] = 1
        return array_ops.constant(kept, dtype=dtypes_lib.int32)
    input_shape = cast(convert_to_tensor(input_shape), dtypes_lib.int32)
    axes = cast(array_ops.reshape(axes, [-1]), dtypes_lib.int32)
    rank = array_ops.size(input_shape)
    axes = floormod(axes + rank, rank)
    hits = equal(array_ops.expand_dims(range(rank), 1), array_ops.expand_dims(axes, 0))
    mask = minimum(reduce_sum(cast(hits, dtypes_lib.int32), 1), 1)
    return input_shape * (1 - mask) + mask


# -- operators ------------------------------------------------------------------------------

def _binary_operator(op_name: str, func: Callable) -> tuple[Callable, Callable]:
    """TF's override_binary_operator_helper: ``x <op> y`` runs ``func(x, y, name)`` under a
    ``name_scope(op_name)``; the reflected form converts the left operand to the tensor's
    dtype (named 'x') first."""

    def binary_op_wrapper(x: Any, y: Any) -> Any:
        with ops_lib.name_scope(None, op_name, [x, y]) as name:
            try:
                return func(x, y, name=name)
            except (TypeError, ValueError) as e:
                r_name = f"__r{op_name}__"
                if hasattr(type(y), r_name) and not isinstance(y, _T):
                    try:
                        out = getattr(y, r_name)(x)
                        if out is NotImplemented:
                            raise e from None
                        return out
                    except (TypeError, ValueError):
                        raise e from None
                raise

    def r_binary_op_wrapper(y: Any, x: Any) -> Any:
        with ops_lib.name_scope(None, op_name, [x, y]) as name:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=name)

    binary_op_wrapper.__name__ = f"__{op_name}__"
    r_binary_op_wrapper.__name__ = f"__r{op_name}__"
    return binary_op_wrapper, r_binary_op_wrapper


def _matmul_operator(a: Any, b: Any, name: str | None = None) -> ops_lib.Tensor:
    return matmul(a, b, name=name)


def _install_operators() -> None:
    for op_name, func in (("add", _add_dispatch), ("sub", subtract), ("mul", _mul_dispatch),
                          ("truediv", truediv), ("div", div), ("floordiv", floordiv),
                          ("mod", _mod), ("pow", pow), ("matmul", _matmul_operator),
                          ("and", _and), ("or", _or), ("xor", _xor)):
        fwd, rev = _binary_operator(op_name, func)
        ops_lib.Tensor._override_operator(f"__{op_name}__", fwd)
        ops_lib.Tensor._override_operator(f"__r{op_name}__", rev)
    ops_lib.Tensor._override_operator("__neg__", lambda x: negative(x))
    ops_lib.Tensor._override_operator("__abs__", lambda x: abs(x))
    ops_lib.Tensor._override_operator("__invert__", lambda x: _invert(x))
    for dunder, fn in (("__lt__", less), ("__le__", less_equal), ("__gt__", greater),
                       ("__ge__", greater_equal)):
        ops_lib.Tensor._override_operator(dunder, lambda x, y, _fn=fn: _fn(x, y))


_install_operators()
