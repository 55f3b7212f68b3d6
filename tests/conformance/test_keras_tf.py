"""Reference tier: tf.keras in graph mode against TF's legacy Keras (tf_keras' v1 API in a
tf.Graph, so its training_v1 Model runs in a v1 Session).

Each case builds the same model in TF and graphcore, copies TF's initial weights into
graphcore by order (set_weights), fits a few epochs with a fixed batch order
(shuffle=False), then compares the losses and metrics per epoch, evaluate, predict,
train_on_batch, the final weights, the weights' names, the lines of summary() (names,
output shapes, parameter counts, connections, totals) and to_json(); each side's
save_weights files and model.save HDF5 file load on the other side.
"""

import json
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as gc  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf_keras = pytest.importorskip("tf_keras.api._v1.keras")

RNG = np.random.default_rng(11)
N = 24


def _mlp(k, x):
    model = k.Sequential([
        k.layers.Dense(8, activation="relu", input_shape=(5,),
                       kernel_regularizer=k.regularizers.l2(0.01),
                       kernel_constraint=k.constraints.MaxNorm(0.6),
                       bias_constraint=k.constraints.NonNeg()),
        k.layers.Dropout(0.0),
        k.layers.Dense(3, activation="softmax"),
    ])
    model.compile(k.optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.01,
                                    l2_regularization_strength=0.01, beta=0.1,
                                    l2_shrinkage_regularization_strength=0.01),
                  "sparse_categorical_crossentropy", metrics=["accuracy"])
    return model


