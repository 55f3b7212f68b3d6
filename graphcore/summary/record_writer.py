"""TFRecord framing, as TensorFlow's ``io::RecordWriter`` / ``RecordReader`` use it.

Each record is::

    uint64 length (little endian)
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

with ``masked_crc(x) = ((crc >> 15) | (crc << 17)) + 0xa282ead8  (mod 2**32)``.
"""

from __future__ import annotations

import os
import struct
import threading
from collections.abc import Iterator

import crc32c as _crc32c

from graphcore.framework import errors

__all__ = ["masked_crc32c", "encode_record", "RecordWriter", "tf_record_iterator",
           "summary_iterator"]

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C of ``data`` that TFRecords store."""
    crc = _crc32c.crc32c(data) & _U32
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def encode_record(data: bytes) -> bytes:
    """``data`` framed as one TFRecord."""
    header = _LEN.pack(len(data))
    return b"".join((header, _CRC.pack(masked_crc32c(header)), data,
                     _CRC.pack(masked_crc32c(data))))


class RecordWriter:
    """Appends TFRecords to a file; records are buffered until :meth:`flush`, and each
    flush hands the buffered records to the OS in one ``write`` (O_APPEND), so records
    of two writers sharing a file never interleave mid-record."""

    def __init__(self, path: str):
        self._path = path
        self._fd: int | None = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o666)
        self._pending: list[bytes] = []
        self._lock = threading.Lock()

    @property
    def path(self) -> str:
        return self._path

    @property
    def closed(self) -> bool:
        return self._fd is None

    def write(self, data: bytes) -> None:
        record = encode_record(bytes(data))
        with self._lock:
            if self._fd is None:
                raise ValueError(f"RecordWriter for {self._path} is closed")
            self._pending.append(record)

    def flush(self) -> None:
        with self._lock:
            if self._fd is None or not self._pending:
                return
            buf = memoryview(b"".join(self._pending))
            self._pending = []
            while buf:
                n = os.write(self._fd, buf)
                buf = buf[n:]

    def close(self) -> None:
        self.flush()
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def tf_record_iterator(path: str) -> Iterator[bytes]:
    """Yields the data of each TFRecord in ``path``, checking both CRCs.

    Raises DataLossError for a corrupted or truncated record (TF's reader does too).
    """
    with open(path, "rb") as f:
        offset = 0
        while True:
            header = f.read(8)
            if not header:
                return
            if len(header) < 8:
                raise errors.DataLossError(None, None,
                                           f"truncated record at {offset} in {path}")
            crc_bytes = f.read(4)
            if len(crc_bytes) < 4:
                raise errors.DataLossError(None, None,
                                           f"truncated record at {offset} in {path}")
            if _CRC.unpack(crc_bytes)[0] != masked_crc32c(header):
                raise errors.DataLossError(None, None,
                                           f"corrupted record at {offset} in {path}")
            (length,) = _LEN.unpack(header)
            data = f.read(length)
            footer = f.read(4)
            if len(data) < length or len(footer) < 4:
                raise errors.DataLossError(None, None,
                                           f"truncated record at {offset} in {path}")
            if _CRC.unpack(footer)[0] != masked_crc32c(data):
                raise errors.DataLossError(None, None,
                                           f"corrupted record at {offset} in {path}")
            offset += 16 + length
            yield data


def summary_iterator(path: str) -> Iterator:
    """Yields the Event protos of an event file (TF1's ``tf.train.summary_iterator``)."""
    from graphcore.protobuf import event_pb2

    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
