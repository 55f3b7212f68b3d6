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


def _backend_cases(K, x, b, i):
    x, b, i = K.constant(x), K.constant(b, dtype="bool"), K.constant(i, dtype="int32")
    return {
        "max": K.max(x, 1), "min": K.min(x, 0, keepdims=True), "prod": K.prod(x),
        "var": K.var(x, 1), "std": K.std(x, keepdims=True), "all": K.all(b, 1),
        "any": K.any(b), "argmin": K.argmin(x), "cumsum": K.cumsum(x, 1),
        "cumprod": K.cumprod(x), "pow": K.pow(x, 2), "sign": K.sign(x), "round": K.round(x),
        "sin": K.sin(x), "cos": K.cos(x), "softplus": K.softplus(x),
        "softsign": K.softsign(x), "elu": K.elu(x, 0.5), "hard_sigmoid": K.hard_sigmoid(x),
        "l2_normalize": K.l2_normalize(x, 1), "greater": K.greater(x, 0.1),
        "less_equal": K.less_equal(x, 0.1), "not_equal": K.not_equal(i, 2),
        "transpose": K.transpose(x), "permute": K.permute_dimensions(x, (1, 0)),
        "reverse": K.reverse(x, 1), "tile": K.tile(x, (2, 1)), "repeat": K.repeat(x, 2),
        "repeat_elements": K.repeat_elements(x, 2, 1), "stack": K.stack([x, x], 1),
        "one_hot": K.one_hot(i, 4), "zeros_like": K.zeros_like(x), "arange": K.arange(5),
        "arange_f": K.arange(1, 7, 2, dtype="float32"), "gather": K.gather(x, i),
        "batch_flatten": K.batch_flatten(K.stack([x, x], 2)),
        "bias_add": K.bias_add(x, K.constant([1.0, 2.0, 3.0])),
        "switch": K.switch(K.greater(x, 0), x, -x), "switch_scalar": K.switch(K.constant(True, dtype="bool"), x, -x),
        "in_test_phase": K.in_test_phase(x, -x, training=0),
        "temporal_padding": K.temporal_padding(K.stack([x, x], 2), (1, 2)),
        "spatial_2d_padding": K.spatial_2d_padding(K.stack([K.stack([x], 2)], 3)),
        "map_fn": K.map_fn(lambda r: r * 2.0, x),
        "foldl": K.foldl(lambda a, r: a + r, x), "foldr": K.foldr(lambda a, r: a * 0.5 + r, x),
    }


def test_backend_functions_match_tf():
    import tensorflow as tf_ref
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 3)).astype(np.float32)
    b = x > 0
    i = np.array([0, 2, 1, 2], np.int32)
    with tf_ref.Graph().as_default(), tf_ref.compat.v1.Session() as sess:
        ref = sess.run(_backend_cases(tf_keras.backend, x, b, i))
    with gc.Graph().as_default(), gc.Session() as sess:
        got = sess.run(_backend_cases(gc.keras.backend, x, b, i))
    for key, value in ref.items():
        assert np.asarray(got[key]).dtype == np.asarray(value).dtype, key
        np.testing.assert_allclose(got[key], value, rtol=1e-6, atol=1e-6, err_msg=key)
    assert gc.keras.backend.cast_to_floatx([1, 2]).dtype == np.float32
    assert gc.keras.backend.count_params(gc.keras.backend.zeros((2, 3))) == 6


def _generator_run(k):
    rng = np.random.default_rng(7)
    x = rng.normal(size=(21, 3)).astype(np.float32)
    y = rng.integers(0, 2, (21, 1)).astype(np.float32)

    class Batches(k.utils.Sequence):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return x[8 * i:8 * i + 8], y[8 * i:8 * i + 8]

    def endless():
        while True:
            for i in range(3):
                yield x[8 * i:8 * i + 8], y[8 * i:8 * i + 8], np.full(len(x[8 * i:8 * i + 8]),
                                                                   0.5 + i, np.float32)

    model = k.Sequential([k.layers.Dense(4, activation="tanh", input_shape=(3,)),
                          k.layers.Dense(1, activation="sigmoid")])
    model.compile(k.optimizers.SGD(0.5), "binary_crossentropy", metrics=["accuracy"])
    model.set_weights([np.full(w.shape, 0.1 * (j + 1), np.float32)
                       for j, w in enumerate(model.get_weights())])
    history = model.fit_generator(Batches(), epochs=2, verbose=0, shuffle=False,
                                  validation_data=endless(), validation_steps=3)
    history2 = model.fit(((a, b) for a, b, _ in endless()), steps_per_epoch=2, epochs=1,
                         verbose=0)
    return (history.history, history2.history,
            model.evaluate_generator(Batches()), model.predict_generator(Batches()))


