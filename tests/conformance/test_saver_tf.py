"""Reference tier for tf.train.Saver: checkpoints interchange with TensorFlow.

a. TensorFlow reads graphcore's checkpoints (tf.train.load_checkpoint and a
   tf.compat.v1 Saver restoring ref variables), and graphcore restores checkpoints
   written by a tf.compat.v1 Saver; data files are byte-identical.
b. The `checkpoint` state file is read by both sides.
c. The Saver graph (node names, ops, inputs) and the checkpoint OpDefs equal TF's.

Skipped when TensorFlow is not installed.
"""

import os

import ml_dtypes
import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
import graphcore.kernels.io_kernels  # noqa: E402, F401 - kernel registrations
from graphcore.framework import op_registry  # noqa: E402
from graphcore.lib.io import checkpoint_format as fmt  # noqa: E402
from graphcore.protobuf import op_def_pb2  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
from tensorflow.python.framework import op_def_registry  # noqa: E402

VALUES = {
    "dense/kernel": np.arange(12, dtype=np.float32).reshape(3, 4) / 7,
    "dense/bias": np.array([0.5, -0.25, 1e-8, 3e30], dtype=np.float32),
    "f64": np.array(1.0 / 3.0),
    "f16": np.array([0.1, -2.0], dtype=np.float16),
    "bf16": np.array([1.5, -3.25], dtype=ml_dtypes.bfloat16),
    "i8": np.array([-128, 127], dtype=np.int8),
    "u8": np.array([0, 255], dtype=np.uint8),
    "i16": np.array([-3], dtype=np.int16),
    "u16": np.array([65535], dtype=np.uint16),
    "i32": np.array([[1, -2], [3, 4]], dtype=np.int32),
    "i64": np.array(2**62 + 1, dtype=np.int64),
    "c64": np.array([1 + 2j], dtype=np.complex64),
    "c128": np.array([-1j, 2.5], dtype=np.complex128),
    "flag": np.array([True, False]),
    "words": np.array([b"alpha", b"", b"\x00\xff" * 200], dtype=object),
    "word": np.array(b"one", dtype=object),
    "global_step": np.array(1234, dtype=np.int64),
}


def _tf_dtype(arr):
    if arr.dtype == object:
        return tf_ref.string
    if arr.dtype == ml_dtypes.bfloat16:
        return tf_ref.bfloat16
    return tf_ref.as_dtype(arr.dtype)


def _same(got, want):
    if want.dtype == object:
        got = np.asarray(got, dtype=object)
        assert got.shape == want.shape
        assert list(got.reshape(-1)) == list(want.reshape(-1))
        return
    got = np.asarray(got)
    assert got.shape == want.shape and got.dtype == want.dtype, (got, want)
    np.testing.assert_array_equal(got, want)


def _zero(arr):
    return np.full(arr.shape, b"", dtype=object) if arr.dtype == object else np.zeros_like(arr)


def _gc_save(path, values=VALUES, **save_kwargs):
    with tf.Graph().as_default():
        variables = [tf.Variable(v, name=k) for k, v in values.items()]
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run([v.initializer for v in variables])
            return saver.save(sess, path, **save_kwargs)


def _tf_graph(values):
    variables = {k: tf1.Variable(v, name=k, dtype=_tf_dtype(v), use_resource=False)
                 for k, v in values.items()}
    return variables, tf1.train.Saver()


# -- a. checkpoints --------------------------------------------------------------------------


