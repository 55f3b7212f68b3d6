"""CPU kernel of CountUpTo (:mod:`graphcore.ops.count_up_to_ops`)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("CountUpTo")
def _count_up_to(ctx: KernelContext):
    limit = ctx.node_def.attr["limit"].i

    def compute(ref):
        with ref.lock:
            # A copy: the assign writes into the stored array.
            before = np.array(ref.read(), copy=True)
            if before >= limit:
                raise errors.OutOfRangeError(None, None, f"Reached limit of {limit}")
            ref.assign(before + 1)
        return (before,)

    return compute
