"""CPU (numpy) kernels of the sparse-tensor ops (:mod:`graphcore.ops.sparse_ops`).

A SparseTensor arrives as its three arrays (int64 indices [nnz, rank], values [nnz],
int64 dense shape [rank]); entries are matched through their row-major linear index, and
outputs come in row-major order where TF's do. Checks and messages are TF's.
"""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _sparse(indices, values, shape) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    idx = np.asarray(indices, dtype=np.int64)
    vals = np.asarray(values)
    shp = np.asarray(shape, dtype=np.int64).reshape(-1)
    if idx.ndim != 2:
        raise _invalid(f"Input indices should be a matrix but received shape "
                       f"{list(idx.shape)}")
    if vals.ndim != 1:
        raise _invalid(f"Input values should be a vector but received shape {list(vals.shape)}")
    if idx.shape[0] != vals.shape[0]:
        raise _invalid(f"Number of elements in input indices ({idx.shape[0]}) and values "
                       f"({vals.shape[0]}) do not match")
    return idx, vals, shp


def _linear(idx: np.ndarray, shape: np.ndarray) -> np.ndarray:
    """Row-major linear positions of the index rows (object ints if they overflow)."""
    if idx.size == 0:
        return np.zeros(idx.shape[0], dtype=np.int64)
    strides = np.ones(len(shape), dtype=np.int64)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(int(shape[d + 1]), 1)
    return idx @ strides


def _row_major_order(idx: np.ndarray) -> np.ndarray:
    if idx.shape[0] == 0 or idx.shape[1] == 0:
        return np.arange(idx.shape[0])
    return np.lexsort(idx.T[::-1])


@register_kernel("SparseTensorDenseMatMul")
def _sparse_dense_matmul(ctx: KernelContext):
    adj_a = ctx.node_def.attr["adjoint_a"].b
    adj_b = ctx.node_def.attr["adjoint_b"].b

    def compute(a_indices, a_values, a_shape, b):
        idx = np.asarray(a_indices, dtype=np.int64)
        vals = np.asarray(a_values)
        shape = np.asarray(a_shape, dtype=np.int64)
        b = np.asarray(b)
        if shape.size != 2 or b.ndim != 2:
            raise _invalid("Tensor 'a_shape' is not a vector of 2 and 'b' is not a matrix")
        rows_a, cols_a = (shape[1], shape[0]) if adj_a else (shape[0], shape[1])
        bm = b.conj().T if adj_b else b
        if bm.shape[0] != cols_a:
            raise _invalid(f"Cannot multiply A and B because inner dimension does not match: "
                           f"{cols_a} vs. {bm.shape[0]}.  Did you forget a transpose?  "
                           f"Dimensions of A: [{rows_a}, {cols_a}).  Dimensions of B: "
                           f"{list(b.shape)}")
        rows, cols = (idx[:, 1], idx[:, 0]) if adj_a else (idx[:, 0], idx[:, 1])
        if adj_a:
            vals = np.conj(vals)
        for which, (values, limit) in enumerate(((rows, rows_a), (cols, cols_a))):
            bad = (values < 0) | (values >= limit)
            if bad.any():
                i = int(np.argmax(bad))
                raise _invalid(f"{'i' if which == 0 else 'k'} ({values[i]}) from index[{i},"
                               f"{which if not adj_a else 1 - which}] out of bounds "
                               f"(>={limit})")
        out = np.zeros((int(rows_a), bm.shape[1]), dtype=np.result_type(vals, b))
        np.add.at(out, rows, vals[:, None] * bm[cols])
        return (out,)

    return compute


def _check_sorted_unique(idx: np.ndarray, shape: np.ndarray) -> None:
    """SparseToDense's validate_indices: in bounds, row-major ordered, not repeated."""
    for i in range(idx.shape[0]):
        row = idx[i]
        text = ",".join(str(v) for v in row)
        if ((row < 0) | (row >= shape)).any():
            raise _invalid(f"indices[{i}] = [{text}] is out of bounds: need 0 <= index < "
                           f"[{','.join(str(d) for d in shape)}]")
        if i:
            prev = tuple(idx[i - 1])
            if tuple(row) == prev:
                raise _invalid(f"indices[{i}] = [{text}] is repeated")
            if tuple(row) < prev:
                raise _invalid(f"indices[{i}] = [{text}] is out of order. Many sparse ops "
                               "require sorted indices.\n    Use `tf.sparse.reorder` to create "
                               "a correctly ordered copy.\n\n")


