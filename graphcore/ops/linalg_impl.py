"""Linear-algebra functions TF composes from other ops (its ``linalg_impl.py``):
``expm`` (Padé approximation with scaling and squaring) and
``tf.linalg.experimental.conjugate_gradient``."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    elementwise_ops,
    linalg_ops,
    math_ops,
    while_loop,
)

__all__ = ["conjugate_gradient", "matrix_exponential"]

_T = ops_lib.Tensor


def modulus(x: _T) -> _T:
    """|x|, for complex x too (graphcore has no ComplexAbs op)."""
    if not x.dtype.is_complex:
        return math_ops.abs(x)
    re, im = elementwise_ops.real(x), elementwise_ops.imag(x)
    return math_ops.sqrt(re * re + im * im)

# Numerator coefficients b of the [p/p] Padé approximants of exp (Higham 2005).
_PADE = {
    3: [120.0, 60.0, 12.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0],
    9: [17643225600.0, 8821612800.0, 2075673600.0, 302702400.0, 30270240.0, 2162160.0,
        110880.0, 3960.0, 90.0],
    13: [64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
         129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
         40840800.0, 960960.0, 16380.0, 182.0],
}


def _pade(matrix: _T, order: int) -> tuple[_T, _T]:
    """(U, V) of the order-``order`` Padé approximant: exp(A) ~ (V - U)^-1 (V + U)."""
    b = [array_ops.constant(x, matrix.dtype) for x in _PADE[order]]
    ident = linalg_ops.eye(array_ops.shape(matrix)[-2], batch_shape=array_ops.shape(matrix)[:-2],
                           dtype=matrix.dtype)
    mm = math_ops.matmul
    powers = [ident, mm(matrix, matrix)]  # A^0, A^2, A^4, ...
    if order == 13:
        m2 = powers[1]
        m4 = mm(m2, m2)
        m6 = mm(m4, m2)
        tmp_u = (mm(m6, m6 + b[11] * m4 + b[9] * m2) + b[7] * m6 + b[5] * m4 + b[3] * m2
                 + b[1] * ident)
        tmp_v = b[12] * m6 + b[10] * m4 + b[8] * m2
        return mm(matrix, tmp_u), mm(m6, tmp_v) + b[6] * m6 + b[4] * m4 + b[2] * m2 + b[0] * ident
    while len(powers) < (order + 1) // 2:
        powers.append(mm(powers[-1], powers[1]))
    top = len(powers) - 1
    tmp = powers[top]
    v = b[0] * powers[0]
    for k in range(top):
        tmp = tmp + b[2 * k + 1] * powers[k]
        v = v + b[2 * k + 2] * powers[k + 1]
    return mm(matrix, tmp), v


def matrix_exponential(input: Any, name: str | None = None) -> _T:  # noqa: A002
    """exp of each square matrix of ``input`` [..., M, M]."""
    with ops_lib.name_scope(name, "matrix_exponential", [input]):
        matrix = convert_to_tensor(input, name="input")
        if matrix.shape[-2:] == [0, 0]:
            return matrix
        batch_shape = matrix.shape[:-2]
        if not batch_shape.is_fully_defined():
            batch_shape = array_ops.shape(matrix)[:-2]
        matrix = array_ops.reshape(
            matrix, array_ops.concat(([-1], array_ops.shape(matrix)[-2:]), axis=0))
        l1_norm = math_ops.reduce_max(math_ops.reduce_sum(modulus(matrix), axis=-2),
                                      axis=-1)[..., None, None]

        def const(x: float) -> _T:
            return array_ops.constant(x, l1_norm.dtype)

        def nest_where(vals: tuple, cases: tuple) -> _T:
            chosen = cases[-1]
            for val, case in zip(reversed(vals), reversed(cases[:-1])):
                chosen = math_ops.where_v2(math_ops.less(l1_norm, const(val)), case, chosen)
            return chosen

        if matrix.dtype in (dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.complex64):
            maxnorm, orders = 3.925724783138660, (3, 5, 7)
            conds = (4.258730016922831e-001, 1.880152677804762e+000)
        elif matrix.dtype in (dtypes_lib.float64, dtypes_lib.complex128):
            maxnorm, orders = 5.371920351148152, (3, 5, 7, 9, 13)
            conds = (1.495585217958292e-002, 2.539398330063230e-001, 9.504178996162932e-001,
                     2.097847961257068e+000)
        else:
            raise ValueError(f"tf.linalg.expm does not support matrices of type "
                             f"{matrix.dtype}")
        squarings = math_ops.maximum(
            math_ops.floor(math_ops.log(l1_norm / const(maxnorm)) / math_ops.log(const(2.0))),
            const(0.0))
        scaled = matrix / math_ops.cast(math_ops.pow(const(2.0), squarings), matrix.dtype)
        pades = [_pade(matrix, p) for p in orders[:-1]] + [_pade(scaled, orders[-1])]
        u = nest_where(conds, tuple(p[0] for p in pades))
        v = nest_where(conds, tuple(p[1] for p in pades))
        is_finite = elementwise_ops.is_finite(math_ops.reduce_max(l1_norm))
        # TF branches with cond (a non-finite input gives NaNs); selecting computes the
        # same values without a branch.
        ident = linalg_ops.eye(array_ops.shape(matrix)[-2],
                               batch_shape=array_ops.shape(matrix)[:-2], dtype=matrix.dtype)
        lhs = math_ops.where_v2(is_finite, -u + v, ident)
        rhs = math_ops.where_v2(is_finite, u + v, ident)
        nan = array_ops.fill(array_ops.shape(matrix), array_ops.constant(np.nan, matrix.dtype))
        result = math_ops.where_v2(is_finite, linalg_ops.matrix_solve(lhs, rhs), nan)
        max_squarings = math_ops.reduce_max(squarings)

        def loop_cond(i: _T, _: _T) -> _T:
            return math_ops.logical_and(is_finite, math_ops.less(i, max_squarings))

        def body(i: _T, r: _T) -> tuple:
            return i + 1, math_ops.where_v2(math_ops.less(i, squarings),
                                            math_ops.matmul(r, r), r)

        _, result = while_loop.while_loop(loop_cond, body, [const(0.0), result])
        if isinstance(batch_shape, ops_lib.Tensor) or not matrix.shape.is_fully_defined():
            batch = (batch_shape if isinstance(batch_shape, ops_lib.Tensor)
                     else batch_shape.as_list())
            return array_ops.reshape(result, array_ops.concat(
                (batch, array_ops.shape(result)[-2:]), axis=0))
        return array_ops.reshape(result, batch_shape.concatenate(result.shape[-2:]))


CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def conjugate_gradient(operator: Any, rhs: Any, preconditioner: Any = None, x: Any = None,
                       tol: float = 1e-5, max_iter: int = 20,
                       name: str = "conjugate_gradient") -> CGState:
    """Solves ``operator x = rhs`` for a Hermitian positive definite LinearOperator by
    (preconditioned) conjugate gradients; returns the final CGState."""
    if not (operator.is_self_adjoint and operator.is_positive_definite):
        raise ValueError("Expected a self-adjoint, positive definite operator.")
    with ops_lib.name_scope(name):
        rhs = convert_to_tensor(rhs, name="rhs")
        broadcast_shape = array_ops.shape(rhs)
        tol = array_ops.constant(tol, dtype=rhs.dtype.real_dtype) * math_ops.cast(
            linalg_ops.norm(rhs, axis=-1), rhs.dtype.real_dtype)
        if x is None:
            x = array_ops.zeros(broadcast_shape, dtype=rhs.dtype)
            r0 = rhs
        else:
            x = convert_to_tensor(x, name="x")
            r0 = rhs - operator.matvec(x)
        p0 = r0 if preconditioner is None else preconditioner.matvec(r0)
        gamma0 = math_ops.reduce_sum(math_ops.conj(r0) * p0, axis=-1)

        def stopping(i: _T, state: CGState) -> _T:
            return math_ops.logical_and(
                i < max_iter,
                math_ops.reduce_any(linalg_ops.norm(state.r, axis=-1) > tol))

        def cg_step(i: _T, state: CGState) -> tuple:
            z = operator.matvec(state.p)
            alpha = state.gamma / math_ops.reduce_sum(math_ops.conj(state.p) * z, axis=-1)
            x = state.x + alpha[..., None] * state.p
            r = state.r - alpha[..., None] * z
            q = r if preconditioner is None else preconditioner.matvec(r)
            gamma = math_ops.reduce_sum(math_ops.conj(r) * q, axis=-1)
            beta = gamma / state.gamma
            p = q + beta[..., None] * state.p
            return i + 1, CGState(i + 1, x, r, p, gamma)

        state = CGState(i=array_ops.constant(0, dtypes_lib.int32), x=x, r=r0, p=p0,
                        gamma=gamma0)
        _, state = while_loop.while_loop(stopping, cg_step, [state.i, state])
        return state
