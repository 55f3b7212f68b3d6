"""CPU (numpy/LAPACK) kernels of the linear-algebra ops in :mod:`graphcore.ops.gen_linalg_ops`.

Batched over the leading dimensions as TF's; half and bfloat16 are computed in float32
and rounded once (LAPACK has no half precision); runtime errors are TF's
InvalidArgumentErrors with TF's messages.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.ops.gen_linalg_ops import matrix_diag_size, max_diag_len


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _out_dtype(ctx: KernelContext, index: int = 0) -> np.dtype:
    return np.dtype(ctx.output_types[index].base_dtype.as_numpy_dtype)


def _work(x) -> np.ndarray:
    """x in a dtype LAPACK takes: float32 for half and bfloat16."""
    x = np.asarray(x)
    return x.astype(np.float32) if x.dtype.kind == "f" and x.dtype.itemsize < 4 or \
        x.dtype.name == "bfloat16" else x


def _st(shape: tuple) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _check_square(x: np.ndarray) -> None:
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if x.shape[-1] != x.shape[-2]:
        raise _invalid(f"Input matrix must be square, got {x.shape[-2]} x {x.shape[-1]}")


def _adjoint(x: np.ndarray) -> np.ndarray:
    return np.conj(np.swapaxes(x, -1, -2))


def _unary(check_square: bool = True):
    """Registers ``fn(ctx, x) -> tuple of arrays`` as a kernel casting to the outputs."""
    def wrap(fn):
        def factory(ctx: KernelContext):
            outs = [_out_dtype(ctx, i) for i in range(len(ctx.output_types))]

            def compute(x):
                x = _work(x)
                if check_square:
                    _check_square(x)
                return tuple(np.asarray(r).astype(d, copy=False) for r, d in zip(fn(ctx, x), outs))
            return compute
        return factory
    return wrap


@register_kernel("MatrixInverse")
@_unary()
def _matrix_inverse(ctx, x):
    if x.size and np.any(np.linalg.matrix_rank(x) < x.shape[-1]):
        raise _invalid("Input is not invertible.")
    inv = np.linalg.inv(x) if x.size else x.copy()
    return (_adjoint(inv) if ctx.node_def.attr["adjoint"].b else inv,)


@register_kernel("Cholesky")
@_unary()
def _cholesky(ctx, x):
    # LAPACK's potrf reads only the lower triangle, as TF's kernel does. A matrix that is
    # not positive definite gets a lower triangle of NaNs, as TF's CPU kernel gives it.
    try:
        return (np.linalg.cholesky(x) if x.size else x.copy(),)
    except np.linalg.LinAlgError:
        pass
    flat = x.reshape((-1,) + x.shape[-2:])
    out = np.empty_like(flat)
    nan_lower = np.tril(np.full(x.shape[-2:], np.nan, x.dtype))
    for i, m in enumerate(flat):
        try:
            out[i] = np.linalg.cholesky(m)
        except np.linalg.LinAlgError:
            out[i] = nan_lower
    return (out.reshape(x.shape),)


@register_kernel("Lu")
@_unary()
def _lu(ctx, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    lu = np.empty_like(flat)
    perms = np.empty(flat.shape[:-1], np.int64)
    n = x.shape[-1]
    for i, m in enumerate(flat):
        lu[i], piv = scipy.linalg.lu_factor(m, check_finite=False)
        if np.any(np.diagonal(lu[i]) == 0):
            raise _invalid("Input is not invertible.")
        # LAPACK's row swaps as TF's permutation: lu's rows are input[perm].
        perm = np.arange(n)
        for row, other in enumerate(piv):
            perm[row], perm[other] = perm[other], perm[row]
        perms[i] = perm
    return lu.reshape(x.shape), perms.reshape(x.shape[:-1])


@register_kernel("MatrixSquareRoot")
@_unary()
def _matrix_square_root(ctx, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    roots = [scipy.linalg.sqrtm(m) for m in flat]
    out = np.stack(roots) if roots else flat.copy()
    if x.dtype.kind != "c":
        out = out.real  # TF's real kernel keeps the real square root
    return (out.reshape(x.shape),)


@register_kernel("MatrixLogarithm")
@_unary()
def _matrix_logarithm(ctx, x):
    flat = x.reshape((-1,) + x.shape[-2:])
    logs = [scipy.linalg.logm(m) for m in flat]
    return ((np.stack(logs) if logs else flat.copy()).reshape(x.shape),)


@register_kernel("MatrixDeterminant")
@_unary()
def _determinant(ctx, x):
    return (np.linalg.det(x),)


@register_kernel("LogMatrixDeterminant")
@_unary()
def _log_determinant(ctx, x):
    sign, logdet = np.linalg.slogdet(x)
    return sign, logdet


@register_kernel("Qr")
@_unary(check_square=False)
def _qr(ctx, x):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    mode = "complete" if ctx.node_def.attr["full_matrices"].b else "reduced"
    return np.linalg.qr(x, mode=mode)


@register_kernel("Svd")
@_unary(check_square=False)
def _svd(ctx, x):
    if x.ndim < 2:
        raise _invalid(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    full = ctx.node_def.attr["full_matrices"].b
    if not ctx.node_def.attr["compute_uv"].b:
        empty = np.zeros([0], x.dtype)
        return np.linalg.svd(x, compute_uv=False), empty, empty
    u, s, vh = np.linalg.svd(x, full_matrices=full)
    return s, u, _adjoint(vh)


@register_kernel("SelfAdjointEigV2")
@_unary()
def _self_adjoint_eig(ctx, x):
    if not ctx.node_def.attr["compute_v"].b:
        return np.linalg.eigvalsh(x), np.zeros([0], x.dtype)
    e, v = np.linalg.eigh(x)
    return e, v


def _solve_factory(ctx: KernelContext, triangular: bool):
    out = _out_dtype(ctx)
    adjoint = ctx.node_def.attr["adjoint"].b
    lower = ctx.node_def.attr["lower"].b if triangular else True

    def compute(matrix, rhs):
        a, b = _work(matrix), _work(rhs)
        _check_square(a)
        if b.ndim < 2:
            raise _invalid(f"Input tensor 1 must have rank >= 2, got {b.ndim}")
        if a.shape[-2] != b.shape[-2]:
            raise _invalid(f"Input matrix and right-hand side must have the same number of "
                           f"rows: {_st(a.shape)} vs {_st(b.shape)}")
        if triangular:
            # TF reads only the named triangle; the other one may hold anything.
            a = np.tril(a) if lower else np.triu(a)
        elif a.shape[:-2] != b.shape[:-2]:
            raise _invalid(f"All input tensors must have the same outer dimensions: "
                           f"{_st(a.shape)} vs {_st(b.shape)}")
        if adjoint:
            a = _adjoint(a)
        if a.size == 0 or b.size == 0:
            batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
            return (np.zeros(batch + (a.shape[-1], b.shape[-1]), out),)
        if np.any(np.linalg.matrix_rank(a) < a.shape[-1]):
            raise _invalid("Input matrix is not invertible.")
        batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a = np.broadcast_to(a, batch + a.shape[-2:])
        b = np.broadcast_to(b, batch + b.shape[-2:])
        return (np.linalg.solve(a, b).astype(out, copy=False),)

    return compute


@register_kernel("MatrixSolve")
def _matrix_solve(ctx: KernelContext):
    return _solve_factory(ctx, triangular=False)


@register_kernel("MatrixTriangularSolve")
def _matrix_triangular_solve(ctx: KernelContext):
    return _solve_factory(ctx, triangular=True)


@register_kernel("MatrixSolveLs")
def _matrix_solve_ls(ctx: KernelContext):
    out = _out_dtype(ctx)

    def compute(matrix, rhs, l2_regularizer):
        a, b = _work(matrix), _work(rhs)
        l2 = float(l2_regularizer)
        n = a.shape[-1]
        if a.shape[-2] != b.shape[-2]:
            raise _invalid(f"Input matrix and right-hand side must have the same number of "
                           f"rows: {_st(a.shape)} vs {_st(b.shape)}")
        # The regularized least-squares solution: lstsq of [A; sqrt(l2) I] x = [B; 0].
        aug_a = np.concatenate([a, np.broadcast_to(np.sqrt(l2) * np.eye(n, dtype=a.dtype),
                                                   a.shape[:-2] + (n, n))], axis=-2)
        aug_b = np.concatenate([b, np.zeros(b.shape[:-2] + (n, b.shape[-1]), b.dtype)], axis=-2)
        flat_a = aug_a.reshape((-1,) + aug_a.shape[-2:])
        flat_b = aug_b.reshape((-1,) + aug_b.shape[-2:])
        x = np.stack([np.linalg.lstsq(fa, fb, rcond=None)[0] for fa, fb in zip(flat_a, flat_b)]
                     ) if flat_a.shape[0] else np.zeros((0, n, b.shape[-1]), a.dtype)
        return (x.reshape(a.shape[:-2] + (n, b.shape[-1])).astype(out, copy=False),)

    return compute


@register_kernel("MatrixBandPart")
def _matrix_band_part(ctx: KernelContext):
    def compute(x, num_lower, num_upper):
        x = np.asarray(x)
        if x.ndim < 2:
            raise _invalid(f"input must be at least 2-dim, received shape: {_st(x.shape)}")
        rows, cols = x.shape[-2:]
        lo, up = int(num_lower), int(num_upper)
        if lo > rows:
            raise _invalid(f"num_lower must be negative or less or equal to number of rows "
                           f"({rows}) got: {lo}")
        if up > cols:
            raise _invalid(f"num_upper must be negative or less or equal to number of "
                           f"columns ({cols}) got: {up}")
        i, j = np.ogrid[:rows, :cols]
        keep = ((lo < 0) | (i - j <= lo)) & ((up < 0) | (j - i <= up))
        return (np.where(keep, x, np.zeros((), x.dtype)),)
    return compute


# -- diagonals (TF's k = (lower, upper) and align conventions) ------------------------------

def _k_range(k) -> tuple[int, int]:
    flat = np.asarray(k).reshape(-1)
    if not 1 <= flat.size <= 2:
        raise _invalid("diag_index must be a scalar or a vector with at most 2 elements")
    lower, upper = int(flat[0]), int(flat[-1])
    if lower > upper:
        raise _invalid(f"lower_diag_index must not be greater than upper_diag_index, received "
                       f"lower_diag_index = {lower} > upper_diag_index = {upper}")
    return lower, upper


def _diag_cells(rows: int, cols: int, lower: int, upper: int, align: str):
    """For each diagonal d in [lower, upper]: (row in the packed diagonals, matrix rows,
    matrix cols, positions in the packed diagonal), with TF's alignment of short ones."""
    max_len = max_diag_len(rows, cols, lower, upper)
    sup_right, sub_right = align.startswith("RIGHT"), align.endswith("RIGHT")
    for d in range(lower, upper + 1):
        length = min(rows - max(-d, 0), cols - max(d, 0))
        if length <= 0:
            continue
        m = np.arange(length) + max(-d, 0)
        right = sup_right if d >= 0 else sub_right
        offset = max_len - length if right else 0
        yield upper - d, m, m + d, np.arange(length) + offset


