"""CPU kernel of CheckNumerics (:mod:`graphcore.ops.check_ops`)."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("CheckNumerics")
def _check_numerics(ctx: KernelContext):
    message = ctx.attr("message")
    message = message.decode() if isinstance(message, bytes) else message

    def compute(x):
        a = np.asarray(x)
        nan, inf = bool(np.isnan(a).any()), bool(np.isinf(a).any())
        if nan or inf:
            what = "Inf and NaN" if nan and inf else "NaN" if nan else "Inf"
            raise errors.InvalidArgumentError(None, None,
                                              f"{message} : Tensor had {what} values")
        return (x,)

    return compute
