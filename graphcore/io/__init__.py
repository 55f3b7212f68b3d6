"""``tf.io`` (TF1's tf.compat.v1.io): file ops, TFRecords, Example parsing, gfile."""

# ruff: noqa: F401
from graphcore.framework.graph_io import write_graph
from graphcore.io import gfile
from graphcore.lib.io.tf_record import (
    TFRecordCompressionType,
    TFRecordOptions,
    TFRecordWriter,
    tf_record_iterator,
)
from graphcore.ops.image_codec_ops import (
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    decode_webp,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from graphcore.ops.io_ops import read_file, write_file
from graphcore.ops.parsing_ops import (
    FixedLenFeature,
    FixedLenSequenceFeature,
    SparseFeature,
    VarLenFeature,
    decode_compressed,
    decode_csv,
    decode_json_example,
    decode_raw,
    parse_example,
    parse_single_example,
    parse_tensor,
    serialize_tensor,
)
from graphcore.ops.queue_ops import (
    PaddingFIFOQueue,
    PriorityQueue,
    QueueBase,
    RandomShuffleQueue,
)
from graphcore.ops.reader_ops import matching_files
from graphcore.ops.sequence_example_ops import (
    parse_sequence_example,
    parse_single_sequence_example,
)
from graphcore.ops.sparse_serialize_ops import (
    deserialize_many_sparse,
    serialize_many_sparse,
    serialize_sparse,
)
from graphcore.ops.string_ops import decode_base64, encode_base64
from graphcore.train.input import match_filenames_once

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "PaddingFIFOQueue", "PriorityQueue",
           "QueueBase", "RandomShuffleQueue", "SparseFeature", "TFRecordCompressionType",
           "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64",
           "decode_compressed", "decode_csv", "decode_json_example", "decode_raw",
           "deserialize_many_sparse", "encode_base64", "gfile", "match_filenames_once",
           "matching_files", "parse_example", "parse_sequence_example",
           "parse_single_example", "parse_single_sequence_example", "parse_tensor",
           "read_file", "serialize_many_sparse", "serialize_sparse", "serialize_tensor",
           "tf_record_iterator", "write_file", "write_graph"]
__all__ += ["decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image", "decode_jpeg",
            "decode_png", "decode_webp", "encode_jpeg", "encode_png", "extract_jpeg_shape", "is_jpeg"]
