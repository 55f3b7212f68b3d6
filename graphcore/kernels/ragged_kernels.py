"""CPU kernel of RaggedTensorToSparse (:mod:`graphcore.ops.ragged_tensor`): one sparse
entry per element of the flat values, indexed by its row at each ragged level, its
position in the innermost row and its place in the uniform inner dimensions."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("RaggedTensorToSparse")
def _ragged_to_sparse(ctx: KernelContext):
    n = ctx.node_def.attr["RAGGED_RANK"].i

    def compute(*inputs):
        splits = [np.asarray(s, np.int64).reshape(-1) for s in inputs[:n]]
        values = np.asarray(inputs[n])
        for level, s in enumerate(splits):
            size = splits[level + 1].shape[0] - 1 if level + 1 < n else values.shape[0]
            if s.shape[0] < 1 or s[0] != 0 or np.any(np.diff(s) < 0) or s[-1] != size:
                raise errors.InvalidArgumentError(
                    None, None, f"Invalid RaggedTensor splits at level {level}")
        # The index path of every row of the current level, starting at the outer rows.
        paths = np.arange(splits[0].shape[0] - 1, dtype=np.int64)[:, None]
        widths = [splits[0].shape[0] - 1]
        for s in splits:
            lengths = np.diff(s)
            rows = np.repeat(np.arange(len(lengths)), lengths)
            positions = np.arange(s[-1]) - s[:-1][rows]
            paths = np.concatenate([paths[rows], positions[:, None]], axis=1)
            widths.append(int(lengths.max()) if lengths.size else 0)
        inner = values.shape[1:]
        if inner:
            grid = np.stack(np.unravel_index(np.arange(int(np.prod(inner))), inner), axis=1)
            paths = np.concatenate([np.repeat(paths, grid.shape[0], axis=0),
                                    np.tile(grid, (paths.shape[0], 1))], axis=1)
        return (paths.astype(np.int64), values.reshape(-1),
                np.asarray(widths + list(inner), np.int64))

    return compute


@register_kernel("RaggedFillEmptyRows")
def _ragged_fill_empty_rows(ctx: KernelContext):
    del ctx

    def compute(value_rowids, values, nrows, default_value):
        rows = np.asarray(value_rowids, np.int64).reshape(-1)
        vals = np.asarray(values)
        default = np.asarray(default_value)
        if default.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, f"default_value must be a scalar, saw: {list(default.shape)}")
        n_rows = int(np.asarray(nrows))
        if rows.size and n_rows <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Received RaggedTensor with nrows = 0 but value_rowids.shape[0]"
                f" = {rows.size}")
        bad = (rows < 0) | (rows >= n_rows)
        if bad.any():
            i = int(np.argmax(bad))
            raise errors.InvalidArgumentError(
                None, None, f"value_rowids({i}) is invalid: {rows[i]} >= {n_rows}")
        empty = np.bincount(rows, minlength=n_rows)[:n_rows] == 0
        empty_rows = np.flatnonzero(empty)
        all_rows = np.concatenate([rows, empty_rows])
        all_vals = np.concatenate([vals, np.full(empty_rows.size, default, vals.dtype)])
        order = np.argsort(all_rows, kind="stable")
        reverse = np.empty(order.size, np.int64)
        reverse[order] = np.arange(order.size)
        return all_rows[order], all_vals[order], empty, reverse[:rows.size]

    return compute


@register_kernel("RaggedFillEmptyRowsGrad")
def _ragged_fill_empty_rows_grad(ctx: KernelContext):
    del ctx

    def compute(reverse_index_map, grad_values):
        grad = np.asarray(grad_values)
        rmap = np.asarray(reverse_index_map, np.int64)
        filled = np.ones(grad.shape[0], bool)
        filled[rmap] = False  # the entries the op added for empty rows
        return grad[rmap], np.asarray(grad[filled].sum(), grad.dtype)

    return compute
