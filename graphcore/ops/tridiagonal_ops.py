"""Tridiagonal linear algebra: the TridiagonalMatMul and TridiagonalSolve ops with TF's
``tf.linalg.tridiagonal_matmul`` / ``tridiagonal_solve`` (compact, sequence and matrix
formats of the diagonals) and ``eigh_tridiagonal``. Kernels:
:mod:`graphcore.kernels.tridiagonal_kernels`; gradients: :mod:`tridiagonal_grad`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, linalg_ops, math_ops

__all__ = ["eigh_tridiagonal", "tridiagonal_matmul", "tridiagonal_solve"]

_T = ops_lib.Tensor
_TYPES = "{double, float, complex64, complex128}"


def _matmul_shape(op: ops_lib.Operation) -> list:
    rhs = op.inputs[3].shape
    for diag in op.inputs[:3]:
        if diag.shape.ndims is not None and rhs.ndims is not None:
            diag.shape.with_rank(rhs.ndims)
    return [rhs]


def _solve_shape(op: ops_lib.Operation) -> list:
    diags, rhs = op.inputs[0].shape, op.inputs[1].shape
    if diags.ndims is not None:
        diags.with_rank_at_least(2)
        if diags[-2] is not None and diags[-2] != 3:
            raise ValueError(f"Dimension must be 3 but is {diags[-2]}")
    if rhs.ndims is not None and diags.ndims is not None and rhs.ndims != diags.ndims:
        raise ValueError(f"Shape must be rank {diags.ndims} but is rank {rhs.ndims}")
    return [rhs]


op_registry.register_op("TridiagonalMatMul").input("superdiag: T").input("maindiag: T") \
    .input("subdiag: T").input("rhs: T").output("output: T").attr(f"T: {_TYPES}") \
    .shape_fn(_matmul_shape)
op_registry.register_op("TridiagonalSolve").input("diagonals: T").input("rhs: T") \
    .output("output: T").attr("partial_pivoting: bool = true") \
    .attr("perturb_singular: bool = false").attr(f"T: {_TYPES}").shape_fn(_solve_shape)


def _check_format(diagonals_format: str) -> None:
    if diagonals_format not in ("compact", "sequence", "matrix"):
        raise ValueError(f"Unrecognized diagonals_format: {diagonals_format}")


def _matrix_to_compact(matrix: _T) -> _T:
    m1, m2 = matrix.shape[-1], matrix.shape[-2]
    if m1 is not None and m2 is not None and m1 != m2:
        raise ValueError(f"Expected last two dimensions of diagonals to be same, got {m1} and "
                         f"{m2}")
    return linalg_ops.matrix_diag_part(matrix, k=(-1, 1), padding_value=0.0,
                                       align="LEFT_RIGHT")


def tridiagonal_matmul(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                       name: str | None = None) -> _T:
    """The product of tridiagonal matrices (given by their diagonals) and ``rhs``."""
    _check_format(diagonals_format)
    if diagonals_format == "sequence":
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
    else:
        diagonals = convert_to_tensor(diagonals)
        if diagonals_format == "matrix":
            diagonals = _matrix_to_compact(diagonals)
        elif diagonals.shape.ndims is not None and diagonals.shape.ndims < 2:
            raise ValueError(f"Expected diagonals to be at least rank 2, got "
                             f"{diagonals.shape.ndims}")
        superdiag = diagonals[..., 0, :]
        maindiag = diagonals[..., 1, :]
        subdiag = diagonals[..., 2, :]
    rhs = convert_to_tensor(rhs, dtype=maindiag.dtype)
    return apply_op("TridiagonalMatMul", name=name,
                    superdiag=array_ops.expand_dims(superdiag, -2),
                    maindiag=array_ops.expand_dims(maindiag, -2),
                    subdiag=array_ops.expand_dims(subdiag, -2), rhs=rhs).outputs[0]


def _pad_last(t: _T, m: int | None, padding: list, what: str) -> _T:
    n = t.shape[-1]
    if not n or n == m:
        return t
    if m is not None and n == m - 1:
        return array_ops.pad(t, [[0, 0]] * (t.shape.ndims - 1) + [padding])
    raise ValueError(f"Expected {what} to have length {m} or {m - 1 if m else '?'}, got "
                     f"{n}")


def tridiagonal_solve(diagonals: Any, rhs: Any, diagonals_format: str = "compact",
                      transpose_rhs: bool = False, conjugate_rhs: bool = False,
                      name: str | None = None, partial_pivoting: bool = True,
                      perturb_singular: bool = False) -> _T:
    """Solves tridiagonal systems ``A x = rhs`` (TridiagonalSolve); ``rhs`` [..., M] or
    [..., M, K]."""
    _check_format(diagonals_format)
    if diagonals_format == "sequence":
        superdiag, maindiag, subdiag = (convert_to_tensor(d) for d in diagonals)
        m = maindiag.shape[-1]
        subdiag = _pad_last(subdiag, m, [1, 0], "subdiagonal")
        superdiag = _pad_last(superdiag, m, [0, 1], "superdiagonal")
        diagonals = array_ops.stack((superdiag, maindiag, subdiag), axis=-2)
    else:
        diagonals = convert_to_tensor(diagonals)
        if diagonals_format == "matrix":
            diagonals = _matrix_to_compact(diagonals)
    rhs = convert_to_tensor(rhs, dtype=diagonals.dtype)
    vector = (rhs.shape.ndims is not None and diagonals.shape.ndims is not None
              and rhs.shape.ndims == diagonals.shape.ndims - 1)
    if vector:
        if transpose_rhs:
            raise ValueError("transpose_rhs=True requires rhs of shape [..., K, M]")
        rhs = array_ops.expand_dims(rhs, -1)
    elif transpose_rhs:
        rhs = linalg_ops.matrix_transpose(rhs, conjugate=conjugate_rhs)
    if conjugate_rhs and not transpose_rhs:
        rhs = math_ops.conj(rhs)
    out = apply_op("TridiagonalSolve", name=name, diagonals=diagonals, rhs=rhs,
                   partial_pivoting=partial_pivoting,
                   perturb_singular=perturb_singular).outputs[0]
    return array_ops.squeeze(out, -1) if vector else out


def eigh_tridiagonal(alpha: Any, beta: Any, eigvals_only: bool = True, select: str = "a",
                     select_range: Any = None, tol: Any = None,
                     name: str | None = None) -> Any:
    """Eigenvalues (ascending; and eigenvectors unless ``eigvals_only``) of the Hermitian
    tridiagonal matrix with diagonal ``alpha`` [n] and off-diagonal ``beta`` [n-1];
    ``select`` 'a' (all), 'v' (values in ``select_range`` = (lo, hi]) or 'i' (indices
    ``select_range`` = [lo, hi])."""
    del tol  # the dense Hermitian eigensolver is accurate to working precision
    with ops_lib.name_scope(name or "eigh_tridiagonal"):
        alpha = convert_to_tensor(alpha, name="alpha")
        beta = convert_to_tensor(beta, dtype=alpha.dtype, name="beta")
        if alpha.shape.ndims not in (None, 1):
            raise ValueError("alpha must be a vector")
        if select not in ("a", "v", "i"):
            raise ValueError("'select' must have a value in {'a', 'i', 'v'}.")
        n = alpha.shape[0]
        if n is not None and beta.shape[0] is not None and beta.shape[0] != n - 1:
            raise ValueError("beta must have length n - 1")
        if alpha.dtype.is_complex:
            if not beta.dtype.is_complex:
                raise ValueError("beta must be complex when alpha is")
        matrix = (linalg_ops.matrix_diag(alpha)
                  + linalg_ops.matrix_diag(beta, k=-1, num_rows=array_ops.size(alpha),
                                           num_cols=array_ops.size(alpha))
                  + linalg_ops.matrix_diag(math_ops.conj(beta), k=1,
                                           num_rows=array_ops.size(alpha),
                                           num_cols=array_ops.size(alpha)))
        if eigvals_only:
            values = linalg_ops.self_adjoint_eigvals(matrix)
            vectors = None
        else:
            values, vectors = linalg_ops.self_adjoint_eig(matrix)
        if select == "i":
            lo, hi = select_range
            values = values[lo:hi + 1]
            vectors = None if vectors is None else vectors[:, lo:hi + 1]
        elif select == "v":
            lo = convert_to_tensor(select_range[0], dtype=values.dtype)
            hi = convert_to_tensor(select_range[1], dtype=values.dtype)
            keep = math_ops.logical_and(math_ops.greater(values, lo),
                                        math_ops.less_equal(values, hi))
            values = array_ops.boolean_mask(values, keep)
            if vectors is not None:
                vectors = array_ops.boolean_mask(vectors, keep, axis=1)
        if eigvals_only:
            return values
        return values, vectors
