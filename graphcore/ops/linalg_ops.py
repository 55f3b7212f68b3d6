"""The linear-algebra Python API (TF's ``linalg_ops.py``, ``linalg_impl.py`` and the
matrix functions of ``array_ops.py`` / ``math_ops.py``): each function builds the same ops,
with the same node names, as its TF1 namesake. Op definitions: :mod:`gen_linalg_ops`."""

from __future__ import annotations

import builtins
import collections
import numbers
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, elementwise_ops, manip_ops, math_ops
from graphcore.ops.gen_linalg_ops import parse_einsum
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "adjoint", "band_part", "cholesky", "cholesky_solve", "cross", "det", "diag",
    "diag_part", "einsum", "eigh", "eigvalsh", "eye", "inv", "log_matrix_determinant",
    "logdet", "logm", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct", "lu_solve", "matmul", "matrix_band_part", "matrix_determinant", "matrix_diag",
    "matrix_diag_part", "matrix_inverse", "matrix_rank", "matrix_set_diag", "matrix_solve",
    "matrix_solve_ls", "matrix_transpose", "pinv", "matrix_triangular_solve", "matvec", "norm", "qr",
    "self_adjoint_eig", "self_adjoint_eigvals", "set_diag", "slogdet", "solve", "svd",
    "sqrtm", "tensor_diag", "tensor_diag_part", "tensordot", "trace", "triangular_solve",
]

_T = ops_lib.Tensor
Qr = collections.namedtuple("Qr", ["q", "r"])
Lu = collections.namedtuple("Lu", ["lu", "p"])
LogMatrixDeterminant = collections.namedtuple("LogMatrixDeterminant",
                                              ["sign", "log_abs_determinant"])


def _op(op_type: str, name: str | None, **kwargs: Any) -> list[_T]:
    return apply_op(op_type, name=name, **kwargs).outputs


# -- one op each ---------------------------------------------------------------------------


def matrix_inverse(input: Any, adjoint: bool = False, name: str | None = None) -> _T:  # noqa: A002
    """The inverse (or its adjoint) of each square matrix in ``input`` (MatrixInverse)."""
    return _op("MatrixInverse", name, input=input, adjoint=adjoint)[0]


