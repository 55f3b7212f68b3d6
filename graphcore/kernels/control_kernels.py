"""CPU kernels of the control ops."""

from __future__ import annotations

import numpy as np

from graphcore.kernels.registry import DEAD, KernelContext, register_kernel


@register_kernel("NoOp")
def _no_op(ctx: KernelContext):
    del ctx
    return lambda: ()


def _switch(ctx: KernelContext):
    del ctx

    def compute(data, pred):
        return (DEAD, data) if bool(pred) else (data, DEAD)

    return compute


register_kernel("Switch")(_switch)
register_kernel("RefSwitch")(_switch)


@register_kernel("Merge")
def _merge(ctx: KernelContext):
    del ctx

    def compute(*inputs):
        for i, value in enumerate(inputs):
            if value is not DEAD:
                return (value, np.int32(i))
        return (DEAD, DEAD)

    return compute
