"""CPU kernels of TopKV2 and ApproxTopK (:mod:`graphcore.ops.sort_ops`): a stable argsort,
so equal values keep the lower index first, as TF's; ApproxTopK is computed exactly."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("TopKV2")
def _top_k(ctx: KernelContext):
    index_type = np.dtype(ctx.output_types[1].as_numpy_dtype)

    def compute(x, k):
        x = np.asarray(x)
        k = int(np.asarray(k))
        if k < 0:
            raise errors.InvalidArgumentError(None, None, f"Need k >= 0, got {k}")
        if x.ndim < 1:
            raise errors.InvalidArgumentError(
                None, None, f"input must be >= 1-D, got shape "
                            f"[{','.join(str(d) for d in x.shape)}]")
        n = x.shape[-1]
        if n < k:
            raise errors.InvalidArgumentError(
                None, None, f"input must have at least k columns. Had {n}, needed {k}")
        # A stable ascending sort of the reversed row, read backwards: descending values,
        # equal values in increasing index order.
        order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1][..., :k]
        indices = (n - 1 - order).astype(index_type)
        values = np.take_along_axis(x, indices.astype(np.intp), axis=-1)
        return (values, indices)

    return compute


@register_kernel("ApproxTopK")
def _approx_top_k(ctx: KernelContext):
    k, axis = ctx.attr("k"), ctx.attr("reduction_dimension")
    is_max = ctx.attr("is_max_k")

    def compute(x):
        x = np.asarray(x)
        a = axis % x.ndim
        moved = np.moveaxis(x, a, -1)
        if moved.shape[-1] < k:
            raise errors.InvalidArgumentError(
                None, None, f"input must have at least k elements along reduction_dimension."
                            f" Had {moved.shape[-1]}, needed {k}")
        if is_max:
            n = moved.shape[-1]
            order = n - 1 - np.argsort(moved[..., ::-1], axis=-1, kind="stable")[..., ::-1]
        else:
            order = np.argsort(moved, axis=-1, kind="stable")
        indices = order[..., :k]
        values = np.take_along_axis(moved, indices, axis=-1)
        return (np.ascontiguousarray(np.moveaxis(values, -1, a)),
                np.ascontiguousarray(np.moveaxis(indices, -1, a)).astype(np.int32))

    return compute
