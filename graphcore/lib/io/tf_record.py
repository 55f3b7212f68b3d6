"""TFRecord files, as TensorFlow's ``io::RecordWriter`` / ``RecordReader`` frame them, and
TF's Python API over them (``tf.python_io``: TFRecordWriter, tf_record_iterator,
TFRecordOptions, TFRecordCompressionType).

Each record is::

    uint64 length (little endian)
    uint32 masked_crc32c(length bytes)
    byte   data[length]
    uint32 masked_crc32c(data)

with ``masked_crc(x) = ((crc >> 15) | (crc << 17)) + 0xa282ead8  (mod 2**32)``. A ZLIB or
GZIP file is that byte stream, compressed as one zlib / gzip stream.
"""

from __future__ import annotations

import os
import struct
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import crc32c as _crc32c

from graphcore.framework import errors

__all__ = ["RecordWriter", "TFRecordCompressionType", "TFRecordOptions", "TFRecordWriter",
           "decode_records", "decompress", "encode_record", "masked_crc32c",
           "tf_record_iterator"]

_MASK_DELTA = 0xA282EAD8
_U32 = 0xFFFFFFFF
_LEN = struct.Struct("<Q")
_CRC = struct.Struct("<I")
_HEADER = 12
# zlib's wbits: 15 a zlib stream, 16 + 15 a gzip stream (TF's window_bits 15, gzip flag).
_WBITS = {"ZLIB": 15, "GZIP": 31}


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C of ``data`` that TFRecords store."""
    crc = _crc32c.crc32c(data) & _U32
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def encode_record(data: bytes) -> bytes:
    """``data`` framed as one TFRecord."""
    header = _LEN.pack(len(data))
    return b"".join((header, _CRC.pack(masked_crc32c(header)), data,
                     _CRC.pack(masked_crc32c(data))))


def decode_records(data: bytes, name: str) -> Iterator[tuple[int, bytes]]:
    """``(offset, record)`` of each TFRecord framed in ``data`` (the uncompressed bytes of
    the file ``name``), both CRCs checked: DataLossError as TF's RecordReader."""
    pos = 0
    while pos < len(data):
        if pos + _HEADER > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {pos}")
        header = data[pos:pos + 8]
        if _CRC.unpack_from(data, pos + 8)[0] != masked_crc32c(header):
            hint = " (Is this even a TFRecord file?)" if pos == 0 else ""
            raise errors.DataLossError(None, None, f"corrupted record at {pos}{hint}")
        (length,) = _LEN.unpack(header)
        end = pos + _HEADER + length + 4
        if end > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {pos}")
        record = data[pos + _HEADER:end - 4]
        if _CRC.unpack_from(data, end - 4)[0] != masked_crc32c(record):
            raise errors.DataLossError(None, None, f"corrupted record at {pos + _HEADER}")
        yield pos, record
        pos = end


def decompress(data: bytes, compression_type: str) -> bytes:
    """``data`` inflated per TF's compression_type ("", "ZLIB" or "GZIP")."""
    if not compression_type:
        return data
    if compression_type not in _WBITS:
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported compression_type: {compression_type}")
    try:
        return zlib.decompress(data, _WBITS[compression_type])
    except zlib.error as err:
        raise errors.DataLossError(None, None, f"inflate() failed: {err}") from None


class TFRecordCompressionType:
    """The compression of a TFRecord file."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """Options of a TFRecord file: ``compression_type`` ("", "ZLIB", "GZIP" or a
    TFRecordCompressionType) and zlib's tuning (used when compressing)."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type: Any = None, flush_mode: int | None = None,
                 input_buffer_size: int | None = None, output_buffer_size: int | None = None,
                 window_bits: int | None = None, compression_level: int | None = None,
                 compression_method: int | None = None, mem_level: int | None = None,
                 compression_strategy: int | None = None):
        self.get_compression_type_string(compression_type)
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """"ZLIB", "GZIP" or "" for TFRecordOptions, a TFRecordCompressionType value or a
        string; ValueError for anything else."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        if options in cls.compression_type_map:
            return cls.compression_type_map[options]
        if options in cls.compression_type_map.values():
            return options
        raise ValueError(f'Not a valid compression_type: "{options}"')

    def _compressor(self) -> Any:
        """A zlib compressor for these options, or None without compression."""
        kind = self.get_compression_type_string(self.compression_type)
        if not kind:
            return None
        wbits = self.window_bits if self.window_bits is not None else 15
        return zlib.compressobj(
            zlib.Z_DEFAULT_COMPRESSION if self.compression_level is None
            else self.compression_level,
            zlib.DEFLATED if self.compression_method is None else self.compression_method,
            wbits + 16 if kind == "GZIP" else wbits,
            9 if self.mem_level is None else self.mem_level,
            zlib.Z_DEFAULT_STRATEGY if self.compression_strategy is None
            else self.compression_strategy)


def _open(path: str, flags: int) -> int:
    try:
        return os.open(path, flags, 0o666)
    except OSError as err:
        cls = errors.NotFoundError if isinstance(err, FileNotFoundError) else \
            errors.PermissionDeniedError if isinstance(err, PermissionError) else \
            errors.UnknownError
        raise cls(None, None, f"{path}; {os.strerror(err.errno)}") from None


class RecordWriter:
    """Appends TFRecords to a file; records are buffered until :meth:`flush`, and each
    flush hands the buffered records to the OS in one ``write`` (O_APPEND), so records
    of two writers sharing a file never interleave mid-record (event files rely on it).
    ``truncate`` starts from an empty file, as TFRecordWriter does; a ``compressor`` (a
    zlib compress object) compresses the stream."""

    def __init__(self, path: str, truncate: bool = False, compressor: Any = None):
        self._path = path
        flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | (os.O_TRUNC if truncate else 0)
        self._fd: int | None = _open(path, flags)
        self._pending: list[bytes] = []
        self._compressor = compressor
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
                raise errors.FailedPreconditionError(None, None, "Writer is closed.")
            self._pending.append(record)

    def flush(self, _final: bool = False) -> None:
        with self._lock:
            if self._fd is None:
                return
            data = b"".join(self._pending)
            self._pending = []
            if self._compressor is not None:
                data = self._compressor.compress(data) + self._compressor.flush(
                    zlib.Z_FINISH if _final else zlib.Z_SYNC_FLUSH)
            buf = memoryview(data)
            while buf:
                n = os.write(self._fd, buf)
                buf = buf[n:]

    def close(self) -> None:
        self.flush(_final=True)
        with self._lock:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class TFRecordWriter(RecordWriter):
    """Writes records to a new TFRecord file ``path``; ``options`` a compression type
    string, a TFRecordCompressionType value or TFRecordOptions."""

    def __init__(self, path: Any, options: Any = None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        super().__init__(os.fsdecode(path), truncate=True, compressor=options._compressor())

    def write(self, record: bytes | str) -> None:
        """Appends the record ``record``."""
        super().write(record.encode() if isinstance(record, str) else record)

    def flush(self, _final: bool = False) -> None:
        """Hands the records written so far to the OS."""
        super().flush(_final)


def tf_record_iterator(path: Any, options: Any = None) -> Iterator[bytes]:
    """The records of the TFRecord file ``path``; ``options`` names its compression.

    NotFoundError for a missing file, DataLossError for a corrupted or truncated one.
    """
    compression_type = TFRecordOptions.get_compression_type_string(options)
    path = os.fsdecode(path)
    fd = _open(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        data = f.read()
    return _records(decompress(data, compression_type), path)


def _records(data: bytes, path: str) -> Iterator[bytes]:
    for _, record in decode_records(data, path):
        yield record
