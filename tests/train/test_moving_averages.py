"""tf.train.ExponentialMovingAverage (graphcore/train/moving_averages.py): averages
against the closed form, num_updates' lowered decay, zero-debiasing of a tensor's
average, names and variables_to_restore with a Saver."""

import pytest

import graphcore as tf


def test_average_follows_the_closed_form_and_num_updates_lowers_decay():
    with tf.Graph().as_default():
        v = tf.Variable(10.0, name="v")
        step = tf.placeholder(tf.int32, [])
        ema = tf.train.ExponentialMovingAverage(0.9, num_updates=step)
        apply = ema.apply([v])
        avg = ema.average(v)
        assert avg.op.name == "v/ExponentialMovingAverage"
        assert ema.average_name(v) == "v/ExponentialMovingAverage"
        assert tf.moving_average_variables() == [v]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            expected = 10.0
            for i, new_v in enumerate([20.0, 0.0, 5.0]):
                sess.run(v.assign(new_v))
                sess.run(apply, {step: i})
                decay = min(0.9, (1.0 + i) / (10.0 + i))
                expected = expected - (expected - new_v) * (1 - decay)
                assert sess.run(avg) == pytest.approx(expected, rel=1e-6)


def test_zero_debias_divides_by_one_minus_decay_power():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        t = x * 1.0
        ema = tf.train.ExponentialMovingAverage(0.5, zero_debias=True)
        apply = ema.apply([t])
        avg = ema.average(t)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            biased = 0.0
            for k, value in enumerate([4.0, 8.0, 2.0], start=1):
                sess.run(apply, {x: value})
                biased = biased * 0.5 + value * 0.5
                assert sess.run(avg) == pytest.approx(biased / (1 - 0.5 ** k), rel=1e-6)
        names = {v.op.name for v in tf.global_variables()}
        assert {"mul/ExponentialMovingAverage/biased",
                "mul/ExponentialMovingAverage/local_step"} <= names


def test_variables_to_restore_loads_averages_into_the_variables(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        other = tf.Variable(3.0, name="other", trainable=False)
        ema = tf.train.ExponentialMovingAverage(0.5)
        apply = ema.apply()
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(v.assign(5.0))
            sess.run(apply)  # average: 1 - (1 - 5) * 0.5 = 3
            path = saver.save(sess, str(tmp_path / "model"))
        to_restore = ema.variables_to_restore()
        assert to_restore == {"v/ExponentialMovingAverage": v, "other": other}
        with tf.Session() as sess:
            tf.train.Saver(to_restore).restore(sess, path)
            assert sess.run(v) == 3.0
            assert sess.run(other) == 3.0
