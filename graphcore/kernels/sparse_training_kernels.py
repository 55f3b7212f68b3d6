"""CPU (numpy) kernels of the sparse training ops (:mod:`graphcore.ops.sparse_training_ops`).

Only the rows ``indices`` of the variable and its slots change: they are gathered, updated
with TF's per-row formulas and written back, in place under the refs' locks (ref
variables) or copy-on-write (resource variables, whose reads are snapshots). Repeated
indices update their row once per occurrence, in order, as TF's loop over ``indices`` does.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext
from graphcore.kernels.training_kernels import (
    _Locked,
    _not_same_shape,
    _scalar,
    register_ref_and_resource,
    store_updated,
)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _check_grad(var: np.ndarray, grad: np.ndarray, indices: np.ndarray) -> None:
    if indices.ndim != 1:
        raise _invalid(f"indices must be one-dimensional: {_shape_text(indices.shape)}")
    if var.ndim < 1:
        raise _invalid("var must be at least 1 dimensional")
    if grad.ndim < 1 or grad.shape[0] != indices.shape[0]:
        raise _invalid("grad must be the same size as indices in the first dimension.")
    if grad.shape[1:] != var.shape[1:]:
        raise _invalid(f"var and grad must match in dimension 1: var.shape "
                       f"{_shape_text(var.shape)} grad.shape {_shape_text(grad.shape)}")
    n = var.shape[0]
    bad = (indices < 0) | (indices >= n)
    if bad.any():
        i = int(np.argmax(bad))
        raise _invalid(f"Index {indices[i]} at offset {i} in indices is out of range")


def _sparse_training_kernel(op_type: str, refs: tuple[str, ...], values: tuple[str, ...],
                            update: Callable[..., None], bool_attrs: tuple[str, ...] = ()) -> None:
    """Registers ``op_type`` (ref variables) and ``Resource<op_type>`` (handles).

    ``update(flags, *ref_rows, *scalars, grad_rows)`` updates the gathered rows in place;
    ``values`` names the op's non-ref inputs in order, ``grad`` among them (``indices``
    follows it in the op and is not listed)."""
    n_refs = len(refs)
    grad_pos = values.index("grad")

    def make_factory(copy_on_write: bool):
        def factory(ctx: KernelContext):
            flags = {name: ctx.node_def.attr[name].b for name in bool_attrs}

            def compute(*inputs):
                ref_states = inputs[:n_refs]
                rest = list(inputs[n_refs:])
                indices = np.asarray(rest.pop(grad_pos + 1)).astype(np.int64, copy=False)
                with ref_states[0].lock if n_refs == 1 else _Locked(ref_states):
                    var = ref_states[0].read()
                    for name, state in zip(refs[1:], ref_states[1:]):
                        if state.read().shape != var.shape:
                            raise _not_same_shape(name, var.shape, state.value.shape)
                    grad = np.asarray(rest[grad_pos]).astype(var.dtype, copy=False)
                    _check_grad(var, grad, indices)
                    scalars = [_scalar(name, value, var.dtype)
                               for name, value in zip(values, rest) if name != "grad"]
                    owned = [s.value_to_update(copy_on_write) for s in ref_states]
                    if np.unique(indices).size == indices.size:
                        rows = [a[indices] for a in owned]
                        update(flags, *rows, *scalars, grad)
                        for a, r in zip(owned, rows):
                            a[indices] = r
                    else:
                        for i, index in enumerate(indices):
                            rows = [a[index:index + 1] for a in owned]
                            update(flags, *rows, *scalars, grad[i:i + 1])
                    return store_updated(ref_states, owned, copy_on_write)

            return compute

        return factory

    register_ref_and_resource(op_type, make_factory)


def _momentum(flags, var, accum, lr, momentum, grad):
    accum *= momentum
    accum += grad
    if flags["use_nesterov"]:
        var -= grad * lr + accum * momentum * lr
    else:
        var -= accum * lr


def _adagrad(flags, var, accum, lr, grad):
    if flags["update_slots"]:
        accum += np.square(grad)
    var -= grad * lr * (var.dtype.type(1) / np.sqrt(accum))


def _rms_prop(flags, var, ms, mom, lr, rho, momentum, epsilon, grad):
    one = var.dtype.type(1)
    ms[...] = ms * rho + np.square(grad) * (one - rho)
    mom[...] = mom * momentum + (one / np.sqrt(ms + epsilon)) * lr * grad
    var -= mom


def _centered_rms_prop(flags, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    one = var.dtype.type(1)
    ms[...] = ms * rho + np.square(grad) * (one - rho)
    mg[...] = mg * rho + grad * (one - rho)
    denom = ms - np.square(mg) + epsilon
    mom[...] = mom * momentum + (one / np.sqrt(denom)) * lr * grad
    var -= mom


_sparse_training_kernel("SparseApplyMomentum", ("var", "accum"), ("lr", "grad", "momentum"),
                        _momentum, ("use_nesterov",))
_sparse_training_kernel("SparseApplyAdagrad", ("var", "accum"), ("lr", "grad"), _adagrad,
                        ("update_slots",))
_sparse_training_kernel("SparseApplyRMSProp", ("var", "ms", "mom"),
                        ("lr", "rho", "momentum", "epsilon", "grad"), _rms_prop)
_sparse_training_kernel("SparseApplyCenteredRMSProp", ("var", "mg", "ms", "mom"),
                        ("lr", "rho", "momentum", "epsilon", "grad"), _centered_rms_prop)
