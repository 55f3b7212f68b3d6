"""CPU (numpy) kernels of the dense training ops (:mod:`graphcore.train.training_ops`).

Each kernel takes the variable and its slots as :class:`VariableState` refs, checks the
shapes as TF's kernels do, computes the new values (in the variable's dtype, with TF's
order of operations) in place, in the stored arrays when no reader holds them, and swaps
them in under the refs' locks; it returns the variable's ref.  Updates always lock, which
satisfies ``use_locking`` either way.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import intra_op
from graphcore.kernels.registry import KernelContext, register_kernel

_TYPES = ("half", "bfloat16", "float32", "float64", "complex64", "complex128")


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _is_legacy_scalar(shape: tuple) -> bool:
    return len(shape) == 0 or (len(shape) == 1 and shape[0] == 1)


class _Locked:
    """Holds the locks of several refs (each once, in a fixed order)."""

    def __init__(self, refs: tuple):
        unique = {id(r): r for r in refs}
        self._locks = [unique[k].lock for k in sorted(unique)]

    def __enter__(self) -> None:
        for lock in self._locks:
            lock.acquire()

    def __exit__(self, *exc) -> None:
        for lock in reversed(self._locks):
            lock.release()


class _Scratch:
    """Temporaries of one kernel, kept between steps: fresh multi-MB arrays cost a page
    fault per 4 KB on first touch, more than the arithmetic. Used under the refs' locks,
    so one kernel's steps never share them at once."""

    def __init__(self) -> None:
        self._arrays: dict[tuple, list[np.ndarray]] = {}

    def like(self, var: np.ndarray) -> Callable[[int], np.ndarray]:
        arrays = self._arrays.setdefault((var.shape, var.dtype), [])

        def get(i: int) -> np.ndarray:
            while len(arrays) <= i:
                arrays.append(np.empty_like(var))
            return arrays[i]

        return get


def _not_same_shape(name: str, shape: tuple, other: tuple) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        None, None, f"var and {name} do not have the same shape"
                    f"{_shape_text(shape)} {_shape_text(other)}")


def _tensor(name: str, value, shape: tuple, dtype: np.dtype) -> np.ndarray:
    arr = np.asarray(value)
    if arr.shape != shape:
        raise _not_same_shape(name, shape, arr.shape)
    return arr.astype(dtype, copy=False)


def _scalar(name: str, value, dtype: np.dtype):
    arr = np.asarray(value)
    if not _is_legacy_scalar(arr.shape):
        raise errors.InvalidArgumentError(None, None,
                                          f"{name} is not a scalar: {_shape_text(arr.shape)}")
    return dtype.type(arr.reshape(())[()])


def _training_kernel(op_type: str, refs: tuple[str, ...], values: tuple[str, ...],
                     update: Callable[..., None], bool_attrs: tuple[str, ...] = ()) -> None:
    """Registers the CPU kernels of ``op_type`` (ref variables, updated in place as TF's)
    and of ``Resource<op_type>`` (resource variables: no output, and copy-on-write, since
    TF's reads of a resource variable are snapshots).

    ``update(tmp, flags, *ref_arrays, *value_arrays)`` (inputs in the op's order) writes
    the new values into the ref arrays, which it owns (writable: the stored arrays when
    nothing else holds them, else copies); ``tmp(i)`` is the i-th scratch array shaped
    like the variable. Every value but ``grad``/``delta`` is a scalar. Updates follow
    TF's order of operations, one rounding per operation as Eigen's expressions do.
    """

    n_refs = len(refs)
    is_tensor = tuple(name in ("grad", "delta") for name in values)

    def make_factory(copy_on_write: bool):
        def factory(ctx: KernelContext):
            flags = {name: ctx.node_def.attr[name].b for name in bool_attrs}
            scratch = _Scratch()
            fast = None if copy_on_write or n_refs != 1 else \
                _in_place_update(update, flags, is_tensor)

            def compute(*inputs):
                if fast is not None:
                    done = fast(inputs)
                    if done is not None:
                        return done
                ref_states = inputs[:n_refs]
                with ref_states[0].lock if n_refs == 1 else _Locked(ref_states):
                    shape = ref_states[0].read().shape
                    dtype = ref_states[0].value.dtype
                    for name, state in zip(refs[1:], ref_states[1:]):
                        if state.read().shape != shape:
                            raise _not_same_shape(name, shape, state.value.shape)
                    converted = [_tensor(name, value, shape, dtype) if tensor
                                 else _scalar(name, value, dtype)
                                 for name, value, tensor in zip(values, inputs[n_refs:],
                                                                is_tensor)]
                    owned = [s.value_to_update(copy_on_write) for s in ref_states]
                    _update(update, scratch.like(owned[0]), flags, owned, converted)
                    return store_updated(ref_states, owned, copy_on_write)

            return compute

        return factory

    register_ref_and_resource(op_type, make_factory)


