"""Resource variables (graphcore/ops/resource_variable_ops.py and their kernels): errors,
snapshot reads, the enable/disable default, and the small ops."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework import errors
from graphcore.ops import resource_variable_ops as rv


def test_reading_an_uninitialized_resource_variable_is_a_failed_precondition():
    v = tf.Variable([1.0], name="w", use_resource=True)
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="Could not find variable w"):
            sess.run(v)
        assert not sess.run(tf.is_variable_initialized(v))
        sess.run(v.initializer)  # the session stays usable
        assert sess.run(tf.is_variable_initialized(v))


def test_assign_checks_shape_and_dtype_as_tf():
    v = tf.Variable([1.0, 2.0], use_resource=True)
    bad_shape = rv.assign_variable_op(v.handle, tf.constant([1.0, 2.0, 3.0]),
                                      validate_shape=True)
    free_shape = rv.assign_variable_op(v.handle, tf.constant([1.0, 2.0, 3.0]))
    bad_add = rv.assign_add_variable_op(v.handle, tf.constant([1.0]))
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(errors.InvalidArgumentError, match="wrong shape. Expected \\[2\\] "
                                                              "got \\[3\\]"):
            sess.run(bad_shape)
        with pytest.raises(errors.InvalidArgumentError, match="shapes must be equal"):
            sess.run(bad_add)
        sess.run(free_shape)  # validate_shape=False replaces the value
        np.testing.assert_array_equal(sess.run(rv.read_variable_op(v.handle, tf.float32)),
                                      [1.0, 2.0, 3.0])
        with pytest.raises(errors.InvalidArgumentError, match="wrong dtype"):
            sess.run(rv.read_variable_op(v.handle, tf.int32))


def test_reads_are_snapshots_and_writes_do_not_change_them():
    v = tf.Variable([1.0, 2.0], use_resource=True)
    before = v.value()
    with tf.control_dependencies([before]):
        write = v.assign_add([10.0, 10.0], read_value=False)
    with tf.control_dependencies([write]):
        doubled = before * 2.0
        after = v.read_value()
    with tf.Session() as sess:
        sess.run(v.initializer)
        got_doubled, got_after = sess.run([doubled, after])
    np.testing.assert_array_equal(got_doubled, [2.0, 4.0])
    np.testing.assert_array_equal(got_after, [11.0, 12.0])


def test_enable_and_disable_resource_variables():
    assert not tf.resource_variables_enabled()
    tf.enable_resource_variables()
    try:
        assert type(tf.Variable(1.0)).__name__ == "ResourceVariable"
        assert type(tf.get_variable("g", shape=[1])).__name__ == "ResourceVariable"
        assert type(tf.Variable(1.0, use_resource=False)).__name__ == "Variable"
    finally:
        tf.disable_resource_variables()
    assert type(tf.Variable(1.0)).__name__ == "Variable"
    assert isinstance(tf.Variable(1.0, use_resource=True), tf.Variable)


def test_variable_shape_destroy_and_colocation():
    with tf.device("/cpu:0"):
        v = tf.Variable(np.zeros((2, 3), np.float32), use_resource=True)
    shape = rv.variable_shape(v.handle)
    destroy = rv.destroy_resource_op(v.handle)
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(shape), [2, 3])
        sess.run(destroy)
        with pytest.raises(errors.FailedPreconditionError):
            sess.run(v.value())


def test_resource_variable_round_trips_through_variable_def():
    v = tf.Variable([1.0, 2.0], name="w", use_resource=True)
    vdef = v.to_proto()
    assert vdef.is_resource and vdef.variable_name == "w:0"
    assert vdef.snapshot_name == "w/Read/ReadVariableOp:0"
    again = tf.Variable.from_proto(vdef)
    assert type(again).__name__ == "ResourceVariable" and again.handle is v.handle
    with tf.Session() as sess:
        sess.run(again.initializer)
        np.testing.assert_array_equal(sess.run(again), [1.0, 2.0])
