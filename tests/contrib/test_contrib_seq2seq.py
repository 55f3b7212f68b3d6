"""tf.contrib.seq2seq: sequence_loss (every reduction against numpy), BasicDecoder +
TrainingHelper / GreedyEmbeddingHelper through dynamic_decode (against dynamic_rnn and an
unrolled greedy loop), tile_batch; and
tf.contrib.legacy_seq2seq (rnn_decoder with a loop function, the tied and basic seq2seq
variable sharing, sequence_loss(_by_example) against numpy)."""

import numpy as np
import pytest

import graphcore as tf

RNG = np.random.RandomState(0)
LOGITS = RNG.randn(2, 3, 4).astype(np.float32)
TARGETS = np.array([[0, 3, 1], [2, 2, 0]], np.int32)
WEIGHTS = np.array([[1, 1, 0], [1, 0.5, 1]], np.float32)


def _crossent():
    logp = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
    return -np.take_along_axis(logp, TARGETS[..., None], -1)[..., 0] * WEIGHTS


@pytest.mark.parametrize("kwargs,expected", [
    ({}, lambda c: c.sum() / WEIGHTS.sum()),
    ({"average_across_timesteps": False}, lambda c: c.sum(0) / WEIGHTS.sum(0)),
    ({"average_across_batch": False}, lambda c: c.sum(1) / WEIGHTS.sum(1)),
    ({"average_across_timesteps": False, "average_across_batch": False}, lambda c: c),
    ({"average_across_timesteps": False, "average_across_batch": False,
      "sum_over_timesteps": True, "sum_over_batch": True},
     lambda c: c.sum() / (WEIGHTS != 0).sum()),
    ({"average_across_timesteps": False, "sum_over_timesteps": True,
      "average_across_batch": False}, lambda c: c.sum(1) / (WEIGHTS != 0).sum(1)),
])
def test_sequence_loss(kwargs, expected):
    loss = tf.contrib.seq2seq.sequence_loss(LOGITS, TARGETS, WEIGHTS, **kwargs)
    with tf.Session() as sess:
        got = sess.run(loss)
    np.testing.assert_allclose(got, expected(_crossent()), rtol=1e-5)


def test_sequence_loss_errors():
    with pytest.raises(ValueError, match="Logits must be a"):
        tf.contrib.seq2seq.sequence_loss(LOGITS[0], TARGETS, WEIGHTS)
    with pytest.raises(ValueError, match="cannot be set to True at same time"):
        tf.contrib.seq2seq.sequence_loss(LOGITS, TARGETS, WEIGHTS, sum_over_batch=True)


def test_legacy_losses():
    logits = [tf.constant(LOGITS[:, t]) for t in range(3)]
    targets = [tf.constant(TARGETS[:, t]) for t in range(3)]
    weights = [tf.constant(WEIGHTS[:, t]) for t in range(3)]
    legacy = tf.contrib.legacy_seq2seq
    by_example = legacy.sequence_loss_by_example(logits, targets, weights)
    total = legacy.sequence_loss(logits, targets, weights)
    summed = legacy.sequence_loss(logits, targets, weights, average_across_timesteps=False,
                                  average_across_batch=False)
    with tf.Session() as sess:
        got = sess.run([by_example, total, summed])
    per_example = _crossent().sum(1) / (WEIGHTS.sum(1) + 1e-12)
    np.testing.assert_allclose(got[0], per_example, rtol=1e-5)
    np.testing.assert_allclose(got[1], per_example.sum() / 2, rtol=1e-5)
    np.testing.assert_allclose(got[2], _crossent().sum(), rtol=1e-5)


