"""Reference tier: tf.train.experimental's loss scaling (FixedLossScale,
DynamicLossScale, MixedPrecisionLossScaleOptimizer) against TF's compat.v1: weights,
loss scale and global step after steps with finite and non-finite gradients (dense and
embedding gradients, resource variables), the optimizer's variables and op names, and
argument errors. Skipped when TensorFlow is not installed."""

import numpy as np
import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

FEEDS = [1.0, 1.0, np.inf, 1.0, 0.5, np.nan, 1.0, 1.0]


def _train(lib, loss_scale):
    graph = lib.Graph()
    with graph.as_default():
        x = lib.placeholder(lib.float32, [], name="x")
        w = lib.Variable([1.0, 2.0], name="w", use_resource=True)
        emb = lib.Variable([[0.5], [1.5], [-1.0]], name="emb", use_resource=True)
        looked_up = lib.reduce_sum(lib.nn.embedding_lookup(emb, [0, 2]))
        loss = lib.reduce_sum(lib.square(w * x - 3.0)) + lib.square(looked_up * x)
        step = lib.train.get_or_create_global_step()
        scale = (lib.train.experimental.DynamicLossScale(initial_loss_scale=8.0,
                                                         increment_period=2)
                 if loss_scale == "dynamic" else
                 lib.train.experimental.FixedLossScale(loss_scale))
        opt = lib.train.experimental.MixedPrecisionLossScaleOptimizer(
            lib.train.MomentumOptimizer(0.05, 0.9), scale)
        train = opt.minimize(loss, global_step=step)
        names = (train.name, sorted(v.op.name for v in opt.variables()), repr(scale))
        out = []
        with lib.Session(graph=graph) as sess:
            sess.run(lib.global_variables_initializer())
            for xv in FEEDS:
                sess.run(train, {x: xv})
                out.append(sess.run([w, emb, scale(), step]))
        return names, out


@pytest.mark.parametrize("loss_scale", ["dynamic", 4])
def test_loss_scale_optimizer_matches_tf(loss_scale):
    ours, theirs = _train(gc, loss_scale), _train(tf1, loss_scale)
    assert ours[0] == theirs[0]
    for mine, ref in zip(ours[1], theirs[1]):
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: lib.train.experimental.FixedLossScale(0.5),
    lambda lib: lib.train.experimental.FixedLossScale("8"),
    lambda lib: lib.train.experimental.MixedPrecisionLossScaleOptimizer(object(), 8),
    lambda lib: lib.train.experimental.MixedPrecisionLossScaleOptimizer(
        lib.train.GradientDescentOptimizer(0.1), "bogus"),
])
def test_errors_match_tf(make):
    with pytest.raises(ValueError) as ours:
        with gc.Graph().as_default():
            make(gc)
    with pytest.raises(ValueError) as theirs:
        with tf1.Graph().as_default():
            make(tf1)
    assert str(ours.value).split(":")[0] == str(theirs.value).split(":")[0]


def _rewrite_train(lib):
    graph = lib.Graph()
    with graph.as_default():
        w = lib.Variable([1.0, -2.0], name="w", use_resource=True)
        loss = lib.reduce_sum(lib.square(w - 3.0))
        opt = lib.train.experimental.enable_mixed_precision_graph_rewrite(
            lib.train.GradientDescentOptimizer(0.1))
        try:
            train = opt.minimize(loss)
            with lib.Session(graph=graph) as sess:
                sess.run(lib.global_variables_initializer())
                for _ in range(3):
                    sess.run(train)
                return type(opt).__name__, sess.run(w)
        finally:
            lib.train.experimental.disable_mixed_precision_graph_rewrite()


def test_enable_mixed_precision_graph_rewrite_matches_tf_on_cpu():
    ours, theirs = _rewrite_train(gc), _rewrite_train(tf1)
    assert ours[0] == theirs[0] == "MixedPrecisionLossScaleOptimizer"
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
