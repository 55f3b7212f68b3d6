"""CPU (numpy) kernels of the dense training ops (:mod:`graphcore.train.training_ops`).

Each kernel takes the variable and its slots as :class:`VariableState` refs, checks the
shapes as TF's kernels do, computes the new values (in the variable's dtype, with TF's
order of operations) and swaps them in under the refs' locks; it returns the variable's
ref.  Updates always lock, which satisfies ``use_locking`` either way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_TYPES = ("half", "bfloat16", "float32", "float64", "complex64", "complex128")


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _is_legacy_scalar(shape: tuple) -> bool:
    return len(shape) == 0 or (len(shape) == 1 and shape[0] == 1)


class _Locked:
    """Holds the locks of several refs (each once, in a fixed order)."""

    def __init__(self, refs: list):
        unique = {id(r): r for r in refs}
        self._locks = [unique[k].lock for k in sorted(unique)]

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc) -> None:
        for lock in reversed(self._locks):
            lock.release()


def _training_kernel(op_type: str, refs: tuple[str, ...], values: tuple[str, ...],
                     update: Callable[..., tuple], bool_attrs: tuple[str, ...] = ()) -> None:
    """Registers the CPU kernel of ``op_type``.

    ``update(dtype, flags, *ref_arrays, *value_arrays)`` (inputs in the op's order)
    returns the new arrays of the refs.  Every value but ``grad``/``delta`` is a scalar.
    """

    def factory(ctx: KernelContext):
        flags = {name: ctx.node_def.attr[name].b for name in bool_attrs}

        def compute(*inputs):
            ref_states = inputs[:len(refs)]
            vals = inputs[len(refs):]
            with _Locked(list(ref_states)):
                current = [s.read() for s in ref_states]
                var = current[0]
                dtype = var.dtype
                for name, arr in zip(refs[1:], current[1:]):
                    if arr.shape != var.shape:
                        raise errors.InvalidArgumentError(
                            None, None, f"var and {name} do not have the same shape"
                                        f"{_shape_text(var.shape)} {_shape_text(arr.shape)}")
                converted = []
                for name, value in zip(values, vals):
                    arr = np.asarray(value)
                    if name in ("grad", "delta"):
                        if arr.shape != var.shape:
                            raise errors.InvalidArgumentError(
                                None, None, f"var and {name} do not have the same shape"
                                            f"{_shape_text(var.shape)} "
                                            f"{_shape_text(arr.shape)}")
                        converted.append(arr.astype(dtype, copy=False))
                    else:
                        if not _is_legacy_scalar(arr.shape):
                            raise errors.InvalidArgumentError(
                                None, None,
                                f"{name} is not a scalar: {_shape_text(arr.shape)}")
                        converted.append(dtype.type(arr.reshape(())[()]))
                new = update(dtype, flags, *current, *converted)
                for state, arr in zip(ref_states, new):
                    if arr is not None:
                        state.set(np.asarray(arr, dtype=dtype).reshape(var.shape))
            return (ref_states[0],)

        return compute

    register_kernel(op_type, "CPU", constraints={"T": _TYPES})(factory)


def _gradient_descent(dtype, flags, var, alpha, delta):
    return (var - delta * alpha,)


def _momentum(dtype, flags, var, accum, lr, grad, momentum):
    accum = accum * momentum + grad
    if flags["use_nesterov"]:
        var = var - (grad * lr + accum * momentum * lr)
    else:
        var = var - accum * lr
    return var, accum


def _adagrad(dtype, flags, var, accum, lr, grad):
    if flags["update_slots"]:
        accum = accum + np.square(grad)
    var = var - grad * lr * (dtype.type(1) / np.sqrt(accum))
    return var, accum


def _adagrad_v2(dtype, flags, var, accum, lr, epsilon, grad):
    if flags["update_slots"]:
        accum = accum + np.square(grad)
    var = var - grad * lr / (np.sqrt(accum) + epsilon)
    return var, accum


def _adam(dtype, flags, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    one = dtype.type(1)
    alpha = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    m = m + (grad - m) * (one - beta1)
    v = v + (np.square(grad) - v) * (one - beta2)
    if flags["use_nesterov"]:
        var = var - ((grad * (one - beta1) + beta1 * m) * alpha) / (np.sqrt(v) + epsilon)
    else:
        var = var - (m * alpha) / (np.sqrt(v) + epsilon)
    return var, m, v


def _rms_prop(dtype, flags, var, ms, mom, lr, rho, momentum, epsilon, grad):
    ms = ms + (np.square(grad) - ms) * (dtype.type(1) - rho)
    mom = mom * momentum + (grad * lr) / np.sqrt(ms + epsilon)
    return var - mom, ms, mom


def _centered_rms_prop(dtype, flags, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    one_minus_rho = dtype.type(1) - rho
    ms = ms + (np.square(grad) - ms) * one_minus_rho
    mg = mg + (grad - mg) * one_minus_rho
    denom = (ms - np.square(mg)) + epsilon
    mom = mom * momentum + (grad * lr) / np.sqrt(denom)
    return var - mom, mg, ms, mom


_training_kernel("ApplyGradientDescent", ("var",), ("alpha", "delta"), _gradient_descent)
_training_kernel("ApplyMomentum", ("var", "accum"), ("lr", "grad", "momentum"), _momentum,
                 ("use_nesterov",))
_training_kernel("ApplyAdagrad", ("var", "accum"), ("lr", "grad"), _adagrad, ("update_slots",))
_training_kernel("ApplyAdagradV2", ("var", "accum"), ("lr", "epsilon", "grad"), _adagrad_v2,
                 ("update_slots",))
_training_kernel("ApplyAdam", ("var", "m", "v"),
                 ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon", "grad"),
                 _adam, ("use_nesterov",))
_training_kernel("ApplyRMSProp", ("var", "ms", "mom"),
                 ("lr", "rho", "momentum", "epsilon", "grad"), _rms_prop)
_training_kernel("ApplyCenteredRMSProp", ("var", "mg", "ms", "mom"),
                 ("lr", "rho", "momentum", "epsilon", "grad"), _centered_rms_prop)
