"""Lookup tables without TensorFlow: values, sizes, text-file parsing, mutable tables and
the errors of graphcore/ops/lookup_ops.py and its kernels."""

import numpy as np
import pytest

import graphcore as tf


def _run(fetches, steps=()):
    with tf.Session() as sess:
        sess.run(tf.tables_initializer())
        for step in steps:
            sess.run(step)
        return sess.run(fetches)


def test_static_hash_table_values_size_and_export():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(["a", "b", "c"], [1, 2, 3]), -1)
        found, size, (keys, values) = _run([table.lookup(tf.constant([["a", "z"], ["c", "b"]])),
                                            table.size(), table.export()])
    np.testing.assert_array_equal(found, [[1, -1], [3, 2]])
    assert size == 3 and found.dtype == np.int32
    assert dict(zip(keys.tolist(), values.tolist())) == {b"a": 1, b"b": 2, b"c": 3}


def test_text_file_tables_and_vocabulary_buckets(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("x,10\ny,20\nz,30\n")
    with tf.Graph().as_default():
        by_column = tf.lookup.StaticHashTable(tf.lookup.TextFileInitializer(
            str(path), tf.string, 0, tf.int64, 1, delimiter=","), -1)
        by_line = tf.lookup.StaticVocabularyTable(tf.lookup.TextFileInitializer(
            str(path), tf.string, tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
            tf.lookup.TextFileIndex.LINE_NUMBER, value_index_offset=1), 4)
        cols, ids, size = _run([by_column.lookup(tf.constant(["z", "x", "q"])),
                                by_line.lookup(tf.constant(["y,20", "q", "q"])),
                                by_line.size()])
    np.testing.assert_array_equal(cols, [30, 10, -1])
    assert ids[0] == 2 and 3 <= ids[1] < 7 and ids[1] == ids[2] and size == 7


def test_mutable_table_insert_remove_and_vector_values():
    with tf.Graph().as_default():
        table = tf.lookup.experimental.MutableHashTable(tf.int64, tf.float32, [0.0, -1.0])
        steps = [table.insert(tf.constant([1, 2], tf.int64), [[1.0, 2.0], [3.0, 4.0]]),
                 table.remove(tf.constant([1], tf.int64))]
        found, size = _run([table.lookup(tf.constant([1, 2], tf.int64)), table.size()], steps)
    np.testing.assert_array_equal(found, [[0.0, -1.0], [3.0, 4.0]])
    assert size == 1


def test_table_errors():
    with tf.Graph().as_default():
        table = tf.lookup.StaticHashTable(tf.lookup.KeyValueTensorInitializer([1, 2], [3, 4]),
                                          0)
        with pytest.raises(TypeError, match="Dtype of argument `keys` must be <dtype: 'int32'>"):
            table.lookup(tf.constant(["a"]))
        found = table.lookup(tf.constant([1]))
        other = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer([1, 1], [3, 4]), 0)
        with tf.Session() as sess:
            with pytest.raises(tf.errors.FailedPreconditionError, match="not initialized"):
                sess.run(found)
            with pytest.raises(tf.errors.FailedPreconditionError, match="different value"):
                sess.run(other.initializer)
    with pytest.raises(ValueError, match="`key_dtype` must be int64"):
        tf.lookup.TextFileInitializer("f", tf.string, -1, tf.int64, 0)


def test_saver_checkpoints_mutable_tables(tmp_path):
    prefix = str(tmp_path / "model")

    def build():
        table = tf.lookup.experimental.MutableHashTable(tf.string, tf.int64, -1)
        dense = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, -1, empty_key=0,
                                                      deleted_key=-1, initial_num_buckets=8)
        fill = [table.insert(["k"], tf.constant([4], tf.int64)),
                dense.insert(tf.constant([9, 10], tf.int64), tf.constant([90, 100], tf.int64))]
        return fill, [table.lookup(["k", "j"]), dense.lookup(tf.constant([10, 11], tf.int64))]

    with tf.Graph().as_default():
        fill, _ = build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(fill)
            saver.save(sess, prefix)
    with tf.Graph().as_default():
        _, find = build()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            saver.restore(sess, prefix)
            found, dense_found = sess.run(find)
    np.testing.assert_array_equal(found, [4, -1])
    np.testing.assert_array_equal(dense_found, [100, -1])
