"""Reference tier: tf.layers against TF1's legacy layers (tf_keras' ``tf.compat.v1.layers``).

Each case builds the same layers in TF and graphcore, copies TF's initial variable values
into graphcore by name, then compares outputs, gradients (input and variables), variable
names and collections (trainable, global, UPDATE_OPS, REGULARIZATION_LOSSES), the GraphDef
node names of the layer ops, and the variables after the update ops ran.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
# Keras 3 hides tf.compat.v1.layers unless TF_USE_LEGACY_KERAS was set before import.
tf_layers = pytest.importorskip("tf_keras.api._v1.keras.__internal__.legacy.layers")

RNG = np.random.default_rng(5)
pytestmark = pytest.mark.filterwarnings("ignore:`tf.layers:UserWarning")


def _reg(lib):
    return lambda w: lib.reduce_sum(lib.square(w)) * 0.01


def _twice(lib, L, x):
    layer = L.Dense(3, activation=lib.nn.tanh)
    return layer(layer(x[:, :3]) + x[:, 3:6])


def _reused(lib, L, x):
    a = L.dense(x, 4, name="shared")
    return L.dense(x, 4, name="shared", reuse=True) + a


def _scoped(lib, L, x):
    with lib.variable_scope("tower"):
        return L.conv2d(x, 2, 3, name="c") + L.conv2d(x, 2, 3)


def _outer_reuse(lib, L, x):
    with lib.variable_scope("model"):
        a = L.dense(x, 3, name="fc")
    with lib.variable_scope("model", reuse=True):
        b = L.dense(x, 3, name="fc")
    with lib.variable_scope("model", reuse=lib.AUTO_REUSE):
        c = L.dense(x, 3, name="fc")
        d = L.conv2d(x[:, None, None, :], 3, 1, name="conv")[:, 0, 0, :]
    return a + b + c + d


def _gan_reuse(lib, L, x):
    """A GAN's discriminator called twice, the second time in its scope reopened with
    reuse=True: its default-named layers find the first call's variables."""
    def disc(h, reuse=False):
        with lib.variable_scope("disc", reuse=reuse):
            return L.dense(L.dense(h, 4, activation=lib.nn.leaky_relu), 1)
    return disc(x) + disc(x * 2.0, reuse=True)


def _default_names(lib, L, x):
    """Default scope names skip names already opened (``dense_1`` by hand), a scope
    reopened by its object reuses its first layer, and default-named scopes count per
    parent."""
    with lib.variable_scope("net") as net:
        a = L.dense(x, 2)
        b = L.dense(x, 2, name="dense_1")
        c = L.dense(x, 2)
    with lib.variable_scope(net, reuse=True):
        d = L.dense(x, 2)
    with lib.variable_scope("block"):
        with lib.variable_scope(None, default_name="unit"):
            e = L.dense(x, 2)
        with lib.variable_scope(None, default_name="unit"):
            f = L.dense(x, 2)
    return a + b + c + d + e + f


def _bn_tensor_training(lib, L, x):
    training = lib.placeholder_with_default(True, [], name="training")
    return L.batch_normalization(x, training=training, momentum=0.9)