def cholesky(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """The lower Cholesky factor of each Hermitian positive-definite matrix."""
    return _op("Cholesky", name, input=input)[0]


def matrix_determinant(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """The determinant of each square matrix (MatrixDeterminant)."""
    return _op("MatrixDeterminant", name, input=input)[0]


def log_matrix_determinant(input: Any, name: str | None = None) -> LogMatrixDeterminant:  # noqa: A002
    """(sign, log|det|) of each square matrix (LogMatrixDeterminant)."""
    return LogMatrixDeterminant(*_op("LogMatrixDeterminant", name, input=input))


def lu(input: Any, output_idx_type: Any = dtypes_lib.int32,  # noqa: A002
       name: str | None = None) -> Lu:
    """(lu, p): L (unit diagonal, below) and U packed in lu, with L @ U == input[p] (Lu)."""
    return Lu(*_op("Lu", name, input=input, output_idx_type=output_idx_type))


def sqrtm(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """The principal square root of each square matrix (MatrixSquareRoot)."""
    return _op("MatrixSquareRoot", name, input=input)[0]


def logm(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """The principal logarithm of each complex square matrix (MatrixLogarithm)."""
    return _op("MatrixLogarithm", name, input=input)[0]


def qr(input: Any, full_matrices: bool = False, name: str | None = None) -> Qr:  # noqa: A002
    """(q, r) with q orthonormal columns and r upper triangular, per matrix (Qr)."""
    return Qr(*_op("Qr", name, input=input, full_matrices=full_matrices))


def svd(tensor: Any, full_matrices: bool = False, compute_uv: bool = True,
        name: str | None = None) -> Any:
    """(s, u, v) with tensor = u diag(s) v^H; just s when ``compute_uv`` is False."""
    s, u, v = _op("Svd", name, input=tensor, compute_uv=compute_uv,
                  full_matrices=full_matrices)
    if compute_uv:
        return elementwise_ops.real(s), u, v
    return elementwise_ops.real(s)


def self_adjoint_eig(tensor: Any, name: str | None = None) -> tuple[_T, _T]:
    """(e, v): eigenvalues ascending and eigenvectors of each self-adjoint matrix."""
    e, v = _op("SelfAdjointEigV2", name, input=tensor, compute_v=True)
    return e, v


def self_adjoint_eigvals(tensor: Any, name: str | None = None) -> _T:
    """The eigenvalues (ascending) of each self-adjoint matrix."""
    return _op("SelfAdjointEigV2", name, input=tensor, compute_v=False)[0]


def matrix_solve(matrix: Any, rhs: Any, adjoint: bool = False, name: str | None = None) -> _T:
    """x with matrix @ x = rhs (or adjoint(matrix) @ x = rhs), per batch (MatrixSolve)."""
    return _op("MatrixSolve", name, matrix=matrix, rhs=rhs, adjoint=adjoint)[0]


def matrix_triangular_solve(matrix: Any, rhs: Any, lower: bool = True, adjoint: bool = False,
                            name: str | None = None) -> _T:
    """x with triangular matrix @ x = rhs, batch dims broadcasting (MatrixTriangularSolve)."""
    with ops_lib.name_scope(name, "triangular_solve", [matrix, rhs]):
        return _op("MatrixTriangularSolve", None, matrix=matrix, rhs=rhs, lower=lower,
                   adjoint=adjoint)[0]


def matrix_band_part(input: Any, num_lower: Any, num_upper: Any,  # noqa: A002
                     name: str | None = None) -> _T:
    """Zeroes everything outside a central band of each matrix (MatrixBandPart)."""
    # TF's wrapper converts Python ints to int32 tensors (not to Tindex's default, int64).
    with ops_lib.name_scope(name, "MatrixBandPart", [input, num_lower, num_upper]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        num_lower = convert_to_tensor(num_lower, name="num_lower")
        num_upper = convert_to_tensor(num_upper, name="num_upper")
        return _op("MatrixBandPart", scope, input=input, num_lower=num_lower,
                   num_upper=num_upper)[0]


def _bool_padding(value: Any, padding_value: Any) -> Any:
    # TF special-cases bool inputs: a 0 padding would not convert to a bool tensor.
    if getattr(value, "dtype", None) == dtypes_lib.bool:
        return builtins.bool(padding_value)
    return padding_value


def matrix_diag(diagonal: Any, name: str = "diag", k: Any = 0, num_rows: Any = -1,
                num_cols: Any = -1, padding_value: Any = 0,
                align: str = "RIGHT_LEFT") -> _T:
    """Batched matrices with the given diagonals k (MatrixDiagV3)."""
    return _op("MatrixDiagV3", name, diagonal=diagonal, k=k, num_rows=num_rows,
               num_cols=num_cols, padding_value=_bool_padding(diagonal, padding_value),
               align=align)[0]


def matrix_diag_part(input: Any, name: str = "diag_part", k: Any = 0,  # noqa: A002
                     padding_value: Any = 0, align: str = "RIGHT_LEFT") -> _T:
    """The diagonals k of each matrix (MatrixDiagPartV3)."""
    return _op("MatrixDiagPartV3", name, input=input, k=k,
               padding_value=_bool_padding(input, padding_value), align=align)[0]


def matrix_set_diag(input: Any, diagonal: Any, name: str = "set_diag", k: Any = 0,  # noqa: A002
                    align: str = "RIGHT_LEFT") -> _T:
    """``input`` with its diagonals k replaced by ``diagonal`` (MatrixSetDiagV3)."""
    return _op("MatrixSetDiagV3", name, input=input, diagonal=diagonal, k=k, align=align)[0]


def diag(diagonal: Any, name: str | None = None) -> _T:
    """The tensor of rank 2k with ``diagonal`` (rank k) on its diagonal (Diag)."""
    return _op("Diag", name, diagonal=diagonal)[0]


def diag_part(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """The diagonal of a rank-2k tensor (DiagPart)."""
    return _op("DiagPart", name, input=input)[0]


def cross(a: Any, b: Any, name: str | None = None) -> _T:
    """The pairwise cross product of vectors of 3 in the last dimension (Cross)."""
    return _op("Cross", name, a=a, b=b)[0]


# -- compositions, as TF builds them -------------------------------------------------------


def matrix_transpose(a: Any, name: str = "matrix_transpose", conjugate: bool = False) -> _T:
    """Transposes the last two dimensions of ``a``."""
    with ops_lib.name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.ndims
        if ndims is not None:
            if ndims < 2:
                raise ValueError("Argument `a` should be a (batch) matrix with rank >= 2.  "
                                 f"Received `a` = {a} with shape: {a.shape}")
            perm: Any = list(builtins.range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            a_rank = array_ops.rank(a)
            perm = array_ops.concat((math_ops.range(0, a_rank - 2, 1),
                                     [a_rank - 1, a_rank - 2]), 0)
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


def adjoint(matrix: Any, name: str | None = None) -> _T:
    """The conjugate transpose of the last two dimensions."""
    with ops_lib.name_scope(name, "adjoint", [matrix]):
        matrix = convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)


def trace(x: Any, name: str | None = None) -> _T:
    """The sum of the main diagonal of each matrix."""
    with ops_lib.name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return math_ops.reduce_sum(matrix_diag_part(x), [-1], name=scope)


def eye(num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
        dtype: Any = dtypes_lib.float32, name: str | None = None) -> _T:
    """Identity matrices, optionally batched."""
    with ops_lib.name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, _T) or isinstance(num_columns, _T):
            diag_size: Any = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, numbers.Integral) or \
                    not isinstance(num_columns, numbers.Integral):
                raise TypeError("Arguments `num_rows` and `num_columns` must be positive "
                                f"integer values. Received: num_rows={num_rows}, "
                                f"num_columns={num_columns}")
            is_square = num_rows == num_columns
            diag_size = int(np.minimum(num_rows, num_columns))
        if isinstance(batch_shape, _T) or isinstance(diag_size, _T):
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes_lib.int32)
            diag_shape: Any = array_ops.concat((batch_shape, [diag_size]), axis=0)
            if not is_square:
                shape: Any = array_ops.concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            batch_shape = list(batch_shape)
            diag_shape = batch_shape + [diag_size]
            if not is_square:
                shape = batch_shape + [num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return matrix_diag(diag_ones)
        return matrix_set_diag(array_ops.zeros(shape, dtype=dtype), diag_ones)


def logdet(matrix: Any, name: str | None = None) -> _T:
    """log(det(matrix)) of Hermitian positive-definite matrices, through Cholesky."""
    with ops_lib.name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        return 2.0 * math_ops.reduce_sum(
            math_ops.log(elementwise_ops.real(matrix_diag_part(chol))), axis=[-1])


def cholesky_solve(chol: Any, rhs: Any, name: str | None = None) -> _T:
    """x with (chol chol^H) x = rhs, given the Cholesky factor ``chol``."""
    with ops_lib.name_scope(name, "cholesky_solve", [chol, rhs]):
        y = _op("MatrixTriangularSolve", None, matrix=chol, rhs=rhs, adjoint=False,
                lower=True)[0]
        return _op("MatrixTriangularSolve", None, matrix=chol, rhs=y, adjoint=True,
                   lower=True)[0]


def _regularized_gramian_cholesky(matrix: _T, l2_regularizer: Any, first_kind: bool) -> _T:
    gramian = math_ops.matmul(matrix, matrix, adjoint_a=first_kind, adjoint_b=not first_kind)
    if isinstance(l2_regularizer, _T) or l2_regularizer != 0:
        matrix_shape = array_ops.shape(matrix)
        batch_shape = matrix_shape[:-2]
        small_dim = matrix_shape[-1] if first_kind else matrix_shape[-2]
        identity = eye(small_dim, batch_shape=batch_shape, dtype=matrix.dtype)
        small_static = matrix.shape[-1 if first_kind else -2]
        identity.set_shape(matrix.shape[:-2].concatenate([small_static, small_static]))
        gramian += l2_regularizer * identity
    return cholesky(gramian)


def matrix_solve_ls(matrix: Any, rhs: Any, l2_regularizer: Any = 0.0, fast: bool = True,
                    name: str | None = None) -> _T:
    """Least-squares solutions of matrix @ x = rhs, Tikhonov-regularized by
    ``l2_regularizer``; the fast path composes Cholesky solves as TF does."""
    def overdetermined() -> _T:
        chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=True)
        return cholesky_solve(chol, math_ops.matmul(matrix, rhs, adjoint_a=True))

    def underdetermined() -> _T:
        chol = _regularized_gramian_cholesky(matrix, l2_regularizer, first_kind=False)
        return math_ops.matmul(matrix, cholesky_solve(chol, rhs), adjoint_a=True)

    matrix = convert_to_tensor(matrix, name="matrix")
    if matrix.dtype == dtypes_lib.complex128 and l2_regularizer != 0:
        raise NotImplementedError("matrix_solve_ls is currently disabled for complex128 and "
                                  "l2_regularizer != 0 due to poor accuracy.")
    shape = matrix.shape
    use_composite = fast is not False
    if use_composite and shape.is_fully_defined():
        # TF's heuristic: an I/O-bound batch larger than the cache uses the kernel instead.
        size = shape.num_elements() * matrix.dtype.size
        io_bound = int(np.prod(shape.as_list()[:-2])) > min(shape.as_list()[-2:])
        use_composite = not (size > 256000 and io_bound)
    if not use_composite:
        return _op("MatrixSolveLs", name, matrix=matrix, rhs=rhs,
                   l2_regularizer=l2_regularizer, fast=fast)[0]
    with ops_lib.name_scope(name, "matrix_solve_ls", [matrix, rhs, l2_regularizer]):
        dims = shape[-2:] if shape.ndims is not None else None
        if dims is not None and dims.is_fully_defined():
            return overdetermined() if dims[-2] >= dims[-1] else underdetermined()
        dyn = array_ops.shape(matrix)[-2:]
        return control_flow_ops.cond(dyn[-2] >= dyn[-1], overdetermined, underdetermined)


def matvec(a: Any, b: Any, transpose_a: bool = False, adjoint_a: bool = False,
           a_is_sparse: bool = False, b_is_sparse: bool = False,
           name: str | None = None) -> _T:
    """a @ b for matrices a and vectors b (batched)."""
    with ops_lib.name_scope(name, "MatVec", [a, b]):
        output = math_ops.matmul(a, array_ops.expand_dims(b, axis=-1),
                                 transpose_a=transpose_a, adjoint_a=adjoint_a,
                                 a_is_sparse=a_is_sparse, b_is_sparse=b_is_sparse)
        return array_ops.squeeze(output, axis=-1)


def norm(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
         keepdims: Any = None, name: str | None = None, keep_dims: Any = None) -> _T:
    """Vector and matrix norms ('euclidean'/'fro', 1, 2, inf, positive p)."""
    keepdims = builtins.bool(deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError("'axis' must be None, an integer, or a tuple of 2 unique "
                             f"integers, got {axis}")
        if (not np.isreal(ord) or ord <= 0) and ord not in ["euclidean", 1, 2, np.inf]:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with ops_lib.name_scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if ord in ["fro", "euclidean", 2, 2.0]:
            if is_matrix_norm and ord in [2, 2.0]:
                result = _matrix_2_norm(tensor, axis)
            else:
                result = math_ops.sqrt(math_ops.reduce_sum(
                    tensor * math_ops.conj(tensor), axis, keepdims=True))
        else:
            result = math_ops.abs(tensor)
            if ord == 1:
                result = math_ops.reduce_sum(result, None if axis is None else axis[0],
                                             keepdims=True)
                if is_matrix_norm:
                    result = math_ops.reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = math_ops.reduce_sum(result, axis[1], keepdims=True)
                result = math_ops.reduce_max(result, None if axis is None else axis[0],
                                             keepdims=True)
            else:
                result = math_ops.pow(math_ops.reduce_sum(math_ops.pow(result, ord), axis,
                                                          keepdims=True), 1.0 / ord)
        if not keepdims:
            result = array_ops.squeeze(result, axis)
        return result


def _matrix_2_norm(tensor: _T, axis: tuple) -> _T:
    """The largest singular value over the two ``axis`` dims, kept as size-1 dims.
    TF permutes with map_fn at run time; a static rank lets the permutation be constants."""
    rank = tensor.shape.ndims
    if rank is None:
        raise NotImplementedError("norm(ord=2) over a matrix needs a known rank")
    positive = [a + rank if a < 0 else a for a in axis]
    perm_before = [i for i in builtins.range(rank) if i not in positive] + positive
    perm_after = [perm_before.index(i) for i in builtins.range(rank)]
    permed = array_ops.transpose(tensor, perm=perm_before)
    s = _op("Svd", None, input=permed, compute_uv=False, full_matrices=False)[0]
    two_norm = array_ops.expand_dims(
        math_ops.reduce_max(math_ops.abs(s), axis=-1, keepdims=True), axis=-1)
    return array_ops.transpose(two_norm, perm=perm_after)


def _tensordot_axes(a: _T, axes: Any) -> tuple[list, list]:
    if isinstance(axes, numbers.Integral):
        if axes < 0:
            raise ValueError(f"`axes` must be at least 0. Received: {axes}.")
        if a.shape.ndims is None:
            rank = array_ops.rank(a)
            return (math_ops.range(rank - axes, rank, dtype=dtypes_lib.int32),
                    math_ops.range(axes, dtype=dtypes_lib.int32))
        if axes > a.shape.ndims:
            raise ValueError(f"`axes` must not be larger than the number of dimensions of "
                             f"tensor {a}.  Received {axes}, vs tensor dimensions "
                             f"{a.shape.ndims}.")
        return (list(builtins.range(a.shape.ndims - axes, a.shape.ndims)),
                list(builtins.range(axes)))
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"`axes` must be an integer or have length 2. Received {axes}.")
        a_axes, b_axes = axes
        if isinstance(a_axes, numbers.Integral) and isinstance(b_axes, numbers.Integral):
            a_axes, b_axes = [a_axes], [b_axes]
        a_axes, b_axes = list(a_axes), list(b_axes)
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes `a` and `b`, "
                             f"{len(a_axes)} != {len(b_axes)}.")
        return a_axes, b_axes
    axes = convert_to_tensor(axes, name="axes", dtype=dtypes_lib.int32)
    return axes[0], axes[1]


def _tensordot_reshape(a: _T, axes: Any, flipped: bool = False) -> tuple[_T, Any, Any]:
    if a.shape.ndims is None or not isinstance(axes, (list, tuple)):
        # TF's dynamic branch: the rank or the axes known only when the graph runs.
        shape_a = array_ops.shape(a)
        rank_a = array_ops.rank(a)
        axes = convert_to_tensor(axes, dtype=dtypes_lib.int32, name="axes")
        axes = array_ops.where(axes >= 0, axes, axes + rank_a)
        free, _ = manip_ops.setdiff1d(math_ops.range(rank_a), axes, dtypes_lib.int32)
        return _tensordot_dynamic(a, shape_a, axes, free, flipped) + (None,)
    shape_a = a.shape.as_list()
    axes = [i if i >= 0 else i + len(shape_a) for i in axes]
    free = [i for i in builtins.range(len(shape_a)) if i not in axes]
    free_dims = [shape_a[i] for i in free]
    if a.shape.is_fully_defined():
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = axes + free if flipped else free + axes
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        a_trans = array_ops.transpose(a, perm) if perm != list(builtins.range(len(perm))) \
            else a
        if a_trans.shape.as_list() != new_shape:
            return array_ops.reshape(a_trans, new_shape), free_dims, free_dims
        return a_trans, free_dims, free_dims
    axes_t = convert_to_tensor(axes, dtype=dtypes_lib.int32, name="axes")
    free_t = convert_to_tensor(free, dtype=dtypes_lib.int32, name="free")
    return _tensordot_dynamic(a, array_ops.shape(a), axes_t, free_t, flipped) + (free_dims,)


def _tensordot_dynamic(a: _T, dyn: _T, axes_t: _T, free_t: _T, flipped: bool) -> tuple:
    """(``a`` transposed and reshaped to a matrix at run time, its free dims' sizes)."""
    free_d = array_ops.gather(dyn, free_t)
    axes_d = array_ops.gather(dyn, axes_t)
    prod_free_t = math_ops.reduce_prod(free_d)
    prod_axes_t = math_ops.reduce_prod(axes_d)
    if flipped:
        perm_t = array_ops.concat([axes_t, free_t], 0)
        new_shape_t = array_ops.stack([prod_axes_t, prod_free_t])
    else:
        perm_t = array_ops.concat([free_t, axes_t], 0)
        new_shape_t = array_ops.stack([prod_free_t, prod_axes_t])
    return array_ops.reshape(array_ops.transpose(a, perm_t), new_shape_t), free_d


def tensordot(a: Any, b: Any, axes: Any, name: str | None = None) -> _T:
    """The sum of products of ``a`` and ``b`` over ``axes`` (a matmul of reshapes)."""
    with ops_lib.name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        a_axes, b_axes = _tensordot_axes(a, axes)
        a_reshape, a_free, a_static = _tensordot_reshape(a, a_axes)
        b_reshape, b_free, b_static = _tensordot_reshape(b, b_axes, True)
        ab = math_ops.matmul(a_reshape, b_reshape)
        if isinstance(a_free, list) and isinstance(b_free, list):
            if ab.shape.is_fully_defined() and ab.shape.as_list() == a_free + b_free:
                return ab
            return array_ops.reshape(ab, a_free + b_free, name=scope)
        a_free = convert_to_tensor(a_free, dtype=dtypes_lib.int32)
        b_free = convert_to_tensor(b_free, dtype=dtypes_lib.int32)
        product = array_ops.reshape(ab, array_ops.concat([a_free, b_free], 0), name=scope)
        if a_static is not None and b_static is not None:
            product.set_shape(a_static + b_static)
        return product


def _implicit_output(inputs: list[str]) -> str:
    """numpy's implicit einsum output: '...' if any, then labels used once, sorted."""
    labels = "".join(s.replace("...", "") for s in inputs)
    once = sorted(c for c in set(labels) if labels.count(c) == 1)
    return ("..." if any("..." in s for s in inputs) else "") + "".join(once)


def einsum(equation: str, *inputs: Any, **kwargs: Any) -> _T:
    """Einstein summation (the Einsum op, pairwise left to right beyond two operands)."""
    name = kwargs.pop("name", None)
    kwargs.pop("optimize", None)
    if kwargs:
        raise TypeError(f"Invalid keyword arguments for this function: "
                        f"{', '.join(sorted(kwargs))}. Expected: name, optimize")
    with ops_lib.name_scope(name, "einsum", [equation, inputs]):
        equation = equation.replace(" ", "")
        if "->" not in equation:
            equation += "->" + _implicit_output(equation.split(","))
        subs, output = parse_einsum(equation, len(inputs))
        if len(inputs) <= 2:
            return _op("Einsum", None, inputs=list(inputs), equation=equation)[0]
        # The Einsum op takes one or two operands: contract the first two, keeping every
        # label a later operand or the output still needs.
        left, left_subs = inputs[0], subs[0]
        for i in builtins.range(1, len(inputs)):
            rest = "".join(subs[i + 1:]) + output
            keep = "".join(dict.fromkeys(c for c in (left_subs + subs[i]).replace("...", "")
                                         if c in rest))
            if "..." in left_subs + subs[i]:
                keep = "..." + keep
            if i == len(inputs) - 1:
                keep = output
            left = _op("Einsum", None, inputs=[left, inputs[i]],
                       equation=f"{left_subs},{subs[i]}->{keep}")[0]
            left_subs = keep
        return left


def _check_matrix(a: _T) -> None:
    """TF's _maybe_validate_matrix, static part: a float or complex tensor of rank >= 2."""
    if not a.dtype.is_floating and not a.dtype.is_complex:
        raise TypeError(f"Input `a` must have `float`-like `dtype` (saw {a.dtype.name}).")
    if a.shape.ndims is not None and a.shape.ndims < 2:
        raise ValueError(f"Input `a` must have at least 2 dimensions (saw: {a.shape.ndims}).")


def matrix_rank(a: Any, tol: Any = None, validate_args: bool = False,
                name: str | None = None) -> _T:
    """The number of singular values above ``tol`` (default eps * max(rows, cols) * s_max).
    ``validate_args`` checks the dtype and a static rank (TF also asserts a dynamic rank)."""
    with ops_lib.name_scope(name or "matrix_rank"):
        a = convert_to_tensor(a, dtype_hint=dtypes_lib.float32, name="a")
        if validate_args:
            _check_matrix(a)
        s = svd(a, compute_uv=False)
        if tol is None:
            if a.shape[-2:].is_fully_defined():
                m: Any = np.max(a.shape[-2:].as_list())
            else:
                m = math_ops.reduce_max(array_ops.shape(a)[-2:])
            eps = np.finfo(a.dtype.as_numpy_dtype).eps
            tol = eps * math_ops.cast(m, a.dtype) * math_ops.reduce_max(s, axis=-1,
                                                                         keepdims=True)
        return math_ops.reduce_sum(math_ops.cast(s > tol, dtypes_lib.int32), axis=-1)


def pinv(a: Any, rcond: Any = None, validate_args: bool = False,
         name: str | None = None) -> _T:
    """The Moore-Penrose pseudo-inverse, singular values below rcond * s_max dropped.
    ``validate_args`` checks the dtype and a static rank (TF also asserts a dynamic rank)."""
    with ops_lib.name_scope(name or "pinv"):
        a = convert_to_tensor(a, name="a")
        if validate_args:
            _check_matrix(a)
        dtype = a.dtype.as_numpy_dtype
        if rcond is None:
            dims = a.shape.as_list()
            rows = dims[-2] if dims[-2] is not None else array_ops.shape(a)[-2]
            cols = dims[-1] if dims[-1] is not None else array_ops.shape(a)[-1]
            if isinstance(rows, int) and isinstance(cols, int):
                max_rows_cols: Any = float(max(rows, cols))
            else:
                max_rows_cols = math_ops.cast(math_ops.maximum(rows, cols), dtype)
            rcond = 10. * max_rows_cols * np.finfo(dtype).eps
        rcond = convert_to_tensor(rcond, dtype=dtype, name="rcond")
        s, u, v = svd(a, full_matrices=False, compute_uv=True)
        cutoff = rcond * math_ops.reduce_max(s, axis=-1)
        s = math_ops.where_v2(s > array_ops.expand_dims(cutoff, -1), s,
                              np.array(np.inf, dtype))
        a_pinv = math_ops.matmul(v / array_ops.expand_dims(s, -2), u, adjoint_b=True)
        if a.shape.ndims is not None:
            a_pinv.set_shape(a.shape[:-2].concatenate([a.shape[-1], a.shape[-2]]))
        return a_pinv


def _lu_unit_lower(lower_upper: _T, shape: _T | None = None) -> _T:
    """The unit lower-triangular L packed in ``lower_upper`` (whose dynamic shape is
    ``shape``, taken after the band when not given, as TF's lu_solve does)."""
    band = matrix_band_part(lower_upper, num_lower=-1, num_upper=0)
    shape = array_ops.shape(lower_upper) if shape is None else shape
    return matrix_set_diag(band, array_ops.ones(shape[:-1], dtype=lower_upper.dtype))


def _lu_inputs(lower_upper: Any, perm: Any) -> tuple[_T, _T]:
    lower_upper = convert_to_tensor(lower_upper, dtype_hint=dtypes_lib.float32,
                                    name="lower_upper")
    perm = convert_to_tensor(perm, dtype_hint=dtypes_lib.int32, name="perm")
    return lower_upper, perm


def _permute_rows(x: _T, perm: _T) -> _T:
    """Rows of each matrix of ``x`` [B, d, m] in the order ``perm`` [B, d]."""
    return array_ops.gather(x, perm, axis=1, batch_dims=1)


def _invert_permutations(perm: _T) -> _T:
    """The inverse of each permutation of ``perm`` [B, d] (TF maps invert_permutation)."""
    d = array_ops.shape(perm)[-1]
    one_hot = array_ops.one_hot(perm, d, dtype=perm.dtype)  # [B, i, perm[i]]
    positions = math_ops.cast(math_ops.range(d), perm.dtype)
    return math_ops.reduce_sum(one_hot * positions[:, None], axis=-2)


def lu_solve(lower_upper: Any, perm: Any, rhs: Any, validate_args: bool = False,
             name: str | None = None) -> _T:
    """x with A @ x = rhs, from lu(A)'s (lower_upper, perm); batch shapes broadcast."""
    with ops_lib.name_scope(name or "lu_solve"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        rhs = convert_to_tensor(rhs, dtype_hint=lower_upper.dtype, name="rhs")
        if rhs.shape.ndims is not None and rhs.shape.ndims < 2:
            raise ValueError("Input `rhs` must have at least 2 dimensions.")
        if lower_upper.shape.as_list()[-1] is not None and rhs.shape.as_list()[-2] is not None \
                and lower_upper.shape.as_list()[-1] != rhs.shape.as_list()[-2]:
            raise ValueError("`lower_upper.shape[-1]` must equal `rhs.shape[-1]`.")
        if lower_upper.shape.ndims == 2 and rhs.shape.ndims == 2:
            permuted_rhs = array_ops.gather(rhs, perm, axis=-2)
            lower = _lu_unit_lower(lower_upper)
            return matrix_triangular_solve(
                lower_upper, matrix_triangular_solve(lower, permuted_rhs), lower=False)
        shape = array_ops.shape(lower_upper)
        rhs_shape = array_ops.shape(rhs)
        batch = manip_ops.broadcast_dynamic_shape(rhs_shape[:-2], shape[:-2])
        d, m = rhs_shape[-2], rhs_shape[-1]
        rhs_full_shape = array_ops.concat([batch, [d, m]], 0)
        flat_rhs = array_ops.reshape(manip_ops.broadcast_to(rhs, rhs_full_shape), [-1, d, m])
        flat_perm = array_ops.reshape(manip_ops.broadcast_to(perm, rhs_full_shape[:-1]),
                                      [-1, d])
        permuted_rhs = array_ops.reshape(_permute_rows(flat_rhs, flat_perm), rhs_full_shape)
        full_lu = manip_ops.broadcast_to(lower_upper, array_ops.concat([batch, [d, d]], 0))
        lower = _lu_unit_lower(full_lu)
        return matrix_triangular_solve(full_lu, matrix_triangular_solve(lower, permuted_rhs),
                                       lower=False)


def lu_matrix_inverse(lower_upper: Any, perm: Any, validate_args: bool = False,
                      name: str | None = None) -> _T:
    """The inverse of A from lu(A)'s (lower_upper, perm)."""
    with ops_lib.name_scope(name or "lu_matrix_inverse"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        return lu_solve(lower_upper, perm,
                        rhs=eye(shape[-1], batch_shape=shape[:-2], dtype=lower_upper.dtype),
                        validate_args=False)


def lu_reconstruct(lower_upper: Any, perm: Any, validate_args: bool = False,
                   name: str | None = None) -> _T:
    """A from lu(A)'s (lower_upper, perm)."""
    with ops_lib.name_scope(name or "lu_reconstruct"):
        lower_upper, perm = _lu_inputs(lower_upper, perm)
        shape = array_ops.shape(lower_upper)
        lower = _lu_unit_lower(lower_upper, shape)
        upper = matrix_band_part(lower_upper, num_lower=0, num_upper=-1)
        x = math_ops.matmul(lower, upper)
        if lower_upper.shape.ndims != 2:
            d = shape[-1]
            flat_x = array_ops.reshape(x, [-1, d, d])
            flat_perm = _invert_permutations(array_ops.reshape(perm, [-1, d]))
            x = array_ops.reshape(_permute_rows(flat_x, flat_perm), shape)
        else:
            x = array_ops.gather(x, array_ops.invert_permutation(perm))
        x.set_shape(lower_upper.shape)
        return x


def normalize(tensor: Any, ord: Any = "euclidean", axis: Any = None,  # noqa: A002
              name: str | None = None) -> tuple[_T, _T]:
    """(tensor / norm, norm) with the norm kept as size-1 dims."""
    with ops_lib.name_scope(name, "normalize", [tensor]):
        tensor = convert_to_tensor(tensor)
        n = math_ops.cast(norm(tensor, ord, axis, keepdims=True), tensor.dtype)
        return tensor / n, n


matmul = math_ops.matmul
inv = matrix_inverse
det = matrix_determinant
slogdet = log_matrix_determinant
solve = matrix_solve
triangular_solve = matrix_triangular_solve
lstsq = matrix_solve_ls
band_part = matrix_band_part
set_diag = matrix_set_diag
eigh = self_adjoint_eig
eigvalsh = self_adjoint_eigvals
tensor_diag = diag
tensor_diag_part = diag_part
