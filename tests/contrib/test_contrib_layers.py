"""tf.contrib.layers: variable names and collections as TF 1.15 makes them, numerics equal to
the core ops each layer reduces to, batch_norm's statistics and moving averages, the
initializers' distributions and the regularizers' values and op names."""

import numpy as np
import pytest

import graphcore as tf

layers = tf.contrib.layers
RNG = np.random.RandomState(0)
X2 = RNG.rand(4, 5).astype(np.float32)
X4 = RNG.rand(2, 6, 6, 3).astype(np.float32)


def _names(collection):
    return [v.op.name for v in tf.get_collection(collection)]


def _build_fc_bn():
    layers.fully_connected(tf.constant(X2), 3, normalizer_fn=layers.batch_norm)


VARIABLE_CASES = [
    # (builder, [(name, shape)], trainable names)
    (lambda: layers.fully_connected(tf.constant(X2), 3),
     [("fully_connected/weights", [5, 3]), ("fully_connected/biases", [3])],
     ["fully_connected/weights", "fully_connected/biases"]),
    (_build_fc_bn,
     [("fully_connected/weights", [5, 3]), ("fully_connected/BatchNorm/beta", [3]),
      ("fully_connected/BatchNorm/moving_mean", [3]),
      ("fully_connected/BatchNorm/moving_variance", [3])],
     ["fully_connected/weights", "fully_connected/BatchNorm/beta"]),
    (lambda: layers.conv2d(tf.constant(X4), 4, [3, 3]),
     [("Conv/weights", [3, 3, 3, 4]), ("Conv/biases", [4])],
     ["Conv/weights", "Conv/biases"]),
    (lambda: layers.conv2d_transpose(tf.constant(X4), 5, 3, stride=2,
                                     biases_initializer=None),
     [("Conv2d_transpose/weights", [3, 3, 5, 3])], ["Conv2d_transpose/weights"]),
    (lambda: layers.batch_norm(tf.constant(X4), scale=True, scope="bn"),
     [("bn/beta", [3]), ("bn/gamma", [3]), ("bn/moving_mean", [3]),
      ("bn/moving_variance", [3])], ["bn/beta", "bn/gamma"]),
    (lambda: layers.layer_norm(tf.constant(X4)),
     [("LayerNorm/beta", [3]), ("LayerNorm/gamma", [3])],
     ["LayerNorm/beta", "LayerNorm/gamma"]),
    (lambda: layers.embed_sequence(tf.constant([[1, 2]]), vocab_size=7, embed_dim=4),
     [("EmbedSequence/embeddings", [7, 4])], ["EmbedSequence/embeddings"]),
    (lambda: [layers.fully_connected(tf.constant(X2), 2, scope="fc", trainable=False),
              layers.fully_connected(tf.constant(X2), 2, scope="fc", reuse=True)],
     [("fc/weights", [5, 2]), ("fc/biases", [2])], []),
]


@pytest.mark.parametrize("build,expected,trainable", VARIABLE_CASES)
def test_variable_names_and_collections(build, expected, trainable):
    build()
    got = [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]
    assert got == expected
    assert _names(tf.GraphKeys.MODEL_VARIABLES) == [name for name, _ in expected]
    assert _names(tf.GraphKeys.TRAINABLE_VARIABLES) == trainable


def test_collections_outputs_and_regularization_names():
    x = tf.constant(X2)
    y = layers.fully_connected(x, 3, weights_regularizer=layers.l2_regularizer(0.1),
                               variables_collections={"weights": ["w"]},
                               outputs_collections="outs", scope="fc")
    assert _names("w") == ["fc/weights"]
    assert tf.get_collection("outs") == [y] and y.aliases == ["fc"]
    assert y.op.name == "fc/Relu"
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert [t.name for t in losses] == ["fc/kernel/Regularizer/l2_regularizer:0"]
    # tf.layers with a contrib regularizer as kernel_regularizer.
    tf.layers.dense(x, 2, kernel_regularizer=layers.l1_regularizer(0.5), name="dense")
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert losses[-1].name == "dense/kernel/Regularizer/l1_regularizer:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w, dense_w, l2, l1 = sess.run(["fc/weights:0", "dense/kernel:0"] + losses)
    np.testing.assert_allclose(l2, 0.1 * (w ** 2).sum() / 2, rtol=1e-5)
    np.testing.assert_allclose(l1, 0.5 * np.abs(dense_w).sum(), rtol=1e-5)


def _fc(x):
    return layers.fully_connected(x, 3, activation_fn=tf.nn.sigmoid), \
        lambda v: tf.nn.sigmoid(tf.matmul(x, v["fully_connected/weights"]) +
                                v["fully_connected/biases"])


