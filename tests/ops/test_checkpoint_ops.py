"""GenerateVocabRemapping and LoadAndRemapMatrix (graphcore/ops/checkpoint_ops.py,
kernels/checkpoint_remap_kernels.py): remappings, remapped loads, filling and errors."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.ops import checkpoint_ops


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "old").write_text("a\nb\nc\n")
    (tmp_path / "new").write_text("c\nz\na\nb\n")
    path = str(tmp_path / "model")
    with tf.Graph().as_default():
        tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="m")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            tf.train.Saver().save(sess, path)
    return str(tmp_path / "old"), str(tmp_path / "new"), path


def test_generate_vocab_remapping(files):
    old, new, _ = files
    with tf.Graph().as_default():
        remap, present = checkpoint_ops.generate_vocab_remapping(new, old, 1, 3)
        short, short_present = checkpoint_ops.generate_vocab_remapping(new, old, 0, 4,
                                                                       old_vocab_size=2)
        too_many = checkpoint_ops.generate_vocab_remapping(new, old, 2, 3)[0]
        assert remap.shape.as_list() == [3] and present.dtype == tf.int32
        with tf.Session() as sess:
            assert sess.run([remap, present])[0].tolist() == [-1, 0, 1]
            assert sess.run(present) == 2
            assert sess.run(short).tolist() == [-1, -1, 0, 1]
            assert sess.run(short_present) == 2
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="lookup table size must be larger than last new vocab"):
                sess.run(too_many)


def test_load_and_remap_matrix_fills_missing_cells_in_order(files):
    _, _, path = files
    with tf.Graph().as_default():
        out = checkpoint_ops.load_and_remap_matrix(
            path, "m", row_remapping=tf.constant([2, -1, 0], tf.int64),
            col_remapping=tf.constant([1, -1], tf.int64),
            initializing_values=[10.0, 11.0, 12.0, 13.0], num_rows=3, num_cols=2)
        wrong = checkpoint_ops.load_and_remap_matrix(
            path, "m", row_remapping=tf.constant([2, -1, 0], tf.int64),
            col_remapping=tf.constant([], tf.int64), initializing_values=[1.0],
            num_rows=3, num_cols=2)
        assert out.shape.as_list() == [3, 2]
        with tf.Session() as sess:
            np.testing.assert_array_equal(sess.run(out), [[5, 10], [11, 12], [1, 13]])
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="initializing_values contained 1 elements, but more "
                                     "missing values remain."):
                sess.run(wrong)
