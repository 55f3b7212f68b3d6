"""graphcore/lib/io/tf_record.py: TFRecord framing, compression and TF's errors, through
tf.python_io and tf.io."""

import gzip
import struct
import zlib

import pytest

import graphcore as tf
from graphcore.lib.io import tf_record

RECORDS = [b"a", b"", b"xyz" * 100]


def test_framing_is_length_crc_data_crc(tmp_path):
    path = str(tmp_path / "r")
    with tf.python_io.TFRecordWriter(path) as w:
        w.write(b"abc")
    data = open(path, "rb").read()
    # bytes TF writes for b"abc" (length 3, masked crc32c of the length and of the data)
    assert data.hex() == "0300000000000000b099490e6162636e57f121"
    assert struct.unpack("<Q", data[:8]) == (3,)
    assert tf_record.masked_crc32c(b"abc") == struct.unpack("<I", data[-4:])[0]


@pytest.mark.parametrize("options,inflate", [
    (None, lambda b: b), ("ZLIB", zlib.decompress), ("GZIP", gzip.decompress),
    (tf.io.TFRecordCompressionType.GZIP, gzip.decompress),
    (tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.ZLIB,
                                  compression_level=1), zlib.decompress),
])
def test_round_trip_in_each_compression(tmp_path, options, inflate):
    path = str(tmp_path / "r")
    w = tf.io.TFRecordWriter(path, options)
    w.write(RECORDS[0])
    w.flush()
    for r in RECORDS[1:]:
        w.write(r)
    w.close()
    assert list(tf.python_io.tf_record_iterator(path, options)) == RECORDS
    assert inflate(open(path, "rb").read()) == b"".join(map(tf_record.encode_record, RECORDS))


def test_writer_truncates_and_errors(tmp_path):
    path = str(tmp_path / "r")
    for _ in range(2):
        with tf.python_io.TFRecordWriter(path) as w:
            w.write(b"once")
    assert list(tf.io.tf_record_iterator(path)) == [b"once"]
    with pytest.raises(tf.errors.FailedPreconditionError, match="Writer is closed."):
        w.write(b"x")
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory"):
        tf.python_io.TFRecordWriter(str(tmp_path / "no" / "r"))
    with pytest.raises(ValueError, match='Not a valid compression_type: "LZ4"'):
        tf.python_io.TFRecordWriter(path, "LZ4")


def test_corrupted_records_are_data_loss(tmp_path):
    path = str(tmp_path / "r")
    with tf.python_io.TFRecordWriter(path) as w:
        w.write(b"abc")
    data = open(path, "rb").read()
    for content, message in [(data[:5] + b"x" + data[6:], "corrupted record at 0"),
                             (data[:13] + b"x" + data[14:], "corrupted record at 12"),
                             (data[:-1], "truncated record at 0")]:
        with open(path, "wb") as f:
            f.write(content)
        with pytest.raises(tf.errors.DataLossError, match=message):
            list(tf.python_io.tf_record_iterator(path))
    with pytest.raises(tf.errors.DataLossError, match="inflate"):
        list(tf.python_io.tf_record_iterator(path, "ZLIB"))
    with pytest.raises(tf.errors.NotFoundError):
        tf.python_io.tf_record_iterator(str(tmp_path / "absent"))


def test_event_files_use_the_same_framing(tmp_path):
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 3)
    writer.close()
    events = list(tf.summary.summary_iterator(str(next(tmp_path.iterdir()))))
    assert [e.step for e in events if e.summary.value] == [3]