def _conv(x):
    return layers.conv2d(x, 4, 3, stride=2, padding="VALID"), \
        lambda v: tf.nn.relu(tf.nn.conv2d(x, v["Conv/weights"], [1, 2, 2, 1], "VALID") +
                             v["Conv/biases"])


def _conv_rate(x):
    return layers.conv2d(x, 2, [2, 2], rate=2, activation_fn=None), \
        lambda v: tf.nn.atrous_conv2d(x, v["Conv/weights"], 2, "SAME") + v["Conv/biases"]


def _deconv(x):
    return layers.conv2d_transpose(x, 2, 3, stride=2), \
        lambda v: tf.nn.relu(tf.nn.conv2d_transpose(
            x, v["Conv2d_transpose/weights"], [2, 12, 12, 2], [1, 2, 2, 1], "SAME") +
            v["Conv2d_transpose/biases"])


NUMERIC_CASES = [
    ("fully_connected", X2, _fc),
    ("conv2d", X4, _conv),
    ("conv2d_rate", X4, _conv_rate),
    ("conv2d_transpose", X4, _deconv),
    ("max_pool2d", X4, lambda x: (layers.max_pool2d(x, [2, 2]),
                                  lambda v: tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                           "VALID"))),
    ("avg_pool2d", X4, lambda x: (layers.avg_pool2d(x, 3, stride=1, padding="SAME"),
                                  lambda v: tf.nn.avg_pool(x, [1, 3, 3, 1], [1, 1, 1, 1],
                                                           "SAME"))),
    ("flatten", X4, lambda x: (layers.flatten(x), lambda v: tf.reshape(x, [2, 108]))),
    ("dropout_eval", X2, lambda x: (layers.dropout(x, 0.3, is_training=False),
                                    lambda v: x)),
    ("layer_norm", X4, lambda x: (layers.layer_norm(x, begin_norm_axis=1), lambda v: (
        x - tf.reduce_mean(x, [1, 2, 3], keepdims=True)) / tf.sqrt(
            tf.reduce_mean(tf.square(x - tf.reduce_mean(x, [1, 2, 3], keepdims=True)),
                           [1, 2, 3], keepdims=True) + 1e-12))),
    ("one_hot", np.array([0, 2, 1], np.int32),
     lambda x: (layers.one_hot_encoding(x, 4), lambda v: tf.one_hot(tf.cast(x, tf.int64), 4))),
]


@pytest.mark.parametrize("name,value,build", NUMERIC_CASES, ids=[c[0] for c in NUMERIC_CASES])
def test_numerics_equal_core_ops(name, value, build):
    x = tf.constant(value)
    out, reference = build(x)
    expected = reference({v.op.name: v for v in tf.global_variables()})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, want = sess.run([out, expected])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_dropout_training_scales_kept_units():
    out = layers.dropout(tf.ones([200, 50]), keep_prob=0.5, seed=1)
    with tf.Session() as sess:
        got = sess.run(out)
    assert set(np.unique(got)) == {0.0, 2.0}
    assert 0.45 < (got > 0).mean() < 0.55


BN_CASES = [
    # (input, kwargs, reduction axes, Bessel-corrected moving variance)
    (X4, {}, (0, 1, 2), True),
    (X2, {}, (0,), True),
    (X4, {"updates_collections": None}, (0, 1, 2), True),
    (RNG.rand(3, 4, 5).astype(np.float32), {}, (0, 1), False),
    (X4, {"fused": False}, (0, 1, 2), False),
    (np.transpose(X4, (0, 3, 1, 2)).copy(), {"data_format": "NCHW", "fused": False},
     (0, 2, 3), False),
]


@pytest.mark.parametrize("value,kwargs,axes,bessel", BN_CASES)
def test_batch_norm_training_and_moving_averages(value, kwargs, axes, bessel):
    x = tf.placeholder(tf.float32, value.shape)
    out = layers.batch_norm(x, center=True, scale=True, epsilon=0.001, decay=0.9, **kwargs)
    in_place = kwargs.get("updates_collections", tf.GraphKeys.UPDATE_OPS) is None
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    assert len(updates) == (0 if in_place else 2)
    mean = value.mean(axis=axes, keepdims=True)
    var = value.var(axis=axes, keepdims=True)
    n = value.size / mean.size
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([out] + updates, {x: value})[0]
        mm, mv = sess.run(["BatchNorm/moving_mean:0", "BatchNorm/moving_variance:0"])
    np.testing.assert_allclose(got, (value - mean) / np.sqrt(var + 0.001), rtol=1e-4,
                               atol=1e-4)
    expected_var = var.ravel() * (n / (n - 1) if bessel else 1.0)
    np.testing.assert_allclose(mm, 0.1 * mean.ravel(), rtol=1e-5)
    np.testing.assert_allclose(mv, 0.9 + 0.1 * expected_var, rtol=1e-5)


