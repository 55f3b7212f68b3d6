"""tf.contrib.crf against brute force over every tag sequence: sequence scores, the log
partition function, log-likelihoods (and their gradient), crf_decode and viterbi_decode,
for sequences of full, partial and unit length."""

import itertools

import numpy as np
import pytest

import graphcore as tf

crf = tf.contrib.crf
RNG = np.random.RandomState(0)
NUM_TAGS = 3


def _score(unary, trans, tags):
    return sum(unary[t, tag] for t, tag in enumerate(tags)) + \
        sum(trans[a, b] for a, b in zip(tags[:-1], tags[1:]))


def _brute(unary, trans, length):
    seqs = list(itertools.product(range(NUM_TAGS), repeat=length))
    scores = np.array([_score(unary, trans, s) for s in seqs])
    return seqs, scores


@pytest.mark.parametrize("max_len,lengths", [(4, [4, 2, 1]), (1, [1, 1, 1])])
def test_crf_against_brute_force(max_len, lengths):
    unary = RNG.randn(3, max_len, NUM_TAGS).astype(np.float32)
    trans = RNG.randn(NUM_TAGS, NUM_TAGS).astype(np.float32)
    tags = RNG.randint(0, NUM_TAGS, (3, max_len)).astype(np.int32)
    inputs = tf.constant(unary)
    with tf.variable_scope("crf"):
        log_likelihood, transitions = crf.crf_log_likelihood(inputs, tf.constant(tags),
                                                             tf.constant(lengths))
    assert transitions.op.name == "crf/transitions"
    score = crf.crf_sequence_score(inputs, tags, lengths, transitions)
    log_norm = crf.crf_log_norm(inputs, tf.constant(lengths), transitions)
    decoded, best = crf.crf_decode(inputs, transitions, tf.constant(lengths))
    grad = tf.gradients(tf.reduce_sum(log_likelihood), transitions)[0]
    with tf.Session() as sess:
        sess.run(transitions.assign(trans))
        got = sess.run([log_likelihood, score, log_norm, decoded, best, grad])
    want_grad = np.zeros((NUM_TAGS, NUM_TAGS))
    for b, length in enumerate(lengths):
        seqs, scores = _brute(unary[b, :length], trans, length)
        probs = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
        for seq, p in zip(seqs, probs):
            for a, c in zip(seq[:-1], seq[1:]):
                want_grad[a, c] -= p
        for a, c in zip(tags[b, :length - 1], tags[b, 1:length]):
            want_grad[a, c] += 1
        want_score = _score(unary[b, :length], trans, tags[b, :length])
        want_norm = np.log(np.exp(scores).sum())
        assert got[1][b] == pytest.approx(want_score, rel=1e-5, abs=1e-5)
        assert got[2][b] == pytest.approx(want_norm, rel=1e-5)
        assert got[0][b] == pytest.approx(want_score - want_norm, rel=1e-5, abs=1e-5)
        best_seq = seqs[int(np.argmax(scores))]
        assert got[3][b, :length].tolist() == list(best_seq)
        assert got[4][b] == pytest.approx(scores.max(), rel=1e-5)
        viterbi, viterbi_score = crf.viterbi_decode(unary[b, :length], trans)
        assert list(viterbi) == list(best_seq)
        assert viterbi_score == pytest.approx(scores.max(), rel=1e-5)
    np.testing.assert_allclose(got[5], want_grad, rtol=1e-4, atol=1e-5)
