"""Gradients of TridiagonalMatMul and TridiagonalSolve (TF's linalg_grad.py rules)."""

from __future__ import annotations

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.ops import array_ops, linalg_ops, math_ops, tridiagonal_ops

_T = ops_lib.Tensor


def _rows_up(x: _T) -> _T:
    """Row i takes row i+1 of ``x`` [..., M, N]; the last row is zero."""
    return array_ops.concat([x[..., 1:, :], array_ops.zeros_like(x[..., :1, :])], -2)


def _rows_down(x: _T) -> _T:
    """Row i takes row i-1 of ``x`` [..., M, N]; the first row is zero."""
    return array_ops.concat([array_ops.zeros_like(x[..., :1, :]), x[..., :-1, :]], -2)


@RegisterGradient("TridiagonalMatMul")
def _tridiagonal_matmul_grad(op: ops_lib.Operation, grad: _T) -> list:
    superdiag, maindiag, subdiag, rhs = op.inputs
    sup = linalg_ops.matrix_transpose(superdiag, conjugate=True)
    main = linalg_ops.matrix_transpose(maindiag, conjugate=True)
    sub = linalg_ops.matrix_transpose(subdiag, conjugate=True)
    rhs_conj = math_ops.conj(rhs)
    superdiag_grad = math_ops.reduce_sum(_rows_up(rhs_conj) * grad, axis=-1)
    maindiag_grad = math_ops.reduce_sum(rhs_conj * grad, axis=-1)
    subdiag_grad = math_ops.reduce_sum(_rows_down(rhs_conj) * grad, axis=-1)
    rhs_grad = _rows_down(sup * grad) + main * grad + _rows_up(sub * grad)
    return [array_ops.expand_dims(superdiag_grad, -2), array_ops.expand_dims(maindiag_grad, -2),
            array_ops.expand_dims(subdiag_grad, -2), rhs_grad]


def _adjoint_diagonals(diags: _T) -> _T:
    """The compact diagonals [..., 3, M] of the adjoint matrix."""
    superdiag, maindiag, subdiag = diags[..., 0, :], diags[..., 1, :], diags[..., 2, :]
    zero = array_ops.zeros_like(maindiag[..., :1])
    new_super = array_ops.concat([subdiag[..., 1:], zero], -1)
    new_sub = array_ops.concat([zero, superdiag[..., :-1]], -1)
    return math_ops.conj(array_ops.stack([new_super, maindiag, new_sub], axis=-2))


@RegisterGradient("TridiagonalSolve")
def _tridiagonal_solve_grad(op: ops_lib.Operation, grad: _T) -> list:
    diags, x = op.inputs[0], op.outputs[0]
    grad_rhs = tridiagonal_ops.tridiagonal_solve(
        _adjoint_diagonals(diags), grad, partial_pivoting=op.get_attr("partial_pivoting"),
        perturb_singular=op.get_attr("perturb_singular"))
    x_conj = math_ops.conj(x)
    grad_diags = -array_ops.stack([
        math_ops.reduce_sum(grad_rhs * _rows_up(x_conj), axis=-1),
        math_ops.reduce_sum(grad_rhs * x_conj, axis=-1),
        math_ops.reduce_sum(grad_rhs * _rows_down(x_conj), axis=-1)], axis=-2)
    return [grad_diags, grad_rhs]
