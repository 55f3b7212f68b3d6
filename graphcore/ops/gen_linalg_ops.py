"""Linear-algebra op definitions: each op's OpDef (TF's REGISTER_OP spec in
``core/ops/linalg_ops.cc`` and the matrix-diagonal ops of ``array_ops.cc``) and its shape
function with TF's checks. The Python API is :mod:`graphcore.ops.linalg_ops`."""

from __future__ import annotations

import re
from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import tensor_shape as shape_lib

_reg = op_registry.register_op
_FLOATS = "{double, float, half, complex64, complex128}"
_ALIGN = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'"
_dbg = common_shapes.debug_string


def _dims(op: Any, i: int) -> list | None:
    return common_shapes.dims_of(op._inputs[i].shape)


def _shape(dims: list | None) -> shape_lib.TensorShape:
    return shape_lib.unknown_shape() if dims is None else shape_lib.TensorShape(dims)


def _at_least(dims: list | None, rank: int) -> list | None:
    if dims is not None and len(dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(dims)}")
    return dims


def _merge_dim(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _square(op: Any) -> list | None:
    """The input as a batch of square matrices (MakeBatchSquareMatrix)."""
    dims = _at_least(_dims(op, 0), 2)
    if dims is None:
        return None
    n = _merge_dim(dims[-2], dims[-1])
    return dims[:-2] + [n, n]


def _square_unchanged(op: Any) -> list:
    return [_shape(_square(op))]


def _determinant(op: Any) -> list:
    dims = _square(op)
    batch = _shape(None if dims is None else dims[:-2])
    return [batch] * len(op._outputs)


def _qr(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    if dims is None:
        return [shape_lib.unknown_shape()] * 2
    batch, m, n = dims[:-2], dims[-2], dims[-1]
    if op.get_attr("full_matrices"):
        return [_shape(batch + [m, m]), _shape(batch + [m, n])]
    p = None if m is None or n is None else min(m, n)
    return [_shape(batch + [m, p]), _shape(batch + [p, n])]


def _svd(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    if dims is None:
        return [shape_lib.unknown_shape()] * 3
    batch, m, n = dims[:-2], dims[-2], dims[-1]
    p = None if m is None or n is None else min(m, n)
    if not op.get_attr("compute_uv"):
        return [_shape(batch + [p]), _shape([0]), _shape([0])]
    if op.get_attr("full_matrices"):
        return [_shape(batch + [p]), _shape(batch + [m, m]), _shape(batch + [n, n])]
    return [_shape(batch + [p]), _shape(batch + [m, p]), _shape(batch + [n, p])]


def _lu(op: Any) -> list:
    dims = _square(op)
    return [_shape(dims), _shape(None if dims is None else dims[:-1])]


def _eig(op: Any) -> list:
    dims = _square(op)
    if dims is None:
        return [shape_lib.unknown_shape()] * 2
    e = _shape(dims[:-1])
    return [e, _shape(dims) if op.get_attr("compute_v") else _shape([0])]


def _solve(square: bool, broadcast: bool = False):
    """MatrixSolveShapeFn / MatrixTriangularSolveShapeFn: batch + [cols of lhs, cols of rhs]."""
    def fn(op: Any) -> list:
        lhs = _square(op) if square else _at_least(_dims(op, 0), 2)
        rhs = _at_least(_dims(op, 1), 2)
        if lhs is None or rhs is None:
            return [shape_lib.unknown_shape()]
        _merge_dim(lhs[-2], rhs[-2])
        if broadcast:
            batch = common_shapes.broadcast_static_shapes(
                shape_lib.TensorShape(lhs[:-2]), shape_lib.TensorShape(rhs[:-2])).as_list()
        else:
            batch = common_shapes.merge_dims(lhs[:-2], rhs[:-2])
        return [_shape(batch + [lhs[-1], rhs[-1]])]
    return fn


def _band_part(op: Any) -> list:
    for i in (1, 2):
        common_shapes.with_rank(_dims(op, i), 0)
    return [op._inputs[0].shape]


def _matrix_diag_v1(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 1)
    return [_shape(None if dims is None else dims + dims[-1:])]


def _matrix_diag_part_v1(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    if dims is None:
        return [shape_lib.unknown_shape()]
    m, n = dims[-2], dims[-1]
    return [_shape(dims[:-2] + [None if m is None or n is None else min(m, n)])]


def _set_diag_v1(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    _at_least(_dims(op, 1), 1)
    return [_shape(dims)]


def _diag_index(op: Any, i: int) -> tuple[int, int] | None:
    """(lower, upper) of the constant k input, None when it is not a constant."""
    k = tensor_util.constant_value(op._inputs[i])
    if k is None:
        return None
    flat = [int(v) for v in k.reshape(-1)]
    if not 1 <= len(flat) <= 2:
        raise ValueError("diag_index must be a scalar or a vector with at most 2 elements")
    lower, upper = flat[0], flat[-1]
    if lower > upper:
        raise ValueError(f"lower_diag_index must not be greater than upper_diag_index, "
                         f"received lower_diag_index = {lower} > upper_diag_index = {upper}")
    return lower, upper


def _scalar_const(op: Any, i: int) -> int | None:
    v = tensor_util.constant_value(op._inputs[i])
    return None if v is None else int(v)


def max_diag_len(rows: int, cols: int, lower: int, upper: int) -> int:
    """The length of the longest diagonal in [lower, upper] of a rows x cols matrix."""
    return min(rows + min(upper, 0), cols - max(lower, 0))


def matrix_diag_size(max_len: int, lower: int, upper: int, rows: int,
                     cols: int) -> tuple[int, int, int, int]:
    """MatrixDiagV3's (rows, cols, min_rows, min_cols): -1 for rows or cols means the
    smallest matrix that holds diagonals of ``max_len``."""
    min_rows, min_cols = max_len - min(upper, 0), max_len + max(lower, 0)
    if rows == -1 and cols == -1:
        rows = cols = max(min_rows, min_cols)
    elif rows == -1:
        rows = min_rows
    elif cols == -1:
        cols = min_cols
    return rows, cols, min_rows, min_cols


def _matrix_diag_v3(op: Any) -> list:
    diag = _at_least(_dims(op, 0), 1)
    k = _diag_index(op, 1)
    if diag is None or k is None:
        return [shape_lib.unknown_shape()]
    lower, upper = k
    rows, cols = _scalar_const(op, 2), _scalar_const(op, 3)
    if lower != upper:
        _at_least(diag, 2)
        batch = diag[:-2]
    else:
        batch = diag[:-1]
    max_len = diag[-1]
    if max_len is None or rows is None or cols is None:
        return [_shape(batch + [None, None])]
    rows, cols, _, _ = matrix_diag_size(max_len, lower, upper, rows, cols)
    return [_shape(batch + [rows, cols])]


def _matrix_diag_part_v3(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    k = _diag_index(op, 1)
    common_shapes.with_rank(_dims(op, 2), 0)
    if dims is None or k is None:
        return [shape_lib.unknown_shape()]
    lower, upper = k
    rows, cols = dims[-2], dims[-1]
    out = dims[:-2] + ([upper - lower + 1] if lower != upper else [])
    if rows is None or cols is None:
        return [_shape(out + [None])]
    if not (-rows < lower <= cols or lower == 0) or not (-rows < upper <= cols or upper == 0):
        raise ValueError(f"Diagonal index out of range for a {rows}x{cols} matrix: "
                         f"[{lower}, {upper}]")
    return [_shape(out + [max_diag_len(rows, cols, lower, upper)])]


def _set_diag_v3(op: Any) -> list:
    dims = _at_least(_dims(op, 0), 2)
    _at_least(_dims(op, 1), 1)
    return [_shape(dims)]


def _diag(op: Any) -> list:
    dims = _dims(op, 0)
    return [_shape(None if dims is None else dims + dims)]


def _diag_part(op: Any) -> list:
    dims = _dims(op, 0)
    if dims is None:
        return [shape_lib.unknown_shape()]
    if len(dims) % 2:
        raise ValueError(f"Input must have even rank <= 6, input rank is {len(dims)}")
    half = len(dims) // 2
    return [_shape([_merge_dim(a, b) for a, b in zip(dims[:half], dims[half:])])]


def _cross(op: Any) -> list:
    a, b = _at_least(_dims(op, 0), 1), _at_least(_dims(op, 1), 1)
    merged = common_shapes.merge_dims(a, b)
    if merged is not None and merged[-1] is not None and merged[-1] != 3:
        raise ValueError(f"Dimension must be 3 but is {merged[-1]}")
    return [_shape(merged)]


# -- Einsum -------------------------------------------------------------------------------

_EINSUM_RE = re.compile(r"^([a-zA-Z.,]*)->([a-zA-Z.]*)$")


def parse_einsum(equation: str, num_inputs: int) -> tuple[list[str], str]:
    """(input subscripts, output subscripts) of an explicit einsum equation."""
    eq = equation.replace(" ", "")
    m = _EINSUM_RE.match(eq)
    if not m:
        raise ValueError(f"Expecting exactly one '->' in einsum equation: {equation}")
    inputs = m.group(1).split(",")
    if len(inputs) != num_inputs:
        raise ValueError(f"Expecting {len(inputs)} inputs for equation {equation}, "
                         f"got {num_inputs}")
    return inputs, m.group(2)


def _einsum(op: Any) -> list:
    equation = op.get_attr("equation")
    if isinstance(equation, bytes):
        equation = equation.decode()
    inputs, output = parse_einsum(equation, len(op._inputs))
    label_dim: dict[str, int | None] = {}
    ellipsis = shape_lib.TensorShape([])
    for t, subs in zip(op._inputs, inputs):
        dims = common_shapes.dims_of(t.shape)
        if dims is None:
            return [shape_lib.unknown_shape()]
        head, _, tail = subs.partition("...")
        named = len(head) + len(tail)
        if ("..." in subs and len(dims) < named) or ("..." not in subs and len(dims) != named):
            raise ValueError(f"Input has rank {len(dims)} which does not match the einsum "
                             f"subscripts {subs}")
        ell = dims[len(head):len(dims) - len(tail)]
        labels = list(head) + ["."] * len(ell) + list(tail)
        for label, d in zip(labels, dims):
            if label != ".":
                label_dim[label] = _merge_dim(label_dim.get(label), d)
        if "..." in subs:
            ellipsis = common_shapes.broadcast_static_shapes(ellipsis,
                                                             shape_lib.TensorShape(ell))
    head, _, tail = output.partition("...")
    ell = ellipsis.as_list() if "..." in output else []
    if ellipsis.ndims is None and "..." in output:
        return [shape_lib.unknown_shape()]
    return [_shape([label_dim[c] for c in head] + ell + [label_dim[c] for c in tail])]


# -- registrations (attrs in TF's order, so the OpDefs equal TF's) ------------------------

_reg("MatrixInverse").input("input: T").output("output: T").attr("adjoint: bool = false") \
    .attr(f"T: {_FLOATS}").shape_fn(_square_unchanged)
_reg("Cholesky").input("input: T").output("output: T").attr(f"T: {_FLOATS}") \
    .shape_fn(_square_unchanged)
_reg("MatrixSquareRoot").input("input: T").output("output: T").attr(f"T: {_FLOATS}") \
    .shape_fn(_square_unchanged)
_reg("MatrixLogarithm").input("input: T").output("output: T") \
    .attr("T: {complex64, complex128}").shape_fn(_square_unchanged)
_reg("Lu").input("input: T").output("lu: T").output("p: output_idx_type") \
    .attr(f"T: {_FLOATS}").attr("output_idx_type: {int32, int64} = DT_INT32").shape_fn(_lu)
_reg("MatrixDeterminant").input("input: T").output("output: T") \
    .attr("T: {half, float, double, complex64, complex128}").shape_fn(_determinant)
_reg("LogMatrixDeterminant").input("input: T").output("sign: T") \
    .output("log_abs_determinant: T") \
    .attr("T: {half, float, double, complex64, complex128}").shape_fn(_determinant)
_reg("Qr").input("input: T").output("q: T").output("r: T") \
    .attr("full_matrices: bool = false").attr(f"T: {_FLOATS}").shape_fn(_qr)
_reg("Svd").input("input: T").output("s: T").output("u: T").output("v: T") \
    .attr("compute_uv: bool = true").attr("full_matrices: bool = false") \
    .attr(f"T: {_FLOATS}").shape_fn(_svd)
_reg("SelfAdjointEigV2").input("input: T").output("e: T").output("v: T") \
    .attr("compute_v: bool = true").attr(f"T: {_FLOATS}").shape_fn(_eig)
_reg("MatrixSolve").input("matrix: T").input("rhs: T").output("output: T") \
    .attr("adjoint: bool = false").attr(f"T: {_FLOATS}").shape_fn(_solve(square=True))
_reg("MatrixTriangularSolve").input("matrix: T").input("rhs: T").output("output: T") \
    .attr("lower: bool = true").attr("adjoint: bool = false") \
    .attr("T: {bfloat16, double, float, half, complex64, complex128}") \
    .shape_fn(_solve(square=True, broadcast=True))
_reg("MatrixSolveLs").input("matrix: T").input("rhs: T").input("l2_regularizer: double") \
    .output("output: T").attr(f"T: {_FLOATS}").attr("fast: bool = true") \
    .shape_fn(_solve(square=False))
_reg("MatrixBandPart").input("input: T").input("num_lower: Tindex") \
    .input("num_upper: Tindex").output("band: T").attr("T: type") \
    .attr("Tindex: {int32, int64} = DT_INT64").shape_fn(_band_part)
_reg("MatrixDiag").input("diagonal: T").output("output: T").attr("T: type") \
    .shape_fn(_matrix_diag_v1)
_reg("MatrixDiagV3").input("diagonal: T").input("k: int32").input("num_rows: int32") \
    .input("num_cols: int32").input("padding_value: T").output("output: T").attr("T: type") \
    .attr(_ALIGN).shape_fn(_matrix_diag_v3)
_reg("MatrixDiagPart").input("input: T").output("diagonal: T").attr("T: type") \
    .shape_fn(_matrix_diag_part_v1)
_reg("MatrixDiagPartV3").input("input: T").input("k: int32").input("padding_value: T") \
    .output("diagonal: T").attr("T: type").attr(_ALIGN).shape_fn(_matrix_diag_part_v3)
_reg("MatrixSetDiag").input("input: T").input("diagonal: T").output("output: T") \
    .attr("T: type").shape_fn(_set_diag_v1)
_reg("MatrixSetDiagV3").input("input: T").input("diagonal: T").input("k: int32") \
    .output("output: T").attr("T: type").attr(_ALIGN).shape_fn(_set_diag_v3)
_DIAG_TYPES = "{bfloat16, half, float, double, int32, int64, complex64, complex128}"
_reg("Diag").input("diagonal: T").output("output: T").attr(f"T: {_DIAG_TYPES}") \
    .shape_fn(_diag)
_reg("DiagPart").input("input: T").output("diagonal: T").attr(f"T: {_DIAG_TYPES}") \
    .shape_fn(_diag_part)
_reg("Einsum").input("inputs: N * T").output("output: T").attr("equation: string") \
    .attr("N: int >= 1").attr("T: type").shape_fn(_einsum)
_reg("Cross").input("a: T").input("b: T").output("product: T").attr("T: realnumbertype") \
    .shape_fn(_cross)
