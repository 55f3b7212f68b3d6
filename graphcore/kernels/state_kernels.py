"""CPU kernels of the ref-variable ops; state lives in the task's ResourceStore."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def variable_kernel(ctx: KernelContext):
    """The kernel of a variable op (VariableV2, VarHandleOp): the task's variable named by
    its ``container`` and ``shared_name`` (default: the node's name) attrs."""
    attr = ctx.node_def.attr
    shape = attr["shape"].shape
    declared = None if shape.unknown_rank or any(d.size < 0 for d in shape.dim) else \
        tuple(d.size for d in shape.dim)
    state = ctx.resources.variable(attr["container"].s.decode(),
                                   attr["shared_name"].s.decode() or ctx.name,
                                   ctx.attr("dtype").as_numpy_dtype, declared)
    out = (state,)
    return lambda: out


register_kernel("VariableV2")(variable_kernel)


@register_kernel("Assign")
def _assign(ctx: KernelContext):
    validate = ctx.node_def.attr["validate_shape"].b

    def compute(ref, value):
        if validate:
            want = ref.value.shape if ref.value is not None else ref.shape
            if want is not None and np.shape(value) != tuple(want):
                raise errors.InvalidArgumentError(
                    None, None, f"Assign requires shapes of both tensors to match. lhs shape= "
                                f"{_shape_text(want)} rhs shape= "
                                f"{_shape_text(np.shape(value))}")
        with ref.lock:
            ref.assign(value)
        return (ref,)

    return compute


def _update(np_fn, verb: str):
    def factory(ctx: KernelContext):
        del ctx

        def compute(ref, value):
            with ref.lock:
                old = ref.read()
                if np.shape(value) != old.shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"Cannot {verb} a value of shape "
                                    f"{_shape_text(np.shape(value))} to a variable of shape "
                                    f"{_shape_text(old.shape)}: shapes must be equal")
                owned = ref.value_to_update()
                np_fn(owned, value, out=owned, casting="unsafe")
                ref.set(owned)
            return (ref,)

        return compute

    return factory


register_kernel("AssignAdd")(_update(np.add, "add"))
register_kernel("AssignSub")(_update(np.subtract, "subtract"))


@register_kernel("IsVariableInitialized")
def _is_initialized(ctx: KernelContext):
    del ctx
    return lambda ref: (np.asarray(ref.initialized),)
