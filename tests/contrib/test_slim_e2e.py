"""A TF1 tf.contrib.slim script, unmodified in style: a small CNN under arg_scope with
batch_norm and l2 regularization, slim.losses, slim.learning.create_train_op; trained a few
steps (the loss falls, the moving averages move), saved, and restored into a fresh graph by
get_variables_to_restore / assign_from_checkpoint_fn with the same inference outputs."""

import numpy as np

import graphcore as tf

slim = tf.contrib.slim


def _model(images, is_training):
    with slim.arg_scope([slim.conv2d, slim.fully_connected],
                        weights_regularizer=slim.l2_regularizer(1e-3),
                        normalizer_fn=slim.batch_norm,
                        normalizer_params={"is_training": is_training, "decay": 0.9}):
        with slim.arg_scope([slim.conv2d], padding="SAME"):
            net = slim.conv2d(images, 8, [3, 3], scope="conv1")
            net = slim.max_pool2d(net, [2, 2], scope="pool1")
            net = slim.repeat(net, 2, slim.conv2d, 8, [3, 3], scope="conv2")
        net = slim.flatten(net)
        net = slim.fully_connected(net, 16, scope="fc1")
        net = slim.dropout(net, 0.8, is_training=is_training, scope="dropout1")
        return slim.fully_connected(net, 2, activation_fn=None, normalizer_fn=None,
                                    scope="logits")


def _data(rng, n):
    labels = rng.randint(0, 2, n)
    images = rng.rand(n, 8, 8, 1).astype(np.float32) * 0.5
    images[labels == 1, :4] += 0.5
    return images, np.eye(2, dtype=np.float32)[labels]


def test_slim_cnn_trains_saves_and_restores(tmp_path):
    rng = np.random.RandomState(0)
    tf.set_random_seed(1)
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    labels = tf.placeholder(tf.float32, [None, 2])
    logits = _model(images, is_training=True)
    slim.losses.softmax_cross_entropy(logits, labels)
    total_loss = slim.losses.get_total_loss()
    train_op = slim.learning.create_train_op(total_loss, tf.train.AdamOptimizer(0.01))
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        eval_logits = _model(images, is_training=False)
    assert [v.op.name for v in slim.get_model_variables("conv2")] == [
        "conv2/conv2_1/weights", "conv2/conv2_1/BatchNorm/beta",
        "conv2/conv2_1/BatchNorm/moving_mean", "conv2/conv2_1/BatchNorm/moving_variance",
        "conv2/conv2_2/weights", "conv2/conv2_2/BatchNorm/beta",
        "conv2/conv2_2/BatchNorm/moving_mean", "conv2/conv2_2/BatchNorm/moving_variance"]
    assert len(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)) == 5
    assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 8
    test_x, test_y = _data(rng, 32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = []
        for _ in range(25):
            x, y = _data(rng, 32)
            losses.append(sess.run(train_op, {images: x, labels: y}))
        assert np.mean(losses[-5:]) < 0.6 * np.mean(losses[:5])
        assert sess.run(tf.train.get_global_step()) == 25
        assert np.abs(sess.run("conv1/BatchNorm/moving_mean:0")).max() > 0
        path = tf.train.Saver(slim.get_variables_to_restore()).save(
            sess, str(tmp_path / "model.ckpt"))
        want = sess.run(eval_logits, {images: test_x})
    accuracy = (want.argmax(1) == test_y.argmax(1)).mean()
    assert accuracy > 0.8

    tf.reset_default_graph()
    images = tf.placeholder(tf.float32, [None, 8, 8, 1])
    logits = _model(images, is_training=False)
    init_fn = slim.assign_from_checkpoint_fn(
        path, slim.get_variables_to_restore(exclude=["logits"]))
    restore_logits = slim.assign_from_checkpoint_fn(
        path, slim.get_variables_to_restore(include=["logits"]))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        init_fn(sess)
        restore_logits(sess)
        got = sess.run(logits, {images: test_x})
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
