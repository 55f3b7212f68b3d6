"""Variables, initializers and the uninitialized-variable report (graphcore/ops/variables.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def test_variable_structure_and_collections():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.op.name == "w" and v.dtype == tf.float32_ref
    assert v.shape.as_list() == [2]
    assert v.initializer.name == "w/Assign"
    assert v.initial_value.op.name == "w/initial_value"
    assert v.value().op.name == "w/read"
    assert tf.global_variables() == [v] and tf.trainable_variables() == [v]
    local = tf.Variable(0, name="step", trainable=False,
                        collections=[tf.GraphKeys.LOCAL_VARIABLES])
    assert tf.local_variables() == [local] and local not in tf.global_variables()
    with pytest.raises(ValueError):
        tf.Variable(tf.placeholder(tf.float32), name="unknown_shape")
    u = tf.Variable(tf.placeholder_with_default([1.0], [None]), validate_shape=False, name="u")
    assert u.shape.ndims is None


def test_variable_from_callable_and_methods():
    v = tf.Variable(lambda: tf.constant([3, 4]), name="lazy")
    assert v.initial_value.op.name == "lazy/Initializer/Const"
    assert v.initial_value.op.get_attr("_class") == [b"loc:@lazy"]
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(v.assign_add([1, 1])), [4, 5])
        np.testing.assert_array_equal(sess.run(v.assign_sub([2, 2])), [2, 3])
        np.testing.assert_array_equal(sess.run(v.assign([9, 9])), [9, 9])
        np.testing.assert_array_equal(sess.run(v + 1), [10, 10])


def test_assign_validate_shape_and_uninitialized_add():
    v = tf.Variable([1.0, 2.0], name="v")
    bad = tf.assign(v, tf.placeholder_with_default([1.0, 2.0, 3.0], [None]))
    loose = tf.assign(v, tf.placeholder_with_default([5.0], [None]), validate_shape=False)
    inc = tf.assign_add(v, [1.0, 1.0])
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
            sess.run(inc)
        sess.run(v.initializer)
        with pytest.raises(errors.InvalidArgumentError, match="shapes of both tensors"):
            sess.run(bad)
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(loose), [5.0])


def test_report_uninitialized_variables():
    a = tf.Variable(1, name="a")
    tf.Variable([2.0], name="b")
    report = tf.report_uninitialized_variables()
    empty = tf.report_uninitialized_variables([])
    with tf.Session() as sess:
        assert list(sess.run(report)) == [b"a", b"b"]
        sess.run(a.initializer)
        assert list(sess.run(report)) == [b"b"]
        sess.run(tf.global_variables_initializer())
        assert sess.run(report).shape == (0,)
        assert sess.run(empty).shape == (0,)
