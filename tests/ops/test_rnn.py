"""The RNN drivers and cells (graphcore/ops/rnn.py, rnn_cell_impl.py) against a numpy
LSTM: values, sequence_length handling, variable names, static == dynamic."""

import numpy as np
import pytest

import graphcore as tf

B, T, D, N = 2, 3, 2, 4
RNG = np.random.default_rng(0)
X = RNG.standard_normal((B, T, D)).astype(np.float32)
KERNEL = RNG.standard_normal((D + N, 4 * N)).astype(np.float32) * 0.5
BIAS = RNG.standard_normal(4 * N).astype(np.float32) * 0.1


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_lstm(x, lengths):
    """BasicLSTMCell (forget_bias 1) over batch-major ``x``; zeros past each length."""
    c = np.zeros((B, N), np.float32)
    h = np.zeros((B, N), np.float32)
    outs = np.zeros((B, T, N), np.float32)
    for t in range(T):
        i, j, f, o = np.split(np.concatenate([x[:, t], h], 1) @ KERNEL + BIAS, 4, 1)
        new_c = c * _sigmoid(f + 1.0) + _sigmoid(i) * np.tanh(j)
        new_h = np.tanh(new_c) * _sigmoid(o)
        live = (t < lengths)[:, None]
        c, h = np.where(live, new_c, c), np.where(live, new_h, h)
        outs[:, t] = np.where(live, new_h, 0.0)
    return outs, c, h


def _load(sess):
    kernel, bias = sorted(tf.trainable_variables(), key=lambda v: v.name)[::-1]
    sess.run([kernel.assign(KERNEL), bias.assign(BIAS)])


@pytest.mark.parametrize("lengths", [None, [3, 1]])
@pytest.mark.parametrize("driver", ["dynamic", "static"])
def test_lstm_matches_numpy(driver, lengths):
    cell = tf.nn.rnn_cell.BasicLSTMCell(N)
    x = tf.constant(X)
    if driver == "dynamic":
        out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    else:
        outs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1),
                                       sequence_length=lengths, dtype=tf.float32)
        out = tf.stack(outs, axis=1)
    assert [v.name for v in tf.global_variables()] == [
        "rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]
    assert out.shape.as_list() == [B, T, N]
    assert isinstance(state, tf.nn.rnn_cell.LSTMStateTuple)
    with tf.Session() as sess:
        _load(sess)
        got_out, got_state = sess.run([out, state])
    want_out, want_c, want_h = _numpy_lstm(X, np.array(lengths or [T] * B))
    np.testing.assert_allclose(got_out, want_out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.c, want_c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got_state.h, want_h, rtol=1e-5, atol=1e-6)


def test_time_major_and_bidirectional_shapes():
    x = tf.placeholder(tf.float32, [T, None, D])
    (fw, bw), (s_fw, s_bw) = tf.nn.bidirectional_dynamic_rnn(
        tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(5), x, time_major=True,
        dtype=tf.float32)
    assert fw.shape.as_list() == [T, None, 3] and bw.shape.as_list() == [T, None, 5]
    assert s_bw.shape.as_list() == [None, 5]
    assert sorted(v.name for v in tf.global_variables())[0] == \
        "bidirectional_rnn/bw/gru_cell/candidate/bias:0"


def test_cell_errors():
    with pytest.raises(ValueError, match="If no initial_state is provided"):
        tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(2), tf.zeros([1, 2, 3]))
    with pytest.raises(TypeError, match="is not an RNNCell"):
        tf.nn.dynamic_rnn(object(), tf.zeros([1, 2, 3]), dtype=tf.float32)
    with pytest.raises(ValueError, match="Must specify at least one cell"):
        tf.nn.rnn_cell.MultiRNNCell([])
