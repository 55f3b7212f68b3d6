"""Reference tier: CTC (tf.nn.ctc_loss and its gradient, ctc_loss_v2 with sparse and dense
labels, the greedy and beam-search decoders, collapse_repeated, ctc_unique_labels) against TensorFlow's compat.v1 graph mode:
values, decoded SparseTensors, log probabilities, gradients, static shapes and errors."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

pytestmark = pytest.mark.usefixtures("tf_control_flow_v1")

RNG = np.random.default_rng(5)
T, B, C = 7, 3, 5
LOGITS = (RNG.normal(size=(T, B, C)) * 2).astype(np.float32)
INDICES = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1]], np.int64)
VALUES = np.array([1, 1, 2, 3, 0, 2], np.int32)
SEQ_LEN = np.array([7, 4, 5], np.int32)


def _graph(lib):
    return tf.Graph() if lib is tf else tf_ref.Graph()


def _session(lib):
    return tf.Session() if lib is tf else tf1.Session()


def _labels(lib, values=VALUES):
    return lib.SparseTensor(INDICES, values, [B, 3])


def _flatten(values):
    out = []
    for v in values:
        if hasattr(v, "indices") and hasattr(v, "dense_shape"):
            out += [v.indices, v.values, v.dense_shape]
        elif isinstance(v, (list, tuple)):
            out += _flatten(v)
        else:
            out.append(v)
    return out


def _compare(build, rtol=1e-5, atol=1e-5):
    results = {}
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            x = lib.constant(LOGITS)
            fetches = build(lib, x)
            shapes = [t.shape.as_list() for t in _flatten(fetches)
                      if hasattr(t, "shape") and t.shape.ndims is not None]
            with _session(lib) as sess:
                results[lib] = (_flatten(sess.run(fetches)), shapes)
    assert results[tf][1] == results[tf1][1]
    for got, want in zip(results[tf][0], results[tf1][0]):
        got, want = np.asarray(got), np.asarray(want)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


def _loss_and_grad(lib, x, **kwargs):
    loss = lib.nn.ctc_loss(_labels(lib), x, SEQ_LEN, **kwargs)
    return [loss, lib.gradients(loss * [1.0, 2.0, 0.5], x)[0]]


DENSE = np.array([[1, 1, 3], [4, 0, 0], [2, 3, 0]], np.int32)
DENSE_LENGTH = np.array([3, 1, 2], np.int32)


def _loss_v2(lib, x, labels, **kwargs):
    loss = lib.nn.ctc_loss_v2(labels, x, DENSE_LENGTH, SEQ_LEN, **kwargs)
    return [loss, lib.gradients(loss * [1.0, 2.0, 0.5], x)[0]]


CASES = {
    "loss": lambda lib, x: _loss_and_grad(lib, x),
    "loss_no_merge": lambda lib, x: _loss_and_grad(lib, x, ctc_merge_repeated=False),
    "loss_collapse": lambda lib, x: _loss_and_grad(lib, x, preprocess_collapse_repeated=True),
    "loss_collapse_no_merge": lambda lib, x: _loss_and_grad(
        lib, x, preprocess_collapse_repeated=True, ctc_merge_repeated=False),
    "loss_batch_major": lambda lib, x: [lib.nn.ctc_loss(
        _labels(lib), logits=lib.transpose(x, [1, 0, 2]), sequence_length=SEQ_LEN,
        time_major=False)],
    "loss_ignore_longer": lambda lib, x: [lib.nn.ctc_loss(
        _labels(lib), x, [7, 4, 1], ignore_longer_outputs_than_inputs=True)],
    "loss_double": lambda lib, x: _loss_and_grad(lib, lib.cast(x, lib.float64)),
    "greedy": lambda lib, x: lib.nn.ctc_greedy_decoder(x, SEQ_LEN),
    "greedy_no_merge_blank0": lambda lib, x: lib.nn.ctc_greedy_decoder(
        x, SEQ_LEN, merge_repeated=False, blank_index=0),
    "beam": lambda lib, x: lib.nn.ctc_beam_search_decoder(x, SEQ_LEN, beam_width=4,
                                                          top_paths=3),
    "beam_default": lambda lib, x: lib.nn.ctc_beam_search_decoder(x, SEQ_LEN),
    "beam_no_merge": lambda lib, x: lib.nn.ctc_beam_search_decoder(
        x, SEQ_LEN, beam_width=2, top_paths=2, merge_repeated=False),
    "beam_v2": lambda lib, x: lib.nn.ctc_beam_search_decoder_v2(x, [7, 1, 3], beam_width=5,
                                                                top_paths=5),
    "beam_empty_sequence": lambda lib, x: lib.nn.ctc_beam_search_decoder(x, [7, 0, 3],
                                                                         beam_width=3),
    "loss_v2_sparse": lambda lib, x: _loss_v2(lib, x, _labels(lib), blank_index=-1),
    "loss_v2_sparse_blank0": lambda lib, x: _loss_v2(
        lib, x, _labels(lib, VALUES + 1), blank_index=0),
    "loss_v2_dense": lambda lib, x: _loss_v2(lib, x, DENSE),
    "loss_v2_dense_blank2_batch_major": lambda lib, x: _loss_v2(
        lib, lib.transpose(x, [1, 0, 2]), DENSE, logits_time_major=False, blank_index=2),
    "loss_v2_dense_unique": lambda lib, x: _loss_v2(
        lib, x, DENSE, unique=lib.nn.ctc_unique_labels(DENSE)),
    "collapse_repeated": lambda lib, x: list(lib.nn.collapse_repeated(
        [[1, 1, 2, 2, 2, 0], [3, 3, 3, 1, 1, 1], [4, 0, 0, 4, 4, 5]], [6, 2, 5])),
    "ctc_unique_labels": lambda lib, x: lib.nn.ctc_unique_labels(
        [[3, 4, 4, 3], [1, 1, 1, 1], [0, 2, 0, 5]]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_ctc_matches_tf(case):
    _compare(CASES[case])


@pytest.mark.parametrize("values,seq_len,match", [
    (np.array([1, 1, 2, 3, 0, 2], np.int32), [2, 4, 5], "Not enough time"),
    (np.array([1, 4, 2, 3, 0, 2], np.int32), [7, 4, 5], "non-null label"),
    (np.array([1, 1, 2, 3, 0, 2], np.int32), [9, 4, 5], "sequence_length"),
])
def test_ctc_loss_errors_match_tf(values, seq_len, match):
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            loss = lib.nn.ctc_loss(_labels(lib, values), LOGITS, seq_len)
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with _session(lib) as sess, pytest.raises(err, match=match):
                sess.run(loss)


def test_ctc_loss_second_derivative_is_prevented_like_tf():
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            x = lib.constant(LOGITS)
            grad = lib.gradients(lib.nn.ctc_loss(_labels(lib), x, SEQ_LEN), x)[0]
            with pytest.raises(LookupError, match="second  derivative of ctc_loss"):
                lib.gradients(grad, x)


def test_beam_search_with_fewer_leaves_than_paths_fails_like_tf():
    for lib in (tf, tf1):
        with _graph(lib).as_default():
            decoded, _ = lib.nn.ctc_beam_search_decoder(LOGITS, [7, 0, 3], beam_width=3,
                                                        top_paths=2)
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with _session(lib) as sess, pytest.raises(err, match="Less leaves in the beam"):
                sess.run(decoded[0].values)
