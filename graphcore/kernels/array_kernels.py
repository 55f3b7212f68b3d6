"""CPU kernels of the array ops."""

from __future__ import annotations

from graphcore.framework import errors, tensor_util
from graphcore.kernels.registry import KernelContext, register_kernel


def identity_kernel(ctx: KernelContext):
    del ctx
    return lambda x: (x,)


@register_kernel("Const")
def _const(ctx: KernelContext):
    value = tensor_util.MakeNdarray(ctx.node_def.attr["value"].tensor)
    value.flags.writeable = False  # shared by every step: nobody may write into it
    out = (value,)
    return lambda: out


@register_kernel("Placeholder")
def _placeholder(ctx: KernelContext):
    dtype = ctx.attr("dtype")
    shape = ctx.node_def.attr["shape"].shape
    if shape.unknown_rank:
        shape_text = ""
    else:
        dims = ",".join(str(d.size) if d.size >= 0 else "?" for d in shape.dim)
        shape_text = f" and shape [{dims}]"
    message = (f"You must feed a value for placeholder tensor '{ctx.name}' with dtype "
               f"{dtype.name}{shape_text}")

    def compute():
        raise errors.InvalidArgumentError(ctx.node_def, None, message)

    return compute


register_kernel("Identity")(identity_kernel)
register_kernel("PlaceholderWithDefault")(identity_kernel)
