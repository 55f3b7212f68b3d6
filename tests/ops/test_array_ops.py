"""Array ops available so far: constants, placeholders, stack, where, squeeze, gather."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def test_constant_shapes_and_fill():
    assert tf.constant(0, shape=[2, 3]).shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(tf.constant(7, shape=[2, 2])), np.full((2, 2), 7))
        np.testing.assert_array_equal(sess.run(tf.constant([], dtype=tf.float32)), [])
        assert sess.run(tf.constant("s")) == b"s"


def test_stack_where_squeeze_gather_boolean_mask():
    a = tf.constant([1, 2])
    b = tf.constant([3, 4])
    s0 = tf.stack([a, b])
    s1 = tf.stack([a, b], axis=1)
    assert s0.shape.as_list() == [2, 2] and s1.shape.as_list() == [2, 2]
    mask = tf.constant([True, False, True])
    w = tf.where(mask)
    assert w.dtype == tf.int64 and w.shape.as_list() == [None, 1]
    sq = tf.squeeze(tf.constant([[1], [2]]), axis=[1])
    assert sq.shape.as_list() == [2]
    g = tf.gather(tf.constant([[1, 2], [3, 4], [5, 6]]), [2, 0])
    assert g.shape.as_list() == [2, 2]
    m = tf.boolean_mask(tf.constant(["x", "y", "z"]), mask)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(s0), [[1, 2], [3, 4]])
        np.testing.assert_array_equal(sess.run(s1), [[1, 3], [2, 4]])
        np.testing.assert_array_equal(sess.run(w), [[0], [2]])
        np.testing.assert_array_equal(sess.run(sq), [1, 2])
        np.testing.assert_array_equal(sess.run(g), [[5, 6], [1, 2]])
        assert list(sess.run(m)) == [b"x", b"z"]
        bad = tf.gather(tf.constant([1, 2]), [5])
        with pytest.raises(errors.InvalidArgumentError, match="not in"):
            sess.run(bad)
    with pytest.raises(ValueError):
        tf.squeeze(tf.constant([[1, 2]]), axis=[1])
