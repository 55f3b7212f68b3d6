"""CuPy kernels for GPU devices, registered only when CuPy imports and sees a GPU.

Tensors on a GPU device are ``cupy.ndarray``; _Recv/_Arg on a GPU move host arrays to
the device, and _Recv on a CPU (and the session's fetch) move device arrays back.
"""

from __future__ import annotations

from graphcore.framework import tensor_util
from graphcore.framework.rendezvous_key import rendezvous_key_from_attrs
from graphcore.kernels.registry import KernelContext, register_kernel

try:
    import cupy as cp
except Exception:  # pragma: no cover - depends on the machine
    cp = None

def gpu_count() -> int:
    """GPUs CuPy can see (0 when CuPy is absent or no GPU is visible)."""
    try:
        import cupy  # noqa: F401
        from cupy.cuda import runtime

        return int(runtime.getDeviceCount())
    except Exception:
        return 0


AVAILABLE = cp is not None and gpu_count() > 0


def to_host(value):
    """A numpy array for a CuPy array; anything else unchanged."""
    if cp is not None and isinstance(value, cp.ndarray):
        return value.get()
    return value


def _register() -> None:
    def binary(fn):
        def factory(ctx: KernelContext):
            del ctx
            return lambda x, y: (fn(x, y),)
        return factory

    def unary(fn):
        def factory(ctx: KernelContext):
            del ctx
            return lambda x: (fn(x),)
        return factory

    @register_kernel("Const", "GPU")
    def _const(ctx: KernelContext):
        out = (cp.asarray(tensor_util.MakeNdarray(ctx.node_def.attr["value"].tensor)),)
        return lambda: out

    register_kernel("Identity", "GPU")(unary(lambda x: x))
    register_kernel("PlaceholderWithDefault", "GPU")(unary(lambda x: x))
    register_kernel("AddV2", "GPU")(binary(cp.add))
    register_kernel("LogicalNot", "GPU")(unary(cp.logical_not))

    @register_kernel("NoOp", "GPU")
    def _no_op(ctx: KernelContext):
        del ctx
        return lambda: ()

    @register_kernel("_Arg", "GPU", needs_step=True)
    def _arg(ctx: KernelContext):
        index = ctx.node_def.attr["index"].i
        return lambda step: (cp.asarray(step.args[index]),)

    @register_kernel("_Recv", "GPU", needs_step=True)
    def _recv(ctx: KernelContext):
        slot = ctx.rendezvous_slots[rendezvous_key_from_attrs(ctx.node_def)]
        return lambda step: (cp.asarray(step.rendezvous.recv(slot)),)


if AVAILABLE:  # pragma: no cover - needs a GPU
    _register()
