"""MetaGraphDefs: Saver writes prefix.meta, import_meta_graph restores graph, collections
and saver (graphcore/train/meta_graph.py)."""

import numpy as np
import pytest

import graphcore as tf


def _train_graph():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    w = tf.Variable(np.array([[1.0], [2.0]], np.float32), name="w")
    step = tf.train.get_or_create_global_step()
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0), name="loss")
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
    tf.add_to_collection("my_train", train)
    tf.add_to_collection("numbers", 7)
    return x, w, train


X = np.array([[1.0, 0.5], [0.2, 1.0]], np.float32)


def test_save_writes_meta_and_import_meta_graph_restores_everything(tmp_path):
    prefix = str(tmp_path / "model")
    with tf.Graph().as_default():
        x, w, train = _train_graph()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                sess.run(train, {x: X})
            saved_w = sess.run(w)
            path = saver.save(sess, prefix, global_step=3)
        names = sorted(v.name for v in tf.global_variables())
    assert (tmp_path / "model-3.meta").exists()

    with tf.Graph().as_default() as g:
        restorer = tf.train.import_meta_graph(path + ".meta")
        assert isinstance(restorer, tf.train.Saver)
        assert sorted(v.name for v in tf.global_variables()) == names
        assert [v.name for v in tf.trainable_variables()] == ["w:0"]
        assert tf.get_collection("numbers") == [7]
        (train_op,) = tf.get_collection("my_train")
        assert tf.get_collection("train_op") == [train_op]  # apply_gradients adds it, as TF
        assert (train_op.name, train_op.type) == ("GradientDescent", "AssignAdd")
        with tf.Session() as sess:
            restorer.restore(sess, path)
            w2 = tf.global_variables()[0]
            np.testing.assert_array_equal(sess.run(w2), saved_w)
            sess.run(train_op, {g.get_tensor_by_name("x:0"): X})
            assert sess.run(tf.train.get_global_step()) == 4
            assert len(sess.run(tf.report_uninitialized_variables())) == 0


def test_import_scope_and_text_form(tmp_path):
    with tf.Graph().as_default():
        _train_graph()
        saver = tf.train.Saver()
        meta = saver.export_meta_graph(str(tmp_path / "g.meta.txt"), as_text=True)
        assert meta.meta_info_def.meta_graph_version == "v1.0"
        assert "VariableV2" in [op.name for op in meta.meta_info_def.stripped_op_list.op]
    with tf.Graph().as_default() as g:
        restorer = tf.train.import_meta_graph(str(tmp_path / "g.meta.txt"),
                                              import_scope="copy")
        assert g.get_operation_by_name("copy/w").type == "VariableV2"
        assert restorer.saver_def.restore_op_name.startswith("copy/")
        assert [v.name for v in tf.trainable_variables()] == ["copy/w:0"]


def test_import_meta_graph_bad_file(tmp_path):
    with pytest.raises(OSError, match="does not exist"):
        tf.train.import_meta_graph(str(tmp_path / "missing.meta"))
    bad = tmp_path / "bad.meta"
    bad.write_bytes(b"\xff\xfe not a proto")
    with pytest.raises(OSError, match="Cannot parse"):
        tf.train.import_meta_graph(str(bad))