@register_kernel("SparseToDense")
def _sparse_to_dense(ctx: KernelContext):
    validate = ctx.node_def.attr["validate_indices"].b

    def compute(sparse_indices, output_shape, sparse_values, default_value):
        shape = np.asarray(output_shape, dtype=np.int64).reshape(-1)
        idx = np.asarray(sparse_indices, dtype=np.int64)
        if idx.ndim < 2:
            idx = idx.reshape(-1, 1) if len(shape) == 1 else idx.reshape(1, -1)
        vals = np.asarray(sparse_values)
        default = np.asarray(default_value)
        if default.ndim != 0:
            raise _invalid("default_value should be a scalar.")
        if vals.ndim == 1 and vals.shape[0] != idx.shape[0]:
            raise _invalid(f"sparse_values has incorrect shape {list(vals.shape)}, should be "
                           f"[] or [{idx.shape[0]}]")
        if idx.shape[1] != len(shape):
            raise _invalid(f"sparse_indices[0].size != output_shape.size: {idx.shape[1]} vs "
                           f"{len(shape)}")
        if validate:
            _check_sorted_unique(idx, shape)
        out = np.full(tuple(shape), default, dtype=np.result_type(vals.dtype, default.dtype))
        if idx.shape[0]:
            out[tuple(idx.T)] = vals
        return (out,)

    return compute


def _sum_by_position(ia, va, ib, vb, shape, thresh):
    """SparseAdd: entries at the same position add; a sum below ``thresh`` in magnitude
    is dropped (entries of only one operand are kept as they are)."""
    ka, kb = _linear(ia, shape), _linear(ib, shape)
    keys = np.concatenate([ka, kb])
    allidx = np.concatenate([ia, ib]) if ia.size or ib.size else \
        np.zeros((0, len(shape)), np.int64)
    vals = np.concatenate([va, vb])
    uniq, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                             return_counts=True)
    sums = np.zeros(uniq.shape[0], dtype=vals.dtype)
    np.add.at(sums, inverse, vals)
    keep = (counts < 2) | (np.abs(sums) >= thresh)
    return allidx[first][keep], sums[keep]


@register_kernel("SparseAdd")
def _sparse_add(ctx: KernelContext):
    del ctx

    def compute(a_indices, a_values, a_shape, b_indices, b_values, b_shape, thresh):
        ia, va, sa = _sparse(a_indices, a_values, a_shape)
        ib, vb, sb = _sparse(b_indices, b_values, b_shape)
        if not np.array_equal(sa, sb):
            raise _invalid(f"Operands do not have the same ranks; got shapes: {list(sa)} and "
                           f"{list(sb)}")
        idx, vals = _sum_by_position(ia, va, ib, vb, sa, np.asarray(thresh))
        return (idx, vals.astype(va.dtype, copy=False), sa.copy())

    return compute


@register_kernel("SparseAddGrad")
def _sparse_add_grad(ctx: KernelContext):
    del ctx

    def compute(backprop_val_grad, a_indices, b_indices, sum_indices):
        grad = np.asarray(backprop_val_grad)
        si = np.asarray(sum_indices, dtype=np.int64)
        table = {tuple(r): k for k, r in enumerate(si)}
        outs = []
        for ind in (a_indices, b_indices):
            ind = np.asarray(ind, dtype=np.int64)
            pos = np.array([table.get(tuple(r), -1) for r in ind], dtype=np.int64)
            g = np.zeros(ind.shape[0], dtype=grad.dtype)
            g[pos >= 0] = grad[pos[pos >= 0]]
            outs.append(g)
        return tuple(outs)

    return compute


