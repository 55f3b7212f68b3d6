"""tf.contrib.seq2seq attention: AttentionWrapper over BahdanauAttention through
dynamic_decode, its variable names, and its first step against numpy (GRU step, additive
score masked past the memory lengths, softmax, context, attention layer); LuongAttention
with scale and alignment history; an NMT-style model (encoder, Luong attention, decoder,
sequence_loss, optimize_loss) trains through dynamic_decode."""

import numpy as np

import graphcore as tf

s2s = tf.contrib.seq2seq
RNG = np.random.RandomState(0)
MEMORY = RNG.rand(2, 4, 6).astype(np.float32)
LENGTHS = [4, 2]
INPUTS = RNG.rand(2, 3, 5).astype(np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_bahdanau_attention_wrapper_first_step():
    mechanism = s2s.BahdanauAttention(4, MEMORY, memory_sequence_length=LENGTHS)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(7), mechanism, attention_layer_size=3)
    helper = s2s.TrainingHelper(INPUTS, [3, 3])
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    outputs, state, _ = s2s.dynamic_decode(decoder)
    assert isinstance(state, s2s.AttentionWrapperState)
    names = [(v.op.name, v.shape.as_list()) for v in tf.global_variables()]
    prefix = "decoder/attention_wrapper"
    assert names == [
        ("memory_layer/kernel", [6, 4]),
        (f"{prefix}/gru_cell/gates/kernel", [15, 14]),
        (f"{prefix}/gru_cell/gates/bias", [14]),
        (f"{prefix}/gru_cell/candidate/kernel", [15, 7]),
        (f"{prefix}/gru_cell/candidate/bias", [7]),
        (f"{prefix}/bahdanau_attention/query_layer/kernel", [7, 4]),
        (f"{prefix}/bahdanau_attention/attention_v", [4]),
        (f"{prefix}/attention_layer/kernel", [13, 3])]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, alignments, v = sess.run([outputs.rnn_output, state.alignments,
                                       {name: var for (name, _), var in
                                        zip(names, tf.global_variables())}])
    assert got.shape == (2, 3, 3)
    assert np.all(alignments[1, 2:] == 0) and np.allclose(alignments.sum(1), 1)
    x = np.concatenate([INPUTS[:, 0], np.zeros((2, 3), np.float32)], 1)
    h = np.zeros((2, 7), np.float32)
    gates = _sigmoid(np.concatenate([x, h], 1) @ v[f"{prefix}/gru_cell/gates/kernel"] +
                     v[f"{prefix}/gru_cell/gates/bias"])
    r, u = gates[:, :7], gates[:, 7:]
    c = np.tanh(np.concatenate([x, r * h], 1) @ v[f"{prefix}/gru_cell/candidate/kernel"] +
                v[f"{prefix}/gru_cell/candidate/bias"])
    h = u * h + (1 - u) * c
    mask = np.arange(4)[None, :] < np.array(LENGTHS)[:, None]
    memory = MEMORY * mask[..., None]
    keys = memory @ v["memory_layer/kernel"]
    query = h @ v[f"{prefix}/bahdanau_attention/query_layer/kernel"]
    score = (v[f"{prefix}/bahdanau_attention/attention_v"] *
             np.tanh(keys + query[:, None])).sum(2)
    score = np.where(mask, score, -np.inf)
    align = np.exp(score - score.max(1, keepdims=True))
    align /= align.sum(1, keepdims=True)
    context = (align[..., None] * memory).sum(1)
    want = np.concatenate([h, context], 1) @ v[f"{prefix}/attention_layer/kernel"]
    np.testing.assert_allclose(got[:, 0], want, rtol=1e-4, atol=1e-5)


def test_luong_attention_scale_and_history():
    mechanism = s2s.LuongAttention(7, MEMORY, memory_sequence_length=LENGTHS, scale=True)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(7), mechanism, alignment_history=True,
                                output_attention=False, name="attn")
    helper = s2s.TrainingHelper(INPUTS, [3, 3])
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    outputs, state, _ = s2s.dynamic_decode(decoder)
    history = state.alignment_history.stack()
    assert "decoder/attn/luong_attention/attention_g" in [v.op.name
                                                          for v in tf.global_variables()]
    assert outputs.rnn_output.shape.as_list()[-1] == 7 and cell.output_size == 7
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_history, attention = sess.run([history, state.attention])
    assert got_history.shape == (3, 2, 4) and np.all(got_history[:, 1, 2:] == 0)
    np.testing.assert_allclose(got_history.sum(-1), 1, rtol=1e-5)
    assert attention.shape == (2, 6)


def test_nmt_style_training_through_attention_and_dynamic_decode():
    rng = np.random.RandomState(0)
    src = rng.randint(1, 8, (4, 3)).astype(np.int32)
    tgt_in = np.concatenate([np.zeros((4, 1), np.int32), src[:, :2]], 1)
    emb = tf.get_variable("emb", [8, 6])
    enc_out, enc_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(8),
                                           tf.nn.embedding_lookup(emb, src),
                                           dtype=tf.float32, scope="encoder")
    mechanism = s2s.LuongAttention(8, enc_out, memory_sequence_length=[3, 3, 2, 1])
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(8), mechanism, attention_layer_size=8)
    initial = cell.zero_state(4, tf.float32).clone(cell_state=enc_state)
    helper = s2s.TrainingHelper(tf.nn.embedding_lookup(emb, tgt_in), [3, 3, 3, 3])
    decoder = s2s.BasicDecoder(cell, helper, initial,
                               output_layer=tf.layers.Dense(8, use_bias=False))
    outputs, _, _ = s2s.dynamic_decode(decoder)
    loss = s2s.sequence_loss(outputs.rnn_output, src, tf.ones([4, 3]))
    train = tf.contrib.layers.optimize_loss(loss, tf.train.get_or_create_global_step(), 0.1,
                                            "Adam", clip_gradients=5.0, summaries=[])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        losses = [sess.run(train) for _ in range(3)]
    assert losses[2] < losses[1] < losses[0]