# (id, input shape, build(lib, layers, x) -> output); a -1 in the shape is an unknown
# dimension of the placeholder.
CASES = [
    ("dense", (4, 6), lambda lib, L, x: L.dense(x, 5, activation=lib.nn.relu)),
    ("dense_3d", (2, 3, 6), lambda lib, L, x: L.dense(x, 4, use_bias=False)),
    ("dense_reg", (4, 6), lambda lib, L, x: L.dense(
        x, 3, kernel_regularizer=_reg(lib), bias_regularizer=_reg(lib), name="reg")),
    ("dense_twice", (4, 6), _twice),
    ("dense_reuse", (4, 6), _reused),
    ("outer_scope_reuse", (4, 6), _outer_reuse),
    ("gan_scope_reuse", (4, 6), _gan_reuse),
    ("default_scope_names", (4, 6), _default_names),
    ("conv2d_same", (2, 7, 6, 3), lambda lib, L, x: L.conv2d(
        x, 4, 3, padding="same", activation=lib.nn.relu)),
    ("conv2d_strided", (2, 9, 8, 3), lambda lib, L, x: L.Conv2D(
        5, (3, 2), strides=(2, 1), use_bias=False)(x)),
    ("conv2d_dilated", (1, 9, 9, 2), lambda lib, L, x: L.conv2d(
        x, 3, 3, dilation_rate=2, kernel_regularizer=_reg(lib))),
    ("conv2d_scoped", (2, 6, 6, 3), _scoped),
    ("max_pool2d", (2, 7, 6, 3), lambda lib, L, x: L.max_pooling2d(x, 3, 2, padding="same")),
    ("avg_pool2d", (2, 7, 6, 3), lambda lib, L, x: L.AveragePooling2D((2, 3), (1, 2))(x)),
    ("max_pool1d", (2, 9, 3), lambda lib, L, x: L.max_pooling1d(x, 3, 2)),
    ("avg_pool1d", (2, 9, 3), lambda lib, L, x: L.average_pooling1d(x, 2, 2, padding="same")),
    ("conv1d", (2, 9, 3), lambda lib, L, x: L.conv1d(x, 4, 3, strides=2, padding="same")),
    ("conv1d_causal", (2, 9, 3), lambda lib, L, x: L.Conv1D(
        2, 3, padding="causal", dilation_rate=2, activation=lib.nn.relu)(x)),
    ("conv3d", (2, 4, 5, 4, 2), lambda lib, L, x: L.conv3d(x, 3, (2, 3, 2), strides=(1, 2, 1),
                                                            padding="same")),
    ("conv3d_dilated", (1, 6, 6, 6, 2), lambda lib, L, x: L.Conv3D(
        2, 2, dilation_rate=2, use_bias=False)(x)),
    ("conv2d_transpose", (2, 4, 5, 3), lambda lib, L, x: L.conv2d_transpose(
        x, 4, 3, strides=2, padding="same", activation=lib.nn.relu)),
    ("conv2d_transpose_valid", (-1, 4, 4, 3), lambda lib, L, x: L.Conv2DTranspose(
        2, (3, 2), strides=(2, 1), name="deconv")(x)),
    ("conv2d_transpose_channels_first", (2, 3, 4, 4), lambda lib, L, x: L.conv2d_transpose(
        x, 2, 2, strides=2, data_format="channels_first")),
    ("conv3d_transpose", (2, 2, 3, 2, 3), lambda lib, L, x: L.conv3d_transpose(
        x, 2, 2, strides=(2, 1, 2), padding="same")),
    ("separable_conv1d", (2, 9, 3), lambda lib, L, x: L.separable_conv1d(
        x, 4, 3, depth_multiplier=2, padding="same")),
    ("separable_conv2d", (2, 7, 7, 3), lambda lib, L, x: L.SeparableConv2D(
        4, 3, strides=2, depth_multiplier=2, activation=lib.nn.relu)(x)),
    ("separable_conv2d_dilated", (1, 8, 8, 2), lambda lib, L, x: L.separable_conv2d(
        x, 3, 3, dilation_rate=2, padding="same", depthwise_regularizer=_reg(lib))),
    ("max_pool3d", (2, 4, 5, 4, 2), lambda lib, L, x: L.max_pooling3d(x, 2, 2)),
    ("avg_pool3d", (2, 4, 4, 4, 2), lambda lib, L, x: L.AveragePooling3D(
        (2, 2, 1), 1, padding="same")(x)),
    ("flatten", (2, 3, 4, 2), lambda lib, L, x: L.flatten(x)),
    ("flatten_unknown", (-1, 3, -1), lambda lib, L, x: L.Flatten()(x)),
    ("dense_unknown_batch", (-1, 2, 6), lambda lib, L, x: L.dense(x, 3)),
    ("conv_pool_unknown_batch", (-1, 6, 6, 2), lambda lib, L, x: L.max_pooling2d(
        L.conv2d(x, 3, 2), 2, 1)),
    ("bn_unknown_batch", (-1, 4), lambda lib, L, x: L.batch_normalization(x, training=True)),
    ("dropout_off", (4, 6), lambda lib, L, x: L.dropout(x, 0.4)),
    ("bn_train", (8, 5), lambda lib, L, x: L.batch_normalization(x, training=True)),
    ("bn_infer", (8, 5), lambda lib, L, x: L.batch_normalization(
        x, center=False, epsilon=0.1)),
    ("bn_axis1", (4, 3, 5), lambda lib, L, x: L.BatchNormalization(
        axis=1, momentum=0.5, fused=False)(x, training=True)),
    ("bn_tensor_training", (8, 5), _bn_tensor_training),
    # 4-D over the channel axis: TF1's fused path (FusedBatchNormV3 in a cond).
    ("bn_fused", (4, 3, 3, 5), lambda lib, L, x: L.batch_normalization(x, training=True)),
    ("bn_fused_tensor_training", (4, 3, 3, 5), _bn_tensor_training),
    ("bn_fused_nchw_infer", (2, 3, 4, 4), lambda lib, L, x: L.batch_normalization(
        x, axis=1, scale=False)),
]


def _nodes(ops):
    """(name, type) of the layer ops: variables and initializers aside (TF's initializers
    are Keras' stateless ones)."""
    return [(op.name, op.type) for op in ops
            if "Initializer" not in op.name
            and op.type not in ("VariableV2", "Assign", "Identity")]


