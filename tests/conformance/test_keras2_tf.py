"""Reference tier: tf.keras' Python-side helpers against tf_keras' (v1 API):
preprocessing.sequence/text (pad_sequences, Tokenizer and the word helpers) give the same
arrays, vocabularies and JSON, case by case; the other losses (functions by name, Loss
objects) give the same values on probabilities, {0, 1} labels and signed targets."""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as gc  # noqa: E402

tf_keras = pytest.importorskip("tf_keras.api._v1.keras")

SEQS = [[1, 2, 3], [4, 5], [], [6, 7, 8, 9, 10], [11]]
TEXTS = ["The cat sat on the mat.", "The dog ate my homework!", "Cat, dog; cat-dog?",
         "", "new words here"]


def _preprocessing_cases(k):
    seq, text = k.preprocessing.sequence, k.preprocessing.text
    tok = text.Tokenizer(num_words=5, oov_token="<oov>")
    tok.fit_on_texts(TEXTS[:3])
    chars = text.Tokenizer(char_level=True)
    chars.fit_on_texts(TEXTS[:2])
    return {
        "pad_default": seq.pad_sequences(SEQS),
        "pad_post": seq.pad_sequences(SEQS, maxlen=3, padding="post", truncating="post",
                                      value=-1),
        "pad_float": seq.pad_sequences([[0.5, 1.5], [2.5]], dtype="float32", value=9.0),
        "pad_vectors": seq.pad_sequences([np.ones((2, 3)), np.zeros((1, 3))], maxlen=3),
        "sampling_table": seq.make_sampling_table(10),
        "words": text.text_to_word_sequence("Hello, World! hello-again", split=" "),
        "md5": text.hashing_trick("a b c a", 7, hash_function="md5"),
        "word_index": tok.word_index,
        "sequences": tok.texts_to_sequences(TEXTS),
        "texts": tok.sequences_to_texts([[1, 2, 3, 4, 9]]),
        **{f"matrix_{mode}": tok.texts_to_matrix(TEXTS, mode=mode)
           for mode in ("binary", "count", "freq", "tfidf")},
        "json": json.loads(tok.to_json()),
        "reloaded": text.tokenizer_from_json(tok.to_json()).texts_to_sequences(TEXTS),
        "chars": chars.texts_to_sequences(["tac"]),
    }


def test_preprocessing_matches_tf():
    ref = _preprocessing_cases(tf_keras)
    got = _preprocessing_cases(gc.keras)
    assert sorted(got) == sorted(ref)
    for key, value in ref.items():
        if isinstance(value, np.ndarray):
            assert got[key].dtype == value.dtype, key
            np.testing.assert_allclose(got[key], value, err_msg=key)
        else:
            assert got[key] == value, key
    with pytest.raises(ValueError, match="Padding type"):
        gc.keras.preprocessing.sequence.pad_sequences(SEQS, padding="middle")


LOSSES = ["msle", "mape", "hinge", "squared_hinge", "categorical_hinge", "huber", "logcosh",
          "kld", "poisson", "cosine_similarity"]
LOSS_OBJECTS = [("Huber", {"delta": 0.3}), ("Hinge", {}), ("SquaredHinge", {}),
                ("CategoricalHinge", {}), ("LogCosh", {}), ("KLDivergence", {}),
                ("Poisson", {}), ("CosineSimilarity", {"axis": 0}),
                ("MeanSquaredLogarithmicError", {}), ("MeanAbsolutePercentageError", {})]


def test_losses_match_tf():
    import tensorflow as tf_ref
    rng = np.random.default_rng(3)
    y_pred = rng.uniform(0.05, 1.0, (4, 3)).astype(np.float32)
    cases = {"probs": rng.dirichlet(np.ones(3), 4).astype(np.float32),
             "binary": rng.integers(0, 2, (4, 3)).astype(np.float32),
             "signed": rng.normal(size=(4, 3)).astype(np.float32)}
    with tf_ref.Graph().as_default(), tf_ref.compat.v1.Session() as sess:
        ref = sess.run({(name, case): tf_keras.losses.get(name)(y, y_pred)
                        for name in LOSSES for case, y in cases.items()})
        ref.update(sess.run({(name, case): getattr(tf_keras.losses, name)(**kw)(y, y_pred)
                             for name, kw in LOSS_OBJECTS for case, y in cases.items()}))
    with gc.Graph().as_default(), gc.Session() as sess:
        got = sess.run({(name, case): gc.keras.losses.get(name)(y, y_pred)
                        for name in LOSSES for case, y in cases.items()})
        got.update(sess.run({(name, case): getattr(gc.keras.losses, name)(**kw)(y, y_pred)
                             for name, kw in LOSS_OBJECTS for case, y in cases.items()}))
    for key, value in ref.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-5, atol=1e-6, err_msg=str(key))
