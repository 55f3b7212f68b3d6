"""Math op definitions: each math op's OpDef (TF's REGISTER_OP spec, so the OpDef equals
TF's) and shape function with TF's checks (TF's ``core/ops/math_ops.cc``), registered by op
type. The Python API is :mod:`graphcore.ops.math_ops`."""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any

import numpy as np

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib

_T = ops_lib.Tensor

# -- type sets (TF's spellings) -----------------------------------------------------------

_ADD_TYPES = ("{bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, "
              "int32, int64, complex64, complex128}")
_ARITH_TYPES = _ADD_TYPES  # Sub, Mul, RealDiv, Div, FloorDiv
_FLOAT_COMPLEX = "{bfloat16, half, float, double, complex64, complex128}"
_SIGNED_COMPLEX = ("{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
                   "complex128}")
_MINMAX_TYPES = ("{bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
                 "int64, uint64}")
_FLOORMOD_TYPES = ("{int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, half, "
                   "float, double}")
_SUM_TYPES = "numbertype"
_MAX_TYPES = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
              "uint64, qint8, quint8, qint32, qint16, quint16}")


# -- shape functions (TF's InferenceContext checks and messages) ---------------------------

_dims = common_shapes.dims_of


_dbg = common_shapes.debug_string


def _merge_dim(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


_merge_shapes = common_shapes.merge_dims


_with_rank = common_shapes.with_rank


def _broadcast_dims(a: list | None, b: list | None,
                    incompatible_shape_error: bool = True) -> list | None:
    """BroadcastBinaryOpOutputShapeFnHelper: None for an unknown shape, [] for a scalar."""
    if a is None or b is None:
        return None
    n = builtins.max(len(a), len(b))
    pa = [1] * (n - len(a)) + list(a)
    pb = [1] * (n - len(b)) + list(b)
    out: list = []
    for x, y in zip(pa, pb):
        if x is not None and y is not None:
            if x == y or y == 1:
                out.append(x)
            elif x == 1:
                out.append(y)
            elif not incompatible_shape_error:
                return []
            else:
                raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None and y is None:
            out.append(None)
        else:
            if not incompatible_shape_error:
                return None
            known = x if y is None else y
            out.append(known if known > 1 else None)
    return out


def _as_shape(dims: list | None) -> shape_lib.TensorShape:
    return shape_lib.unknown_shape() if dims is None else shape_lib.TensorShape(dims)


def _broadcast_shape_fn(op: ops_lib.Operation) -> list:
    ise = True
    if "incompatible_shape_error" in op._attrs:
        ise = op._attrs["incompatible_shape_error"].b
    return [_as_shape(_broadcast_dims(_dims(op._inputs[0].shape), _dims(op._inputs[1].shape),
                                      ise))]


def _merge_both_shape_fn(op: ops_lib.Operation) -> list:
    return [_as_shape(_merge_shapes(_dims(op._inputs[0].shape), _dims(op._inputs[1].shape)))]


def _const(t: ops_lib.Tensor) -> np.ndarray | None:
    return tensor_util.constant_value(t)


def _reduction_shape_fn(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    idx_dims = _dims(op._inputs[1].shape)
    if idx_dims is not None and len(idx_dims) > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {len(idx_dims)}")
    keep_dims = op._attrs["keep_dims"].b
    axes = _const(op._inputs[1])
    if axes is None or in_dims is None:
        if keep_dims and in_dims is not None:
            return [shape_lib.TensorShape([None] * len(in_dims))]
        return [shape_lib.unknown_shape()]
    rank = len(in_dims)
    true_axes = set()
    for v in np.asarray(axes).reshape(-1).tolist():
        if v < -rank or v >= rank:
            raise ValueError(f"Invalid reduction dimension {v} for input with {rank} "
                             "dimensions.")
        true_axes.add(v + rank if v < 0 else v)
    out = []
    for i, d in enumerate(in_dims):
        if i in true_axes:
            if keep_dims:
                out.append(1)
        else:
            out.append(d)
    return [shape_lib.TensorShape(out)]


def _arg_shape_fn(op: ops_lib.Operation) -> list:
    _with_rank(_dims(op._inputs[1].shape), 0)
    in_dims = _dims(op._inputs[0].shape)
    if in_dims is None:
        return [shape_lib.unknown_shape()]
    rank = len(in_dims)
    if rank <= 1:
        return [shape_lib.TensorShape([])]
    dim = _const(op._inputs[1])
    if dim is None:
        return [shape_lib.TensorShape([None] * (rank - 1))]
    d = int(dim)
    if d < -rank or d >= rank:
        raise ValueError(f"Dimension ({d}) must be in the range [{-rank}, {rank}), where {rank} "
                         "is the number of dimensions in the input.")
    if d < 0:
        d += rank
    return [shape_lib.TensorShape(in_dims[:d] + in_dims[d + 1:])]


def _matmul_shape_fn(op: ops_lib.Operation) -> list:
    a = _with_rank(_dims(op._inputs[0].shape), 2)
    b = _with_rank(_dims(op._inputs[1].shape), 2)
    ta, tb = op._attrs["transpose_a"].b, op._attrs["transpose_b"].b
    rows = a[1] if ta else a[0]
    cols = b[0] if tb else b[1]
    _merge_dim(a[0] if ta else a[1], b[1] if tb else b[0])
    return [shape_lib.TensorShape([rows, cols])]


def _batch_matmul_shape_fn(op: ops_lib.Operation) -> list:
    a = _dims(op._inputs[0].shape)
    b = _dims(op._inputs[1].shape)
    for d in (a, b):
        if d is not None and len(d) < 2:
            raise ValueError(f"Shape must be at least rank 2 but is rank {len(d)}")
    if a is None or b is None:
        return [shape_lib.unknown_shape()]
    adj_x, adj_y = op._attrs["adj_x"].b, op._attrs["adj_y"].b
    rows = a[-1] if adj_x else a[-2]
    cols = b[-2] if adj_y else b[-1]
    _merge_dim(a[-2] if adj_x else a[-1], b[-1] if adj_y else b[-2])
    batch = _broadcast_dims(a[:-2], b[:-2])
    return [shape_lib.TensorShape(list(batch) + [rows, cols])]


def _select_shape_fn(op: ops_lib.Operation) -> list:
    data = _merge_shapes(_dims(op._inputs[1].shape), _dims(op._inputs[2].shape))
    cond = _dims(op._inputs[0].shape)
    if cond is None or data is None:
        return [_as_shape(data)]
    if len(cond) == 0:
        return [_as_shape(data)]
    if len(cond) != 1 or len(data) == 0:
        return [_as_shape(_merge_shapes(data, cond))]
    _merge_shapes(cond, [data[0]])
    return [_as_shape(data)]


def _select_v2_shape_fn(op: ops_lib.Operation) -> list:
    cond, t, e = (_dims(x.shape) for x in op._inputs)
    return [_as_shape(_broadcast_dims(cond, _broadcast_dims(t, e)))]


def _add_n_shape_fn(op: ops_lib.Operation) -> list:
    # TF merges from the last input backwards.
    shape: list | None = _dims(op._inputs[-1].shape)
    for i in builtins.range(len(op._inputs) - 2, -1, -1):
        try:
            shape = _merge_shapes(_dims(op._inputs[i].shape), shape)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    return [_as_shape(shape)]


def _range_size(start: Any, limit: Any, delta: Any, integral: bool) -> int:
    if start > limit and delta > 0:
        raise ValueError(f"Requires start <= limit when delta > 0: {start}/{limit}")
    if start < limit and delta < 0:
        raise ValueError(f"Requires start >= limit when delta < 0: {start}/{limit}")
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if integral:
        return (builtins.abs(int(limit) - int(start)) + builtins.abs(int(delta)) - 1) \
            // builtins.abs(int(delta))
    return int(np.ceil(builtins.abs((float(limit) - float(start)) / float(delta))))


def _range_shape_fn(op: ops_lib.Operation) -> list:
    for t, what in zip(op._inputs, ("start", "limit", "delta")):
        try:
            _with_rank(_dims(t.shape), 0)
        except ValueError as e:
            raise ValueError(f"{e}\n\t for '{what}'") from None
    values = [_const(t) for t in op._inputs]
    if any(v is None for v in values):
        return [shape_lib.TensorShape([None])]
    start, limit, delta = (np.asarray(v).reshape(()).item() for v in values)
    integral = op._outputs[0].dtype.is_integer
    return [shape_lib.TensorShape([_range_size(start, limit, delta, integral)])]


def _bcast_args_shape_fn(op: ops_lib.Operation) -> list:
    for t in op._inputs:
        _with_rank(_dims(t.shape), 1)
    return [shape_lib.TensorShape([None]), shape_lib.TensorShape([None])]


def _cum_shape_fn(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape]


# -- op registrations ---------------------------------------------------------------------

def _reg(name: str) -> op_registry.OpBuilder:
    return op_registry.register_op(name)


def _binary(name: str, types: str, out: str = "T", commutative: bool = False,
            shape_fn: Callable = _broadcast_shape_fn) -> None:
    b = _reg(name).input("x: T").input("y: T").output(f"z: {out}").attr(f"T: {types}")
    if commutative:
        b.commutative()
    b.shape_fn(shape_fn)


def _unary(name: str, types: str) -> None:
    _reg(name).input("x: T").output("y: T").attr(f"T: {types}") \
        .shape_fn(common_shapes.unchanged_shape)


_reg("AddV2").input("x: T").input("y: T").output("z: T") \
    .attr(f"T: {_ADD_TYPES}").commutative().aggregate().shape_fn(_broadcast_shape_fn)
_reg("Add").input("x: T").input("y: T").output("z: T") \
    .attr("T: {bfloat16, half, float, double, uint8, int8, int16, int32, int64, complex64, "
          "complex128, string}").shape_fn(_broadcast_shape_fn)
_binary("Sub", _ARITH_TYPES)
_binary("Mul", _ARITH_TYPES, commutative=True)
_binary("RealDiv", _ARITH_TYPES)
_binary("Div", _ARITH_TYPES)
_binary("FloorDiv", _ARITH_TYPES)
_binary("FloorMod", _FLOORMOD_TYPES)
_binary("Pow", "{bfloat16, float, half, double, int8, int16, int32, int64, complex64, "
               "complex128}")
_binary("Maximum", _MINMAX_TYPES)
_binary("Minimum", _MINMAX_TYPES)
_binary("SquaredDifference", "{bfloat16, half, float, double, int32, int64, complex64, "
                             "complex128}", commutative=True)
_binary("DivNoNan", "{half, float, bfloat16, double, complex64, complex128}")
for _cmp in ("Less", "LessEqual", "Greater", "GreaterEqual"):
    _binary(_cmp, "realnumbertype", out="bool")
for _eq in ("Equal", "NotEqual"):
    _reg(_eq).input("x: T").input("y: T").output("z: bool").attr("T: type") \
        .attr("incompatible_shape_error: bool = true").commutative() \
        .shape_fn(_broadcast_shape_fn)
for _lg in ("LogicalAnd", "LogicalOr"):
    _reg(_lg).input("x: bool").input("y: bool").output("z: bool").commutative() \
        .shape_fn(_broadcast_shape_fn)
_reg("LogicalNot").input("x: bool").output("y: bool").shape_fn(common_shapes.unchanged_shape)
_BITWISE = "{int8, int16, int32, int64, uint8, uint16, uint32, uint64}"
for _bw in ("BitwiseAnd", "BitwiseOr", "BitwiseXor"):
    _binary(_bw, _BITWISE, commutative=True)
_unary("Invert", _BITWISE)

_unary("Neg", _SIGNED_COMPLEX)
_unary("Abs", "{bfloat16, half, float, double, int8, int16, int32, int64}")
_unary("Sign", _SIGNED_COMPLEX)
_unary("Square", "{bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
                 "uint32, uint64, complex64, complex128}")
for _u in ("Sqrt", "Rsqrt", "Exp", "Log", "Log1p", "Tanh", "Sigmoid"):
    _unary(_u, _FLOAT_COMPLEX)
for _u in ("Floor", "Ceil", "Rint"):
    _unary(_u, "{bfloat16, half, float, double}")
_unary("Round", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
                "complex128}")
for _u in ("Cos", "Sin"):
    _unary(_u, _FLOAT_COMPLEX)
_unary("Reciprocal", "{bfloat16, half, float, double, int8, int16, int32, int64, complex64, "
                     "complex128}")
for _g in ("SqrtGrad", "RsqrtGrad", "TanhGrad", "SigmoidGrad", "ReciprocalGrad"):
    _reg(_g).input("y: T").input("dy: T").output("z: T").attr(f"T: {_FLOAT_COMPLEX}") \
        .shape_fn(_merge_both_shape_fn)
_reg("Conj").input("input: T").output("output: T") \
    .attr("T: {complex64, complex128, variant} = DT_COMPLEX64") \
    .shape_fn(common_shapes.unchanged_shape)

_reg("Cast").input("x: SrcT").output("y: DstT").attr("SrcT: type").attr("DstT: type") \
    .attr("Truncate: bool = false").shape_fn(common_shapes.unchanged_shape)

_reg("Select").input("condition: bool").input("t: T").input("e: T").output("output: T") \
    .attr("T: type").shape_fn(_select_shape_fn)
_reg("SelectV2").input("condition: bool").input("t: T").input("e: T").output("output: T") \
    .attr("T: type").shape_fn(_select_v2_shape_fn)

_reg("AddN").input("inputs: N * T").output("sum: T").attr("N: int >= 1") \
    .attr("T: {numbertype, variant}").commutative().aggregate().shape_fn(_add_n_shape_fn)

_MATMUL_TYPES = ("{bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, "
                 "complex64, complex128}")
_reg("MatMul").input("a: T").input("b: T").output("product: T") \
    .attr("transpose_a: bool = false").attr("transpose_b: bool = false") \
    .attr(f"T: {_MATMUL_TYPES}").attr("grad_a: bool = false").attr("grad_b: bool = false") \
    .shape_fn(_matmul_shape_fn)
_reg("BatchMatMulV2").input("x: T").input("y: T").output("output: T") \
    .attr("T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, "
          "uint64, complex64, complex128}") \
    .attr("adj_x: bool = false").attr("adj_y: bool = false") \
    .attr("grad_x: bool = false").attr("grad_y: bool = false") \
    .shape_fn(_batch_matmul_shape_fn)

for _red, _types in (("Sum", _SUM_TYPES), ("Mean", _SUM_TYPES), ("Prod", _SUM_TYPES),
                     ("Max", _MAX_TYPES), ("Min", _MAX_TYPES)):
    _reg(_red).input("input: T").input("reduction_indices: Tidx").output("output: T") \
        .attr("keep_dims: bool = false").attr(f"T: {_types}") \
        .attr("Tidx: {int32, int64} = DT_INT32").shape_fn(_reduction_shape_fn)

for _red in ("All", "Any"):
    _reg(_red).input("input: bool").input("reduction_indices: Tidx").output("output: bool") \
        .attr("keep_dims: bool = false").attr("Tidx: {int32, int64} = DT_INT32") \
        .shape_fn(_reduction_shape_fn)

_ARG_T = ("{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
          "uint64, qint8, quint8, qint32, qint16, quint16, bool}")
_reg("ArgMax").input("input: T").input("dimension: Tidx").output("output: output_type") \
    .attr(f"T: {_ARG_T}").attr("Tidx: {int16, int32, int64} = DT_INT32") \
    .attr("output_type: {int16, uint16, int32, int64} = DT_INT64").shape_fn(_arg_shape_fn)
_reg("ArgMin").input("input: T").input("dimension: Tidx").output("output: output_type") \
    .attr(f"T: {_ARG_T}").attr("Tidx: {int32, int64} = DT_INT32") \
    .attr("output_type: {int32, int64} = DT_INT64").shape_fn(_arg_shape_fn)

_reg("Range").input("start: Tidx").input("limit: Tidx").input("delta: Tidx") \
    .output("output: Tidx") \
    .attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, "
          "uint64} = DT_INT32").shape_fn(_range_shape_fn)

_reg("BroadcastGradientArgs").input("s0: T").input("s1: T").output("r0: T").output("r1: T") \
    .attr("T: {int32, int64} = DT_INT32").shape_fn(_bcast_args_shape_fn)

for _cum in ("Cumsum", "Cumprod"):
    _reg(_cum).input("x: T").input("axis: Tidx").output("out: T") \
        .attr("exclusive: bool = false").attr("reverse: bool = false") \
        .attr("T: numbertype").attr("Tidx: {int32, int64} = DT_INT32") \
        .shape_fn(_cum_shape_fn)


def _clip_by_value_shape_fn(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape]


op_registry.register_op("ClipByValue").input("t: T").input("clip_value_min: T") \
    .input("clip_value_max: T").output("output: T").attr("T: numbertype") \
    .shape_fn(_clip_by_value_shape_fn)
