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
    """A ref variable's storage: a read-only ndarray replaced on every write.

    Writes build a new array and swap it in under the lock, so a value handed out
    earlier (a fetch, a tensor in flight) never changes under its reader. An update that
    nobody can observe may reuse the stored array (:meth:`value_to_update`).
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

    @property
    def initialized(self) -> bool:
        return self.value is not None

    def value_to_update(self) -> np.ndarray:
        """A writable array holding the value, for an update to write in place and
        :meth:`set` back (under the lock). It is the stored array itself when no one else
        holds it (no reader, fetch, view, buffer export or tensor in flight: the array owns
        its memory and has no references but this store's), so training updates neither
        copy nor allocate; otherwise a copy."""
        if _EXCLUSIVE_REFS is not None and _refcount(self) == _EXCLUSIVE_REFS:
            value = self.value
            if value is not None and value.base is None:
                value.flags.writeable = True
                return value
        return np.array(self.read())


def _refcount(state: VariableState) -> int:
    value = state.value
    return sys.getrefcount(value)


def _calibrate() -> int | None:
    """The reference count of a stored value that nothing else holds, measured through
    the same call as :meth:`VariableState.value_to_update`; None (always copy) when an
    extra holder would not show in the count, as can happen on interpreters that skip
    reference counting for local variables."""
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

    def variables(self) -> dict[tuple[str, str], VariableState]:
        with self._lock:
            return dict(self._variables)

    def clear(self, containers: list[str] | None = None) -> None:
        with self._lock:
            if containers is None:
                self._variables.clear()
            else:
                for key in [k for k in self._variables if k[0] in containers]:
                    del self._variables[key]
