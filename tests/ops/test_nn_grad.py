"""Gradients of the nn ops: finite-difference checks in float64 (graphcore/ops/nn_grad.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.ops import array_ops, math_ops
from graphcore.ops.gradient_checker import compute_gradient_error


def _needs(*names):
    missing = [n for n in names if not hasattr(math_ops, n) and not hasattr(array_ops, n)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {missing}")


def _gradients_work():
    """Whether tf.gradients can differentiate w.r.t. a placeholder yet (it is being built)."""
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        try:
            return tf.gradients(tf.nn.relu(x), x, grad_ys=np.ones(2))[0] is not None
        except (LookupError, AttributeError, NotImplementedError):
            return False


pytestmark = pytest.mark.skipif(not _gradients_work(),
                                reason="tf.gradients cannot differentiate w.r.t. a placeholder")

RNG = np.random.default_rng(1)


def _err(build, x_value, **kwargs):
    x = tf.placeholder(tf.float64, x_value.shape)
    y = build(x)
    with tf.Session():
        return compute_gradient_error(x, list(x_value.shape), y, y.shape.as_list(),
                                      x_init_value=x_value, **kwargs)


def _away_from(values, points, margin=0.05):
    """Nudges values away from the kinks at ``points`` (finite differences need it)."""
    for p in points:
        close = np.abs(values - p) < margin
        values[close] = p + margin * 2 * np.sign(values[close] - p + 1e-12)
    return values


def test_relu_relu6_elu_grads():
    x = _away_from(RNG.uniform(-3, 8, size=(3, 4)), [0.0, 6.0])
    assert _err(tf.nn.relu, x) < 1e-8
    assert _err(tf.nn.relu6, x) < 1e-8
    assert _err(tf.nn.elu, x) < 1e-6


def test_relu_grad_builds_relu_grad_op():
    x = tf.placeholder(tf.float32, [3])
    (g,) = tf.gradients(tf.nn.relu(x), x, grad_ys=np.ones(3, np.float32))
    assert g.op.type == "ReluGrad"
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(g, {x: [-1.0, 2.0, 0.0]}), [0.0, 1.0, 0.0])


@_needs("sigmoid", "multiply")
def test_softplus_grad():
    assert _err(tf.nn.softplus, RNG.normal(size=(2, 3))) < 1e-6


@_needs("reduce_sum", "subtract", "multiply")
def test_softmax_grad():
    assert _err(tf.nn.softmax, RNG.normal(size=(3, 4))) < 1e-6


@_needs("reduce_sum", "exp", "subtract", "multiply")
def test_log_softmax_grad():
    assert _err(tf.nn.log_softmax, RNG.normal(size=(3, 4))) < 1e-6


def test_bias_add_grads():
    x = RNG.normal(size=(2, 3, 4))
    b = RNG.normal(size=(4,))
    assert _err(lambda t: tf.nn.bias_add(t, b), x) < 1e-8
    assert _err(lambda t: tf.nn.bias_add(x, t), b) < 1e-8
    assert _err(lambda t: tf.nn.bias_add(x, t, data_format="NCHW"), RNG.normal(size=(3,))) < 1e-8


@_needs("shape", "expand_dims", "multiply")
def test_xent_grads():
    from graphcore.framework.op_def_library import apply_op

    labels = np.eye(4)[[0, 3, 1]] * 0.6 + 0.1  # rows sum to 1, as the op's gradient assumes
    logits = RNG.normal(size=(3, 4))
    assert _err(lambda t: apply_op("SoftmaxCrossEntropyWithLogits", features=t,
                                   labels=labels).outputs[0], logits) < 1e-6
    assert _err(lambda t: apply_op("SoftmaxCrossEntropyWithLogits", features=logits,
                                   labels=t).outputs[0], labels) < 1e-6
    assert _err(lambda t: apply_op("SparseSoftmaxCrossEntropyWithLogits", features=t,
                                   labels=np.array([0, 3, 1])).outputs[0], logits) < 1e-6


@_needs("shape")
@pytest.mark.parametrize("padding,strides", [("SAME", (1, 1)), ("VALID", (2, 1)),
                                             ("SAME", (2, 2))])
def test_conv2d_grads(padding, strides):
    x = RNG.normal(size=(2, 5, 4, 2))
    w = RNG.normal(size=(3, 2, 2, 3))
    s = [1, *strides, 1]
    assert _err(lambda t: tf.nn.conv2d(t, w, s, padding), x) < 1e-8
    assert _err(lambda t: tf.nn.conv2d(x, t, s, padding), w) < 1e-8


@_needs("shape")
def test_conv2d_dilated_grad():
    x = RNG.normal(size=(1, 6, 6, 2))
    w = RNG.normal(size=(2, 2, 2, 2))
    conv = lambda t: tf.nn.conv2d(t, w, 1, "SAME", dilations=[1, 2, 2, 1])  # noqa: E731
    assert _err(conv, x) < 1e-8


def test_max_pool_grad():
    x = RNG.permutation(2 * 6 * 5 * 2).reshape(2, 6, 5, 2).astype(np.float64) / 10
    assert _err(lambda t: tf.nn.max_pool(t, 2, 2, "SAME"), x) < 1e-8
    assert _err(lambda t: tf.nn.max_pool(t, 3, 1, "VALID"), x) < 1e-8


@_needs("shape")
def test_avg_pool_grad():
    x = RNG.normal(size=(2, 6, 5, 2))
    assert _err(lambda t: tf.nn.avg_pool(t, 2, 2, "SAME"), x) < 1e-8
    assert _err(lambda t: tf.nn.avg_pool(t, [1, 3, 2, 1], [1, 2, 1, 1], "VALID"), x) < 1e-8


@_needs("multiply")
def test_l2_loss_grad():
    assert _err(tf.nn.l2_loss, RNG.normal(size=(3, 2))) < 1e-6


@_needs("shape")
def test_conv2d_backprop_ops_grads():
    x = tf.constant(RNG.normal(size=(1, 4, 4, 1)))
    w = tf.constant(RNG.normal(size=(2, 2, 1, 1)))
    g_value = RNG.normal(size=(1, 4, 4, 1))
    w_value = RNG.normal(size=(2, 2, 1, 1))
    g = tf.placeholder(tf.float64, [1, 4, 4, 1])
    wp = tf.placeholder(tf.float64, [2, 2, 1, 1])
    dx = tf.gradients(tf.nn.conv2d(x, wp, 1, "SAME"), x, grad_ys=g)[0]
    dw = tf.gradients(tf.nn.conv2d(x, w, 1, "SAME"), w, grad_ys=g)[0]
    assert dx.op.type == "Conv2DBackpropInput" and dw.op.type == "Conv2DBackpropFilter"
    with tf.Session():
        # d(dx)/d(filter) and d(dx)/d(out_backprop); d(dw)/d(out_backprop)
        assert compute_gradient_error(wp, [2, 2, 1, 1], dx, [1, 4, 4, 1], x_init_value=w_value,
                                      extra_feed_dict={g: g_value}) < 1e-8
        assert compute_gradient_error(g, [1, 4, 4, 1], dx, [1, 4, 4, 1], x_init_value=g_value,
                                      extra_feed_dict={wp: w_value}) < 1e-8
        assert compute_gradient_error(g, [1, 4, 4, 1], dw, [2, 2, 1, 1],
                                      x_init_value=g_value) < 1e-8