def _mlp_bn_adam(k, x):
    model = k.Sequential()
    model.add(k.layers.Dense(8, activation="tanh", input_shape=(5,)))
    model.add(k.layers.BatchNormalization())
    model.add(k.layers.Dense(3))
    model.compile(k.optimizers.Adam(learning_rate=0.01),
                  k.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _cnn(k, x):
    model = k.Sequential([
        k.layers.Conv2D(4, 3, activation="relu", input_shape=(8, 8, 1)),
        k.layers.MaxPooling2D(),
        k.layers.Conv2D(4, (2, 2), padding="same"),
        k.layers.AveragePooling2D(pool_size=(1, 1)),
        k.layers.Flatten(),
        k.layers.Dense(3, activation="softmax"),
    ])
    model.compile(k.optimizers.RMSprop(learning_rate=0.01), "categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def _cnn_bn(k, x):
    model = k.Sequential([
        k.layers.Conv2D(3, 3, input_shape=(8, 8, 1), use_bias=False),
        k.layers.BatchNormalization(momentum=0.5),
        k.layers.Activation("relu"),
        k.layers.Flatten(),
        k.layers.Dense(3, activation="softmax"),
    ])
    model.compile(k.optimizers.Adamax(learning_rate=0.02), "categorical_crossentropy",
                  metrics=["accuracy"])
    return model


def _conv_zoo(k, x):
    inp = k.Input((8, 8, 1))
    h = k.layers.ZeroPadding2D(1)(inp)
    h = k.layers.Conv2D(3, 3, strides=2)(h)
    h = k.layers.LeakyReLU(0.1)(h)
    h = k.layers.Conv2DTranspose(2, 2, strides=2, activation="relu")(h)
    h = k.layers.UpSampling2D()(h)
    h = k.layers.SeparableConv2D(3, 3, depth_multiplier=2)(h)
    a = k.layers.GlobalMaxPooling2D()(h)
    b = k.layers.GlobalAveragePooling2D()(h)
    seq = k.layers.Reshape((8, 8))(inp)
    seq = k.layers.Conv1D(4, 3, activation="tanh")(seq)
    seq = k.layers.MaxPooling1D()(seq)
    seq = k.layers.Permute((2, 1))(seq)
    c = k.layers.GlobalAveragePooling1D()(seq)
    out = k.layers.Dense(3, activation="softmax")(k.layers.Concatenate()([a, b, c]))
    model = k.Model(inp, out)
    model.compile(k.optimizers.SGD(learning_rate=0.05, momentum=0.5),
                  "categorical_crossentropy", metrics=["accuracy"])
    return model


def _two_inputs(k, x):
    a = k.Input((4,), name="a")
    b = k.Input((3,), name="b")
    ha = k.layers.Dense(5, activation="relu")(a)
    hb = k.layers.Dense(5, activation="tanh", kernel_constraint=k.constraints.UnitNorm(),
                        bias_constraint=k.constraints.MinMaxNorm(0.1, 0.5, rate=0.5))(b)
    merged = k.layers.Concatenate()([ha, hb, k.layers.Add()([ha, hb])])
    out = k.layers.Dense(1, activation="sigmoid")(merged)
    model = k.Model([a, b], out)
    model.compile(k.optimizers.SGD(learning_rate=0.1, momentum=0.9, nesterov=True),
                  "binary_crossentropy", metrics=["accuracy"])
    return model


def _embedding(k, x):
    inp = k.Input((4,), dtype="int32")
    h = k.layers.Embedding(10, 3)(inp)
    h = k.layers.Reshape((12,))(h)
    h = k.layers.Activation("tanh")(h)
    h = k.layers.Lambda(lambda t: t * 2.0)(h)
    out = k.layers.Dense(2)(h)
    model = k.Model(inp, out)
    model.compile(k.optimizers.Nadam(learning_rate=0.05), "mse")
    return model


def _recurrent(k, x):
    inp = k.Input((None, 3))
    seq, state, _ = k.layers.LSTM(4, return_sequences=True, return_state=True,
                                  go_backwards=True)(inp)
    seq = k.layers.TimeDistributed(k.layers.Dense(3, activation="relu"))(seq)
    h = k.layers.Bidirectional(k.layers.GRU(3, reset_after=True,
                                            recurrent_activation="sigmoid"))(seq)
    out = k.layers.Dense(2)(k.layers.Concatenate()([h, state]))
    model = k.Model(inp, out)
    model.compile(k.optimizers.Adam(learning_rate=0.02), "mse")
    return model


def _masked_text(k, x):
    # An IMDB-like classifier: padded word ids, masked through LSTM and Bidirectional.
    inp = k.Input((6,), dtype="int32")
    h = k.layers.Embedding(12, 4, mask_zero=True)(inp)
    h = k.layers.LSTM(5)(h)
    out = k.layers.Dense(1, activation="sigmoid")(h)
    model = k.Model(inp, out)
    model.compile(k.optimizers.Adagrad(learning_rate=0.1), "binary_crossentropy",
                  metrics=["accuracy"])
    return model


def _masked_steps(k, x):
    # A per-step classifier whose loss and metrics skip the masked (all-zero) steps.
    inp = k.Input((5, 2))
    h = k.layers.Masking()(inp)
    h = k.layers.Bidirectional(k.layers.SimpleRNN(3, return_sequences=True),
                               merge_mode="sum")(h)
    h = k.layers.Add()([h, k.layers.Dense(3, activation="tanh")(h)])
    h = k.layers.Concatenate()([h, k.layers.Dense(2)(inp)])
    out = k.layers.TimeDistributed(k.layers.Dense(3, activation="softmax"))(h)
    model = k.Model(inp, out)
    model.compile(k.optimizers.Adadelta(learning_rate=1.0), "sparse_categorical_crossentropy",
                  metrics=["accuracy"], weighted_metrics=["accuracy"])
    return model


def _layer_zoo(k, x):
    inp = k.Input((6, 4))
    h = k.layers.Masking()(k.layers.Cropping1D((1, 0))(inp))
    h = k.layers.LayerNormalization()(k.layers.SpatialDropout1D(0.0)(h))
    h = k.layers.Concatenate()([k.layers.Attention(use_scale=True)([h, h]),
                                k.layers.AdditiveAttention()([h, h, h])])
    h = k.layers.PReLU(alpha_initializer="ones", shared_axes=[1])(h)
    h = k.layers.ThresholdedReLU(0.1)(k.layers.ELU(0.5)(h))
    h = k.layers.GaussianDropout(0.0)(k.layers.GaussianNoise(0.0)(h))
    d = k.layers.Dot(axes=(2, 2), normalize=True)([h, k.layers.AlphaDropout(0.0)(h)])
    img = k.layers.Reshape((6, 4, 1))(inp)
    img = k.layers.Cropping2D(((1, 1), (0, 1)))(k.layers.SpatialDropout2D(0.0)(img))
    h = k.layers.Concatenate()([k.layers.Flatten()(d), k.layers.Flatten()(img)])
    out = k.layers.Dense(2)(k.layers.ActivityRegularization(l2=0.01)(h))
    model = k.Model(inp, out)
    model.compile(k.optimizers.RMSprop(learning_rate=0.01), "mse")
    return model


def _data(name):
    if name.startswith("cnn") or name == "conv_zoo":
        x = RNG.normal(size=(N, 8, 8, 1)).astype(np.float32)
        y = np.eye(3, dtype=np.float32)[RNG.integers(0, 3, N)]
    elif name == "two_inputs":
        x = [RNG.normal(size=(N, 4)).astype(np.float32),
             RNG.normal(size=(N, 3)).astype(np.float32)]
        y = RNG.integers(0, 2, (N, 1)).astype(np.float32)
    elif name == "recurrent":
        x = RNG.normal(size=(N, 6, 3)).astype(np.float32)
        y = RNG.normal(size=(N, 2)).astype(np.float32)
    elif name == "masked_text":
        lengths = RNG.integers(1, 7, N)
        x = (RNG.integers(1, 12, (N, 6)) * (np.arange(6) < lengths[:, None])).astype(np.int32)
        y = (lengths > 3).astype(np.float32)[:, None]
    elif name == "masked_steps":
        lengths = RNG.integers(2, 6, N)
        x = (RNG.normal(size=(N, 5, 2)) * (np.arange(5) < lengths[:, None])[..., None])
        x = x.astype(np.float32)
        y = RNG.integers(0, 3, (N, 5, 1))
    elif name == "layer_zoo":
        x = RNG.normal(size=(N, 6, 4)).astype(np.float32)
        x[::3, 4:] = 0.0  # masked steps
        y = RNG.normal(size=(N, 2)).astype(np.float32)
    elif name == "embedding":
        x = RNG.integers(0, 10, (N, 4)).astype(np.int32)
        y = RNG.normal(size=(N, 2)).astype(np.float32)
    else:
        x = RNG.normal(size=(N, 5)).astype(np.float32)
        y = RNG.integers(0, 3, N)
    return x, y


CASES = {"mlp": _mlp, "mlp_bn_adam": _mlp_bn_adam, "cnn": _cnn, "cnn_bn": _cnn_bn,
         "conv_zoo": _conv_zoo,
         "two_inputs": _two_inputs, "embedding": _embedding, "recurrent": _recurrent,
         "masked_text": _masked_text, "masked_steps": _masked_steps, "layer_zoo": _layer_zoo}
RECURRENT = ("recurrent", "masked_text", "masked_steps")
# fit's (and evaluate's) weights per case.
WEIGHTS = {"masked_text": {"class_weight": {0: 1.0, 1: 2.5}},
           "masked_steps": {"sample_weight": np.linspace(0.5, 2.0, N).astype(np.float32)}}


def _summary(model):
    lines = []
    model.summary(print_fn=lines.append)
    return lines


def _run(k, build, x, y, initial=None, save_to=None, weights=None):
    model = build(k, x)
    if initial is not None:
        model.set_weights(initial)
    start = model.get_weights()
    weights = weights or {}
    # (tf_keras' validation loss of a masked sequence output is not its evaluate's.)
    validation = (x, y) if "sample_weight" not in weights else None
    history = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False,
                        validation_data=validation, **weights)
    return {
        "model": model, "start": start, "history": history.history,
        "evaluate": model.evaluate(x, y, batch_size=10, verbose=0,
                                   sample_weight=weights.get("sample_weight")),
        "predict": model.predict(x, batch_size=7),
        "train_on_batch": model.train_on_batch(x, y),
        "weights": model.get_weights(),
        "saved": [model.save_weights(save_to + ext) for ext in ("", ".h5")],
        "names": [w.name for w in model.weights],
        "summary": _summary(model),
        "json": json.loads(model.to_json()),
        "saved_model": model.save(save_to + ".model.h5"),
        "final": (model.predict(x, batch_size=N),
                  model.evaluate(x, y, batch_size=N, verbose=0)),
    }


def _loaded(k, path, x, y):
    """A model file loaded back: its predictions and its loss (as compiled in the file)."""
    model = k.models.load_model(path)
    return model.predict(x, batch_size=N), model.evaluate(x, y, batch_size=N, verbose=0)


@pytest.mark.parametrize("name", sorted(CASES))
def test_keras_model_matches_tf(name, tmp_path):
    x, y = _data(name)
    # TF's graph-mode gradient of a While inside a While's gradient needs the
    # intermediates of the forward loop as outputs.
    tf_ref.compat.v1.experimental.output_all_intermediates(True)
    try:
        with tf_ref.Graph().as_default() as graph:
            ref = _run(tf_keras, CASES[name], x, y, save_to=str(tmp_path / "tf"),
                       weights=WEIGHTS.get(name))
        gc.keras.backend.clear_session()
        got = _run(gc.keras, CASES[name], x, y, initial=ref["start"],
                   save_to=str(tmp_path / "gc"), weights=WEIGHTS.get(name))
        # Each side's model file loads on the other, compiled as it was. (Rebuilding a
        # recurrent model in TF takes seconds: their to_json equals TF's, and graphcore's
        # file is only loaded here.)
        tf_loaded = None
        if name not in RECURRENT:
            with graph.as_default():
                tf_loaded = _loaded(tf_keras, str(tmp_path / "gc.model.h5"), x, y)
    finally:
        tf_ref.compat.v1.experimental.output_all_intermediates(None)
    gc_loaded = _loaded(gc.keras, str(tmp_path / "tf.model.h5"), x, y)
    # TF's save_weights checkpoint and HDF5 file load into graphcore's model.
    for loaded, final in ((gc_loaded, ref["final"]), (tf_loaded, got["final"])):
        if loaded is None:
            continue
        np.testing.assert_allclose(loaded[0], final[0], rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(np.ravel(loaded[1]), np.ravel(final[1]), rtol=1e-4,
                                   atol=1e-5)
    got["model"].set_weights(ref["start"])
    got["model"].load_weights(str(tmp_path / "tf"))
    got["loaded"] = got["model"].get_weights()
    got["model"].set_weights(ref["start"])
    got["model"].load_weights(str(tmp_path / "tf.h5"))
    got["loaded_h5"] = got["model"].get_weights()
    gc.keras.backend.clear_session()
    assert got["names"] == ref["names"]
    assert got["json"] == ref["json"]
    assert got["summary"] == ref["summary"]
    # TF1's metric names: "acc", "weighted_acc" (tf_keras: "accuracy", "accuracy_1").
    history = {k.replace("accuracy_1", "weighted_acc").replace("accuracy", "acc"): v
               for k, v in ref["history"].items()}
    assert sorted(got["history"]) == sorted(history)
    for key, values in history.items():
        np.testing.assert_allclose(got["history"][key], values, rtol=1e-4, atol=1e-5,
                                   err_msg=key)
    np.testing.assert_allclose(got["evaluate"], ref["evaluate"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["predict"], ref["predict"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(np.ravel(got["train_on_batch"])[0],
                               np.ravel(ref["train_on_batch"])[0], rtol=1e-4, atol=1e-5)
    assert len(got["weights"]) == len(ref["weights"])
    for g, r in zip(got["weights"], ref["weights"]):
        np.testing.assert_allclose(g, r, rtol=1e-4, atol=1e-5)
    for g, h, r in zip(got["loaded"], got["loaded_h5"], ref["weights"]):
        np.testing.assert_array_equal(g, r)
        np.testing.assert_array_equal(h, r)