def _align(ctx: KernelContext) -> str:
    return ctx.node_def.attr["align"].s.decode() if ctx.has_attr("align") else "RIGHT_LEFT"


@register_kernel("MatrixDiagV3")
def _matrix_diag_v3(ctx: KernelContext):
    align = _align(ctx)

    def compute(diagonal, k, num_rows, num_cols, padding_value):
        diagonal = np.asarray(diagonal)
        lower, upper = _k_range(k)
        if lower != upper:
            if diagonal.ndim < 2 or diagonal.shape[-2] != upper - lower + 1:
                raise _invalid(f"The number of diagonals provided in the input does not match "
                               f"the lower_diag_index and upper_diag_index range. Expected "
                               f"{upper - lower + 1} but received "
                               f"{diagonal.shape[-2] if diagonal.ndim >= 2 else 0}")
            packed = diagonal
        else:
            packed = diagonal[..., None, :]
        max_len = packed.shape[-1]
        rows, cols, min_rows, min_cols = matrix_diag_size(max_len, lower, upper,
                                                          int(num_rows), int(num_cols))
        if rows < min_rows or cols < min_cols or (rows != min_rows and cols != min_cols):
            raise _invalid(f"The number of rows or columns is not consistent with the "
                           f"specified d_lower, d_upper, and diagonal: num_rows = {rows}, "
                           f"num_cols = {cols}, min_num_rows = {min_rows}, min_num_cols = "
                           f"{min_cols}")
        out = np.full(packed.shape[:-2] + (rows, cols), np.asarray(padding_value),
                      packed.dtype)
        for row, m, n, pos in _diag_cells(rows, cols, lower, upper, align):
            out[..., m, n] = packed[..., row, pos]
        return (out,)
    return compute


