"""CPU kernels of the control ops."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
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


register_kernel("RefMerge")(_merge)


def _forward(ctx: KernelContext):
    """Enter / Exit / NextIteration / LoopCond pass their input on; the executor moves
    the value between frames and iterations."""
    del ctx
    return lambda x: (x,)


for _op in ("Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
            "LoopCond", "RefIdentity"):
    register_kernel(_op)(_forward)


@register_kernel("ControlTrigger")
def _control_trigger(ctx: KernelContext):
    del ctx
    return lambda: ()


def float_text(x) -> str:
    """TF's FloatToBuffer/DoubleToBuffer: the short %g form when it round-trips, else
    the long one (%.6g then %.9g for float, %.15g then %.17g for double)."""
    short, long = (6, 9) if x.dtype.itemsize <= 4 else (15, 17)
    text = f"{x:.{short}g}"
    return text if x.dtype.type(text) == x or x != x else f"{x:.{long}g}"


def _element_text(x) -> str:
    if isinstance(x, bytes):
        return x.decode(errors="replace")
    if isinstance(x, np.floating):
        return float_text(x)
    if isinstance(x, np.bool_):
        return "1" if x else "0"
    return str(x)


def summarize_value(v, summarize: int) -> str:
    """TF's Tensor::SummarizeValue as Assert and Print show a tensor: the first
    ``summarize`` elements (all when negative) space-separated, each dimension but the
    last in brackets, ``...`` where the elements were cut."""
    if isinstance(v, (bytes, np.bytes_)):
        return bytes(v).decode(errors="replace")
    a = np.asarray(v)
    flat = a.reshape(-1)
    limit = a.size if summarize < 0 else min(summarize, a.size)
    if a.ndim == 0:
        text = " ".join(_element_text(x) for x in flat[:limit])
        return text + ("..." if a.size > limit else "")
    out: list[str] = []
    index = 0

    def one_dim(dim: int) -> None:  # TF's PrintOneDim
        nonlocal index
        if index >= limit:
            return
        if dim == a.ndim - 1:
            for i in range(a.shape[dim]):
                if index >= limit:
                    if dim != 0:
                        out.append("...")
                    return
                if i > 0:
                    out.append(" ")
                out.append(_element_text(flat[index]))
                index += 1
            return
        for _ in range(a.shape[dim]):
            opened = index < limit
            if opened:
                out.append("[")
            one_dim(dim + 1)
            if index < limit or opened:
                out.append("]")

    one_dim(0)
    return "".join(out) + ("..." if a.size > limit else "")


@register_kernel("Assert")
def _assert(ctx: KernelContext):
    summarize = ctx.attr("summarize")

    def compute(condition, *data):
        if not bool(np.all(condition)):
            raise errors.InvalidArgumentError(
                None, None, "assertion failed: " + " ".join(
                    f"[{summarize_value(d, summarize)}]" for d in data))
        return ()

    return compute


class _Stack:
    """A StackV2 resource: a list of values, created anew each time StackV2 runs."""

    __slots__ = ("name", "values", "max_size", "closed")

    def __init__(self, name: str, max_size: int):
        self.name = name
        self.values: list = []
        self.max_size = max_size
        self.closed = False

    def __repr__(self) -> str:
        return f"<Stack {self.name} ({len(self.values)} values)>"


@register_kernel("StackV2")
def _stack_v2(ctx: KernelContext):
    name = ctx.attr("stack_name") or ctx.name
    if isinstance(name, bytes):
        name = name.decode()
    return lambda max_size: (_Stack(name, int(max_size)),)


@register_kernel("StackPushV2")
def _stack_push_v2(ctx: KernelContext):
    del ctx

    def compute(handle, elem):
        if handle.max_size >= 0 and len(handle.values) >= handle.max_size:
            raise errors.InvalidArgumentError(
                None, None, f"Stack[{handle.name}] overflowed its max_size "
                            f"({handle.max_size})")
        value = np.array(elem, copy=True) if isinstance(elem, np.ndarray) else elem
        handle.values.append(value)
        return (elem,)

    return compute


@register_kernel("StackPopV2")
def _stack_pop_v2(ctx: KernelContext):
    del ctx

    def compute(handle):
        if not handle.values:
            raise errors.InvalidArgumentError(
                None, None, f"Stack[{handle.name}] is empty when calling Pop().")
        return (handle.values.pop(),)

    return compute


@register_kernel("StackCloseV2")
def _stack_close_v2(ctx: KernelContext):
    del ctx

    def compute(handle):
        handle.closed = True
        handle.values.clear()
        return ()

    return compute
