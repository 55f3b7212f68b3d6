"""tf.summary: summary ops and the TensorBoard FileWriter (TF1's ``tf.compat.v1.summary``).

``scalar``/``histogram``/``tensor_summary``/``text`` add summary ops whose values are
serialized ``Summary`` protos; ``merge``/``merge_all`` combine them; ``FileWriter``
writes them (and graphs, session logs, run metadata) to TensorBoard event files.
"""

from graphcore.protobuf.event_pb2 import Event, SessionLog, TaggedRunMetadata
from graphcore.protobuf.summary_pb2 import (
    HistogramProto,
    Summary,
    SummaryDescription,
    SummaryMetadata,
)
from graphcore.summary.record_writer import summary_iterator, tf_record_iterator
from graphcore.summary.summary_ops import (
    audio,
    histogram,
    image,
    merge,
    merge_all,
    scalar,
    tensor_summary,
    text,
)
from graphcore.summary.summary_v2_compat import (
    all_v2_summary_ops,
    get_summary_description,
    initialize,
)
from graphcore.summary.writer import FileWriter, FileWriterCache

__all__ = [
    "Event",
    "FileWriter",
    "FileWriterCache",
    "HistogramProto",
    "SessionLog",
    "Summary",
    "SummaryDescription",
    "SummaryMetadata",
    "TaggedRunMetadata",
    "all_v2_summary_ops",
    "audio",
    "get_summary_description",
    "histogram",
    "image",
    "initialize",
    "merge",
    "merge_all",
    "scalar",
    "summary_iterator",
    "tensor_summary",
    "text",
    "tf_record_iterator",
]
