"""Per-task resource store: the state behind stateful kernels (variables first).

One store per task (the local process, or one Ray ps/worker actor); variables are
keyed by (container, shared_name), shared_name defaulting to the node name, so
every partition of every step on that task sees the same variable.
"""

from __future__ import annotations

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

    def assign(self, value: Any) -> np.ndarray:
        """Writes ``value`` (cast to the variable's dtype) into the stored array when it
        has the same shape (TF's Assign copies into the existing buffer), else stores a
        copy of it. Under the lock."""
        old = self.value
        if isinstance(old, np.ndarray) and old.base is None and np.shape(value) == old.shape:
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

    def value_to_update(self) -> np.ndarray:
        """A writable array holding the value, for an update to write in place and
        :meth:`set` back (under the lock): the stored array itself when it owns its memory
        (readers in the step see the update, as TF's), else a copy (a view of a buffer
        this store does not own, such as one received from another task)."""
        value = self.read()
        if value.base is None:
            value.flags.writeable = True
            return value
        return np.array(value)


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