def test_batch_norm_inference_and_placeholder_is_training():
    x = tf.placeholder(tf.float32, [None, 6, 6, 3])
    training = tf.placeholder(tf.bool, [])
    out = layers.batch_norm(x, is_training=training, updates_collections=None, decay=0.5)
    infer = layers.batch_norm(x, is_training=False, reuse=True, scope="BatchNorm")
    assert len(tf.global_variables()) == 3
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        before = sess.run(infer, {x: X4})
        np.testing.assert_allclose(before, X4 / np.sqrt(1.001), rtol=1e-5)
        sess.run(out, {x: X4, training: False})
        assert sess.run("BatchNorm/moving_mean:0").max() == 0.0
        sess.run(out, {x: X4, training: True})
        mm = sess.run("BatchNorm/moving_mean:0")
    np.testing.assert_allclose(mm, 0.5 * X4.mean(axis=(0, 1, 2)), rtol=1e-5)


def _sample(initializer, shape):
    with tf.Session() as sess:
        return sess.run(initializer(shape))


INIT_CASES = [
    # (initializer, shape, expected bound (uniform) or None, expected std)
    (layers.xavier_initializer(seed=1), [200, 300], np.sqrt(6 / 500), np.sqrt(2 / 500)),
    (layers.xavier_initializer_conv2d(seed=2), [3, 3, 16, 32], np.sqrt(6 / (9 * 48)),
     np.sqrt(2 / (9 * 48))),
    (layers.variance_scaling_initializer(seed=3), [3, 3, 32, 64], None,
     np.sqrt(1.3 * 2 / (9 * 32)) * 0.8796),
    (layers.variance_scaling_initializer(1.0, "FAN_OUT", uniform=True, seed=4), [100, 400],
     np.sqrt(3 / 400), np.sqrt(1 / 400)),
    (layers.variance_scaling_initializer(3.0, "FAN_AVG", seed=5), [300, 100], None,
     np.sqrt(1.3 * 3 / 200) * 0.8796),
]


@pytest.mark.parametrize("initializer,shape,bound,std", INIT_CASES)
def test_initializer_distributions(initializer, shape, bound, std):
    values = _sample(initializer, shape)
    assert values.shape == tuple(shape) and values.dtype == np.float32
    if bound is not None:
        assert np.abs(values).max() <= bound and np.abs(values).max() > 0.98 * bound
    else:
        # Truncated at two standard deviations of the untruncated normal.
        assert np.abs(values).max() <= 2 * std / 0.8796 + 1e-6
    assert abs(values.std() / std - 1) < 0.03
    assert abs(values.mean()) < 0.05 * std


def test_initializer_errors():
    with pytest.raises(TypeError, match="non-floating"):
        layers.xavier_initializer(dtype=tf.int32)
    with pytest.raises(TypeError, match="Unknown mode FAN_MAX"):
        layers.variance_scaling_initializer(mode="FAN_MAX")


def test_regularizers_values_names_and_errors():
    w = tf.constant([[1.0, -2.0], [-3.0, 4.0]])
    l1 = layers.l1_regularizer(0.5)(w)
    l2 = layers.l2_regularizer(0.5)(w)
    l1l2 = layers.l1_l2_regularizer(0.5, 0.5)(w)
    only_l2 = layers.l1_l2_regularizer(0.0, 0.5)(w)
    summed = layers.sum_regularizer([layers.l1_regularizer(1.0), None,
                                     layers.l2_regularizer(1.0)], scope="both")(w)
    penalty = layers.apply_regularization(layers.l2_regularizer(1.0), [w, w * 2])
    assert [t.op.name for t in (l1, l2, l1l2, only_l2, summed, penalty)] == [
        "l1_regularizer", "l2_regularizer", "l1_l2_regularizer", "l1_l2_regularizer_1",
        "both", "get_regularization_penalty"]
    assert tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES) == [penalty]
    with tf.Session() as sess:
        got = sess.run([l1, l2, l1l2, only_l2, summed, penalty])
    np.testing.assert_allclose(got, [5.0, 7.5, 12.5, 7.5, 25.0, 15.0 + 60.0])
    assert layers.l2_regularizer(0.0)(w) is None
    assert layers.sum_regularizer([]) is None
    with pytest.raises(ValueError, match="scale cannot be an integer: 1"):
        layers.l2_regularizer(1)
    with pytest.raises(ValueError, match="less than 0"):
        layers.l1_regularizer(-0.5)
    with pytest.raises(ValueError, match="scale_l2 cannot be an integer: 0"):
        layers.l1_l2_regularizer(0.5, 0)
    with pytest.raises(ValueError, match="No weights to regularize"):
        layers.apply_regularization(layers.l2_regularizer(1.0))