def _run(lib, L, build, shape, init_values=None):
    """Outputs and gradients, variables after the update ops, graph facts and the initial
    variable values (``init_values`` copied in by name when given)."""
    with lib.Graph().as_default() as g:
        x = lib.placeholder(lib.float32, [None if d == -1 else d for d in shape], name="x")
        out = build(lib, L, x)
        built = g.get_operations()
        variables = lib.global_variables()
        grads = lib.gradients(lib.reduce_sum(out * out), [x] + lib.trainable_variables())
        updates = lib.get_collection(lib.GraphKeys.UPDATE_OPS)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            if init_values is not None:
                sess.run([lib.assign(v, init_values[v.op.name]) for v in variables])
            initial = {v.op.name: sess.run(v) for v in variables}
            feed = {x: INPUTS[shape]}
            values = sess.run([out] + grads, feed)
            sess.run(updates, feed)
            after = sess.run(variables)
        info = {
            "global": [v.op.name for v in variables],
            "trainable": [v.op.name for v in lib.trainable_variables()],
            "updates": [op.name for op in updates],
            "reg": [t.name for t in lib.get_collection(lib.GraphKeys.REGULARIZATION_LOSSES)],
            "out": (out.name, out.shape.as_list(), out.dtype.name),
            "nodes": _nodes(built),
        }
        return values, after, info, initial


def _tf1_ref_variables(build):
    """``build`` in TF with TF1's ref variables (VariableV2), as graphcore makes them."""
    def tf_build(lib, L, x):
        with tf1.variable_scope(tf1.get_variable_scope(), use_resource=False):
            return build(lib, L, x)
    return tf_build


INPUTS = {shape: RNG.normal(size=[3 if d == -1 else d for d in shape]).astype(np.float32)
          for shape in {c[1] for c in CASES}}


# graphcore's tensordot builds its dynamic-shape Prod before the second GatherV2 (TF: after).
# Keras asks its session whether a GPU is there for channels_first Conv2DTranspose, which
# adds IsVariableInitialized/NoOp nodes to the graph; graphcore has no Keras session.
OTHER_NODES = {"dense_unknown_batch", "conv2d_transpose_channels_first"}


@pytest.mark.usefixtures("tf_control_flow_v1")  # a tensor `training` builds TF1's cond
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_layers_match_tf(case):
    name, shape, build = case
    want, want_after, want_info, initial = _run(tf1, tf_layers, _tf1_ref_variables(build),
                                                shape)
    got, got_after, got_info, _ = _run(tf, tf.layers, build, shape, initial)
    if name in OTHER_NODES:
        got_info.pop("nodes"), want_info.pop("nodes")
    assert got_info == want_info
    for g, w in zip(got + got_after, want + want_after):
        np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("fused", [False, None], ids=["plain", "fused"])
def test_end_to_end_conv_bn_training_matches_tf(fused):
    """A conv net with batch norm trained by SGD for a few steps, the update ops under
    control_dependencies, ends with TF's variables."""
    images = RNG.normal(size=(6, 8, 8, 2)).astype(np.float32)
    labels = RNG.integers(0, 3, size=6).astype(np.int32)

    def model(lib, L, x, y):
        h = L.conv2d(x, 4, 3, padding="same", use_bias=False)
        h = L.batch_normalization(h, training=True, fused=fused)
        h = lib.nn.relu(h)
        h = L.max_pooling2d(h, 2, 2)
        h = L.conv2d(h, 4, 3, activation=lib.nn.relu)
        h = L.flatten(h)
        logits = L.dense(h, 3)
        loss = lib.losses.sparse_softmax_cross_entropy(y, logits)
        with lib.control_dependencies(lib.get_collection(lib.GraphKeys.UPDATE_OPS)):
            train = lib.train.GradientDescentOptimizer(0.1).minimize(loss)
        return loss, train

    def run(lib, L, initial):
        with lib.Graph().as_default():
            x = lib.placeholder(lib.float32, images.shape)
            y = lib.placeholder(lib.int32, labels.shape)
            if lib is tf1:
                with tf1.variable_scope(tf1.get_variable_scope(), use_resource=False):
                    loss, train = model(lib, L, x, y)
            else:
                loss, train = model(lib, L, x, y)
            variables = lib.global_variables()
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                if initial is not None:
                    sess.run([lib.assign(v, initial[v.op.name]) for v in variables])
                start = {v.op.name: sess.run(v) for v in variables}
                losses = [sess.run([loss, train], {x: images, y: labels})[0]
                          for _ in range(4)]
                return losses, {v.op.name: sess.run(v) for v in variables}, start

    want_losses, want, initial = run(tf1, tf_layers, None)
    got_losses, got, _ = run(tf, tf.layers, initial)
    assert sorted(got) == sorted(want)
    assert "batch_normalization/moving_variance" in got
    np.testing.assert_allclose(got_losses, want_losses, rtol=1e-4, atol=1e-5)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-5, err_msg=name)