def _in_place_update(update: Callable[..., None], flags: dict,
                     is_tensor: tuple[bool, ...]) -> Callable[[tuple], tuple | None]:
    """The common case of a one-ref update (ApplyGradientDescent) without the general
    path's conversions: a ref variable whose stored array owns its memory, tensors of
    its shape and dtype, 0-d scalars of its dtype, fewer values than intra-op threads
    split.  ``fast(inputs)`` returns the outputs, or None where the general path must
    run (it checks and converts)."""
    tmp: list[np.ndarray] = []

    def scratch(i: int) -> np.ndarray:
        return tmp[i]

    def fast(inputs: tuple) -> tuple | None:
        state = inputs[0]
        with state.lock:
            var = state.value
            if type(var) is not np.ndarray or var.base is not None or \
                    var.size >= intra_op.MIN_ELEMENTS:
                return None
            values = []
            for value, tensor in zip(inputs[1:], is_tensor):
                if type(value) is not np.ndarray or value.dtype != var.dtype or \
                        value.shape != (var.shape if tensor else ()):
                    return None
                values.append(value if tensor else value[()])
            if not tmp or tmp[0].shape != var.shape or tmp[0].dtype != var.dtype:
                tmp[:] = [np.empty_like(var)]
            var.flags.writeable = True
            try:
                update(scratch, flags, var, *values)
            finally:
                var.flags.writeable = False
        return (state,)

    return fast


def register_ref_and_resource(op_type: str, make_factory: Callable) -> None:
    """Registers ``make_factory(False)`` for ``op_type`` (ref variables, in place) and
    ``make_factory(True)`` for ``Resource<op_type>`` (copy-on-write), over TF's float types."""
    for copy_on_write, name in ((False, op_type), (True, "Resource" + op_type)):
        register_kernel(name, "CPU", constraints={"T": _TYPES})(make_factory(copy_on_write))


def store_updated(ref_states: tuple, owned: list, copy_on_write: bool) -> tuple:
    """Stores each updated array in its ref; the kernel's outputs (the variable's ref for
    ref variables, nothing for resource variables)."""
    for state, arr in zip(ref_states, owned):
        state.set(arr)
    return () if copy_on_write else (ref_states[0],)


def _update(update: Callable[..., None], tmp: Callable[[int], np.ndarray], flags: dict,
            owned: list[np.ndarray], values: list) -> None:
    """``update`` over the whole variable, or (a large, C-ordered one) over ranges of it
    on the intra-op threads: the math is elementwise and in place, so each thread updates
    its own range of every array."""
    arrays = owned + [v for v in values if np.ndim(v)]
    n = owned[0].size
    if n < intra_op.MIN_ELEMENTS or intra_op.threads() <= 1 or \
            not all(a.flags.c_contiguous for a in arrays):
        update(tmp, flags, *owned, *values)
        return
    flat_owned = [a.reshape(-1) for a in owned]
    flat_values = [v.reshape(-1) if np.ndim(v) else v for v in values]

    def run(lo: int, hi: int) -> None:
        update(lambda i: tmp(i).reshape(-1)[lo:hi], flags, *[a[lo:hi] for a in flat_owned],
               *[v[lo:hi] if np.ndim(v) else v for v in flat_values])

    intra_op.map_ranges(run, n)


