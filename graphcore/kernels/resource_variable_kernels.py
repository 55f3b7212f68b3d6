"""CPU kernels of the resource-variable ops (:mod:`graphcore.ops.resource_variable_ops`).

A handle is the task's :class:`VariableState` for (container, shared_name), as a ref
variable's is; a read returns the stored array and writes are copy-on-write, so a value
read earlier in the step stays what it was (TF's resource-variable snapshots).
"""

from __future__ import annotations

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.kernels.array_kernels import gather
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.state_kernels import variable_kernel


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _read(state, node: str):
    value = state.value
    if value is None:
        raise errors.FailedPreconditionError(
            None, None, f"Could not find variable {state.name}. This could mean that the "
                        "variable has been deleted. In TF1, it can also mean the variable is "
                        f"uninitialized. Debug info: container=localhost, status error "
                        f"message=Resource localhost/{state.name} does not exist. "
                        f"(reading it in {node})")
    return value


def _check_dtype(state, dtype: np.dtype, verb: str) -> None:
    if np.dtype(state.dtype) != dtype:
        raise errors.InvalidArgumentError(
            None, None, f"Trying to {verb} variable with wrong dtype. Expected "
                        f"{dtypes_lib.as_dtype(state.dtype).name} got "
                        f"{dtypes_lib.as_dtype(dtype).name}")


register_kernel("VarHandleOp")(variable_kernel)


@register_kernel("ReadVariableOp")
def _read_variable(ctx: KernelContext):
    dtype = np.dtype(ctx.attr("dtype").as_numpy_dtype)
    name = ctx.name

    def compute(state):
        _check_dtype(state, dtype, "read")
        return (_read(state, name),)

    return compute


@register_kernel("AssignVariableOp")
def _assign_variable(ctx: KernelContext):
    dtype = np.dtype(ctx.attr("dtype").as_numpy_dtype)
    validate = ctx.node_def.attr["validate_shape"].b

    def compute(state, value):
        _check_dtype(state, dtype, "assign")
        with state.lock:
            old = state.value
            if validate and old is not None and np.shape(value) != old.shape:
                raise errors.InvalidArgumentError(
                    None, None, f"Trying to assign to variable with tensor with wrong shape. "
                                f"Expected {_shape_text(old.shape)} got "
                                f"{_shape_text(np.shape(value))}")
            state.assign(value, copy_on_write=True)
        return ()

    return compute


def _update_kernel(ufunc):
    def factory(ctx: KernelContext):
        dtype = np.dtype(ctx.attr("dtype").as_numpy_dtype)
        name = ctx.name

        def compute(state, value):
            _check_dtype(state, dtype, "update")
            with state.lock:
                old = _read(state, name)
                if np.shape(value) != old.shape:
                    raise errors.InvalidArgumentError(
                        None, None, f"Cannot update variable with shape "
                                    f"{_shape_text(old.shape)} using a Tensor with shape "
                                    f"{_shape_text(np.shape(value))}, shapes must be equal.")
                owned = state.value_to_update(copy_on_write=True)
                ufunc(owned, value, out=owned, casting="unsafe")
                state.set(owned)
            return ()

        return compute

    return factory


register_kernel("AssignAddVariableOp")(_update_kernel(np.add))
register_kernel("AssignSubVariableOp")(_update_kernel(np.subtract))


@register_kernel("VarIsInitializedOp")
def _is_initialized(ctx: KernelContext):
    del ctx
    return lambda state: (np.asarray(state.initialized),)


@register_kernel("VariableShape")
def _variable_shape(ctx: KernelContext):
    out_type = ctx.attr("out_type").as_numpy_dtype
    name = ctx.name
    return lambda state: (np.asarray(_read(state, name).shape, dtype=out_type),)


@register_kernel("DestroyResourceOp")
def _destroy(ctx: KernelContext):
    ignore_missing = ctx.node_def.attr["ignore_lookup_error"].b

    def compute(state):
        with state.lock:
            if state.value is None and not ignore_missing:
                raise errors.NotFoundError(
                    None, None, f"Resource localhost/{state.name} does not exist.")
            state.value = None
        return ()

    return compute


@register_kernel("ResourceGather")
def _resource_gather(ctx: KernelContext):
    batch_dims = ctx.node_def.attr["batch_dims"].i
    name = ctx.name
    return lambda state, indices: (gather(_read(state, name), indices, batch_dims,
                                          batch_dims),)
