"""CPU kernels of :mod:`graphcore.ops.tridiagonal_ops`: TridiagonalMatMul and
TridiagonalSolve (Gaussian elimination on the three diagonals, with or without partial
pivoting, as TF's CPU kernel). A singular system solves to NaNs, as TF's CPU kernel
answers (it raises nothing)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


@register_kernel("TridiagonalMatMul")
def _tridiagonal_matmul(ctx: KernelContext):
    def compute(superdiag, maindiag, subdiag, rhs):
        rhs = np.asarray(rhs)
        if rhs.ndim < 2:
            raise _invalid(f"Input must have rank >= 2, but got {rhs.ndim}")
        m = rhs.shape[-2]
        for name, diag in (("superdiag", superdiag), ("maindiag", maindiag),
                           ("subdiag", subdiag)):
            if np.shape(diag)[-2:] != (1, m):
                raise _invalid(f"Expected {name} to have shape [..., 1, {m}], got "
                               f"{list(np.shape(diag))}")
        sup = np.swapaxes(superdiag, -1, -2)
        main = np.swapaxes(maindiag, -1, -2)
        sub = np.swapaxes(subdiag, -1, -2)
        out = main * rhs
        if m > 1:
            out[..., :-1, :] += sup[..., :-1, :] * rhs[..., 1:, :]
            out[..., 1:, :] += sub[..., 1:, :] * rhs[..., :-1, :]
        return (out.astype(rhs.dtype, copy=False),)

    return compute


class _Singular(Exception):
    """A zero pivot: the system has no unique solution."""


def _solve_pivoting(d: np.ndarray, b: np.ndarray, perturb: bool) -> np.ndarray:
    """One system (diagonals d [3, M], right-hand sides b [M, K]) by Gaussian elimination
    with partial pivoting (LAPACK's gtsv); with ``perturb`` tiny pivots become
    eps * max|U| instead of failing."""
    m = d.shape[1]
    dtype = np.result_type(d, b)
    dl, dd = d[2, 1:].astype(dtype), d[1].astype(dtype)
    du, du2 = d[0, :-1].astype(dtype), np.zeros(max(m - 2, 0), dtype=dtype)
    x = b.astype(dtype, copy=True)
    for i in range(m - 1):
        if abs(dd[i]) >= abs(dl[i]):
            if dd[i] != 0:
                fact = dl[i] / dd[i]
                dd[i + 1] -= fact * du[i]
                x[i + 1] -= fact * x[i]
        else:  # the row below has the larger pivot: interchange the rows
            fact = dd[i] / dl[i]
            dd[i], temp = dl[i], dd[i + 1]
            dd[i + 1] = du[i] - fact * temp
            if i < m - 2:
                du2[i] = du[i + 1]
                du[i + 1] = -fact * du[i + 1]
            du[i] = temp
            x[i], x[i + 1] = x[i + 1].copy(), x[i] - fact * x[i + 1]
    biggest = max((np.max(np.abs(a)) for a in (dd, du, du2) if a.size), default=0)
    tiny = np.finfo(np.abs(dd).dtype).eps * biggest
    for i in range(m):
        if abs(dd[i]) <= (tiny if perturb else 0):
            if not perturb or biggest == 0:
                raise _Singular
            dd[i] = tiny
    for i in range(m - 1, -1, -1):
        acc = x[i]
        if i + 1 < m:
            acc = acc - du[i] * x[i + 1]
        if i + 2 < m:
            acc = acc - du2[i] * x[i + 2]
        x[i] = acc / dd[i]
    return x


def _solve_thomas(d: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One system by Gaussian elimination without pivoting (the Thomas algorithm)."""
    m = d.shape[1]
    dtype = np.result_type(d, b)
    c = np.zeros(m, dtype=dtype)
    x = b.astype(dtype, copy=True)
    denom = d[1, 0]
    for i in range(m):
        if i > 0:
            denom = d[1, i] - d[2, i] * c[i - 1]
            x[i] = x[i] - d[2, i] * x[i - 1]
        if denom == 0:
            raise _Singular
        c[i] = d[0, i] / denom if i < m - 1 else 0
        x[i] = x[i] / denom
    for i in range(m - 2, -1, -1):
        x[i] = x[i] - c[i] * x[i + 1]
    return x


@register_kernel("TridiagonalSolve")
def _tridiagonal_solve(ctx: KernelContext):
    pivoting = ctx.node_def.attr["partial_pivoting"].b
    perturb = ctx.node_def.attr["perturb_singular"].b

    def compute(diagonals, rhs):
        diagonals, rhs = np.asarray(diagonals), np.asarray(rhs)
        if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
            raise _invalid(f"Expected diagonals to have shape [..., 3, M], got "
                           f"{list(diagonals.shape)}")
        if rhs.ndim < 2 or rhs.shape[-2] != diagonals.shape[-1]:
            raise _invalid(f"Expected rhs to have shape [..., {diagonals.shape[-1]}, K], got "
                           f"{list(rhs.shape)}")
        if perturb and not pivoting:
            raise _invalid("pertub_singular is only supported together with partial "
                           "pivoting.")
        batch = np.broadcast_shapes(diagonals.shape[:-2], rhs.shape[:-2])
        diagonals = np.broadcast_to(diagonals, batch + diagonals.shape[-2:])
        rhs = np.broadcast_to(rhs, batch + rhs.shape[-2:])
        out = np.empty(rhs.shape, dtype=rhs.dtype)
        for idx in np.ndindex(*batch):
            if rhs.shape[-2] == 0:
                continue
            try:
                out[idx] = (_solve_pivoting(diagonals[idx], rhs[idx], perturb) if pivoting
                            else _solve_thomas(diagonals[idx], rhs[idx]))
            except _Singular:
                out[idx] = np.nan
        return (out,)

    return compute
