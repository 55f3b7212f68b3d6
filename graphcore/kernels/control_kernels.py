"""CPU kernels of the control ops."""

from __future__ import annotations

from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("NoOp")
def _no_op(ctx: KernelContext):
    del ctx
    return lambda: ()
