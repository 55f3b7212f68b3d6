"""checkpoints_iterator, init_from_checkpoint and warm_start
(graphcore/train/checkpoint_utils.py, warm_starting_util.py)."""

import threading

import numpy as np
import pytest

import graphcore as tf


def _save(path, step, value):
    with tf.Graph().as_default():
        tf.Variable(value, name="v")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.train.Saver().save(sess, path, global_step=step)


def test_checkpoints_iterator_yields_each_new_checkpoint_then_times_out(tmp_path):
    first = _save(str(tmp_path / "model"), 1, 1.0)
    seen = []
    later = threading.Timer(0.3, lambda: seen.append(_save(str(tmp_path / "model"), 2, 2.0)))
    later.start()
    found = list(tf.train.checkpoints_iterator(str(tmp_path), timeout=1.5))
    later.join()
    assert found == [first, seen[0]]


def test_checkpoints_iterator_asks_timeout_fn(tmp_path):
    calls = []

    def timeout_fn():
        calls.append(1)
        return len(calls) >= 2

    assert list(tf.train.checkpoints_iterator(str(tmp_path), timeout=0.1,
                                              timeout_fn=timeout_fn)) == []
    assert len(calls) == 2


def test_init_from_checkpoint_and_warm_start_replace_initializers(tmp_path):
    path = _save(str(tmp_path / "model"), 3, [1.0, 2.0])
    with tf.Graph().as_default():
        a = tf.get_variable("a", [2], initializer=tf.zeros_initializer())
        r = tf.get_variable("r", [2], initializer=tf.zeros_initializer(), use_resource=True)
        c = tf.get_variable("c", [2], initializer=tf.zeros_initializer())
        tf.train.init_from_checkpoint(str(tmp_path), {"v": "a"})
        tf.train.init_from_checkpoint(path, {"v": r})
        tf.train.warm_start(path, [c], var_name_to_prev_var_name={"c": "v"})
        assert a.initializer.op.inputs[1].op.type == "RestoreV2"
        assert a.initializer.op.inputs[1].op.name == "checkpoint_initializer"
        # As TF's, a ref variable's checkpoint initializer is the Assign's Tensor.
        assert a.initializer.name == a.initializer.op.name + ":0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for var in (a, r, c):
                np.testing.assert_array_equal(sess.run(var), [1.0, 2.0])
        with pytest.raises(ValueError, match="var_name_to_vocab_info that were not used"):
            tf.train.warm_start(path, [a], var_name_to_prev_var_name={"a": "v"},
                                var_name_to_vocab_info={
                "nope": tf.train.VocabInfo("new", 2, 0, "old")})


def test_warm_start_with_vocab_moves_rows_to_the_new_vocabulary(tmp_path):
    (tmp_path / "old").write_text("a\nb\nc\n")
    (tmp_path / "new").write_text("c\nz\na\n")
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="emb")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, path)
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [4, 2], initializer=tf.zeros_initializer())
        info = tf.train.VocabInfo(str(tmp_path / "new"), 3, 1, str(tmp_path / "old"),
                                  backup_initializer=tf.ones_initializer())
        tf.train.warm_start(path, ["emb"], var_name_to_vocab_info={"emb": info})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # c (old row 2), z (new: backup), a (old row 0), then one OOV bucket.
            np.testing.assert_array_equal(sess.run(emb), [[4, 5], [1, 1], [0, 1], [1, 1]])
    with pytest.raises(ValueError, match="The only supported values for the axis argument"):
        tf.train.VocabInfo("new", 3, 0, "old", axis=2)
