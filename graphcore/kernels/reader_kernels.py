"""CPU kernels of the reader ops (:mod:`graphcore.ops.reader_ops`), TF's ReaderBase: a
reader dequeues a work unit (a file name) from a queue when the current one is done and
produces its records as (key, value) byte strings, one ``read`` at a time."""

from __future__ import annotations

import glob
import gzip
import struct
import threading
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_LEN = struct.Struct("<Q")


def _read_file(path: bytes) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path.decode()}; No such file or directory") \
            from None


def tf_records(data: bytes, name: str) -> Iterator[tuple[int, bytes]]:
    """(offset, record) of the TFRecord framing: uint64 length, uint32 crc, data, uint32
    crc; a truncated record is DataLossError as TF's RecordReader."""
    pos = 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {pos} in {name}")
        (length,) = _LEN.unpack_from(data, pos)
        end = pos + 12 + length + 4
        if end > len(data):
            raise errors.DataLossError(None, None, f"truncated record at {pos} in {name}")
        yield pos, data[pos + 12:pos + 12 + length]
        pos = end


def decompress(data: bytes, compression_type: str) -> bytes:
    """``data`` inflated per TF's compression_type ("", "ZLIB" or "GZIP")."""
    if compression_type == "GZIP":
        return gzip.decompress(data)
    if compression_type == "ZLIB":
        return zlib.decompress(data)
    if compression_type:
        raise errors.InvalidArgumentError(
            None, None, f"Unsupported compression_type: {compression_type}")
    return data


def read_file(path: bytes) -> bytes:
    """The bytes of ``path``; NotFoundError as TF's file system."""
    return _read_file(path)


def text_lines(data: bytes) -> list[bytes]:
    """The lines of ``data`` without their ``\\n`` / ``\\r\\n`` (a last line without one
    included), as TF's TextLineReader and TextLineDataset split them."""
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return [line.removesuffix(b"\r") for line in lines]


def fixed_length_records(data: bytes, header: int, record: int, footer: int,
                         hop: int = 0) -> Iterator[bytes]:
    """The ``record``-byte records between ``header`` and ``footer`` bytes, every ``hop``
    bytes (``record`` when 0); a short tail is dropped."""
    body = data[header:len(data) - footer]
    step = hop or record
    pos = 0
    while pos + record <= len(body):
        yield body[pos:pos + record]
        pos += step


def _text_lines(work: bytes, skip: int) -> Iterator[tuple[bytes, bytes]]:
    for i, line in enumerate(text_lines(_read_file(work))):
        if i >= skip:
            yield b"%s:%d" % (work, i + 1), line


def _tf_record_lines(compression: str):
    def records(work: bytes) -> Iterator[tuple[bytes, bytes]]:
        data = decompress(_read_file(work), compression)
        for offset, record in tf_records(data, work.decode()):
            yield b"%s:%d" % (work, offset), record
    return records


def _fixed_length(header: int, record: int, footer: int, hop: int, encoding: str):
    def records(work: bytes) -> Iterator[tuple[bytes, bytes]]:
        data = decompress(_read_file(work), encoding if encoding in ("GZIP", "ZLIB") else "")
        for index, value in enumerate(fixed_length_records(data, header, record, footer,
                                                           hop)):
            yield b"%s:%d" % (work, index), value
    return records


class ReaderResource:
    """A reader's state: the current work unit's records and its counters."""

    def __init__(self, records: Any):
        self._records = records
        self._lock = threading.Lock()
        self._current: Iterator | None = None
        self.records_produced = 0
        self.work_units_completed = 0

    def read(self, queue: Any, n: int) -> list[tuple[bytes, bytes]]:
        """Up to ``n`` records, dequeuing work units (blocking) as needed; a batch ends
        early with its work unit, or at the end of the input (the queue closed and
        empty), where an empty one raises OutOfRange."""
        out: list[tuple[bytes, bytes]] = []
        with self._lock:
            while len(out) < n:
                if self._current is None:
                    try:
                        work = queue.dequeue(None, False, -1)
                    except errors.OutOfRangeError:
                        if out:
                            break
                        raise
                    self._current = iter(self._records(_as_bytes(work[0])))
                item = next(self._current, None)
                if item is None:
                    self._current = None
                    self.work_units_completed += 1
                    if out:
                        break  # TF's ReadUpTo returns at the end of a work unit
                    continue
                out.append(item)
                self.records_produced += 1
        return out

    def reset(self) -> None:
        with self._lock:
            self._current = None
            self.records_produced = 0
            self.work_units_completed = 0


def _as_bytes(value: Any) -> bytes:
    value = value.item() if isinstance(value, np.ndarray) else value
    return value if isinstance(value, bytes) else str(value).encode()


def _whole_file(work: bytes) -> Iterator[tuple[bytes, bytes]]:
    yield work, _read_file(work)


def _identity(work: bytes) -> Iterator[tuple[bytes, bytes]]:
    yield work, work


_RECORDS = {
    "WholeFileReaderV2": lambda attr: _whole_file,
    "IdentityReaderV2": lambda attr: _identity,
    "TextLineReaderV2": lambda attr: lambda w: _text_lines(w, attr["skip_header_lines"].i),
    "TFRecordReaderV2": lambda attr: _tf_record_lines(attr["compression_type"].s.decode()),
    "FixedLengthRecordReaderV2": lambda attr: _fixed_length(
        attr["header_bytes"].i, attr["record_bytes"].i, attr["footer_bytes"].i,
        attr["hop_bytes"].i, attr["encoding"].s.decode()),
}


def _reader_factory(ctx: KernelContext):
    attr = ctx.node_def.attr
    records = _RECORDS[ctx.op_type](attr)
    container = attr["container"].s.decode()
    name = attr["shared_name"].s.decode() or ctx.name
    store = ctx.resources
    return lambda: (store.resource(container, name, lambda _: ReaderResource(records)),)


for _op in _RECORDS:
    register_kernel(_op)(_reader_factory)


@register_kernel("MatchingFiles")
def _matching_files(ctx: KernelContext):
    del ctx

    def compute(pattern):
        found = []
        for p in np.asarray(pattern, dtype=object).ravel():
            found.extend(sorted(glob.glob(_as_bytes(p).decode())))
        out = np.empty(len(found), dtype=object)
        out[:] = [f.encode() for f in found]
        return (out,)

    return compute


@register_kernel("ReaderReadV2")
def _read(ctx: KernelContext):
    del ctx

    def compute(reader, queue):
        (key, value), = reader.read(queue, 1)
        return np.array(key, dtype=object), np.array(value, dtype=object)

    return compute


@register_kernel("ReaderReadUpToV2")
def _read_up_to(ctx: KernelContext):
    del ctx

    def compute(reader, queue, num_records):
        n = int(num_records)
        if n <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"num_records must be greater than zero, got {n}")
        records = reader.read(queue, n)
        keys = np.empty(len(records), dtype=object)
        values = np.empty(len(records), dtype=object)
        keys[:] = [k for k, _ in records]
        values[:] = [v for _, v in records]
        return keys, values

    return compute


@register_kernel("ReaderNumRecordsProducedV2")
def _num_records(ctx: KernelContext):
    del ctx
    return lambda reader: (np.int64(reader.records_produced),)


@register_kernel("ReaderNumWorkUnitsCompletedV2")
def _num_work_units(ctx: KernelContext):
    del ctx
    return lambda reader: (np.int64(reader.work_units_completed),)


@register_kernel("ReaderResetV2")
def _reset(ctx: KernelContext):
    del ctx

    def compute(reader):
        reader.reset()
        return ()

    return compute