def test_rnn_decoder_and_seq2seq_variables():
    legacy = tf.contrib.legacy_seq2seq
    inputs = [tf.ones([2, 3]) * (t + 1) for t in range(3)]
    cell = tf.nn.rnn_cell.GRUCell(3)
    state = cell.zero_state(2, tf.float32)
    feedback = []

    def loop_function(prev, i):
        feedback.append(i)
        return prev * 2.0

    outputs, final = legacy.rnn_decoder(inputs, state, cell, loop_function=loop_function)
    assert feedback == [1, 2] and len(outputs) == 3 and final.shape.as_list() == [2, 3]
    legacy.tied_rnn_seq2seq(inputs, inputs, tf.nn.rnn_cell.GRUCell(3))
    legacy.basic_rnn_seq2seq(inputs, inputs, tf.nn.rnn_cell.GRUCell(3))
    kernels = [v.op.name for v in tf.global_variables() if v.op.name.endswith("gates/kernel")]
    assert kernels == ["rnn_decoder/gru_cell/gates/kernel",
                       "combined_tied_rnn_seq2seq/tied_rnn_seq2seq/gru_cell/gates/kernel",
                       "basic_rnn_seq2seq/rnn/gru_cell/gates/kernel",
                       "basic_rnn_seq2seq/rnn_decoder/gru_cell/gates/kernel"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        values = sess.run(outputs)
    assert np.all(np.abs(values[2]) < 1) and not np.allclose(values[1], values[2])


def _decoder_setup():
    tf.set_random_seed(3)
    emb = tf.get_variable("emb", [6, 4])
    cell = tf.nn.rnn_cell.GRUCell(5)
    out_layer = tf.layers.Dense(6, name="proj")
    return emb, cell, out_layer


@pytest.mark.parametrize("impute_finished", [False, True])
def test_training_decoder_matches_dynamic_rnn(impute_finished):
    s2s = tf.contrib.seq2seq
    emb, cell, out_layer = _decoder_setup()
    ids = tf.constant([[1, 2, 3], [4, 5, 0]])
    inputs = tf.nn.embedding_lookup(emb, ids)
    helper = s2s.TrainingHelper(inputs, [3, 2])
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                               output_layer=out_layer)
    outputs, state, lengths = s2s.dynamic_decode(decoder, impute_finished=impute_finished)
    assert isinstance(outputs, s2s.BasicDecoderOutput)
    assert [v.op.name for v in tf.global_variables()] == [
        "emb", "decoder/gru_cell/gates/kernel", "decoder/gru_cell/gates/bias",
        "decoder/gru_cell/candidate/kernel", "decoder/gru_cell/candidate/bias",
        "decoder/proj/kernel", "decoder/proj/bias"]
    with tf.variable_scope("decoder", reuse=True):
        ref, ref_state = tf.nn.dynamic_rnn(cell, inputs, sequence_length=[3, 2],
                                           dtype=tf.float32)
    ref_logits = out_layer(ref)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, got_state, got_lengths, want, want_state = sess.run(
            [outputs, state, lengths, ref_logits, ref_state])
    assert got_lengths.tolist() == [3, 2]
    np.testing.assert_allclose(got.rnn_output[0], want[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got.rnn_output[1, :2], want[1, :2], rtol=1e-5, atol=1e-6)
    assert got.sample_id.tolist()[0] == want[0].argmax(-1).tolist()
    if impute_finished:
        assert np.all(got.rnn_output[1, 2] == 0)
        np.testing.assert_allclose(got_state, want_state, rtol=1e-5, atol=1e-6)


def test_greedy_decoder_matches_unrolled_loop():
    s2s = tf.contrib.seq2seq
    emb, cell, out_layer = _decoder_setup()
    start, end_token, steps = tf.fill([3], 1), 2, 4
    helper = s2s.GreedyEmbeddingHelper(emb, start, end_token)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32),
                               output_layer=out_layer)
    outputs, _, lengths = s2s.dynamic_decode(decoder, maximum_iterations=steps)
    inp, state, manual = tf.nn.embedding_lookup(emb, start), cell.zero_state(3, tf.float32), []
    for _ in range(steps):
        out, state = cell(inp, state)
        sample = tf.argmax(out_layer(out), -1, output_type=tf.int32)
        manual.append(sample)
        inp = tf.nn.embedding_lookup(emb, sample)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_ids, got_lengths, want = sess.run([outputs.sample_id, lengths, tf.stack(manual, 1)])
    for b in range(3):
        ends = [t for t in range(steps) if want[b, t] == end_token]
        length = ends[0] + 1 if ends else steps
        assert got_lengths[b] == length
        assert got_ids[b, :length].tolist() == want[b, :length].tolist()


def test_tile_batch():
    tiled = tf.contrib.seq2seq.tile_batch((tf.constant([[1, 2], [3, 4]]), tf.constant([5, 6])),
                                          2)
    assert tiled[0].shape.as_list() == [4, 2]
    with tf.Session() as sess:
        a, b = sess.run(tiled)
    assert a.tolist() == [[1, 2], [1, 2], [3, 4], [3, 4]] and b.tolist() == [5, 5, 6, 6]


def test_sample_embedding_helper_cold_is_greedy():
    s2s = tf.contrib.seq2seq
    emb, cell, out_layer = _decoder_setup()
    start = tf.fill([3], 1)
    results = []
    for helper in (s2s.GreedyEmbeddingHelper(emb, start, 2),
                   s2s.SampleEmbeddingHelper(emb, start, 2, softmax_temperature=1e-4, seed=1)):
        decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32),
                                   output_layer=out_layer)
        results.append(s2s.dynamic_decode(decoder, maximum_iterations=4)[0].sample_id)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        greedy, sampled = sess.run(results)
    assert sampled.tolist() == greedy.tolist()
