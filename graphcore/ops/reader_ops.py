"""Readers (TF's io_ops readers): TFRecordReader, TextLineReader, FixedLengthRecordReader,
WholeFileReader, IdentityReader and the ReaderReadV2 / ReaderReadUpToV2 /
ReaderNumRecordsProducedV2 / ReaderNumWorkUnitsCompletedV2 / ReaderResetV2 ops. A reader
takes work units (file names) from a queue and produces (key, value) records; readers
live in the task's resource store (:mod:`graphcore.kernels.reader_kernels`)."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__ = ["FixedLengthRecordReader", "IdentityReader", "ReaderBase", "TFRecordReader",
           "TextLineReader", "WholeFileReader", "matching_files"]

_SHARED = ("container: string = ''", "shared_name: string = ''")


def _register_reader(op_type: str, *attrs: str, after: tuple = ()) -> None:
    """A reader op with ``attrs``, then container/shared_name, then ``after`` (TF's
    attr order)."""
    builder = op_registry.register_op(op_type).output("reader_handle: resource")
    for spec in attrs + _SHARED + after:
        builder = builder.attr(spec)
    builder.stateful().shape_fn(common_shapes.scalar_shape)


_register_reader("WholeFileReaderV2")
_register_reader("IdentityReaderV2")
_register_reader("TextLineReaderV2", "skip_header_lines: int = 0")
_register_reader("TFRecordReaderV2", after=("compression_type: string = ''",))
_register_reader("FixedLengthRecordReaderV2", "header_bytes: int = 0", "record_bytes: int",
                 "footer_bytes: int = 0", "hop_bytes: int = 0",
                 after=("encoding: string = ''",))

op_registry.register_op("ReaderReadV2").input("reader_handle: resource") \
    .input("queue_handle: resource").output("key: string").output("value: string") \
    .stateful().shape_fn(lambda op: [shape_lib.TensorShape([])] * 2)

op_registry.register_op("ReaderReadUpToV2").input("reader_handle: resource") \
    .input("queue_handle: resource").input("num_records: int64").output("keys: string") \
    .output("values: string").stateful() \
    .shape_fn(lambda op: [shape_lib.TensorShape([None])] * 2)

for _op in ("ReaderNumRecordsProducedV2", "ReaderNumWorkUnitsCompletedV2"):
    op_registry.register_op(_op).input("reader_handle: resource") \
        .output(("records_produced" if "Records" in _op else "units_completed") + ": int64") \
        .stateful().shape_fn(common_shapes.scalar_shape)

op_registry.register_op("ReaderResetV2").input("reader_handle: resource").stateful() \
    .shape_fn(common_shapes.no_outputs)

op_registry.register_op("MatchingFiles").input("pattern: string").output("filenames: string") \
    .shape_fn(lambda op: [shape_lib.TensorShape([None])])


def matching_files(pattern: Any, name: str | None = None) -> ops_lib.Tensor:
    """The files matching the glob ``pattern`` (a string or a vector of them), sorted per
    pattern."""
    return apply_op("MatchingFiles", name=name, pattern=pattern).outputs[0]


ReaderReadV2 = collections.namedtuple("ReaderReadV2", ["key", "value"])
ReaderReadUpToV2 = collections.namedtuple("ReaderReadUpToV2", ["keys", "values"])


def _queue_ref(queue: Any) -> Any:
    return queue if isinstance(queue, ops_lib.Tensor) else queue.queue_ref


class ReaderBase:
    """Base class of the readers: ``read`` takes a work unit from a queue when the last
    one is done and returns the next (key, value) record."""

    def __init__(self, reader_ref: ops_lib.Tensor, supports_serialize: bool = False):
        self._reader_ref = reader_ref
        self._supports_serialize = supports_serialize

    @property
    def reader_ref(self) -> ops_lib.Tensor:
        return self._reader_ref

    @property
    def supports_serialize(self) -> bool:
        return self._supports_serialize

    def read(self, queue: Any, name: str | None = None) -> ReaderReadV2:
        """The next record: a (key, value) pair of string scalars."""
        op = apply_op("ReaderReadV2", name=name, reader_handle=self._reader_ref,
                      queue_handle=_queue_ref(queue))
        return ReaderReadV2(*op.outputs)

    def read_up_to(self, queue: Any, num_records: Any,
                   name: str | None = None) -> ReaderReadUpToV2:
        """Up to ``num_records`` records (fewer at the end of the input)."""
        op = apply_op("ReaderReadUpToV2", name=name, reader_handle=self._reader_ref,
                      queue_handle=_queue_ref(queue), num_records=num_records)
        return ReaderReadUpToV2(*op.outputs)

    def num_records_produced(self, name: str | None = None) -> ops_lib.Tensor:
        return apply_op("ReaderNumRecordsProducedV2", name=name,
                        reader_handle=self._reader_ref).outputs[0]

    def num_work_units_completed(self, name: str | None = None) -> ops_lib.Tensor:
        return apply_op("ReaderNumWorkUnitsCompletedV2", name=name,
                        reader_handle=self._reader_ref).outputs[0]

    def reset(self, name: str | None = None) -> ops_lib.Operation:
        """Restores the reader to its initial clean state."""
        return apply_op("ReaderResetV2", name=name, reader_handle=self._reader_ref)


def _reader(op_type: str, name: str | None, **attrs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, name=name, **attrs).outputs[0]


class WholeFileReader(ReaderBase):
    """Outputs a whole file's contents as the value, its name as the key."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader("WholeFileReaderV2", name), supports_serialize=True)


class IdentityReader(ReaderBase):
    """Outputs each work unit as both key and value."""

    def __init__(self, name: str | None = None):
        super().__init__(_reader("IdentityReaderV2", name), supports_serialize=True)


class TextLineReader(ReaderBase):
    """Outputs the lines of a file (key ``file:line_number``), newlines stripped."""

    def __init__(self, skip_header_lines: int | None = None, name: str | None = None):
        super().__init__(_reader("TextLineReaderV2", name,
                                 skip_header_lines=skip_header_lines or 0))


class FixedLengthRecordReader(ReaderBase):
    """Outputs fixed-length records of a file (key ``file:record_number``)."""

    def __init__(self, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, hop_bytes: int | None = None,
                 name: str | None = None, encoding: str | None = None):
        super().__init__(_reader("FixedLengthRecordReaderV2", name,
                                 record_bytes=record_bytes, header_bytes=header_bytes or 0,
                                 footer_bytes=footer_bytes or 0, hop_bytes=hop_bytes or 0,
                                 encoding=encoding or ""))


def compression_type_string(options: Any) -> str:
    """``""``, ``"ZLIB"`` or ``"GZIP"`` for TFRecordOptions, a string or None."""
    if options is None:
        return ""
    value = getattr(options, "compression_type", options)
    if value is None:
        return ""
    if isinstance(value, int):
        return ["", "ZLIB", "GZIP"][value]
    return str(value)


class TFRecordReader(ReaderBase):
    """Outputs the records of TFRecord files (key ``file:offset``)."""

    def __init__(self, name: str | None = None, options: Any = None):
        super().__init__(_reader("TFRecordReaderV2", name,
                                 compression_type=compression_type_string(options)))