def _gradient_descent(tmp, flags, var, alpha, delta):
    var -= np.multiply(delta, alpha, out=tmp(0))


def _momentum(tmp, flags, var, accum, lr, grad, momentum):
    accum *= momentum
    accum += grad
    if flags["use_nesterov"]:  # var - (grad * lr + accum * momentum * lr)
        t = np.multiply(grad, lr, out=tmp(0))
        u = np.multiply(accum, momentum, out=tmp(1))
        u *= lr
        t += u
        var -= t
    else:
        var -= np.multiply(accum, lr, out=tmp(0))


def _adagrad(tmp, flags, var, accum, lr, grad):
    if flags["update_slots"]:
        accum += np.square(grad, out=tmp(0))
    t = np.multiply(grad, lr, out=tmp(0))  # grad * lr * (1 / sqrt(accum))
    u = np.sqrt(accum, out=tmp(1))
    np.divide(var.dtype.type(1), u, out=u)
    t *= u
    var -= t


def _adagrad_v2(tmp, flags, var, accum, lr, epsilon, grad):
    if flags["update_slots"]:
        accum += np.square(grad, out=tmp(0))
    t = np.multiply(grad, lr, out=tmp(0))  # grad * lr / (sqrt(accum) + epsilon)
    u = np.sqrt(accum, out=tmp(1))
    u += epsilon
    t /= u
    var -= t


def _adam(tmp, flags, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    one = var.dtype.type(1)
    alpha = lr * np.sqrt(one - beta2_power) / (one - beta1_power)
    t, u = tmp(0), tmp(1)
    np.subtract(grad, m, out=t)  # m + (grad - m) * (1 - beta1)
    t *= one - beta1
    m += t
    np.square(grad, out=t)  # v + (grad^2 - v) * (1 - beta2)
    t -= v
    t *= one - beta2
    v += t
    if flags["use_nesterov"]:  # ((grad * (1 - beta1) + beta1 * m) * alpha) / (sqrt(v) + eps)
        np.multiply(grad, one - beta1, out=t)
        t += np.multiply(beta1, m, out=u)
        t *= alpha
    else:  # (m * alpha) / (sqrt(v) + eps)
        np.multiply(m, alpha, out=t)
    np.sqrt(v, out=u)
    u += epsilon
    t /= u
    var -= t


def _rms_prop(tmp, flags, var, ms, mom, lr, rho, momentum, epsilon, grad):
    t, u = tmp(0), tmp(1)
    np.square(grad, out=t)  # ms + (grad^2 - ms) * (1 - rho)
    t -= ms
    t *= var.dtype.type(1) - rho
    ms += t
    mom *= momentum  # mom * momentum + (grad * lr) / sqrt(ms + epsilon)
    np.multiply(grad, lr, out=t)
    np.add(ms, epsilon, out=u)
    np.sqrt(u, out=u)
    t /= u
    mom += t
    var -= mom


def _centered_rms_prop(tmp, flags, var, mg, ms, mom, lr, rho, momentum, epsilon, grad):
    one_minus_rho = var.dtype.type(1) - rho
    t, u = tmp(0), tmp(1)
    np.square(grad, out=t)  # ms + (grad^2 - ms) * (1 - rho)
    t -= ms
    t *= one_minus_rho
    ms += t
    np.subtract(grad, mg, out=t)  # mg + (grad - mg) * (1 - rho)
    t *= one_minus_rho
    mg += t
    np.square(mg, out=u)  # (ms - mg^2) + epsilon
    np.subtract(ms, u, out=u)
    u += epsilon
    mom *= momentum  # mom * momentum + (grad * lr) / sqrt(denom)
    np.multiply(grad, lr, out=t)
    np.sqrt(u, out=u)
    t /= u
    mom += t
    var -= mom


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