@register_kernel("MatrixDiagPartV3")
def _matrix_diag_part_v3(ctx: KernelContext):
    align = _align(ctx)

    def compute(x, k, padding_value):
        x = np.asarray(x)
        if x.ndim < 2:
            raise _invalid(f"input must be at least 2-dim, received shape: {_st(x.shape)}")
        lower, upper = _k_range(k)
        rows, cols = x.shape[-2:]
        if not (-rows < lower <= cols or lower == 0) or not (-rows < upper <= cols or upper == 0):
            raise _invalid(f"lower_diag_index is out of bound: {lower}. It must be between "
                           f"{-rows} and {cols}")
        max_len = max_diag_len(rows, cols, lower, upper)
        out = np.full(x.shape[:-2] + (upper - lower + 1, max_len), np.asarray(padding_value),
                      x.dtype)
        for row, m, n, pos in _diag_cells(rows, cols, lower, upper, align):
            out[..., row, pos] = x[..., m, n]
        return (out[..., 0, :] if lower == upper else out,)
    return compute


@register_kernel("MatrixSetDiagV3")
def _matrix_set_diag_v3(ctx: KernelContext):
    align = _align(ctx)

    def compute(x, diagonal, k):
        x, diagonal = np.asarray(x), np.asarray(diagonal)
        lower, upper = _k_range(k)
        packed = diagonal if lower != upper else diagonal[..., None, :]
        rows, cols = x.shape[-2:]
        max_len = max_diag_len(rows, cols, lower, upper)
        if packed.shape[-1] != max_len or packed.shape[:-2] != x.shape[:-2]:
            raise _invalid(f"diagonal must be at least 1-dim and its shape must match the "
                           f"input's batch and the diagonal length {max_len}, got "
                           f"{_st(diagonal.shape)}")
        out = x.copy()
        for row, m, n, pos in _diag_cells(rows, cols, lower, upper, align):
            out[..., m, n] = packed[..., row, pos]
        return (out,)
    return compute


