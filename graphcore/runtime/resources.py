"""Per-task resource store: the state behind stateful kernels (variables first).

One store per task (the local process, or one Ray ps/worker actor); variables are
keyed by (container, shared_name), shared_name defaulting to the node name, so
every partition of every step on that task sees the same variable.
"""

from __future__ import annotations

import sys
import threading
from typing import Any

import numpy as np

from graphcore.framework import errors


class VariableState:
    """A ref variable's storage: an ndarray that writes update in place, as TF's do.

    TF's reads of a ref variable share its buffer and its Assign/Apply* kernels write into
    that buffer, so a read that runs after an update in the same step (``tf.identity(v)``
    under ``control_dependencies([assign])``) sees the new value. The stored array is
    read-only outside a write, so a fetch copies it and no caller can change it.
    """

    __slots__ = ("name", "dtype", "shape", "value", "lock")

    def __init__(self, name: str, dtype: np.dtype, shape: Any):
        self.name = name
        self.dtype = dtype
        self.shape = shape
        self.value: np.ndarray | None = None
        self.lock = threading.Lock()

    def read(self) -> np.ndarray:
        value = self.value
        if value is None:
            raise errors.FailedPreconditionError(
                None, None, f"Attempting to use uninitialized value {self.name}")
        return value

    def set(self, value: np.ndarray) -> np.ndarray:
        """Stores ``value`` (already owned by the store) and returns it."""
        if isinstance(value, np.ndarray):
            value.flags.writeable = False
        self.value = value
        return value

    def assign(self, value: Any, copy_on_write: bool = False) -> np.ndarray:
        """Writes ``value`` (cast to the variable's dtype) into the stored array when it
        has the same shape (TF's Assign copies into the existing buffer), else stores a
        copy of it. ``copy_on_write`` (resource variables, whose reads are snapshots)
        writes in place only when nobody holds the stored array. Under the lock."""
        old = self.value
        if isinstance(old, np.ndarray) and old.base is None and np.shape(value) == old.shape \
                and (not copy_on_write or self._exclusive()):
            old.flags.writeable = True
            try:
                np.copyto(old, value, casting="unsafe")
            finally:
                old.flags.writeable = False
            return old
        return self.set(np.array(value, dtype=self.dtype))

    @property
    def initialized(self) -> bool:
        return self.value is not None

    def value_to_update(self, copy_on_write: bool = False) -> np.ndarray:
        """A writable array holding the value, for an update to write in place and
        :meth:`set` back (under the lock): the stored array itself when it owns its memory
        (readers in the step see the update, as TF's ref variables), else a copy (a view of
        a buffer this store does not own, such as one received from another task).
        ``copy_on_write`` (TF's resource variables, whose reads are snapshots) reuses the
        array only when nobody else holds it."""
        value = self.read()
        if value.base is None and (not copy_on_write or self._exclusive()):
            value.flags.writeable = True
            return value
        return np.array(value)

    def _exclusive(self) -> bool:
        """Whether only this store holds the value (no reader, fetch, view, buffer export
        or tensor in flight)."""
        return _EXCLUSIVE_REFS is not None and _refcount(self) == _EXCLUSIVE_REFS


def _refcount(state: VariableState) -> int:
    return sys.getrefcount(state.value)


def _calibrate() -> int | None:
    """The reference count of a stored value that nothing else holds, measured through
    the same call as :meth:`VariableState._exclusive`; None (never exclusive) when an extra
    holder would not show in the count, as on interpreters that skip reference counting
    for local variables."""
    probe = VariableState("probe", np.dtype(np.float32), ())
    probe.value = np.zeros(1, np.float32)
    alone = _refcount(probe)
    holder = probe.value
    seen = _refcount(probe)
    del holder
    return alone if seen == alone + 1 else None


_EXCLUSIVE_REFS = _calibrate()


class ResourceStore:
    """Variables (and later other resources) of one task, shared by its steps."""

    def __init__(self, task: str = "/job:localhost/replica:0/task:0"):
        self.task = task
        self._lock = threading.Lock()
        self._variables: dict[tuple[str, str], VariableState] = {}
        # Queues, readers, iterators...: objects of their own kernels' making.
        self._resources: dict[tuple[str, str], Any] = {}
        self._resource_ids = 0

    def variable(self, container: str, shared_name: str, dtype: np.dtype,
                 shape: Any) -> VariableState:
        """The variable named (container, shared_name), created uninitialized if new."""
        key = (container, shared_name)
        state = self._variables.get(key)
        if state is None:
            with self._lock:
                state = self._variables.get(key)
                if state is None:
                    state = self._variables[key] = VariableState(shared_name, dtype, shape)
        return state

    def resource(self, container: str, shared_name: str, create: Any) -> Any:
        """The resource named (container, shared_name), made by ``create(unique_id)`` if
        new (``unique_id`` numbers this store's resources, as TF's ``_0_fifo_queue``)."""
        key = (container, shared_name)
        found = self._resources.get(key)
        if found is None:
            with self._lock:
                found = self._resources.get(key)
                if found is None:
                    found = self._resources[key] = create(self._resource_ids)
                    self._resource_ids += 1
        return found

    def resources(self) -> dict[tuple[str, str], Any]:
        with self._lock:
            return dict(self._resources)

    def variables(self) -> dict[tuple[str, str], VariableState]:
        with self._lock:
            return dict(self._variables)

    def clear(self, containers: list[str] | None = None) -> None:
        """Drops the resources of ``containers`` (all when None); a resource with a
        ``cancel`` method (a queue) first wakes its blocked callers with CancelledError,
        as closing a TF session cancels its pending steps."""
        with self._lock:
            if containers is None:
                self._variables.clear()
                dropped = list(self._resources.values())
                self._resources.clear()
            else:
                for key in [k for k in self._variables if k[0] in containers]:
                    del self._variables[key]
                keys = [k for k in self._resources if k[0] in containers]
                dropped = [self._resources.pop(k) for k in keys]
        for res in dropped:
            cancel = getattr(res, "cancel", None)
            if cancel is not None:
                cancel()
