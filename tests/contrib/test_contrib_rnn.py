"""tf.contrib.rnn: the core cells and RNN functions are the same objects; LSTMBlockCell has
LSTMCell's numerics and the block cell's variable names; the stacked bidirectional RNNs build
one bidirectional layer per ``cell_<i>`` scope, each fed the previous layer's outputs;
LayerNormBasicLSTMCell against numpy; the embedding / projection wrappers' variables."""

import numpy as np
import pytest

import graphcore as tf

rnn = tf.contrib.rnn


@pytest.mark.parametrize("name", ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper",
                                  "DropoutWrapper", "GRUCell", "LSTMCell", "LSTMStateTuple",
                                  "MultiRNNCell", "ResidualWrapper", "RNNCell"])
def test_cells_are_core_objects(name):
    assert getattr(rnn, name) is getattr(tf.nn.rnn_cell, name)


def test_rnn_functions_are_core_objects():
    assert rnn.static_rnn is tf.nn.static_rnn
    assert rnn.static_bidirectional_rnn is tf.nn.static_bidirectional_rnn


def test_lstm_block_cell_names_and_numerics():
    x = tf.constant(np.random.RandomState(0).rand(2, 4, 3).astype(np.float32))
    block, _ = tf.nn.dynamic_rnn(rnn.LSTMBlockCell(5, use_peephole=True, cell_clip=1.0), x,
                                 dtype=tf.float32, scope="block")
    names = [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]
    assert names == [("block/lstm_cell/kernel", [8, 20]), ("block/lstm_cell/bias", [20]),
                     ("block/lstm_cell/w_f_diag", [5]), ("block/lstm_cell/w_i_diag", [5]),
                     ("block/lstm_cell/w_o_diag", [5])]
    with tf.variable_scope(tf.get_variable_scope(), reuse=True):
        core, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.LSTMCell(5, use_peepholes=True,
                                                            cell_clip=1.0), x,
                                    dtype=tf.float32, scope="block")
    assert len(tf.global_variables()) == 5
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, want = sess.run([block, core])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_stack_bidirectional_rnns():
    x = tf.constant(np.ones((2, 3, 4), np.float32))
    cells = lambda: [tf.nn.rnn_cell.GRUCell(n) for n in (5, 6)]  # noqa: E731
    out, states_fw, states_bw = rnn.stack_bidirectional_dynamic_rnn(
        cells(), cells(), x, dtype=tf.float32, sequence_length=[3, 2])
    assert out.shape.as_list() == [2, 3, 12]
    assert [s.shape.as_list() for s in states_fw + states_bw] == [[2, 5], [2, 6]] * 2
    steps = tf.unstack(x, axis=1)
    outs, _, _ = rnn.stack_bidirectional_rnn(cells(), cells(), steps, dtype=tf.float32,
                                             scope="static")
    assert len(outs) == 3 and outs[0].shape.as_list() == [2, 12]
    kernels = [v.op.name for v in tf.global_variables() if "gates/kernel" in v.op.name]
    assert kernels == [
        f"{top}/cell_{i}/{way}/gru_cell/gates/kernel"
        for top, mid in (("stack_bidirectional_rnn", "bidirectional_rnn"), ("static", None))
        for i in (0, 1) for way in ((f"{mid}/fw", f"{mid}/bw") if mid else ("fw", "bw"))]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(out)
    assert np.all(got[1, 2] == 0) and np.all(np.abs(got) < 1)
    with pytest.raises(ValueError, match="same depth"):
        rnn.stack_bidirectional_dynamic_rnn(cells(), cells()[:1], x, dtype=tf.float32)


def _layer_norm(x, gamma=1.0, beta=0.0):
    mean = x.mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-12) * gamma + beta


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_layer_norm_basic_lstm_cell_names_and_numerics():
    rng = np.random.RandomState(1)
    xs = rng.rand(3, 2, 4).astype(np.float32)
    cell = rnn.LayerNormBasicLSTMCell(3, forget_bias=0.5, norm_gain=1.5, norm_shift=0.1)
    outputs, state = rnn.static_rnn(cell, tf.unstack(tf.constant(xs)), dtype=tf.float32)
    names = [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]
    assert names == [("rnn/layer_norm_basic_lstm_cell/kernel", [7, 12])] + [
        (f"rnn/layer_norm_basic_lstm_cell/{part}/{p}", [3])
        for part in ("input", "transform", "forget", "output", "state")
        for p in ("gamma", "beta")]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        kernel = sess.run("rnn/layer_norm_basic_lstm_cell/kernel:0")
        got = sess.run(outputs)
    c = h = np.zeros((2, 3), np.float32)
    for t in range(3):
        gates = np.concatenate([xs[t], h], 1) @ kernel
        i, j, f, o = (_layer_norm(g, 1.5, 0.1) for g in np.split(gates, 4, axis=1))
        c = _layer_norm(c * _sigmoid(f + 0.5) + _sigmoid(i) * np.tanh(j), 1.5, 0.1)
        h = np.tanh(c) * _sigmoid(o)
        np.testing.assert_allclose(got[t], h, rtol=1e-4, atol=1e-5)
    assert isinstance(state, rnn.LSTMStateTuple)


def test_projection_and_embedding_wrappers():
    ids = [tf.constant([1, 4]), tf.constant([0, 2])]
    cell = rnn.OutputProjectionWrapper(rnn.EmbeddingWrapper(tf.nn.rnn_cell.GRUCell(3), 5, 4),
                                       output_size=2)
    outputs, state = rnn.static_rnn(cell, ids, dtype=tf.float32)
    names = [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]
    base = "rnn/output_projection_wrapper"
    assert names == [
        (f"{base}/embedding_wrapper/embedding", [5, 4]),
        (f"{base}/embedding_wrapper/gru_cell/gates/kernel", [7, 6]),
        (f"{base}/embedding_wrapper/gru_cell/gates/bias", [6]),
        (f"{base}/embedding_wrapper/gru_cell/candidate/kernel", [7, 3]),
        (f"{base}/embedding_wrapper/gru_cell/candidate/bias", [3]),
        (f"{base}/kernel", [3, 2]), (f"{base}/bias", [2])]
    assert outputs[1].shape.as_list() == [2, 2] and state.shape.as_list() == [2, 3]
    x = tf.constant(np.ones((2, 5), np.float32))
    projected = rnn.InputProjectionWrapper(tf.nn.rnn_cell.BasicRNNCell(3), num_proj=6,
                                           activation=tf.nn.relu)
    out, _ = projected(x, tf.zeros([2, 3]), scope="proj")
    v = {var.op.name: var for var in tf.global_variables()}
    assert v["proj/kernel"].shape.as_list() == [5, 6]
    want = tf.tanh(tf.matmul(tf.concat([tf.nn.relu(tf.matmul(x, v["proj/kernel"]) +
                                                   v["proj/bias"]), tf.zeros([2, 3])], 1),
                             v["proj/basic_rnn_cell/kernel"]) + v["proj/basic_rnn_cell/bias"])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, expected = sess.run([out, want])
    np.testing.assert_allclose(got, expected, rtol=1e-5)
    with pytest.raises(ValueError, match="output_size must be > 0"):
        rnn.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(3), 0)
