"""Gradients of the array ops: finite-difference checks in float64, and the ops TF marks
not differentiable or gradient-disabled."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework import op_registry

_RNG = np.random.default_rng(0)


def _grad_error(x, x_value, y, delta=1e-6):
    """max |theoretical - numerical| Jacobian entry of y w.r.t. x (central differences).

    Every fetched value is copied: kernels like Identity/Reshape may return views of the
    fed array, which is perturbed in place between runs."""
    sess = tf.get_default_session()
    y_shape = list(np.shape(sess.run(y, {x: x_value})))
    dy = tf.placeholder(tf.float64, y_shape)
    (dx,) = tf.gradients(y, x, grad_ys=dy)
    if isinstance(dx, tf.IndexedSlices):  # a gather's gradient, as TF's
        dx = tf.convert_to_tensor(dx)
    n_y, n_x = int(np.prod(y_shape)), x_value.size
    theoretical = np.zeros((n_x, n_y))
    numerical = np.zeros((n_x, n_y))
    for j in range(n_y):
        onehot = np.zeros(n_y)
        onehot[j] = 1
        got = sess.run(dx, {x: x_value, dy: onehot.reshape(y_shape)})
        theoretical[:, j] = np.array(got, dtype=np.float64).reshape(-1)
    for i in range(n_x):
        plus, minus = x_value.copy(), x_value.copy()
        plus.reshape(-1)[i] += delta
        minus.reshape(-1)[i] -= delta
        y_plus = np.array(sess.run(y, {x: plus}), dtype=np.float64)
        y_minus = np.array(sess.run(y, {x: minus}), dtype=np.float64)
        numerical[i] = ((y_plus - y_minus) / (2 * delta)).reshape(-1)
    return float(np.max(np.abs(theoretical - numerical))) if theoretical.size else 0.0


# name -> (x shape, fn(x) -> y)
CASES = {
    "reshape": ([3, 4], lambda x: tf.reshape(x, [2, -1])),
    "reshape_partial": ([3, 4], lambda x: tf.reshape(
        tf.placeholder_with_default(x, [None, 4]), [-1])),
    "transpose": ([2, 3, 4], lambda x: tf.transpose(x, [2, 0, 1])),
    "expand_dims": ([3, 4], lambda x: tf.expand_dims(x, 1)),
    "squeeze": ([3, 1, 4], lambda x: tf.squeeze(x)),
    "concat": ([3, 4], lambda x: tf.concat([x, x[:, :2], x], -1)),
    "concat_dynamic": ([3, 4], lambda x: tf.concat(
        [tf.placeholder_with_default(x, [None, 4]), x], 0)),
    "split": ([3, 4], lambda x: tf.split(x, 2, axis=1)[1]),
    "split_v": ([3, 4], lambda x: tf.split(x, [1, -1], axis=1)[1]),
    "stack": ([3, 4], lambda x: tf.stack([x, x[::-1]], axis=1)),
    "unstack": ([3, 4], lambda x: tf.unstack(x, axis=1)[2]),
    "slice": ([3, 4], lambda x: tf.slice(x, [1, 1], [2, -1])),
    "getitem": ([3, 4, 2], lambda x: x[1:, ::2, None]),
    "getitem_ellipsis": ([3, 4, 2], lambda x: x[..., 0]),
    "getitem_negative": ([3, 4], lambda x: x[-1]),
    "getitem_reverse": ([3, 4], lambda x: x[::-2, 3:0:-1]),
    "strided_slice_new_axis": ([3, 4], lambda x: x[None, 1:, tf.newaxis, -2]),
    "gather_axis0": ([4, 3], lambda x: tf.gather(x, [[2, 0], [2, 3]])),
    "gather_axis1": ([2, 4, 3], lambda x: tf.gather(x, [3, 0, 3], axis=1)),
    "gather_axis_last": ([2, 4], lambda x: tf.gather(x, [[1], [1]], axis=-1)),
    "pad": ([2, 3], lambda x: tf.pad(x, [[1, 0], [2, 1]])),
    "pad_v2": ([2, 3], lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=3.0)),
    "reverse": ([2, 3], lambda x: tf.reverse(x, [1])),
    "identity": ([2, 3], lambda x: tf.identity(x)),
    "identity_n": ([2, 3], lambda x: tf.identity_n([x, x])[1]),
    "placeholder_with_default": ([2, 3], lambda x: tf.placeholder_with_default(x, [2, 3])),
    "segment_sum": ([4, 2], lambda x: tf.unsorted_segment_sum(x, [2, 0, 2, 1], 3)),
    "chain": ([2, 3, 4], lambda x: tf.reshape(tf.transpose(x)[1:, :, ::2], [-1])),
}

@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_finite_differences(case):
    shape, fn = CASES[case]
    x = tf.placeholder(tf.float64, shape)
    y = fn(x)
    x_value = _RNG.uniform(-1, 1, size=shape)
    with tf.Session():
        assert _grad_error(x, x_value, y) < 1e-6


@pytest.mark.parametrize("case", ["tile", "fill"])
def test_gradients_that_need_sum(case):
    if op_registry.lookup("Sum") is None:
        pytest.skip("needs the Sum op (math ops)")
    if case == "tile":
        x = tf.placeholder(tf.float64, [2, 3])
        y = tf.tile(x, [2, 3])
        x_value = _RNG.uniform(-1, 1, size=[2, 3])
    else:
        x = tf.placeholder(tf.float64, [])
        y = tf.fill([2, 3], x)
        x_value = np.array(0.5)
    with tf.Session():
        assert _grad_error(x, x_value, y) < 1e-6


def test_checker_api_on_copying_kernels():
    """tf.test.compute_gradient_error (the lead's checker) on ops whose kernels copy."""
    x = tf.placeholder(tf.float64, [3, 4])
    y = tf.pad(tf.concat([x, tf.gather(x, [2, 0])], 0), [[1, 1], [0, 1]])
    with tf.Session():
        err = tf.test.compute_gradient_error(x, [3, 4], y, y.shape.as_list(),
                                             x_init_value=_RNG.uniform(-1, 1, [3, 4]))
    assert err < 1e-6


def test_strided_slice_grad_of_grad():
    x = tf.placeholder(tf.float64, [4, 3])
    y = x[1::2, -1]
    dy = tf.placeholder(tf.float64, [2])
    (dx,) = tf.gradients(y, x, grad_ys=dy)
    assert dx.op.type == "StridedSliceGrad" and dx.shape.as_list() == [4, 3]
    (ddy,) = tf.gradients(dx, dy, grad_ys=tf.constant(np.arange(12.0).reshape(4, 3)))
    with tf.Session() as sess:
        got_dx, got_ddy = sess.run([dx, ddy], {x: np.zeros([4, 3]), dy: [1.0, 2.0]})
    expected = np.zeros([4, 3])
    expected[1::2, -1] = [1.0, 2.0]
    np.testing.assert_array_equal(got_dx, expected)
    np.testing.assert_array_equal(got_ddy, np.arange(12.0).reshape(4, 3)[1::2, -1])


def test_not_differentiable_ops_give_none():
    x = tf.placeholder(tf.float32, [None, 3])
    ys = [tf.stop_gradient(x), tf.zeros_like(x), tf.reshape(tf.one_hot(tf.shape(x), 2), [-1])]
    if op_registry.lookup("Sum") is not None:  # the Fill gradient sums into its value
        ys.append(tf.ones_like(x))
    for y in ys:
        assert tf.gradients(y, x) == [None]
    assert tf.gradients(tf.concat([x, tf.stop_gradient(x)], 0), x)[0] is not None


def test_prevent_gradient_raises_lookup_error():
    from graphcore.ops import array_ops

    x = tf.placeholder(tf.float32, [2])
    y = array_ops.prevent_gradient(x, message="no way")
    with pytest.raises(LookupError, match=r"Gradient explicitly disabled. Reason: b'no way'"):
        tf.gradients(y, x)


def test_unpack_grad_with_unused_outputs():
    x = tf.placeholder(tf.float64, [3, 2])
    parts = tf.unstack(x)
    (dx,) = tf.gradients(parts[1], x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(dx, {x: np.ones([3, 2])}),
                                      [[0, 0], [1, 1], [0, 0]])