def test_repeat_stack_and_argument_errors():
    x = tf.constant(X4)
    layers.repeat(x, 2, layers.conv2d, 4, [3, 3], scope="conv1")
    layers.stack(x, layers.conv2d, [(2, [1, 1]), (3, [1, 1])])
    assert [v.op.name for v in tf.global_variables() if v.op.name.endswith("weights")] == [
        "conv1/conv1_1/weights", "conv1/conv1_2/weights",
        "Stack/convolution2d_1/weights", "Stack/convolution2d_2/weights"]
    with pytest.raises(ValueError, match="num_outputs type should be"):
        layers.fully_connected(tf.constant(X2), 3.0)
    with pytest.raises(ValueError, match="data_format has to be either NCHW or NHWC"):
        layers.max_pool2d(x, 2, data_format="NDHWC")
    with pytest.raises(ValueError, match="Must specify vocab size"):
        layers.embed_sequence(tf.constant([[1]]))


def test_extra_layers_names_and_numerics():
    x = tf.constant(X4)
    sep = layers.separable_conv2d(x, 5, [3, 3], depth_multiplier=2, activation_fn=None)
    dw = layers.separable_conv2d(x, None, 3, stride=2, scope="dw")
    biased = layers.bias_add(x, initializer=tf.constant_initializer(0.5))
    inorm = layers.instance_norm(x)
    soft = layers.softmax(x)
    unit = layers.unit_norm(x, 3)
    assert [(v.op.name, v.shape.as_list()) for v in tf.model_variables()] == [
        ("SeparableConv2d/depthwise_weights", [3, 3, 3, 2]),
        ("SeparableConv2d/pointwise_weights", [1, 1, 6, 5]),
        ("SeparableConv2d/biases", [5]), ("dw/depthwise_weights", [3, 3, 3, 1]),
        ("dw/biases", [3]), ("BiasAdd/biases", [3]), ("InstanceNorm/beta", [3]),
        ("InstanceNorm/gamma", [3])]
    v = {var.op.name: var for var in tf.global_variables()}
    want_sep = tf.nn.separable_conv2d(x, v["SeparableConv2d/depthwise_weights"],
                                      v["SeparableConv2d/pointwise_weights"], [1, 1, 1, 1],
                                      "SAME") + v["SeparableConv2d/biases"]
    want_dw = tf.nn.relu(tf.nn.depthwise_conv2d(x, v["dw/depthwise_weights"], [1, 2, 2, 1],
                                                "SAME") + v["dw/biases"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([sep, want_sep, dw, want_dw, biased, inorm, soft, unit])
    np.testing.assert_allclose(got[0], got[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], got[3], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[4], X4 + 0.5)
    mean, var = X4.mean(axis=(1, 2), keepdims=True), X4.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(got[5], (X4 - mean) / np.sqrt(var + 1e-6), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(got[6], np.exp(X4) / np.exp(X4).sum(-1, keepdims=True),
                               rtol=1e-5)
    np.testing.assert_allclose(got[7], X4 / np.sqrt(1e-7 + (X4 ** 2).sum(-1, keepdims=True)),
                               rtol=1e-5)


@pytest.mark.parametrize("groups,kwargs,layout", [
    (3, {}, "NHWC"), (1, {"mean_close_to_zero": True}, "NHWC"),
    (2, {"channels_axis": 1, "reduction_axes": (2, 3)}, "NCHW")])
def test_group_norm(groups, kwargs, layout):
    value = RNG.rand(2, 4, 5, 6).astype(np.float32)
    out = layers.group_norm(tf.constant(value), groups=groups,
                            param_initializers={"beta": tf.constant_initializer(0.5)},
                            **kwargs)
    assert [v.op.name for v in tf.model_variables()] == ["GroupNorm/beta", "GroupNorm/gamma"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    x = value if layout == "NHWC" else np.moveaxis(value, 1, -1)
    grouped = x.reshape(x.shape[:3] + (groups, x.shape[3] // groups))
    mean = grouped.mean(axis=(1, 2, 4), keepdims=True)
    var = grouped.var(axis=(1, 2, 4), keepdims=True)
    want = ((grouped - mean) / np.sqrt(var + 1e-6)).reshape(x.shape) + 0.5
    if layout == "NCHW":
        want = np.moveaxis(want, -1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
