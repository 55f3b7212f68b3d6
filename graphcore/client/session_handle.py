"""``TensorHandle``: what Session.run returns for a ``get_session_handle`` tensor -- the
handle string of a value kept in the session, readable (``eval``) and deletable
(``delete``) in later runs (TF's session_ops.TensorHandle)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.ops import session_ops


class TensorHandle:
    def __init__(self, handle: Any, dtype: Any, session: Any):
        self._handle = handle.decode() if isinstance(handle, bytes) else str(handle)
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._session = session
        self._deleted = False

    def __str__(self) -> str:
        return self._handle

    @property
    def handle(self) -> str:
        return self._handle

    def get_raw_handle(self) -> str:
        return self._handle

    def eval(self) -> Any:
        """The stored value."""
        if self._deleted:
            raise TypeError("Persistent tensor %s may have already been deleted." % self._handle)
        holder, reader = _cached(self._session.graph, ("reader", self._dtype.name),
                                 lambda: session_ops.get_session_tensor(self._handle,
                                                                        self._dtype))
        return self._session.run(reader, feed_dict={holder: self._handle})

    def delete(self) -> None:
        """Drops the stored value from the session."""
        if self._deleted:
            raise TypeError("Persistent tensor %s may have already been deleted." % self._handle)
        self._deleted = True
        holder, deleter = _cached(self._session.graph, ("deleter",),
                                  lambda: session_ops.delete_session_tensor(self._handle))
        self._session.run(deleter, feed_dict={holder: self._handle})


def _cached(graph: Any, key: tuple, build: Any) -> Any:
    """One reader per dtype / one deleter per graph, as TF caches them."""
    cache = graph.__dict__.setdefault("_session_handle_ops", {})
    if key not in cache:
        with graph.as_default():
            cache[key] = build()
    return cache[key]
