"""Tensors between partitions as Arrow data in the Ray object store.

A numeric tensor travels as one Arrow buffer (``pyarrow.Buffer`` over the array's own
memory) with its dtype and shape; a string tensor as an Arrow IPC stream holding one
binary column (plus its shape).  The buffer goes as a pickle-5 out-of-band buffer, so
Ray copies the tensor's bytes into the object store exactly once (as ``ray.put`` of
the array would) and the receiver maps them back without a copy: the numpy array it
gets is a read-only view of the object-store memory.  (Arrow's IPC tensor message
would need the body written out contiguously after its header first: a second full
copy of every tensor on the sending side.)
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pyarrow as pa

from graphcore.kernels.registry import DEAD


class ArrowTensor:
    """A tensor as Arrow data; ``value()`` gives the numpy array back."""

    __slots__ = ("_kind", "_buffer", "_shape", "_dtype")

    def __init__(self, kind: str, buffer: Any, shape: tuple[int, ...] = (),
                 dtype: str = ""):
        self._kind = kind  # "tensor", "strings" or "dead"
        self._buffer = buffer
        self._shape = shape
        self._dtype = dtype

    @classmethod
    def from_value(cls, value: Any) -> ArrowTensor:
        if value is DEAD:
            return cls("dead", b"")
        arr = np.asarray(value)
        if arr.dtype == object or arr.dtype.kind in "SU":
            flat = [x if isinstance(x, bytes) else str(x).encode() for x in arr.reshape(-1)]
            batch = pa.record_batch([pa.array(flat, type=pa.binary())], names=["s"])
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, batch.schema) as writer:
                writer.write_batch(batch)
            return cls("strings", sink.getvalue(), tuple(arr.shape))
        if not arr.flags.c_contiguous:
            arr = np.ascontiguousarray(arr)
        # Values are immutable once produced (variables swap in new arrays), so the
        # buffer may wrap the array's memory until Ray copies it into the store.
        return cls("tensor", pa.py_buffer(arr.reshape(-1).view(np.uint8)), tuple(arr.shape),
                   arr.dtype.str)

    def value(self) -> Any:
        if self._kind == "dead":
            return DEAD
        if self._kind == "strings":
            table = pa.ipc.open_stream(pa.py_buffer(self._buffer)).read_all()
            items = table.column(0).to_pylist()
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(self._shape)
        arr = np.frombuffer(self._buffer, dtype=np.dtype(self._dtype)).reshape(self._shape)
        arr.flags.writeable = False  # a view of the message (or of the sender's value)
        return arr

    @property
    def nbytes(self) -> int:
        return len(self._buffer)

    def __reduce_ex__(self, protocol: int) -> Any:
        if protocol >= 5 and self._kind != "dead":
            return _rebuild, (self._kind, pickle.PickleBuffer(self._buffer), self._shape,
                              self._dtype)
        return _rebuild, (self._kind, bytes(self._buffer), self._shape, self._dtype)


def _rebuild(kind: str, buffer: Any, shape: tuple[int, ...], dtype: str) -> ArrowTensor:
    return ArrowTensor(kind, buffer, shape, dtype)


def encode(value: Any) -> ArrowTensor:
    return ArrowTensor.from_value(value)


def decode(wire: Any) -> Any:
    return wire.value() if isinstance(wire, ArrowTensor) else wire


def wire_bytes(items: Any) -> int:
    """The bytes of tensors (ArrowTensor messages or arrays) in ``items``."""
    return sum(getattr(v, "nbytes", 0) for v in items)