@register_kernel("MatrixDiag")
def _matrix_diag(ctx: KernelContext):
    def compute(diagonal):
        d = np.asarray(diagonal)
        n = d.shape[-1]
        out = np.zeros(d.shape + (n,), d.dtype)
        out[..., np.arange(n), np.arange(n)] = d
        return (out,)
    return compute


@register_kernel("MatrixDiagPart")
def _matrix_diag_part(ctx: KernelContext):
    def compute(x):
        return (np.diagonal(np.asarray(x), axis1=-2, axis2=-1).copy(),)
    return compute


@register_kernel("MatrixSetDiag")
def _matrix_set_diag(ctx: KernelContext):
    def compute(x, diagonal):
        out = np.array(x)
        n = min(out.shape[-2:])
        out[..., np.arange(n), np.arange(n)] = diagonal
        return (out,)
    return compute


@register_kernel("Diag")
def _diag(ctx: KernelContext):
    def compute(diagonal):
        d = np.asarray(diagonal)
        return (np.diag(d.reshape(-1)).reshape(d.shape + d.shape),)
    return compute


@register_kernel("DiagPart")
def _diag_part(ctx: KernelContext):
    def compute(x):
        x = np.asarray(x)
        half = x.shape[:x.ndim // 2]
        if x.ndim % 2 or half != x.shape[x.ndim // 2:]:
            raise _invalid(f"Invalid shape {_st(x.shape)}: dimensions must match: the input "
                           f"must be shaped [D1..Dk, D1..Dk]")
        size = int(np.prod(half))
        return (np.diagonal(x.reshape(size, size)).reshape(half).copy(),)
    return compute


def _einsum_fn(equation: str):
    """np.einsum, plus what numpy refuses and TF's Einsum does: an output label repeated
    (``i->ii``) puts the values on that diagonal."""
    inputs, output = equation.split("->")
    unique = "".join(dict.fromkeys(output))
    if len(unique.replace(".", "")) == len(output.replace(".", "")):
        return lambda *xs: np.einsum(equation, *xs)
    if "." in output:
        raise _invalid(f"Einsum with a repeated output label and an ellipsis is not "
                       f"supported: {equation}")

    def fn(*xs):
        values = np.einsum(f"{inputs}->{unique}", *xs)
        out = np.zeros([values.shape[unique.index(c)] for c in output], values.dtype)
        grid = np.indices(values.shape, sparse=True)
        out[tuple(grid[unique.index(c)] for c in output)] = values
        return out
    return fn


@register_kernel("Einsum")
def _einsum(ctx: KernelContext):
    fn = _einsum_fn(ctx.node_def.attr["equation"].s.decode().replace(" ", ""))
    out = _out_dtype(ctx)

    def compute(*inputs):
        return (np.asarray(fn(*inputs)).astype(out, copy=False),)
    return compute


@register_kernel("Cross")
def _cross(ctx: KernelContext):
    def compute(a, b):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            raise _invalid(f"Both inputs must be of same shape: {_st(a.shape)} vs. "
                           f"{_st(b.shape)}")
        if a.ndim < 1 or a.shape[-1] != 3:
            raise _invalid(f"Trailing dimension must be 3, got {a.shape[-1] if a.ndim else 0}")
        return (np.cross(a, b).astype(a.dtype, copy=False),)
    return compute
