"""tf.contrib.rnn: the core cells and RNN functions are the same objects; LSTMBlockCell has
LSTMCell's numerics and the block cell's variable names; the stacked bidirectional RNNs build
one bidirectional layer per ``cell_<i>`` scope, each fed the previous layer's outputs."""

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
