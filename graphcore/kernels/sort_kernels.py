"""CPU kernel of TopKV2 (:mod:`graphcore.ops.sort_ops`): a stable descending argsort of the
last dimension, so equal values keep the lower index first, as TF's."""

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