def test_generators_match_tf():
    import tensorflow as tf_ref
    with tf_ref.Graph().as_default():
        ref = _generator_run(tf_keras)
    gc.keras.backend.clear_session()
    got = _generator_run(gc.keras)
    for r, g in zip(ref[:2], got[:2]):
        r = {key.replace("accuracy", "acc"): v for key, v in r.items()}
        assert sorted(g) == sorted(r)
        for key in r:
            np.testing.assert_allclose(g[key], r[key], rtol=1e-5, err_msg=key)
    np.testing.assert_allclose(got[2], ref[2], rtol=1e-5)
    np.testing.assert_allclose(got[3], ref[3], rtol=1e-5)


def _flat_labels_run(k, tf_mod):
    """Labels of shape [n] for an output of shape [n, 1] (Keras adds the axis), trained
    with Adam: the losses, and the names of the trainable variables afterwards."""
    rng = np.random.default_rng(3)
    x = rng.normal(size=(24, 3)).astype(np.float32)
    y = (x.sum(axis=1) > 0).astype(np.float32)
    model = k.Sequential([k.layers.Dense(4, activation="relu", input_shape=(3,)),
                          k.layers.Dense(1, activation="sigmoid")])
    model.compile(k.optimizers.Adam(0.05), "binary_crossentropy")
    model.set_weights([np.full(w.shape, 0.1 * (j + 1), np.float32) * (-1) ** j
                       for j, w in enumerate(model.get_weights())])
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
    return (history.history["loss"], model.evaluate(x, y, verbose=0),
            sorted(v.name for v in tf_mod.trainable_variables()))


def test_flat_labels_and_optimizer_state_match_tf():
    import tensorflow as tf_ref
    with tf_ref.Graph().as_default():
        ref = _flat_labels_run(tf_keras, tf_ref.compat.v1)
    gc.keras.backend.clear_session()
    got = _flat_labels_run(gc.keras, gc)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-5)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-5)
    assert got[2] == ref[2]  # the optimizer's iter/learning_rate are not trainable


# Every Keras optimizer (and its variants): name -> constructor arguments.
OPTIMIZERS = {
    "sgd": ("SGD", dict(learning_rate=0.1)),
    "sgd_momentum": ("SGD", dict(learning_rate=0.1, momentum=0.9, decay=0.01)),
    "sgd_nesterov": ("SGD", dict(learning_rate=0.1, momentum=0.9, nesterov=True)),
    "rmsprop": ("RMSprop", dict(learning_rate=0.01)),
    "rmsprop_centered": ("RMSprop", dict(learning_rate=0.01, momentum=0.5, centered=True)),
    "rmsprop_centered_plain": ("RMSprop", dict(learning_rate=0.01, centered=True)),
    "adam": ("Adam", dict(learning_rate=0.01)),
    "adam_amsgrad": ("Adam", dict(learning_rate=0.01, amsgrad=True, clipnorm=0.5)),
    "adagrad": ("Adagrad", dict(learning_rate=0.1)),
    "adadelta": ("Adadelta", dict(learning_rate=1.0)),
    "adamax": ("Adamax", dict(learning_rate=0.02)),
    "nadam": ("Nadam", dict(learning_rate=0.01)),
    "ftrl": ("Ftrl", dict(learning_rate=0.1, l1_regularization_strength=0.01, beta=0.1)),
    "ftrl_shrinkage": ("Ftrl", dict(learning_rate=0.1,
                                    l2_shrinkage_regularization_strength=0.01)),
}


