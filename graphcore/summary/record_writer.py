"""The TFRecord framing of event files: one implementation, in
:mod:`graphcore.lib.io.tf_record`, which ``tf.python_io`` and the readers use too."""

from __future__ import annotations

from collections.abc import Iterator

from graphcore.lib.io.tf_record import (
    RecordWriter,
    encode_record,
    masked_crc32c,
    tf_record_iterator,
)
from graphcore.protobuf import event_pb2

__all__ = ["masked_crc32c", "encode_record", "RecordWriter", "tf_record_iterator",
           "summary_iterator"]


def summary_iterator(path: str) -> Iterator[event_pb2.Event]:
    """Yields the Event protos of an event file (TF1's ``tf.train.summary_iterator``)."""
    for record in tf_record_iterator(path):
        yield event_pb2.Event.FromString(record)
