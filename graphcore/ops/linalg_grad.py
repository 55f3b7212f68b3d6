"""Gradients of the linear-algebra ops (TF's ``linalg_grad.py`` and the matrix-diagonal
gradients of ``array_grad.py``), registered by op type."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.ops import array_ops, control_flow_ops, elementwise_ops, linalg_ops, math_ops

_T = ops_lib.Tensor
_mm = math_ops.matmul


def _safe_reciprocal(x: _T, epsilon: float = 1e-20) -> _T:
    return x * math_ops.reciprocal(x * x + epsilon)


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op: ops_lib.Operation, grad: _T) -> _T:
    ainv = op.outputs[0]
    adj = op.get_attr("adjoint")
    return -_mm(ainv, _mm(grad, ainv, adjoint_a=adj, adjoint_b=not adj), adjoint_a=not adj)


def _det_multipliers(grad: _T, c: _T) -> _T:
    return array_ops.reshape(grad, array_ops.concat([array_ops.shape(c), [1, 1]], 0))


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op: ops_lib.Operation, grad: _T) -> _T:
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = linalg_ops.matrix_inverse(a, adjoint=True)
    return _det_multipliers(grad * c, c) * a_adj_inv


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op: ops_lib.Operation, _: Any, grad_b: _T) -> _T:
    a, c = op.inputs[0], op.outputs[1]
    a_adj_inv = linalg_ops.matrix_inverse(a, adjoint=True)
    return _det_multipliers(grad_b, c) * a_adj_inv


@RegisterGradient("Cholesky")
def _cholesky_grad(op: ops_lib.Operation, grad: _T) -> _T:
    l_factor = op.outputs[0]
    num_rows = array_ops.shape(l_factor)[-1]
    batch_shape = array_ops.shape(l_factor)[:-2]
    l_inverse = linalg_ops.matrix_triangular_solve(
        l_factor, linalg_ops.eye(num_rows, batch_shape=batch_shape, dtype=l_factor.dtype))
    middle = _mm(l_factor, grad, adjoint_a=True)
    middle = linalg_ops.matrix_set_diag(middle, 0.5 * linalg_ops.matrix_diag_part(middle))
    middle = linalg_ops.matrix_band_part(middle, -1, 0)
    grad_a = _mm(_mm(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += linalg_ops.adjoint(grad_a)
    return grad_a * 0.5


def _triangular_solve_right(x: _T, r: _T) -> _T:
    """x @ inverse(r)^H for an upper-triangular r."""
    return linalg_ops.adjoint(linalg_ops.matrix_triangular_solve(
        r, linalg_ops.adjoint(x), lower=False, adjoint=False))


def _qr_grad_square_and_deep(q: _T, r: _T, dq: _T, dr: _T) -> _T:
    qdq = _mm(q, dq, adjoint_a=True)
    qdq_ = qdq - linalg_ops.adjoint(qdq)
    rdr = _mm(r, dr, adjoint_b=True)
    rdr_ = rdr - linalg_ops.adjoint(rdr)
    tril = linalg_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = _mm(q, dr + _triangular_solve_right(tril, r))
    grad_b = _triangular_solve_right(dq - _mm(q, qdq), r)
    ret = grad_a + grad_b
    if q.dtype.is_complex:
        m = rdr - linalg_ops.adjoint(qdq)
        eyem = linalg_ops.matrix_set_diag(array_ops.zeros_like(m), linalg_ops.matrix_diag_part(m))
        correction = eyem - math_ops.cast(elementwise_ops.real(eyem), q.dtype)
        ret = ret + _triangular_solve_right(_mm(q, linalg_ops.adjoint(correction)), r)
    return ret


@RegisterGradient("Qr")
def _qr_grad(op: ops_lib.Operation, dq: _T, dr: _T) -> _T:
    q, r = op.outputs
    if r.shape.ndims is None or r.shape.as_list()[-2] is None or r.shape.as_list()[-1] is None:
        raise NotImplementedError(f"QrGrad not implemented with dynamic shapes. Received "
                                  f"r.shape: {r.shape}")
    rows, cols = r.shape.as_list()[-2:]
    if rows > cols and q.shape.as_list()[-2] == q.shape.as_list()[-1]:
        raise NotImplementedError(f"QrGrad not implemented when nrows > ncols and "
                                  f"full_matrices is true. Received r.shape={r.shape} with "
                                  f"nrows={rows}and ncols={cols}.")
    num_rows = q.shape.as_list()[-2]
    if num_rows >= cols:
        return _qr_grad_square_and_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = _mm(q, dv)
    dx = _qr_grad_square_and_deep(q, u, dq + _mm(y, dv, adjoint_b=True), du)
    return array_ops.concat([dx, dy], axis=-1)


def _reduce_to_batch(grad_a: _T, grad_b: _T, a: _T, b: _T) -> tuple[_T, _T]:
    """Sums gradients over the batch dims their inputs were broadcast along."""
    if a.shape.is_fully_defined() and b.shape.is_fully_defined() and \
            a.shape[:-2] == b.shape[:-2]:
        return grad_a, grad_b
    a_shape, b_shape = array_ops.shape(a), array_ops.shape(b)
    ra, rb = math_ops.broadcast_gradient_args(a_shape[:-2], b_shape[:-2])
    return (array_ops.reshape(math_ops.reduce_sum(grad_a, axis=ra), a_shape),
            array_ops.reshape(math_ops.reduce_sum(grad_b, axis=rb), b_shape))


def _solve_grad_a(c: _T, grad_b: _T, adjoint_a: bool) -> _T:
    if adjoint_a:
        return -_mm(c, grad_b, adjoint_b=True)
    return -_mm(grad_b, c, adjoint_b=True)


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op: ops_lib.Operation, grad: _T) -> tuple[_T, _T]:
    adj = op.get_attr("adjoint")
    grad_b = linalg_ops.matrix_solve(op.inputs[0], grad, adjoint=not adj)
    return _solve_grad_a(op.outputs[0], grad_b, adj), grad_b


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op: ops_lib.Operation, grad: _T) -> tuple[_T, _T]:
    a, b = op.inputs[0], op.inputs[1]
    adj, lower = op.get_attr("adjoint"), op.get_attr("lower")
    grad_b = linalg_ops.matrix_triangular_solve(a, grad, lower=lower, adjoint=not adj)
    grad_a = _solve_grad_a(op.outputs[0], grad_b, adj)
    grad_a = linalg_ops.matrix_band_part(grad_a, -1, 0) if lower else \
        linalg_ops.matrix_band_part(grad_a, 0, -1)
    return _reduce_to_batch(grad_a, grad_b, a, b)


@RegisterGradient("SelfAdjointEigV2")
def _self_adjoint_eig_v2_grad(op: ops_lib.Operation, grad_e: _T, grad_v: _T) -> _T:
    e = op.outputs[0]
    with ops_lib.control_dependencies([t for t in (grad_e, grad_v) if t is not None]):
        if op.get_attr("compute_v"):
            v = op.outputs[1]
            f = linalg_ops.matrix_set_diag(
                _safe_reciprocal(array_ops.expand_dims(e, -2) - array_ops.expand_dims(e, -1)),
                array_ops.zeros_like(e))
            grad_a = _mm(v, _mm(linalg_ops.matrix_diag(grad_e)
                                + f * _mm(v, grad_v, adjoint_a=True), v, adjoint_b=True))
        else:
            _, v = linalg_ops.self_adjoint_eig(op.inputs[0])
            grad_a = _mm(v, _mm(linalg_ops.matrix_diag(grad_e), v, adjoint_b=True))
        grad_a = linalg_ops.matrix_band_part(grad_a + linalg_ops.adjoint(grad_a), -1, 0)
        return linalg_ops.matrix_set_diag(grad_a, 0.5 * linalg_ops.matrix_diag_part(grad_a))


@RegisterGradient("Svd")
def _svd_grad(op: ops_lib.Operation, grad_s: _T, grad_u: _T, grad_v: _T) -> _T:
    a = op.inputs[0]
    a_shape = a.shape.with_rank_at_least(2)
    grad_s = math_ops.cast(grad_s, a.dtype)
    grad_s_mat = linalg_ops.matrix_diag(grad_s)
    if not op.get_attr("compute_uv"):
        _, u, v = linalg_ops.svd(a, compute_uv=True)
        grad_a = _mm(u, _mm(grad_s_mat, v, adjoint_b=True))
        grad_a.set_shape(a_shape)
        return grad_a
    full_matrices = op.get_attr("full_matrices")
    m, n = a_shape.as_list()[-2:]
    if m is None or n is None:
        raise NotImplementedError("SVD gradient has not been implemented for input with "
                                  "unknown inner matrix shape.")
    s, u, v = op.outputs
    s = math_ops.cast(s, a.dtype)
    use_adjoint = m > n
    if use_adjoint:
        m, n, u, v, grad_u, grad_v = n, m, v, u, grad_v, grad_u
    with ops_lib.control_dependencies([grad_s, grad_u, grad_v]):
        if full_matrices and abs(m - n) > 1:
            raise NotImplementedError(f"svd gradient is not implemented for abs(m - n) > 1 "
                                      f"when full_matrices is True. Received: m={m} and n={n} "
                                      f"from op input={a} with shape={a_shape}.")
        s_mat = linalg_ops.matrix_diag(s)
        s2 = math_ops.square(s)
        f = linalg_ops.matrix_set_diag(
            _safe_reciprocal(array_ops.expand_dims(s2, -2) - array_ops.expand_dims(s2, -1)),
            array_ops.zeros_like(s))
        s_inv_mat = linalg_ops.matrix_diag(_safe_reciprocal(s))
        v1 = v[..., :, :m]
        grad_v1 = grad_v[..., :, :m]
        u_gu = _mm(u, grad_u, adjoint_a=True)
        v_gv = _mm(v1, grad_v1, adjoint_a=True)
        f_u, f_v = f * u_gu, f * v_gv
        term1_nouv = (grad_s_mat + _mm(f_u + linalg_ops.adjoint(f_u), s_mat)
                      + _mm(s_mat, f_v + linalg_ops.adjoint(f_v)))
        grad_a = _mm(u, _mm(term1_nouv, v1, adjoint_b=True))
        if m != n:
            gv1t = linalg_ops.matrix_transpose(grad_v1, conjugate=True)
            term2_nous = gv1t - _mm(_mm(gv1t, v1), v1, adjoint_b=True)
            if full_matrices:
                v2, grad_v2 = v[..., :, m:n], grad_v[..., :, m:n]
                term2_nous -= _mm(_mm(v1, grad_v2, adjoint_a=True), v2, adjoint_b=True)
            grad_a = grad_a + _mm(_mm(u, s_inv_mat), term2_nous)
        if a.dtype.is_complex:
            s_shape = array_ops.shape(s)
            eye = linalg_ops.eye(s_shape[-1], batch_shape=s_shape[:-1], dtype=a.dtype)
            lv = eye * v_gv
            term3_nouv = _mm(s_inv_mat, linalg_ops.adjoint(lv) - lv)
            grad_a += 1 / 2. * _mm(u, _mm(term3_nouv, v1, adjoint_b=True))
        if use_adjoint:
            grad_a = linalg_ops.matrix_transpose(grad_a, conjugate=True)
        grad_a.set_shape(a_shape)
        return grad_a


@RegisterGradient("MatrixSolveLs")
def _matrix_solve_ls_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    """Backprop through the regularized normal equations (TF's _MatrixSolveLsGrad)."""
    a, b = op.inputs[0], op.inputs[1]

    def overdetermined() -> tuple:
        # X = (A^H A + l2 I)^-1 A^H B
        l2 = math_ops.cast(op.inputs[2], a.dtype.base_dtype)
        chol = linalg_ops._regularized_gramian_cholesky(a, l2, first_kind=True)
        z = linalg_ops.cholesky_solve(chol, grad)
        xzt = _mm(op.outputs[0], z, adjoint_b=True)
        zx_sym = xzt + linalg_ops.matrix_transpose(xzt)
        return -_mm(a, zx_sym) + _mm(b, z, adjoint_b=True), _mm(a, z)

    def underdetermined() -> tuple:
        # X = A^H (A A^H + l2 I)^-1 B
        l2 = math_ops.cast(op.inputs[2], a.dtype.base_dtype)
        chol = linalg_ops._regularized_gramian_cholesky(a, l2, first_kind=False)
        grad_b = linalg_ops.cholesky_solve(chol, _mm(a, grad))
        tmp = linalg_ops.cholesky_solve(chol, b)
        a1 = -_mm(grad_b, _mm(tmp, a, adjoint_a=True))
        a2 = _mm(tmp, grad - _mm(a, grad_b, adjoint_a=True), adjoint_b=True)
        return a1 + a2, grad_b

    if op.get_attr("fast") is False:
        raise ValueError("Gradient not defined for fast=False")
    matrix_shape = a.shape[-2:]
    if matrix_shape.is_fully_defined():
        rows, cols = matrix_shape.as_list()
        grad_a, grad_b = overdetermined() if rows >= cols else underdetermined()
    else:
        dyn = array_ops.shape(a)[-2:]
        grad_a, grad_b = control_flow_ops.cond(dyn[-2] >= dyn[-1], overdetermined,
                                               underdetermined)
    return grad_a, grad_b, None


def _kronecker_product(b1: _T, b2: _T) -> _T:
    """The Kronecker product of two batches of square matrices."""
    b1_shape, b2_shape = array_ops.shape(b1), array_ops.shape(b2)
    b1_order, b2_order = b1_shape[-1], b2_shape[-1]
    shape_slice = array_ops.slice(b1_shape, [0], [math_ops.subtract(array_ops.size(b1_shape), 2)])
    b1_reshape = array_ops.reshape(
        b1, array_ops.concat([shape_slice, [b1_order], [1], [b1_order], [1]], 0))
    b2_reshape = array_ops.reshape(
        b2, array_ops.concat([shape_slice, [1], [b2_order], [1], [b2_order]], 0))
    order_prod = b1_order * b2_order
    kprod_shape = array_ops.concat([shape_slice, [order_prod], [order_prod]], 0)
    return array_ops.reshape(b1_reshape * b2_reshape, kprod_shape)


@RegisterGradient("MatrixSquareRoot")
def _matrix_square_root_grad(op: ops_lib.Operation, grad: _T) -> _T:
    """Solves the Sylvester equation R dA + dA R = dR as one linear system (TF's way)."""
    sqrtm = op.outputs[0]
    shape = array_ops.shape(sqrtm)
    order = shape[-1]
    matrix_count = math_ops.reduce_prod(shape[0:-2])
    eye = linalg_ops.eye(order, dtype=sqrtm.dtype)
    eye_batch = array_ops.reshape(array_ops.tile(array_ops.reshape(eye, [-1]), [matrix_count]),
                                  shape)
    ksum = math_ops.add(_kronecker_product(eye_batch, linalg_ops.matrix_transpose(sqrtm)),
                        _kronecker_product(sqrtm, eye_batch))
    shape_slice = array_ops.slice(shape, [0], [math_ops.subtract(array_ops.size(shape), 2)])
    vec_da = array_ops.reshape(linalg_ops.matrix_transpose(grad),
                               array_ops.concat([shape_slice, [order * order], [1]], 0))
    vec_dsqrtm = linalg_ops.matrix_solve(ksum, vec_da)
    return linalg_ops.matrix_transpose(array_ops.reshape(vec_dsqrtm, shape))


# -- Einsum (TF's _EinsumGrad) ------------------------------------------------------------

_ELLIPSIS = "..."


def _axis_from_label(subscripts: str, label: str) -> int | None:
    """The axis of ``label``: counted from the left before an ellipsis, negative after."""
    splits = subscripts.split(_ELLIPSIS)
    index = splits[0].find(label)
    if index != -1:
        return index
    if len(splits) < 2:
        return None
    index = splits[1].find(label)
    return index - len(splits[1]) if index != -1 else None


def _bcast_subshape(subscripts: str) -> tuple[int, int | None]:
    start = subscripts.find(_ELLIPSIS)
    if start == -1:
        return 0, 0
    remaining = len(subscripts) - (start + len(_ELLIPSIS))
    return start, (-remaining if remaining > 0 else None)


def _einsum(inputs: list, equation: str) -> _T:
    return linalg_ops._op("Einsum", None, inputs=inputs, equation=equation)[0]


def _grad_reduced(output_grad: _T, output_subs: str, input_subs: str, input_shape: _T,
                  reduced: set[str]) -> _T:
    reduced_subs = "".join(sorted(reduced))
    reduced_axes = [_axis_from_label(input_subs, s) for s in reduced_subs]
    reduced_dims = array_ops.stack([input_shape[ax] for ax in reduced_axes])
    has_repeated = (len(set(input_subs)) + len(set(output_subs))
                    < len(input_subs) + len(output_subs))
    without_reduced = "".join(s for s in input_subs if s not in reduced)
    # TF broadcasts with broadcast_to; multiplying by ones broadcasts the same way.
    if not has_repeated and without_reduced == output_subs:
        reduced_shape = math_ops.reduced_shape(input_shape, reduced_axes)
        return array_ops.reshape(output_grad, reduced_shape) * \
            array_ops.ones(input_shape, dtype=output_grad.dtype)
    grad_shape = array_ops.concat([reduced_dims, array_ops.shape(output_grad)], axis=0)
    reduced_shape = array_ops.concat(
        [array_ops.ones([len(reduced)], dtype=dtypes_lib.int32), array_ops.shape(output_grad)],
        axis=0)
    broadcast = array_ops.reshape(output_grad, reduced_shape) * \
        array_ops.ones(grad_shape, dtype=output_grad.dtype)
    return _einsum([broadcast], f"{reduced_subs + output_subs}->{input_subs}")


def _grad_wrt(output_grad: _T, other: _T, input_shape: _T, input_subs: str, other_subs: str,
              output_subs: str) -> _T:
    reduced = set(input_subs).difference(set(output_subs + other_subs + "."))
    left_subs = "".join(s for s in input_subs if s not in reduced)
    grad_reduced = _einsum([output_grad, other], f"{output_subs},{other_subs}->{left_subs}")
    if not reduced:
        return grad_reduced
    return _grad_reduced(grad_reduced, left_subs, input_subs, input_shape, reduced)


@RegisterGradient("Einsum")
def _einsum_grad(op: ops_lib.Operation, grad: _T) -> Any:
    equation = op.get_attr("equation")
    if isinstance(equation, bytes):
        equation = equation.decode()
    input_subs, output_subs = equation.split("->")
    if len(op.inputs) == 1:
        input_shape = array_ops.shape(op.inputs[0])
        reduced = set(input_subs).difference(set(output_subs + _ELLIPSIS))
        if not reduced:
            return _einsum([grad], f"{output_subs}->{input_subs}")
        return _grad_reduced(grad, output_subs, input_subs, input_shape, reduced)
    x_subs, y_subs = input_subs.split(",")
    if _ELLIPSIS in output_subs:
        x_subs += "" if _ELLIPSIS in x_subs else _ELLIPSIS
        y_subs += "" if _ELLIPSIS in y_subs else _ELLIPSIS
    x, y = op.inputs[0], op.inputs[1]
    if grad.dtype.is_complex:
        x, y = math_ops.conj(x), math_ops.conj(y)
    x_shape, y_shape = array_ops.shape(x), array_ops.shape(y)
    grad_x = _grad_wrt(grad, y, x_shape, x_subs, y_subs, output_subs)
    grad_y = _grad_wrt(grad, x, y_shape, y_subs, x_subs, output_subs)
    if _ELLIPSIS not in output_subs:
        return grad_x, grad_y
    bx_start, bx_end = _bcast_subshape(x_subs)
    by_start, by_end = _bcast_subshape(y_subs)
    if x.shape.is_fully_defined() and y.shape.is_fully_defined() and \
            x.shape[bx_start:bx_end] == y.shape[by_start:by_end]:
        return grad_x, grad_y
    rx, ry = math_ops.broadcast_gradient_args(x_shape[bx_start:bx_end],
                                              y_shape[by_start:by_end])
    grad_x = array_ops.reshape(math_ops.reduce_sum(grad_x, bx_start + rx), x_shape)
    grad_y = array_ops.reshape(math_ops.reduce_sum(grad_y, by_start + ry), y_shape)
    return grad_x, grad_y


# -- band and diagonal ops (TF's array_grad.py) --------------------------------------------


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    return linalg_ops.matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None


@RegisterGradient("Diag")
def _diag_grad(_: ops_lib.Operation, grad: _T) -> _T:
    return linalg_ops.diag_part(grad)


@RegisterGradient("DiagPart")
def _diag_part_grad(_: ops_lib.Operation, grad: _T) -> _T:
    return linalg_ops.diag(grad)


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(_: ops_lib.Operation, grad: _T) -> _T:
    return linalg_ops.matrix_diag_part(grad)


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    part = linalg_ops.matrix_diag_part(grad, k=op.inputs[1], align=op.get_attr("align"))
    return part, None, None, None, None


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op: ops_lib.Operation, grad: _T) -> _T:
    matrix_shape = op.inputs[0].shape[-2:]
    if matrix_shape.is_fully_defined() and matrix_shape[0] == matrix_shape[1]:
        return linalg_ops.matrix_diag(grad)
    return linalg_ops.matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad)


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    matrix_shape = op.inputs[0].shape[-2:]
    align = op.get_attr("align")
    if matrix_shape.is_fully_defined():
        rows, cols = matrix_shape.as_list()
        return linalg_ops.matrix_diag(grad, k=op.inputs[1], num_rows=rows, num_cols=cols,
                                      align=align), None, None
    return linalg_ops.matrix_set_diag(array_ops.zeros_like(op.inputs[0]), grad,
                                      k=op.inputs[1], align=align), None, None


@RegisterGradient("MatrixSetDiag")
def _matrix_set_diag_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    diag = linalg_ops.matrix_diag_part(grad)
    return linalg_ops.matrix_set_diag(grad, array_ops.zeros_like(diag)), diag


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op: ops_lib.Operation, grad: _T) -> tuple:
    align = op.get_attr("align")
    grad_diag = linalg_ops.matrix_diag_part(grad, k=op.inputs[2], align=align)
    # zeros shaped like the diagonals TF computes from the static shape; taking them from
    # the diagonal part itself gives the same shape, static or not.
    grad_input = linalg_ops.matrix_set_diag(grad, array_ops.zeros_like(grad_diag),
                                            k=op.inputs[2], align=align)
    return grad_input, grad_diag, None


@RegisterGradient("Cross")
def _cross_grad(op: ops_lib.Operation, grad: _T) -> tuple[_T, _T]:
    u, v = op.inputs[0], op.inputs[1]
    return linalg_ops.cross(v, grad), linalg_ops.cross(grad, u)