def test_tf_load_checkpoint_reads_ours(tmp_path):
    prefix = _gc_save(str(tmp_path / "model"), global_step=5)
    reader = tf_ref.train.load_checkpoint(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(VALUES)
    for name, want in VALUES.items():
        _same(reader.get_tensor(name), want)
        assert reader.get_variable_to_shape_map()[name] == list(want.shape)
        assert reader.get_variable_to_dtype_map()[name].name == _tf_dtype(want).name


def test_tf_reads_our_index_spanning_many_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(fmt, "BLOCK_SIZE", 100)
    values = {f"layer_{i:03d}/weights": np.full((i % 3, 2), i, np.float32) for i in range(200)}
    prefix = _gc_save(str(tmp_path / "many"), values)
    reader = tf_ref.train.load_checkpoint(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(values)
    for name, want in values.items():
        _same(reader.get_tensor(name), want)


def test_tf_compat_v1_saver_restores_ours(tmp_path):
    prefix = _gc_save(str(tmp_path / "model"))
    with tf_ref.Graph().as_default():
        variables, saver = _tf_graph({k: _zero(v) for k, v in VALUES.items()})
        with tf1.Session() as sess:
            saver.restore(sess, prefix)
            for name, want in VALUES.items():
                _same(sess.run(variables[name]), want)


def test_we_restore_a_tf_compat_v1_checkpoint(tmp_path):
    with tf_ref.Graph().as_default():
        variables, saver = _tf_graph(VALUES)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            prefix = saver.save(sess, str(tmp_path / "tf_model"), global_step=3,
                                write_meta_graph=False)
    with tf.Graph().as_default():
        ours = {k: tf.Variable(_zero(v), name=k) for k, v in VALUES.items()}
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
            for name, want in VALUES.items():
                _same(sess.run(ours[name]), want)
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix
    reader = tf.train.load_checkpoint(prefix)
    assert tf.train.list_variables(prefix) == tf_ref.train.list_variables(prefix)
    _same(reader.get_tensor("dense/kernel"), VALUES["dense/kernel"])


def test_data_files_are_byte_identical_to_tf(tmp_path):
    ours = _gc_save(str(tmp_path / "ours"))
    with tf_ref.Graph().as_default():
        _, saver = _tf_graph(VALUES)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            theirs = saver.save(sess, str(tmp_path / "theirs"), write_meta_graph=False)
    data = ".data-00000-of-00001"
    with open(ours + data, "rb") as a, open(theirs + data, "rb") as b:
        assert a.read() == b.read()
    # The index entries (dtype, shape, offsets, crc32c) and header agree too.
    ours_reader, theirs_reader = fmt.BundleReader(ours), fmt.BundleReader(theirs)
    assert ours_reader.header == theirs_reader.header
    assert ours_reader.entries == theirs_reader.entries


def test_sharded_checkpoint_readable_by_tf(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], name="a")
        with tf.device("/cpu:0"):
            b = tf.Variable([3, 4], name="b")
        saver = tf.train.Saver(sharded=True)
        with tf.Session() as sess:
            sess.run([a.initializer, b.initializer])
            prefix = saver.save(sess, str(tmp_path / "sharded"))
    reader = tf_ref.train.load_checkpoint(prefix)
    np.testing.assert_array_equal(reader.get_tensor("a"), [1.0, 2.0])
    np.testing.assert_array_equal(reader.get_tensor("b"), [3, 4])


# -- b. the checkpoint state file ------------------------------------------------------------


def test_checkpoint_state_file_interchanges(tmp_path):
    ours_dir = tmp_path / "ours"
    ours_dir.mkdir()
    with tf.Graph().as_default():
        tf.Variable(1.0, name="x")
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for step in range(3):
                saver.save(sess, str(ours_dir / "m"), global_step=step)
    theirs = tf_ref.train.get_checkpoint_state(str(ours_dir))
    assert theirs.model_checkpoint_path == str(ours_dir / "m-2")
    assert list(theirs.all_model_checkpoint_paths) == [str(ours_dir / "m-1"),
                                                       str(ours_dir / "m-2")]
    assert tf_ref.train.latest_checkpoint(str(ours_dir)) == str(ours_dir / "m-2")

    tf_dir = tmp_path / "theirs"
    tf_dir.mkdir()
    with tf_ref.Graph().as_default():
        tf1.Variable(1.0, name="x", use_resource=False)
        saver = tf1.train.Saver(max_to_keep=2)
        with tf1.Session() as sess:
            sess.run(tf1.global_variables_initializer())
            for step in range(3):
                saver.save(sess, str(tf_dir / "m"), global_step=step)
    state = tf.train.get_checkpoint_state(str(tf_dir))
    assert state.model_checkpoint_path == str(tf_dir / "m-2")
    assert list(state.all_model_checkpoint_paths) == [str(tf_dir / "m-1"), str(tf_dir / "m-2")]
    assert (tf_dir / "checkpoint").read_text() == (ours_dir / "checkpoint").read_text().replace(
        str(ours_dir), str(tf_dir))
    assert sorted(os.listdir(tf_dir)) == sorted(os.listdir(ours_dir))


# -- c. graph and OpDefs ---------------------------------------------------------------------


def _save_nodes(lib, graph_cls, **kwargs):
    with graph_cls().as_default() as graph:
        lib.Variable([1.0, 2.0], name="v", **kwargs)
        lib.Variable(3, name="w", **kwargs)
        with lib.name_scope("layer"):
            lib.Variable([[1]], name="k", **kwargs)
        saver = lib.train.Saver(max_to_keep=3)
        nodes = [(n.name, n.op, list(n.input), n.device) for n in graph.as_graph_def().node
                 if n.name.startswith("save")]
        return nodes, saver.as_saver_def().SerializeToString()


def test_saver_graph_matches_tf():
    ours = _save_nodes(tf, tf.Graph)
    theirs = _save_nodes(tf1, tf_ref.Graph, use_resource=False)
    assert ours == theirs


@pytest.mark.parametrize("op_type", ["SaveV2", "RestoreV2", "MergeV2Checkpoints",
                                     "ShardedFilename"])
def test_op_defs_match_tf(op_type):
    ours = op_registry.get(op_type).op_def
    theirs = op_def_pb2.OpDef.FromString(op_def_registry.get(op_type).SerializeToString())
    assert ours == theirs
