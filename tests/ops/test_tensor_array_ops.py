"""TensorArray (graphcore/ops/tensor_array_ops.py, its kernels and gradients): values,
static shapes, write-once and clear-after-read rules, use in while loops."""

import numpy as np
import pytest

import graphcore as tf

X = np.arange(12, dtype=np.float32).reshape(4, 3)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


CASES = {
    "write_read": (lambda: tf.TensorArray(tf.float32, size=2).write(1, [1., 2.]).read(1),
                   np.array([1., 2.], np.float32)),
    "unwritten_reads_zeros": (
        lambda: tf.TensorArray(tf.float32, size=2, element_shape=[2]).read(0),
        np.zeros(2, np.float32)),
    "unstack_stack": (lambda: tf.TensorArray(tf.float32, size=4).unstack(X).stack(), X),
    "scatter_gather": (
        lambda: tf.TensorArray(tf.float32, size=5).scatter([4, 0], X[:2]).gather([0, 4]),
        X[1::-1]),
    "split_concat": (
        lambda: tf.TensorArray(tf.float32, size=2, infer_shape=False)
        .split(X, [1, 3]).concat(), X),
    "dynamic_size": (
        lambda: tf.TensorArray(tf.int32, size=0, dynamic_size=True).write(5, 1).size(),
        np.int32(6)),
    "empty_with_shape": (
        lambda: tf.TensorArray(tf.float32, size=0, element_shape=[3]).stack(),
        np.zeros((0, 3), np.float32)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_tensor_array_values(case):
    build, want = CASES[case]
    got = _run(build())
    assert np.asarray(got).dtype == np.asarray(want).dtype
    np.testing.assert_array_equal(got, want)


def test_static_shapes_and_graph():
    ta = tf.TensorArray(tf.float32, size=4, name="arr")
    assert ta.handle.op.type == "TensorArrayV3" and ta.handle.op.name == "arr"
    assert ta.handle.shape.as_list() == [2] and ta.flow.shape.as_list() == []
    written = ta.unstack(tf.placeholder(tf.float32, [4, 3]))
    assert written.element_shape.as_list() == [3]
    assert written.stack().shape.as_list() == [4, 3]
    assert written.read(0).shape.as_list() == [3]
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        written.write(0, [1., 2.])
    with pytest.raises(ValueError, match="`size` must be provided"):
        tf.TensorArray(tf.float32)


@pytest.mark.parametrize("build, message", [
    (lambda: tf.TensorArray(tf.float32, size=2).write(0, 1.).write(0, 2.).stack(),
     "because it has already been written to"),
    (lambda: (lambda ta: [ta.read(0), ta.read(0)])(
        tf.TensorArray(tf.float32, size=1).write(0, 1.)),
     "Could not read index 0 twice because it was cleared"),
    (lambda: tf.TensorArray(tf.float32, size=1).read(0),
     "Could not read from TensorArray index 0"),
])
def test_runtime_errors(build, message):
    with pytest.raises(tf.errors.InvalidArgumentError, match=message):
        _run(build())


def test_while_loop_and_gradients():
    x = tf.constant(X)
    inp = tf.TensorArray(tf.float32, size=4).unstack(x)

    def body(i, acc, out):
        v = inp.read(i)
        return i + 1, acc + v, out.write(i, v * v)

    _, acc, out = tf.while_loop(lambda i, *_: i < 4, body,
                                [0, tf.zeros([3]), tf.TensorArray(tf.float32, size=4)])
    assert isinstance(out, tf.TensorArray)
    y = out.stack()
    grad = tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(acc * 2.), x)[0]
    got_y, got_acc, got_grad = _run([y, acc, grad])
    np.testing.assert_allclose(got_y, X * X)
    np.testing.assert_allclose(got_acc, X.sum(0))
    np.testing.assert_allclose(got_grad, 2 * X + 2)


def test_grad_arrays_are_per_source_and_sum_writes():
    from graphcore.framework.op_def_library import apply_op

    ta = tf.TensorArray(tf.float32, size=2, element_shape=[3])
    g1 = ta.grad("gradients").write(0, [1., 2., 3.])
    g2 = ta.grad("gradients", flow=g1.flow).write(0, [1., 1., 1.])
    other = ta.grad("gradients_1", flow=g2.flow)
    shaped = apply_op("TensorArrayGradWithShape", handle=ta.handle, flow_in=g2.flow,
                      shape_to_prepend=[2], source="gradients_2").outputs
    with_shape = tf.TensorArray(tf.float32, handle=shaped[0], flow=shaped[1])
    summed, fresh, prepended = _run([g2.read(0), other.read(0), with_shape.read(1)])
    np.testing.assert_array_equal(summed, [2., 3., 4.])
    np.testing.assert_array_equal(fresh, np.zeros(3, np.float32))
    assert prepended.shape == (2, 3)