@register_kernel("SparseTensorDenseAdd")
def _sparse_dense_add(ctx: KernelContext):
    del ctx

    def compute(a_indices, a_values, a_shape, b):
        out = np.array(b, copy=True)
        idx = np.asarray(a_indices, dtype=np.int64)
        if list(np.asarray(a_shape).reshape(-1)) != list(out.shape):
            raise _invalid(f"Dimension 0 does not equal (no broadcasting is supported): sparse "
                           f"side {list(np.asarray(a_shape))} vs dense side {list(out.shape)}")
        if idx.shape[0]:
            np.add.at(out, tuple(idx.T), np.asarray(a_values, dtype=out.dtype))
        return (out,)

    return compute


@register_kernel("SparseReshape")
def _sparse_reshape(ctx: KernelContext):
    del ctx

    def compute(input_indices, input_shape, new_shape):
        idx = np.asarray(input_indices, dtype=np.int64)
        shape = np.asarray(input_shape, dtype=np.int64)
        target = np.asarray(new_shape, dtype=np.int64).copy()
        dense_size = int(np.prod(shape))
        if (target == -1).sum() > 1:
            raise _invalid("only one output dimension may be -1, not both "
                           f"{int(np.flatnonzero(target == -1)[0])} and "
                           f"{int(np.flatnonzero(target == -1)[1])}")
        if (target == -1).any():
            known = int(np.prod(target[target != -1]))
            if known == 0 or dense_size % known:
                raise _invalid(f"Input to reshape is a SparseTensor with {dense_size} dense "
                               f"values, but the requested shape requires a multiple of "
                               f"{known}. inputShape={list(shape)} outputShape={list(target)}")
            target[target == -1] = dense_size // known
        if int(np.prod(target)) != dense_size:
            raise _invalid(f"Input to reshape is a tensor with {dense_size} dense values, but "
                           f"the requested shape has {int(np.prod(target))}. "
                           f"inputShape={list(shape)} outputShape={list(target)}")
        linear = _linear(idx, shape)
        out = np.stack(np.unravel_index(linear, tuple(target)), axis=1) if len(target) else \
            np.zeros((idx.shape[0], 0), np.int64)
        return (out.astype(np.int64).reshape(idx.shape[0], len(target)), target)

    return compute


@register_kernel("SparseReorder")
def _sparse_reorder(ctx: KernelContext):
    del ctx

    def compute(input_indices, input_values, input_shape):
        idx, vals, _ = _sparse(input_indices, input_values, input_shape)
        order = _row_major_order(idx)
        return (idx[order], vals[order])

    return compute


@register_kernel("SparseConcat")
def _sparse_concat(ctx: KernelContext):
    n = ctx.node_def.attr["N"].i
    concat_dim = ctx.node_def.attr["concat_dim"].i

    def compute(*inputs):
        inds = [np.asarray(i, dtype=np.int64) for i in inputs[:n]]
        vals = [np.asarray(v) for v in inputs[n:2 * n]]
        shapes = [np.asarray(s, dtype=np.int64) for s in inputs[2 * n:]]
        rank = len(shapes[0])
        dim = concat_dim + rank if concat_dim < 0 else concat_dim
        if not 0 <= dim < rank:
            raise _invalid(f"Concat dimension must be in range [{-rank}, {rank}), got "
                           f"{concat_dim}")
        for i, s in enumerate(shapes[1:], 1):
            if len(s) != rank or any(s[d] != shapes[0][d] for d in range(rank) if d != dim):
                raise _invalid(f"Operand 0 and {i} are not compatible: shapes "
                               f"{list(shapes[0])} and {list(s)}")
        offset = 0
        parts = []
        for ind, s in zip(inds, shapes):
            moved = ind.copy()
            moved[:, dim] += offset
            parts.append(moved)
            offset += int(s[dim])
        idx = np.concatenate(parts) if parts else np.zeros((0, rank), np.int64)
        values = np.concatenate(vals)
        order = _row_major_order(idx)
        out_shape = shapes[0].copy()
        out_shape[dim] = offset
        return (idx[order], values[order], out_shape)

    return compute


def _dense(idx: np.ndarray, vals: np.ndarray, shape: np.ndarray) -> np.ndarray:
    out = np.zeros(tuple(shape), dtype=vals.dtype)
    if idx.shape[0]:
        np.add.at(out, tuple(idx.T), vals)
    return out


