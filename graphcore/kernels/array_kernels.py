"""CPU kernels of the array ops."""

from __future__ import annotations

import numpy as np

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


@register_kernel("Pack")
def _pack(ctx: KernelContext):
    axis = ctx.node_def.attr["axis"].i
    return lambda *values: (np.stack(values, axis=axis),)


@register_kernel("Where")
def _where(ctx: KernelContext):
    del ctx
    return lambda x: (np.argwhere(x).astype(np.int64, copy=False),)


@register_kernel("Squeeze")
def _squeeze(ctx: KernelContext):
    axes = tuple(ctx.node_def.attr["squeeze_dims"].list.i)

    def compute(x):
        try:
            return (np.squeeze(x, axis=axes or None),)
        except ValueError:
            raise errors.InvalidArgumentError(
                None, None, f"Can not squeeze dims {list(axes)} of a tensor of shape "
                            f"{list(np.shape(x))}") from None

    return compute


@register_kernel("GatherV2")
def _gather(ctx: KernelContext):
    del ctx

    def compute(params, indices, axis):
        axis = int(axis)
        n = np.shape(params)[axis]
        idx = np.asarray(indices)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            bad = idx[(idx < 0) | (idx >= n)].flat[0]
            raise errors.InvalidArgumentError(
                None, None, f"indices = {bad} is not in [0, {n})")
        return (np.take(params, idx, axis=axis),)

    return compute
