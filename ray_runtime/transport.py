"""Tensors between partitions as Arrow IPC messages in the Ray object store.

A numeric tensor is one Arrow IPC tensor message; a string tensor is an Arrow IPC
stream holding one binary column (plus its shape).  The message bytes travel as a
pickle-5 out-of-band buffer, so Ray copies them into the object store once and the
receiver maps them back without a copy: the numpy array it gets is a read-only view
of the object-store memory.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pyarrow as pa

from graphcore.kernels.registry import DEAD


class ArrowTensor:
    """A tensor in Arrow IPC framing; ``value()`` gives the numpy array back."""

    __slots__ = ("_kind", "_buffer", "_shape")

    def __init__(self, kind: str, buffer: Any, shape: tuple[int, ...] = ()):
        self._kind = kind  # "tensor", "bool", "strings" or "dead"
        self._buffer = buffer
        self._shape = shape

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
        kind = "tensor"
        if arr.dtype == np.bool_:  # Arrow tensors have no bool type: send the bytes
            arr, kind = arr.view(np.uint8), "bool"
        sink = pa.BufferOutputStream()
        pa.ipc.write_tensor(pa.Tensor.from_numpy(arr), sink)
        return cls(kind, sink.getvalue(), tuple(arr.shape))

    def value(self) -> Any:
        if self._kind == "dead":
            return DEAD
        buf = pa.py_buffer(self._buffer)
        if self._kind == "strings":
            table = pa.ipc.open_stream(buf).read_all()
            items = table.column(0).to_pylist()
            out = np.empty(len(items), dtype=object)
            out[:] = items
            return out.reshape(self._shape)
        arr = pa.ipc.read_tensor(buf).to_numpy()
        return arr.view(np.bool_) if self._kind == "bool" else arr

    @property
    def nbytes(self) -> int:
        return len(self._buffer)

    def __reduce_ex__(self, protocol: int) -> Any:
        if protocol >= 5 and self._kind != "dead":
            return _rebuild, (self._kind, pickle.PickleBuffer(self._buffer), self._shape)
        return _rebuild, (self._kind, bytes(self._buffer), self._shape)


def _rebuild(kind: str, buffer: Any, shape: tuple[int, ...]) -> ArrowTensor:
    return ArrowTensor(kind, buffer, shape)


def encode(value: Any) -> ArrowTensor:
    return ArrowTensor.from_value(value)


def decode(wire: Any) -> Any:
    return wire.value() if isinstance(wire, ArrowTensor) else wire