def _reduction_axes(reduction_axes: np.ndarray, rank: int) -> tuple:
    """The reduced axes, checked against ``rank`` (TF's message) and made non-negative,
    sorted."""
    axes = np.asarray(reduction_axes).reshape(-1)
    for a in axes:
        if not -rank <= a < rank:
            raise _invalid(f"Invalid reduction dimension {a}, for input with {rank} "
                           "dimensions.")
    return tuple(sorted({int(a) % rank for a in axes})) if rank else ()


@register_kernel("SparseReduceSum")
def _sparse_reduce_sum(ctx: KernelContext):
    keep = ctx.node_def.attr["keep_dims"].b

    def compute(input_indices, input_values, input_shape, reduction_axes):
        idx, vals, shape = _sparse(input_indices, input_values, input_shape)
        axes = _reduction_axes(reduction_axes, len(shape))
        return (np.asarray(np.sum(_dense(idx, vals, shape), axis=axes, keepdims=keep),
                           dtype=vals.dtype),)

    return compute


@register_kernel("SparseSoftmax")
def _sparse_softmax(ctx: KernelContext):
    del ctx

    def compute(sp_indices, sp_values, sp_shape):
        idx, vals, shape = _sparse(sp_indices, sp_values, sp_shape)
        if len(shape) < 2:
            raise _invalid(f"Input should have rank >= 2, but received shape: {list(shape)}")
        groups = _linear(idx[:, :-1], shape[:-1]) if idx.shape[0] else idx[:, 0]
        _, group = np.unique(groups, return_inverse=True)
        n = int(group.max()) + 1 if group.size else 0
        gmax = np.full(n, -np.inf, dtype=vals.dtype)
        np.maximum.at(gmax, group, vals)
        e = np.exp(vals - gmax[group])
        total = np.zeros(n, dtype=vals.dtype)
        np.add.at(total, group, e)
        return ((e / total[group]).astype(vals.dtype),)

    return compute


@register_kernel("SparseFillEmptyRows")
def _sparse_fill_empty_rows(ctx: KernelContext):
    del ctx

    def compute(indices, values, dense_shape, default_value):
        idx, vals, shape = _sparse(indices, values, dense_shape)
        default = np.asarray(default_value)
        if default.ndim != 0:
            raise _invalid(f"default_value must be a scalar, saw: {list(default.shape)}")
        if len(shape) == 0:
            raise _invalid("dense_shape must not be a scalar")
        n_rows = int(shape[0])
        if idx.shape[0] and n_rows <= 0:
            raise _invalid("Received SparseTensor with dense_shape[0] = 0 but indices.shape[0]"
                           f" = {idx.shape[0]}")
        rows = idx[:, 0]
        bad = (rows < 0) | (rows >= n_rows)
        if bad.any():
            i = int(np.argmax(bad))
            raise _invalid(f"indices({i}, 0) is invalid: {rows[i]} >= {n_rows}")
        counts = np.bincount(rows, minlength=n_rows)[:n_rows] if n_rows else np.zeros(0, int)
        empty = counts == 0
        empty_rows = np.flatnonzero(empty)
        fill = np.zeros((empty_rows.size, len(shape)), dtype=np.int64)
        fill[:, 0] = empty_rows
        all_idx = np.concatenate([idx, fill])
        all_vals = np.concatenate([vals, np.full(empty_rows.size, default, dtype=vals.dtype)])
        order = np.argsort(all_idx[:, 0], kind="stable")
        reverse = np.empty(order.size, dtype=np.int64)
        reverse[order] = np.arange(order.size)
        return (all_idx[order], all_vals[order], empty, reverse[:idx.shape[0]])

    return compute


@register_kernel("SparseFillEmptyRowsGrad")
def _sparse_fill_empty_rows_grad(ctx: KernelContext):
    del ctx

    def compute(reverse_index_map, grad_values):
        grad = np.asarray(grad_values)
        rmap = np.asarray(reverse_index_map, dtype=np.int64)
        d_values = grad[rmap]
        d_default = np.asarray(grad.sum() - d_values.sum(), dtype=grad.dtype)
        return (d_values, d_default)

    return compute


