"""Kernels of the runtime's own nodes: step arguments/results and Send/Recv."""

from __future__ import annotations

from graphcore.framework.rendezvous_key import rendezvous_key_from_attrs
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("_Arg", "CPU", needs_step=True)
def _arg(ctx: KernelContext):
    index = ctx.node_def.attr["index"].i
    return lambda step: (step.args[index],)


@register_kernel("_Retval", "CPU", needs_step=True)
@register_kernel("_Retval", "GPU", needs_step=True)
def _retval(ctx: KernelContext):
    index = ctx.node_def.attr["index"].i

    def compute(step, value):
        step.retvals[index] = value
        return ()

    return compute


@register_kernel("_Send", "CPU", needs_step=True)
@register_kernel("_Send", "GPU", needs_step=True)
def _send(ctx: KernelContext):
    slot = ctx.rendezvous_slots[rendezvous_key_from_attrs(ctx.node_def)]

    def compute(step, value):
        step.rendezvous.send(slot, value)
        return ()

    return compute


@register_kernel("_Recv", "CPU", needs_step=True)
def _recv(ctx: KernelContext):
    slot = ctx.rendezvous_slots[rendezvous_key_from_attrs(ctx.node_def)]
    send_device = ctx.node_def.attr["send_device"].s
    if b"device:GPU" in send_device:
        from graphcore.kernels.gpu_kernels import to_host

        return lambda step: (to_host(step.rendezvous.recv(slot)),)
    return lambda step: (step.rendezvous.recv(slot),)
