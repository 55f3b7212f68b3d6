"""CPU kernels of the sparse reductions and extrema (:mod:`graphcore.ops.sparse_reduce_ops`).

A reduction groups the present entries by their coordinates on the kept axes and reduces
each group; positions of a dense output without any entry are 0 (as TF's), sparse
outputs hold the groups in row-major order.
"""

from __future__ import annotations

import numpy as np

from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.sparse_kernels import _invalid, _linear, _reduction_axes, _sparse


def _lowest(dtype: np.dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _groups(idx: np.ndarray, shape: np.ndarray, reduction_axes, keep: bool):
    """(the sorted group keys as index rows on the output, each entry's group, the
    output shape)."""
    rank = len(shape)
    reduced = _reduction_axes(reduction_axes, rank)
    kept = [d for d in range(rank) if d not in reduced]
    kept_idx = idx[:, kept]
    kept_shape = shape[kept]
    keys = _linear(kept_idx, kept_shape)
    uniq, first, group = np.unique(keys, return_index=True, return_inverse=True)
    out_rows = kept_idx[first].reshape(len(uniq), len(kept))
    if keep:
        full = np.zeros((len(uniq), rank), dtype=np.int64)
        full[:, kept] = out_rows
        out_rows = full
        out_shape = np.array([1 if d in reduced else shape[d] for d in range(rank)], np.int64)
    else:
        out_shape = kept_shape.astype(np.int64)
    return out_rows, group.reshape(-1), out_shape


def _reduce_groups(vals: np.ndarray, group: np.ndarray, n: int, is_max: bool) -> np.ndarray:
    if is_max:
        out = np.full(n, _lowest(vals.dtype), dtype=vals.dtype)
        np.maximum.at(out, group, vals)
    else:
        out = np.zeros(n, dtype=vals.dtype)
        np.add.at(out, group, vals)
    return out


def _reduction_kernel(is_max: bool, sparse_output: bool):
    def factory(ctx: KernelContext):
        keep = ctx.node_def.attr["keep_dims"].b

        def compute(input_indices, input_values, input_shape, reduction_axes):
            idx, vals, shape = _sparse(input_indices, input_values, input_shape)
            rows, group, out_shape = _groups(idx, shape, reduction_axes, keep)
            reduced = _reduce_groups(vals, group, rows.shape[0], is_max)
            if sparse_output:
                return (rows, reduced, out_shape)
            out = np.zeros(tuple(out_shape), dtype=vals.dtype)
            if rows.shape[0] and rows.shape[1]:
                out[tuple(rows.T)] = reduced
            elif rows.shape[0]:
                out[...] = reduced[0]
            return (out,)

        return compute

    return factory


register_kernel("SparseReduceMax")(_reduction_kernel(True, False))
register_kernel("SparseReduceMaxSparse")(_reduction_kernel(True, True))
register_kernel("SparseReduceSumSparse")(_reduction_kernel(False, True))


def _min_max_kernel(fn):
    def factory(ctx: KernelContext):
        del ctx

        def compute(a_indices, a_values, a_shape, b_indices, b_values, b_shape):
            ia, va, sa = _sparse(a_indices, a_values, a_shape)
            ib, vb, sb = _sparse(b_indices, b_values, b_shape)
            if not np.array_equal(sa, sb):
                raise _invalid(f"Operands' shapes do not match: got {list(sa)} and "
                               f"{list(sb)} for dimension 0")
            ka, kb = _linear(ia, sa), _linear(ib, sb)
            keys, first = np.unique(np.concatenate([ka, kb]), return_index=True)
            rows = np.concatenate([ia, ib])[first].reshape(len(keys), len(sa))
            dense_a = np.zeros(len(keys), dtype=va.dtype)
            dense_b = np.zeros(len(keys), dtype=va.dtype)
            dense_a[np.searchsorted(keys, ka)] = va
            dense_b[np.searchsorted(keys, kb)] = vb
            return (rows, fn(dense_a, dense_b))

        return compute

    return factory


register_kernel("SparseSparseMaximum")(_min_max_kernel(np.maximum))
register_kernel("SparseSparseMinimum")(_min_max_kernel(np.minimum))