def _slice(idx, vals, shape, start, size):
    """The entries in [start, start + size) (clipped to the shape), shifted to start."""
    start = np.asarray(start, dtype=np.int64)
    size = np.asarray(size, dtype=np.int64)
    if start.shape != shape.shape or size.shape != shape.shape:
        raise _invalid(f"Expected start and size to have {len(shape)} elements, got "
                       f"{start.size} and {size.size}")
    end = np.minimum(start + size, shape)
    out_shape = np.maximum(end - start, 0)
    keep = ((idx >= start) & (idx < end)).all(axis=1) if idx.shape[0] else \
        np.zeros(0, dtype=bool)
    return idx[keep] - start, vals[keep], out_shape, keep


@register_kernel("SparseSlice")
def _sparse_slice(ctx: KernelContext):
    del ctx

    def compute(indices, values, shape, start, size):
        idx, vals, shp = _sparse(indices, values, shape)
        out_idx, out_vals, out_shape, _ = _slice(idx, vals, shp, start, size)
        return (out_idx, out_vals, out_shape)

    return compute


@register_kernel("SparseSliceGrad")
def _sparse_slice_grad(ctx: KernelContext):
    del ctx

    def compute(backprop_val_grad, input_indices, input_start, output_indices):
        grad = np.asarray(backprop_val_grad)
        inp = np.asarray(input_indices, dtype=np.int64)
        shifted = np.asarray(output_indices, dtype=np.int64) + \
            np.asarray(input_start, dtype=np.int64)
        table = {tuple(r): k for k, r in enumerate(shifted)}
        out = np.zeros(inp.shape[0], dtype=grad.dtype)
        for i, r in enumerate(inp):
            k = table.get(tuple(r))
            if k is not None:
                out[i] = grad[k]
        return (out,)

    return compute


@register_kernel("SparseSplit")
def _sparse_split(ctx: KernelContext):
    num_split = ctx.node_def.attr["num_split"].i

    def compute(split_dim, indices, values, shape):
        idx, vals, shp = _sparse(indices, values, shape)
        rank = len(shp)
        dim = int(np.asarray(split_dim))
        if not -rank <= dim < rank:
            raise _invalid(f"Input split_dim should be between {-rank} and {rank}, got {dim}")
        dim %= rank
        if num_split > shp[dim]:
            raise _invalid(f"Input num_split should be between 1 and {shp[dim]}, got "
                           f"{num_split}")
        base, extra = divmod(int(shp[dim]), num_split)
        outs: list = [[], [], []]
        begin = 0
        for k in range(num_split):
            size = base + (1 if k < extra else 0)
            start = np.zeros(rank, np.int64)
            start[dim] = begin
            width = shp.copy()
            width[dim] = size
            sub_idx, sub_vals, sub_shape, _ = _slice(idx, vals, shp, start, width)
            for out, part in zip(outs, (sub_idx, sub_vals, sub_shape)):
                out.append(part)
            begin += size
        return tuple(outs[0] + outs[1] + outs[2])

    return compute


def _cwise(ufunc):
    def factory(ctx: KernelContext):
        del ctx

        def compute(sp_indices, sp_values, sp_shape, dense):
            idx, vals, shape = _sparse(sp_indices, sp_values, sp_shape)
            dense = np.asarray(dense)
            try:
                full = np.broadcast_to(dense, tuple(shape))
            except ValueError:
                raise _invalid(f"SparseDenseBinaryOpShared broadcasts dense to sparse only; "
                               f"got incompatible shapes: [{','.join(map(str, shape))}] vs. "
                               f"[{','.join(map(str, dense.shape))}]") from None
            return (ufunc(vals, full[tuple(idx.T)]).astype(vals.dtype, copy=False),)

        return compute

    return factory


register_kernel("SparseDenseCwiseAdd")(_cwise(np.add))
register_kernel("SparseDenseCwiseMul")(_cwise(np.multiply))


def _divide(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """C++'s ``/``: integers truncated toward zero."""
    if x.dtype.kind in "iu":
        q = np.abs(x) // np.abs(y)
        return np.where((x < 0) != (y < 0), -q, q)
    return np.true_divide(x, y)


register_kernel("SparseDenseCwiseDiv")(_cwise(_divide))