def _optimizer_run(k, tf_mod, case, initial, save_to, load_from=None):
    """A model with an Embedding (sparse gradients) and a Dense layer fit for 3 steps:
    the global variables (name, shape, dtype), the weights, the optimizer's weights and
    config, its save_weights checkpoint's keys; with ``load_from``, the optimizer's weights
    after loading that checkpoint before training (TF's deferred restoration)."""
    rng = np.random.default_rng(5)
    x = rng.integers(0, 6, (12, 3)).astype(np.int32)
    y = rng.normal(size=(12, 2)).astype(np.float32)
    cls, kwargs = OPTIMIZERS[case]
    model = k.Sequential([k.layers.Embedding(6, 4, input_length=3), k.layers.Flatten(),
                          k.layers.Dense(2)])
    model.compile(getattr(k.optimizers, cls)(**kwargs), "mse")
    if initial is not None:
        model.set_weights(initial)
    start = model.get_weights()
    model.fit(x, y, batch_size=4, epochs=1, verbose=0, shuffle=False)
    model.save_weights(save_to)
    if case in H5_CASES:
        model.save(save_to + ".h5")
    out = {"start": start, "weights": model.get_weights(),
           "variables": [(v.name, v.shape.as_list(), v.dtype.base_dtype.name)
                         for v in tf_mod.global_variables()],
           "optimizer_names": [w.name for w in model.optimizer.weights],
           "optimizer": model.optimizer.get_weights(),
           "config": model.optimizer.get_config()}
    if load_from is not None:
        fresh = k.Sequential([k.layers.Embedding(6, 4, input_length=3), k.layers.Flatten(),
                              k.layers.Dense(2)])
        fresh.compile(getattr(k.optimizers, cls)(**kwargs), "mse")
        fresh.load_weights(load_from)
        fresh.train_on_batch(x[:4], y[:4])  # creates the slots from the checkpoint
        out["resumed"] = fresh.optimizer.get_weights()
    return out


def test_optimizer_variables_and_updates_match_tf(tmp_path):
    """Each Keras optimizer in graph mode makes TF's variables (``training/Adam/iter``, the
    hyperparameters, slots ``training/Adam/embedding/embeddings/m``: names, shapes,
    dtypes, order), applies TF's dense and sparse updates (3 steps from the same weights
    give the same weights and optimizer weights), writes TF's save_weights checkpoint (keys
    and object graph: TF loads it), and a TF checkpoint loaded before training restores
    the slots when fit creates them; model.save files carry the optimizer's state."""
    import tensorflow as tf_ref

    from graphcore.train import saver as gc_saver

    for case in OPTIMIZERS:
        with tf_ref.Graph().as_default():
            ref = _optimizer_run(tf_keras, tf_ref.compat.v1, case, None,
                                 str(tmp_path / f"tf_{case}"))
        gc.keras.backend.clear_session()
        got = _optimizer_run(gc.keras, gc, case, ref["start"], str(tmp_path / f"gc_{case}"),
                             load_from=str(tmp_path / f"tf_{case}"))
        gc.keras.backend.clear_session()
        assert got["variables"] == ref["variables"], case
        assert got["optimizer_names"] == ref["optimizer_names"], case
        assert got["config"] == ref["config"], case
        for g, r in zip(got["weights"] + got["optimizer"], ref["weights"] + ref["optimizer"]):
            np.testing.assert_allclose(g, r, rtol=1e-5, atol=1e-6, err_msg=case)
        # The TF checkpoint's optimizer values became the fresh optimizer's before its
        # first step, which then counted it.
        assert got["resumed"][0] == ref["optimizer"][0] + 1, case
        assert len(got["resumed"]) == len(ref["optimizer"]), case
        # save_weights: TF's keys and object graph (which TF's load_weights walks).
        want = tf_ref.train.load_checkpoint(str(tmp_path / f"tf_{case}"))
        have = gc_saver.load_checkpoint(str(tmp_path / f"gc_{case}"))
        assert set(have.get_variable_to_shape_map()) == \
            set(want.get_variable_to_shape_map()), case
        graph = "_CHECKPOINTABLE_OBJECT_GRAPH"
        assert _object_graph(have.get_tensor(graph)) == _object_graph(want.get_tensor(graph))
        if case in ("adam_amsgrad", "nadam", "ftrl_shrinkage"):
            with tf_ref.Graph().as_default():
                assert _tf_loads(case, str(tmp_path / f"gc_{case}")) == \
                    [np.asarray(w).tolist() for w in got["weights"] + got["optimizer"]]
        if case in H5_CASES:
            # model.save's optimizer_weights: each side's file restores the optimizer's
            # state on the other, its variables made by load_model (``iter:0``...).
            with tf_ref.Graph().as_default():
                tf_loaded = _loaded_optimizer(tf_keras, str(tmp_path / f"gc_{case}.h5"))
            gc_loaded = _loaded_optimizer(gc.keras, str(tmp_path / f"tf_{case}.h5"))
            gc.keras.backend.clear_session()
            assert gc_loaded[0] == tf_loaded[0], case
            for g, r in zip(gc_loaded[1] + tf_loaded[1], ref["optimizer"] + got["optimizer"]):
                np.testing.assert_array_equal(g, r, err_msg=case)


