"""tf.contrib.opt: AdamW / MomentumW take the base optimizer's step on weights first decayed
by weight_decay * w (only decay_var_list's when given to apply_gradients; as in TF 1.15,
minimize's decay_var_list is reset by the apply_gradients it calls, so all decay); LazyAdam
moves only the rows of a sparse gradient, by Adam's formula on their moments."""

import numpy as np
import pytest

import graphcore as tf

opt = tf.contrib.opt
W0 = np.array([1.0, -2.0, 3.0], np.float32)


def _step(make_optimizer, decay_var_list=None, use_minimize=False):
    w = tf.Variable(W0, name="w")
    b = tf.Variable(W0, name="b")
    # Gradients that do not depend on the weights: the decay and the forward pass are
    # unordered in the graph (in TF too), so the step must not depend on which ran first.
    loss = tf.reduce_sum(w * [1.0, 2.0, 3.0]) + tf.reduce_sum(b)
    optimizer = make_optimizer()
    kwargs = {"decay_var_list": decay_var_list([w, b])} if decay_var_list else {}
    if use_minimize:
        train = optimizer.minimize(loss, **kwargs)
    else:
        train = optimizer.apply_gradients(optimizer.compute_gradients(loss), **kwargs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        return sess.run([w, b])


@pytest.mark.parametrize("decayed,base,decay_var_list", [
    (lambda: opt.AdamWOptimizer(0.1, learning_rate=0.01),
     lambda: tf.train.AdamOptimizer(0.01), None),
    (lambda: opt.MomentumWOptimizer(0.1, 0.05, 0.9),
     lambda: tf.train.MomentumOptimizer(0.05, 0.9), None),
    (lambda: opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)(
        0.1, learning_rate=0.05), lambda: tf.train.GradientDescentOptimizer(0.05),
     lambda wb: wb[:1]),
])
def test_decoupled_weight_decay(decayed, base, decay_var_list):
    w, b = _step(decayed, decay_var_list)
    tf.reset_default_graph()
    w_base, b_base = _step(base)
    # base step = w0 - update; decoupled = w0 - 0.1 * w0 - update (same gradients).
    np.testing.assert_allclose(w, w_base - 0.1 * W0, rtol=1e-5)
    np.testing.assert_allclose(b, b_base - (0.0 if decay_var_list else 0.1 * W0), rtol=1e-5)
    tf.reset_default_graph()
    w, b = _step(decayed, decay_var_list, use_minimize=True)
    np.testing.assert_allclose(b, b_base - 0.1 * W0, rtol=1e-5)


def test_lazy_adam_updates_only_gradient_rows():
    table = tf.Variable(np.ones((4, 2), np.float32), name="table")
    rows = tf.nn.embedding_lookup(table, [1, 3, 1])
    loss = tf.reduce_sum(rows * tf.constant([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0]]))
    train = opt.LazyAdamOptimizer(0.1).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        got = sess.run(table)
    grads = np.array([[0, 0], [2.0, 4.0], [0, 0], [3.0, 4.0]])
    m, v = 0.1 * grads, 0.001 * grads ** 2
    lr = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    want = np.ones((4, 2)) - lr * m / (np.sqrt(v) + 1e-8)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    assert np.all(got[[0, 2]] == 1.0)
