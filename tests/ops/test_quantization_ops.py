"""tf.quantization without TensorFlow: fake quantization's nudged range and gradient
mask, quantize/dequantize round trips in each mode, quantize_and_dequantize and
quantized_concat on hand-computed values."""

import numpy as np
import pytest

import graphcore as tf

F = np.float32


def _run(fetches):
    with tf.Session() as sess:
        return sess.run(fetches)


def _ints(q):
    return q.view(next(iter(q.dtype.fields.values()))[0])


def test_fake_quant_nudges_zero_onto_a_level():
    with tf.Graph().as_default():
        x = tf.constant(F([-7.0, -0.1, 0.0, 0.02, 3.0, 7.0]))
        # [-1, 2] over 255 steps: zero point 85, so 0.0 is exact and the range shifts.
        y = tf.fake_quant_with_min_max_args(x, min=-1.0, max=2.0)
        grad = tf.gradients(tf.reduce_sum(y), x)[0]
        out, g = _run([y, grad])
    scale = F(3.0) / F(255.0)
    assert out[2] == 0.0 and out[0] == pytest.approx(-85 * scale)
    assert out[-1] == pytest.approx(170 * scale)
    np.testing.assert_allclose(out[1], -0.1, atol=scale / 2)
    np.testing.assert_array_equal(g, [0, 1, 1, 1, 0, 0])


@pytest.mark.parametrize("mode", ["MIN_COMBINED", "MIN_FIRST", "SCALED"])
def test_quantize_dequantize_round_trip(mode):
    x = np.linspace(-1.0, 1.0, 9).astype(F)
    with tf.Graph().as_default():
        q = tf.quantize(x, -1.0, 1.0, tf.qint8, mode=mode)
        back = tf.dequantize(q.output, q.output_min, q.output_max, mode=mode)
        values, lo, hi, restored = _run([q.output, q.output_min, q.output_max, back])
    assert values.dtype == tf.qint8.as_numpy_dtype
    assert lo <= -1.0 and hi >= 1.0
    # MIN_FIRST rounds min_range to a level on the way in and out: up to 2 steps off.
    np.testing.assert_allclose(restored, x, atol=2 * (hi - lo) / 255)
    if mode == "SCALED":
        np.testing.assert_array_equal(_ints(values), np.round(x * 127))


def test_quint8_min_combined_scales_by_255_over_range():
    with tf.Graph().as_default():
        q = tf.quantize(F([0.0, 3.0, 6.0]), 0.0, 6.0, tf.quint8)
        values = _run(q.output)
    np.testing.assert_array_equal(_ints(values), [0, 128, 255])


def test_quantize_and_dequantize_rounds_half_to_even():
    with tf.Graph().as_default():
        x = tf.constant(F([-1.0, 0.3, 0.5, 1.0]))
        y = tf.quantization.quantize_and_dequantize(x, -1.0, 1.0, num_bits=2,
                                                    range_given=True)
        y4 = tf.quantization.quantize_and_dequantize_v2(x * 2, -1.0, 1.0, num_bits=2,
                                                        range_given=True)
        g4 = tf.gradients(tf.reduce_sum(y4), x)[0]
        out, grad = _run([y, g4])
    # signed 2 bits: levels -2..1 over [-1, 1] -> steps of 1.0, the top clamped to 1.0.
    np.testing.assert_array_equal(out, [-1.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(grad, [0.0, 2.0, 2.0, 0.0])


def test_quantized_concat_requantizes_into_a_common_range():
    with tf.Graph().as_default():
        a = tf.quantize(F([0.0, 1.0]), 0.0, 1.0, tf.quint8)
        b = tf.quantize(F([0.0, 2.0]), 0.0, 2.0, tf.quint8)
        c = tf.quantized_concat(0, [a.output, b.output], [a.output_min, b.output_min],
                                [a.output_max, b.output_max])
        back = tf.dequantize(c.output, c.output_min, c.output_max, mode="MIN_FIRST")
        lo, hi, restored = _run([c.output_min, c.output_max, back])
    assert (lo, hi) == (0.0, 2.0)
    np.testing.assert_allclose(restored, [0.0, 1.0, 0.0, 2.0], atol=2.0 / 255)