H5_CASES = ("nadam", "rmsprop_centered")


def _loaded_optimizer(k, path):
    model = k.models.load_model(path)
    return [w.name for w in model.optimizer.weights], model.optimizer.get_weights()


def _object_graph(serialized):
    from graphcore.protobuf import trackable_object_graph_pb2
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(serialized)
    return proto


def _tf_loads(case, path):
    """TF's model and optimizer weights after its load_weights of ``path``."""
    cls, kwargs = OPTIMIZERS[case]
    model = tf_keras.Sequential([tf_keras.layers.Embedding(6, 4, input_length=3),
                                 tf_keras.layers.Flatten(), tf_keras.layers.Dense(2)])
    model.compile(getattr(tf_keras.optimizers, cls)(**kwargs), "mse")
    model.train_on_batch(np.zeros((1, 3), np.int32), np.zeros((1, 2), np.float32))
    model.load_weights(path)
    return [np.asarray(w).tolist() for w in model.get_weights() +
            model.optimizer.get_weights()]


def _shuffled_fits(k, initial):
    """Histories of fits whose batch order comes from np.random / Python's random (seeded
    alike on both sides): arrays shuffled (validation too, as Keras does) or by batch, a
    Sequence shuffled by the enqueuer (workers=1) or read in order (workers=0)."""
    import random
    rng = np.random.default_rng(7)
    x = rng.normal(size=(23, 3)).astype(np.float32)
    y = rng.normal(size=(23, 1)).astype(np.float32)

    class Seq(k.utils.Sequence):
        def __len__(self):
            return 5

        def __getitem__(self, i):
            return x[4 * i:4 * i + 4], y[4 * i:4 * i + 4]

    model = k.Sequential([k.layers.Dense(2, input_shape=(3,)), k.layers.Dense(1)])
    model.compile(k.optimizers.SGD(0.1), "mse")
    if initial is not None:
        model.set_weights(initial)
    start, out = model.get_weights(), []
    for kwargs in (dict(x=x, y=y, batch_size=5, shuffle=True, validation_split=0.2),
                   dict(x=x, y=y, batch_size=5, shuffle="batch"),
                   dict(x=Seq()), dict(x=Seq(), workers=0)):
        random.seed(1)
        np.random.seed(1)
        history = model.fit(epochs=3, verbose=0, **kwargs).history
        out.append([history[key] for key in sorted(history)])
    return start, out


def test_fit_shuffle_order_matches_tf():
    import tensorflow as tf_ref
    with tf_ref.Graph().as_default():
        start, ref = _shuffled_fits(tf_keras, None)
    gc.keras.backend.clear_session()
    _, got = _shuffled_fits(gc.keras, start)
    gc.keras.backend.clear_session()
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-6)


