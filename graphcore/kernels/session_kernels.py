"""Kernels of GetSessionHandle / GetSessionTensor / DeleteSessionTensor
(:mod:`graphcore.ops.session_ops`): the tensors live in a store among the session's
resources, keyed by handle."""

from __future__ import annotations

import itertools
import threading

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


class SessionTensorStore:
    """handle -> value, and the counter numbering the handles."""

    def __init__(self, unique_id: int = 0):
        del unique_id
        self.ids = itertools.count()
        self.values: dict[str, np.ndarray] = {}
        self.lock = threading.Lock()


def _store(ctx: KernelContext) -> SessionTensorStore:
    return ctx.resources.resource("_session_tensors", "store", SessionTensorStore)


def _handle(value: np.ndarray) -> str:
    value = np.asarray(value, dtype=object)
    if value.ndim != 0:
        raise errors.InvalidArgumentError(None, None, "handle must be a scalar")
    item = value.item()
    return item.decode() if isinstance(item, bytes) else str(item)


def _missing(handle: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(
        None, None, f"The tensor with handle '{handle}' is not in the session store.")


@register_kernel("GetSessionHandle")
def _get_session_handle(ctx: KernelContext):
    store = _store(ctx)

    def compute(value):
        with store.lock:
            handle = f"{ctx.name};{next(store.ids)};{ctx.device}"
            kept = np.array(value, copy=True)
            kept.flags.writeable = False  # fetches of it come back as copies
            store.values[handle] = kept
        return (np.array(handle.encode(), dtype=object),)

    return compute


@register_kernel("GetSessionTensor")
def _get_session_tensor(ctx: KernelContext):
    store = _store(ctx)

    def compute(handle):
        handle = _handle(handle)
        with store.lock:
            if handle not in store.values:
                raise _missing(handle)
            return (store.values[handle],)

    return compute


@register_kernel("DeleteSessionTensor")
def _delete_session_tensor(ctx: KernelContext):
    store = _store(ctx)

    def compute(handle):
        handle = _handle(handle)
        with store.lock:
            if store.values.pop(handle, None) is None:
                raise errors.InvalidArgumentError(
                    None, None, f"Failed to delete a tensor with handle '{handle}' in the "
                    "session store.")
        return ()

    return compute
