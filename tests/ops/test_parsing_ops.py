"""graphcore/ops/parsing_ops.py without TensorFlow: Example parsing (dense, sparse,
padded sequences, defaults, errors), DecodeRaw, DecodeCSV, SerializeTensor/ParseTensor,
ReadFile/WriteFile — values against hand-computed ones, static shapes, op types."""

import numpy as np
import pytest

import graphcore as tf


def _feature(kind, values):
    lists = {"f": ("float_list", tf.train.FloatList), "i": ("int64_list", tf.train.Int64List),
             "b": ("bytes_list", tf.train.BytesList)}
    field, cls = lists[kind]
    return tf.train.Feature(**{field: cls(value=values)})


def _example(**features):
    return tf.train.Example(features=tf.train.Features(
        feature={k: _feature(*v) for k, v in features.items()})).SerializeToString()


BATCH = [_example(x=("f", [1.0, 2.0]), ids=("i", [4, 5, 6]), seq=("i", [1, 2, 3, 4])),
         _example(ids=("i", [7]), seq=("i", [5, 6]), w=("b", [b"hi"]))]


def _run(fetch, feed=None):
    with tf.Session() as sess:
        return sess.run(fetch, feed)


def test_parse_example_dense_sparse_and_sequence():
    s = tf.placeholder(tf.string, [None])
    out = tf.parse_example(s, {
        "x": tf.FixedLenFeature([2], tf.float32, default_value=[-1.0, -2.0]),
        "ids": tf.VarLenFeature(tf.int64),
        "seq": tf.FixedLenSequenceFeature([2], tf.int64, allow_missing=True),
        "w": tf.FixedLenFeature([], tf.string, default_value="none")})
    assert isinstance(out["ids"], tf.SparseTensor)
    assert out["x"].shape.as_list() == [None, 2] and out["seq"].shape.as_list() == [None, None, 2]
    assert out["x"].op.type == "ParseExampleV2" and out["x"].op.name == "ParseExample/ParseExampleV2"
    v = _run(out, {s: BATCH})
    np.testing.assert_array_equal(v["x"], [[1, 2], [-1, -2]])
    assert v["x"].dtype == np.float32
    np.testing.assert_array_equal(v["ids"].indices, [[0, 0], [0, 1], [0, 2], [1, 0]])
    np.testing.assert_array_equal(v["ids"].values, [4, 5, 6, 7])
    np.testing.assert_array_equal(v["ids"].dense_shape, [2, 3])
    np.testing.assert_array_equal(v["seq"], [[[1, 2], [3, 4]], [[5, 6], [0, 0]]])
    assert v["w"].tolist() == [b"none", b"hi"]


def test_parse_single_example_has_no_batch_dimension():
    out = tf.parse_single_example(tf.constant(BATCH[0]), {
        "ids": tf.VarLenFeature(tf.int64),
        "seq": tf.FixedLenSequenceFeature([], tf.int64, allow_missing=True, default_value=9)})
    assert out["ids"].indices.shape.as_list() == [None, 1]
    v = _run(out)
    np.testing.assert_array_equal(v["ids"].indices, [[0], [1], [2]])
    np.testing.assert_array_equal(v["ids"].dense_shape, [3])
    np.testing.assert_array_equal(v["seq"], [1, 2, 3, 4])


@pytest.mark.parametrize("features,error,message", [
    ({"x": tf.FixedLenFeature([2], tf.float32)}, tf.errors.InvalidArgumentError,
     "Feature: x \\(data type: float\\) is required but could not be found"),
    ({"ids": tf.FixedLenFeature([3], tf.float32)}, tf.errors.InvalidArgumentError,
     "Data types don't match. Data type: int64 but expected type: float"),
    ({"seq": tf.FixedLenSequenceFeature([3], tf.int64, allow_missing=True)},
     tf.errors.InvalidArgumentError, "is not a multiple of stride length"),
])
def test_parse_example_errors(features, error, message):
    out = tf.parse_example(tf.constant(BATCH), features)
    with pytest.raises(error, match=message):
        _run(out)


@pytest.mark.parametrize("features,message", [
    ({}, "cannot be None or falsy"),
    ({"a": tf.FixedLenFeature([None], tf.float32)}, "First dimension of shape for feature a"),
    ({"a": tf.FixedLenSequenceFeature([], tf.float32)}, "requires allow_missing to be True"),
    ({"a": "not a feature"}, "Invalid feature a"),
])
def test_parse_example_rejects_bad_feature_specs(features, message):
    with pytest.raises(ValueError, match=message):
        tf.parse_example(tf.constant(BATCH), features)


def test_decode_raw_and_csv():
    raw = tf.decode_raw(tf.constant([[b"\x01\x00\x02\x00"]]), tf.int16)
    be = tf.decode_raw(tf.constant(b"\x00\x00\x80\x3f"), tf.float32, little_endian=False)
    assert raw.shape.as_list() == [1, 1, None]
    cols = tf.decode_csv(tf.constant(['1,"x,""y""",2.5', "2,,NA"]),
                         [[0], ["d"], tf.constant([7.0], tf.float64)], na_value="NA")
    assert [c.dtype for c in cols] == [tf.int32, tf.string, tf.float64]
    r, b, (i, s, f) = _run([raw, be, cols])
    np.testing.assert_array_equal(r, [[[1, 2]]])
    assert b.tolist() == [np.frombuffer(b"\x00\x00\x80\x3f", ">f4")[0]]
    assert (i.tolist(), s.tolist(), f.tolist()) == ([1, 2], [b'x,"y"', b"d"], [2.5, 7.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
        _run(tf.decode_csv(tf.constant(["1,2,3"]), [[0], [0]]))
    with pytest.raises(ValueError, match="select_cols is not strictly increasing"):
        tf.decode_csv(tf.constant(["1,2"]), [[0], [0]], select_cols=[1, 0])


def test_serialize_and_parse_tensor_round_trip():
    value = np.arange(6, dtype=np.int64).reshape(2, 3)
    s = tf.serialize_tensor(tf.constant(value))
    assert s.shape.as_list() == [] and s.op.type == "SerializeTensor"
    back = tf.parse_tensor(s, tf.int64)
    serialized, parsed = _run([s, back])
    proto = tf.TensorProto.FromString(serialized)
    assert proto.tensor_content == value.tobytes() and proto.dtype == tf.int64.as_datatype_enum
    np.testing.assert_array_equal(parsed, value)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch"):
        _run(tf.parse_tensor(s, tf.float32))


def test_read_and_write_file(tmp_path):
    path = str(tmp_path / "new" / "f.txt")
    write = tf.write_file(path, "data")
    assert write.type == "WriteFile" and tf.read_file(path).op.type == "ReadFile"
    _run(write)
    assert _run(tf.io.read_file(path)) == b"data"
    with pytest.raises(tf.errors.NotFoundError):
        _run(tf.read_file(str(tmp_path / "absent")))


def test_decode_compressed():
    import gzip
    import zlib

    out = tf.decode_compressed(tf.constant([[zlib.compress(b"ab")], [zlib.compress(b"")]]),
                               "ZLIB")
    assert out.shape.as_list() == [2, 1]
    assert _run(out).tolist() == [[b"ab"], [b""]]
    assert _run(tf.io.decode_compressed(gzip.compress(b"z"), "GZIP")) == b"z"
    with pytest.raises(tf.errors.DataLossError):
        _run(tf.decode_compressed(tf.constant(b"not zlib"), "ZLIB"))