SCHEDULES = {
    "exponential": ("ExponentialDecay", dict(initial_learning_rate=0.1, decay_steps=3,
                                             decay_rate=0.5, staircase=True)),
    "piecewise": ("PiecewiseConstantDecay", dict(boundaries=[2, 5], values=[0.1, 0.05, 0.01])),
    "polynomial": ("PolynomialDecay", dict(initial_learning_rate=0.1, decay_steps=4,
                                           end_learning_rate=0.01, power=2.0, cycle=True)),
    "inverse_time": ("InverseTimeDecay", dict(initial_learning_rate=0.1, decay_steps=2,
                                              decay_rate=0.5)),
    "cosine": ("CosineDecay", dict(initial_learning_rate=0.1, decay_steps=6, alpha=0.1)),
    "cosine_warmup": ("CosineDecay", dict(initial_learning_rate=0.0, decay_steps=5,
                                          warmup_target=0.2, warmup_steps=3)),
    "restarts": ("CosineDecayRestarts", dict(initial_learning_rate=0.1, first_decay_steps=2,
                                             t_mul=2.0, m_mul=0.5)),
}


def _schedule_run(k, lib, initial):
    """Every schedule's values at steps 0..9 and serialized form; for three, an SGD with
    it fitted 4 steps (weights, optimizer config, global variables)."""
    x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(8, 2)
    y = x.sum(axis=1, keepdims=True)
    with lib.Graph().as_default():
        step = lib.placeholder(lib.int64, [])
        schedules = {case: getattr(k.optimizers.schedules, cls)(**kwargs)
                     for case, (cls, kwargs) in SCHEDULES.items()}
        values = {case: schedule(step) for case, schedule in schedules.items()}
        with lib.Session() as sess:
            runs = [sess.run(values, {step: i}) for i in range(10)]
    out = {case: [[float(r[case]) for r in runs], k.optimizers.schedules.serialize(s)]
           for case, s in schedules.items()}
    for case in ("exponential", "piecewise", "cosine_warmup"):
        with lib.Graph().as_default():
            model = k.Sequential([k.layers.Dense(1, input_shape=(2,))])
            model.compile(k.optimizers.SGD(schedules[case], momentum=0.5), "mse")
            model.set_weights(initial)
            model.fit(x, y, batch_size=2, verbose=0, shuffle=False)
            out[case] += [model.get_weights(), model.optimizer.get_config(),
                          sorted(v.name for v in lib.global_variables())]
        k.backend.clear_session()
    return out


def test_learning_rate_schedules_match_tf():
    """tf.keras.optimizers.schedules: TF's values, serialized forms and, in an optimizer,
    TF's training (no learning_rate variable; the rate evaluated at ``iterations``)."""
    import tensorflow as tf_ref
    initial = [np.array([[0.3], [-0.2]], np.float32), np.zeros(1, np.float32)]
    ref = _schedule_run(tf_keras, tf_ref.compat.v1, initial)
    got = _schedule_run(gc.keras, gc, initial)
    for case in SCHEDULES:
        np.testing.assert_allclose(got[case][0], ref[case][0], rtol=1e-6, err_msg=case)
        assert got[case][1] == ref[case][1], case
        assert len(got[case]) == len(ref[case]), case
        if len(ref[case]) > 2:
            for g, r in zip(got[case][2], ref[case][2]):
                np.testing.assert_allclose(g, r, rtol=1e-5, err_msg=case)
            assert got[case][3:] == ref[case][3:], case


def _minimize_run(lib, k):
    """A Keras optimizer's minimize on a callable loss in a graph: 3 steps."""
    with lib.Graph().as_default():
        v = lib.Variable([1.0, -2.0], name="v")
        opt = k.optimizers.Adam(0.1, amsgrad=True)
        train = opt.minimize(lambda: lib.reduce_sum(v * v * v), [v])
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for _ in range(3):
                sess.run(train)
            return (sess.run(v).tolist(), [w.name for w in opt.weights],
                    sorted(x.name for x in lib.global_variables()))


def test_optimizer_minimize_matches_tf():
    import tensorflow as tf_ref
    want = _minimize_run(tf_ref.compat.v1, tf_keras)
    got = _minimize_run(gc, gc.keras)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    assert got[1:] == want[1:]
