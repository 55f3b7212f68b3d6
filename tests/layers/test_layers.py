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
        with pytest.raises(ValueError, match="only possible with `axis=1` or `axis=3`"):
            tf.layers.batch_normalization(tf.zeros([1, 2, 2, 3]), axis=2, fused=True)


def test_batch_norm_of_images_is_fused_and_equals_the_unfused_one():
    x = np.random.RandomState(0).randn(4, 3, 3, 5).astype(np.float32)
    with tf.Graph().as_default() as g:
        training = tf.placeholder(tf.bool, [])
        fused = tf.layers.batch_normalization(x, training=training, momentum=0.9)
        plain = tf.layers.batch_normalization(x, training=training, momentum=0.9,
                                              fused=False)
        types = {op.type for op in g.get_operations() if op.name.startswith("batch_norm")}
        assert "FusedBatchNormV3" in types
        updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        assert [u.name for u in updates[:2]] == ["batch_normalization/AssignMovingAvg",
                                                  "batch_normalization/AssignMovingAvg_1"]
        moving = [v for v in tf.global_variables() if "moving" in v.name]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for is_training in (True, False, True):
                a, b, _ = sess.run([fused, plain, updates], {training: is_training})
                if is_training:  # batch statistics: the same normalization
                    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
            mean, var, plain_mean, plain_var = sess.run(moving)
        # Two training steps moved the averages (0.9 * 0.9 of the initial value, 0.19 of
        # the batch's); the inference step left them. The fused layer's variance is the
        # unbiased one (n = 36 values per channel), as TF's fused kernel gives it.
        batch_var = x.var(axis=(0, 1, 2))
        np.testing.assert_allclose(mean, 0.19 * x.mean(axis=(0, 1, 2)), atol=1e-6)
        np.testing.assert_allclose(plain_mean, mean, atol=1e-6)
        np.testing.assert_allclose(var, 0.81 + 0.19 * batch_var * 36 / 35, rtol=1e-5)
        np.testing.assert_allclose(plain_var, 0.81 + 0.19 * batch_var, rtol=1e-5)


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


@pytest.mark.parametrize("build,shape,variables,out_shape", [
    (lambda x: tf.layers.conv1d(x, 4, 3, padding="causal"), [2, 9, 3],
     {"conv1d/kernel": [3, 3, 4], "conv1d/bias": [4]}, [2, 9, 4]),
    (lambda x: tf.layers.Conv3D(2, 2, strides=2, use_bias=False)(x), [1, 4, 6, 4, 3],
     {"conv3d/kernel": [2, 2, 2, 3, 2]}, [1, 2, 3, 2, 2]),
    (lambda x: tf.layers.conv2d_transpose(x, 5, 3, strides=2, name="up"), [2, 4, None, 3],
     {"up/kernel": [3, 3, 5, 3], "up/bias": [5]}, [2, 9, None, 5]),
    (lambda x: tf.layers.Conv3DTranspose(2, (1, 2, 3), padding="same",
                                         data_format="channels_first")(x),
     [1, 3, 2, 2, 2], {"conv3d_transpose/kernel": [1, 2, 3, 2, 3],
                       "conv3d_transpose/bias": [2]}, [1, 2, 2, 2, 2]),
    (lambda x: tf.layers.separable_conv2d(x, 6, 3, depth_multiplier=2), [1, 5, 5, 3],
     {"separable_conv2d/depthwise_kernel": [3, 3, 3, 2],
      "separable_conv2d/pointwise_kernel": [1, 1, 6, 6], "separable_conv2d/bias": [6]},
     [1, 3, 3, 6]),
    (lambda x: tf.layers.SeparableConv1D(2, 2, dilation_rate=2)(x), [2, 7, 3],
     {"separable_conv1d/depthwise_kernel": [2, 3, 1],
      "separable_conv1d/pointwise_kernel": [1, 3, 2], "separable_conv1d/bias": [2]},
     [2, 5, 2]),
    (lambda x: tf.layers.max_pooling3d(x, 2, 2, data_format="channels_first"),
     [1, 2, 4, 4, 4], {}, [1, 2, 2, 2, 2]),
    (lambda x: tf.layers.AveragePooling3D(3, 1, padding="same")(x), [1, 4, 4, 4, 2], {},
     [1, 4, 4, 4, 2]),
])
def test_conv_and_pool_layers_variables_and_shapes(build, shape, variables, out_shape):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, shape)
        out = build(x)
        assert {v.op.name: v.shape.as_list() for v in tf.global_variables()} == variables
        assert out.shape.as_list() == out_shape
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            value = sess.run(out, {x: RNG.normal(size=[3 if d is None else d
                                                       for d in shape])})
        assert list(value.shape) == [7 if d is None else d for d in out_shape]


def test_causal_padding_only_for_1d():
    with pytest.raises(ValueError, match="Causal padding is only supported"):
        tf.layers.Conv2D(2, 3, padding="causal")
