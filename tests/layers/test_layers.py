"""tf.layers without TensorFlow: the Layer API (scopes, variables, reuse, collections),
values against numpy, and the errors TF raises."""

import numpy as np
import pytest

import graphcore as tf

RNG = np.random.default_rng(2)


def test_layer_api_and_errors():
    with tf.Graph().as_default():
        layer = tf.layers.Dense(2, name="head")
        with pytest.raises(ValueError, match="has not been used yet"):
            _ = layer.scope_name
        out = layer(tf.zeros([3, 4]))
        assert layer.scope_name == "head"
        assert [v.name for v in layer.variables] == ["head/kernel:0", "head/bias:0"]
        assert layer.trainable_variables == layer.trainable_weights
        assert out.shape.as_list() == [3, 2]
        with pytest.raises(ValueError, match="expected axis -1 of input shape to have "
                                             "value 4"):
            layer(tf.zeros([3, 5]))
        with pytest.raises(ValueError, match="expected min_ndim=2, found ndim=1"):
            tf.layers.dense(tf.zeros([3]), 2)
        with pytest.raises(ValueError, match="last dimension of the inputs to a Dense"):
            tf.layers.dense(tf.placeholder(tf.float32, [2, None]), 2)
        with pytest.raises(TypeError, match="Keyword argument not understood: bogus"):
            tf.layers.Dense(2, bogus=1)
        assert isinstance(tf.layers.InputSpec(ndim=4).ndim, int)
        assert tf.layers.max_pooling2d(tf.zeros([1, 5, 5, 2]), 2, 2).name == \
            "max_pooling2d/MaxPool:0"
        frozen = tf.layers.Dense(2, trainable=False)
        frozen(tf.zeros([1, 2]))
        assert frozen.trainable_variables == [] and len(frozen.non_trainable_variables) == 2


def test_layer_reuse_scopes_and_collections():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        layer = tf.layers.Dense(2, kernel_regularizer=lambda w: tf.reduce_sum(w) * 0.5)
        layer(x)
        layer(x)
        assert [v.op.name for v in tf.global_variables()] == ["dense/kernel", "dense/bias"]
        assert [t.name for t in tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)] == \
            ["dense/kernel/Regularizer/mul:0"]
        tf.layers.dense(x, 2)
        tf.layers.dense(x, 2, name="dense", reuse=True)
        assert [v.op.name for v in tf.global_variables()][2:] == ["dense_1/kernel",
                                                                 "dense_1/bias"]
        bn = tf.layers.BatchNormalization(momentum=0.5)
        y = bn(x, training=True)
        assert [op.name for op in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == \
            ["batch_normalization/AssignMovingAvg", "batch_normalization/AssignMovingAvg_1"]
        assert [v.op.name for v in bn.non_trainable_variables] == [
            "batch_normalization/moving_mean", "batch_normalization/moving_variance"]
        xv = RNG.normal(size=(6, 3)).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out = sess.run(y, {x: xv})
            sess.run(bn.updates, {x: xv})
            mean, var = sess.run([bn.moving_mean, bn.moving_variance])
        np.testing.assert_allclose(out, (xv - xv.mean(0)) / np.sqrt(xv.var(0) + 1e-3),
                                   rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(mean, 0.5 * xv.mean(0), rtol=1e-5)
        np.testing.assert_allclose(var, 0.5 + 0.5 * xv.var(0), rtol=1e-5)


def test_pooling_values_against_numpy():
    with tf.Graph().as_default():
        x = RNG.normal(size=(2, 6, 3)).astype(np.float32)
        with tf.Session() as sess:
            mx, avg = sess.run([tf.layers.max_pooling1d(x, 2, 2),
                                tf.layers.average_pooling1d(x, 3, 3)])
        np.testing.assert_allclose(mx, x.reshape(2, 3, 2, 3).max(2))
        np.testing.assert_allclose(avg, x.reshape(2, 2, 3, 3).mean(2), rtol=1e-6)


def test_missing_features_raise():
    with tf.Graph().as_default():
        with pytest.raises(NotImplementedError, match="renorm"):
            tf.layers.BatchNormalization(renorm=True)
        with pytest.raises(NotImplementedError, match="fused_batch_norm"):
            tf.layers.batch_normalization(tf.zeros([1, 2, 2, 3]), fused=True)


def test_user_layer_subclass():
    class MyScale(tf.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight("w", [input_shape[-1]],
                                     initializer=tf.constant_initializer(2.0))
            self.steps = self.add_variable("steps", [], dtype=tf.int32, trainable=False)
            self.built = True

        def call(self, inputs):
            self.add_update(tf.assign_add(self.steps, 1))
            return inputs * self.w

    with tf.Graph().as_default():
        layer = MyScale()
        y = layer(tf.ones([2, 3]))
        assert layer.name == "my_scale" and y.name == "my_scale/mul:0"
        assert [v.name for v in layer.trainable_variables] == ["my_scale/w:0"]
        assert [v.name for v in layer.non_trainable_variables] == ["my_scale/steps:0"]
        assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == layer.updates
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(y), np.full((2, 3), 2.0))
            sess.run(layer.updates)
            assert sess.run(layer.steps) == 1
