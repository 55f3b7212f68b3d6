"""Loss scaling (graphcore/train/loss_scale.py, loss_scale_optimizer.py): the dynamic
scale's halving and doubling, skipped steps on non-finite gradients, scaled and
unscaled gradients, get()."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.train import loss_scale


def test_dynamic_loss_scale_skips_non_finite_steps_and_adapts():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        w = tf.Variable(1.0, name="w")
        scale = tf.train.experimental.DynamicLossScale(initial_loss_scale=4.0,
                                                       increment_period=3, multiplier=2.0)
        opt = tf.train.experimental.MixedPrecisionLossScaleOptimizer(
            tf.train.GradientDescentOptimizer(0.5), scale)
        grads = opt.compute_gradients(w * x)
        train = opt.apply_gradients(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # The gradient comes back unscaled: d(w * x)/dw = x.
            assert sess.run(grads[0][0], {x: 3.0}) == pytest.approx(3.0)
            history = []
            for xv in [1.0, np.inf, 1.0, 1.0, 1.0, 1.0]:
                sess.run(train, {x: xv})
                history.append((float(sess.run(w)), float(sess.run(scale()))))
    assert history == [(0.5, 4.0), (0.5, 2.0), (0.0, 2.0), (-0.5, 2.0), (-1.0, 4.0),
                       (-1.5, 4.0)]


def test_fixed_loss_scale_always_applies_and_get_builds_scales():
    with tf.Graph().as_default():
        fixed = loss_scale.get(16)
        assert isinstance(fixed, tf.train.experimental.FixedLossScale)
        assert repr(fixed) == "FixedLossScale(16.0)"
        assert fixed.update([])[1] is True
        assert isinstance(loss_scale.get("dynamic"), tf.train.experimental.DynamicLossScale)
        assert loss_scale.get(None) is None
        with pytest.raises(ValueError, match="Could not interpret loss scale identifier"):
            loss_scale.get("bogus")
        with tf.Session() as sess:
            assert sess.run(fixed()) == 16.0


def test_enable_mixed_precision_graph_rewrite_wraps_the_optimizer(caplog):
    from graphcore.train import loss_scale_optimizer

    caplog.set_level("WARNING", logger="tensorflow")  # tf.logging's, whatever its verbosity
    with tf.Graph().as_default():
        base = tf.train.AdamOptimizer(0.1)
        opt = tf.train.experimental.enable_mixed_precision_graph_rewrite(base)
        try:
            assert isinstance(opt, tf.train.experimental.MixedPrecisionLossScaleOptimizer)
            assert opt._optimizer is base and opt._doing_dynamic_loss_scaling()
            assert loss_scale_optimizer._graph_rewrite_enabled
            with pytest.raises(ValueError, match='"opt" must not already be an instance'):
                tf.train.experimental.enable_mixed_precision_graph_rewrite(opt)
            with pytest.raises(ValueError, match='"opt" must be an instance of a '
                                                 'tf.train.Optimizer'):
                tf.train.experimental.enable_mixed_precision_graph_rewrite(object())
        finally:
            tf.train.experimental.disable_mixed_precision_graph_rewrite()
        assert not loss_scale_optimizer._graph_rewrite_enabled
        tf.train.experimental.disable_mixed_precision_graph_rewrite()
        assert "already disabled" in caplog.text
