"""tf.keras without TensorFlow: layer and weight names, functional graphs and their errors,
training (loss falls, History, EarlyStopping, LearningRateScheduler), weights through
get/set_weights and checkpoints, the Keras session and learning phase, to_categorical, and a
user's script run by ``python -m graphcore.run``."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import graphcore as tf
from graphcore import keras

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_session():
    keras.backend.clear_session()
    yield
    keras.backend.clear_session()


def _blobs(n=64, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 2)).astype(np.float32) + 2.5 * y[:, None]
    return x, y


def test_layer_and_weight_names():
    inp = keras.Input((3,))
    a = keras.layers.Dense(4)(inp)
    b = keras.layers.Dense(4, name="head")(a)
    c = keras.layers.Dense(2)(b)
    model = keras.Model(inp, c)
    assert [la.name for la in model.layers] == ["input_1", "dense", "head", "dense_1"]
    assert [w.name for w in model.weights] == [
        "dense/kernel:0", "dense/bias:0", "head/kernel:0", "head/bias:0",
        "dense_1/kernel:0", "dense_1/bias:0"]
    assert inp.op.name == "input_1" and model.name == "model"
    # A second call of a layer reuses its weights in a new name scope.
    layer = model.get_layer("head")
    again = layer(a)
    assert again.op.name.startswith("head_1/") and len(layer.weights) == 2
    assert keras.Sequential().name == "sequential"


def test_deferred_sequential_builds_in_its_name_scope():
    model = keras.Sequential([keras.layers.Dense(3), keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    x = np.ones((4, 2), np.float32)
    model.fit(x, np.zeros((4, 1), np.float32), verbose=0)
    assert [w.name for w in model.weights] == [
        "sequential/dense/kernel:0", "sequential/dense/bias:0",
        "sequential/dense_1/kernel:0", "sequential/dense_1/bias:0"]
    assert model.predict(x).shape == (4, 1)


def test_graph_disconnected_and_bad_inputs():
    a, b = keras.Input((2,)), keras.Input((2,))
    out = keras.layers.Add()([a, b])
    with pytest.raises(ValueError, match="Graph disconnected"):
        keras.Model(a, out)
    with pytest.raises(ValueError, match="must come from `tf.keras.Input`"):
        keras.Model(tf.placeholder(tf.float32, (None, 2)), out)
    model = keras.Model([a, b], out)
    with pytest.raises(ValueError, match="Expected to see 2 array"):
        model.predict(np.ones((1, 2)))
    with pytest.raises(ValueError, match="weight list of length 1"):
        keras.Sequential([keras.layers.Dense(1, input_shape=(2,))]).set_weights([np.ones(1)])


def test_fit_learns_and_reports_history():
    tf.set_random_seed(3)
    np.random.seed(3)
    x, y = _blobs()
    model = keras.Sequential([keras.layers.Dense(8, activation="relu", input_dim=2),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(keras.optimizers.Adam(0.05), "sparse_categorical_crossentropy",
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=16, epochs=20, verbose=0, validation_split=0.25)
    assert sorted(history.history) == ["acc", "loss", "val_acc", "val_loss"]
    assert history.epoch == list(range(20))
    assert history.params["samples"] == 48 and history.params["epochs"] == 20
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.9 and model.metrics_names == ["loss", "acc"]
    np.testing.assert_array_equal(model.predict(x).argmax(1) == y,
                                  model.predict_on_batch(x).argmax(1) == y)


def test_early_stopping_and_lr_schedule():
    x, y = _blobs(32)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(keras.optimizers.SGD(learning_rate=0.0), "mse")
    seen = []
    stop = keras.callbacks.EarlyStopping(monitor="loss", patience=2)
    schedule = keras.callbacks.LearningRateScheduler(lambda epoch: 0.0 * epoch)
    record = keras.callbacks.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e))
    history = model.fit(x, y, epochs=50, verbose=0, shuffle=False,
                        callbacks=[stop, schedule, record])
    # lr 0: the loss never improves, so training stops after `patience` more epochs.
    assert history.epoch == [0, 1, 2] and seen == [0, 1, 2] and stop.stopped_epoch == 2
    assert history.history["lr"] == [0.0, 0.0, 0.0]


def test_weights_roundtrip_and_checkpoint(tmp_path):
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(2,)),
                              keras.layers.BatchNormalization(),
                              keras.layers.Dense(1)])
    values = [np.full(w.shape.as_list(), i, np.float32) for i, w in enumerate(model.weights)]
    model.set_weights(values)
    model.save_weights(str(tmp_path / "ckpt"))
    graph = keras.backend.get_session().graph
    n_ops = len(graph.get_operations())
    for epoch in range(3):  # saving again reuses the save op (tf_keras' cached saver)
        model.save_weights(str(tmp_path / f"ckpt-{epoch}"))
    assert len(graph.get_operations()) == n_ops
    model.set_weights([v + 1 for v in values])
    model.load_weights(str(tmp_path / "ckpt"))
    for got, want in zip(model.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    model.load_weights(str(tmp_path / "ckpt-2"))
    for got, want in zip(model.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    reader = tf.train.NewCheckpointReader(str(tmp_path / "ckpt"))
    assert sorted(reader.get_variable_to_shape_map()) == sorted(
        ["_CHECKPOINTABLE_OBJECT_GRAPH"] + [  # TF's object graph, then the weights
            f"layer_with_weights-{i}/{n}/.ATTRIBUTES/VARIABLE_VALUE"
        for i, names in enumerate([["kernel", "bias"],
                                   ["gamma", "beta", "moving_mean", "moving_variance"],
                                   ["kernel", "bias"]]) for n in names])
    assert model.count_params() == 9 + 12 + 4
    assert len(model.trainable_weights) == 6 and len(model.non_trainable_weights) == 2
    model.layers[1].trainable = False
    assert len(model.trainable_weights) == 4


def test_hdf5_weights_roundtrip(tmp_path):
    h5py = pytest.importorskip("h5py")
    model = keras.Sequential([keras.layers.Dense(3, input_shape=(2,), name="a"),
                              keras.layers.Dropout(0.1), keras.layers.Dense(1, name="b")])
    values = [np.full(w.shape.as_list(), i, np.float32) for i, w in enumerate(model.weights)]
    model.set_weights(values)
    model.save_weights(str(tmp_path / "w.h5"))
    with h5py.File(tmp_path / "w.h5", "r") as f:
        def names(values):
            return [v.decode() if isinstance(v, bytes) else v for v in values]
        assert names(f.attrs["layer_names"]) == ["a", "dropout", "b"]
        assert names(f["b"].attrs["weight_names"]) == ["b/kernel:0", "b/bias:0"]
    model.set_weights([v + 1 for v in values])
    model.load_weights(str(tmp_path / "w.h5"))
    for got, want in zip(model.get_weights(), values):
        np.testing.assert_array_equal(got, want)
    other = keras.Sequential([keras.layers.Dense(1, input_shape=(3,), name="b")])
    other.load_weights(str(tmp_path / "w.h5"), by_name=True)
    np.testing.assert_array_equal(other.get_weights()[1], values[3])
    with pytest.raises(ValueError, match="Model expected 1 layers, found 2"):
        other.load_weights(str(tmp_path / "w.h5"))


def test_model_checkpoint_saves_best_weights(tmp_path):
    pytest.importorskip("h5py")
    x, y = _blobs(16)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,))])
    model.compile(keras.optimizers.SGD(learning_rate=0.01), "mse")
    checkpoint = keras.callbacks.ModelCheckpoint(
        str(tmp_path / "w-{epoch:02d}-{loss:.1f}.h5"), monitor="loss", save_best_only=True,
        save_weights_only=True)
    history = model.fit(x, y, epochs=3, verbose=0, shuffle=False, callbacks=[checkpoint])
    saved = sorted(p.name for p in tmp_path.iterdir())
    assert saved == [f"w-{e + 1:02d}-{loss:.1f}.h5"
                     for e, loss in enumerate(history.history["loss"])]
    with pytest.raises(NotImplementedError, match="save_freq='epoch'"):
        keras.callbacks.ModelCheckpoint(str(tmp_path / "m.h5"), save_freq=10)


def test_session_and_learning_phase():
    sess = tf.Session()
    keras.backend.set_session(sess)
    v = keras.backend.variable(np.arange(3.0), name="v")
    assert keras.backend.get_session() is sess
    np.testing.assert_array_equal(keras.backend.get_value(v), [0.0, 1.0, 2.0])
    keras.backend.set_value(v, [5.0, 6.0, 7.0])
    np.testing.assert_array_equal(sess.run(v), [5.0, 6.0, 7.0])
    phase = keras.backend.learning_phase()
    assert phase.op.name == "keras_learning_phase" and phase.dtype == tf.bool
    x = keras.Input((4,))
    y = keras.layers.Dropout(0.5)(x)
    ones = np.ones((2, 4), np.float32)
    np.testing.assert_array_equal(sess.run(y, {x: ones}), ones)
    dropped = sess.run(y, {x: ones, phase: True})
    assert set(np.unique(dropped)) <= {0.0, 2.0}


def test_to_categorical():
    np.testing.assert_array_equal(keras.utils.to_categorical([0, 2, 1]),
                                  np.eye(3, dtype=np.float32)[[0, 2, 1]])
    assert keras.utils.to_categorical([[1], [0]], num_classes=4).shape == (2, 4)


SCRIPT = """
import numpy as np
import tensorflow as tf
from tensorflow.keras.layers import Dense

rng = np.random.RandomState(0)
x = rng.rand(64, 4).astype("float32")
y = (x.sum(axis=1) > 2).astype("int64")
model = tf.keras.Sequential([Dense(16, activation="relu", input_shape=(4,)),
                             Dense(2, activation="softmax")])
model.compile(optimizer="adam", loss="sparse_categorical_crossentropy",
              metrics=["accuracy"])
history = model.fit(x, y, epochs=3, verbose=0)
print(sorted(history.history), len(history.history["loss"]))
print(model.evaluate(x, y, verbose=0))
"""


def test_user_script_runs_under_graphcore_run(tmp_path):
    script = tmp_path / "keras_script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "graphcore.run", str(script)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0] == "['acc', 'loss'] 3"
    loss, acc = eval(lines[1])
    assert 0 < loss < 1 and 0 <= acc <= 1


def test_simple_rnn_matches_numpy_and_trains():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(5, 4, 3)).astype(np.float32)
    inp = keras.Input((None, 3))
    layer = keras.layers.SimpleRNN(2, return_sequences=True, go_backwards=True)
    model = keras.Model(inp, layer(inp))
    assert [w.name for w in model.weights] == [
        "simple_rnn/simple_rnn_cell/kernel:0", "simple_rnn/simple_rnn_cell/recurrent_kernel:0",
        "simple_rnn/simple_rnn_cell/bias:0"]
    kernel, recurrent, bias = (rng.normal(size=s).astype(np.float32)
                               for s in [(3, 2), (2, 2), (2,)])
    model.set_weights([kernel, recurrent, bias])
    h = np.zeros((5, 2), np.float32)
    want = []
    for t in reversed(range(4)):
        h = np.tanh(x[:, t] @ kernel + bias + h @ recurrent)
        want.append(h)
    np.testing.assert_allclose(model.predict(x), np.stack(want, 1), rtol=1e-5, atol=1e-6)
    model.compile("adam", "mse")
    history = model.fit(x, np.zeros((5, 4, 2), np.float32), epochs=5, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


class Scale(keras.layers.Layer):
    """A user's layer: a weight made in build, used in call."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight("w", shape=(int(input_shape[-1]), self.units),
                                 initializer="ones")
        super().build(input_shape)

    def call(self, inputs):
        return tf.matmul(inputs, self.w)


def test_custom_layer_nested_model_and_backend_function():
    inner_in = keras.Input((3,))
    inner = keras.Model(inner_in, Scale(2)(inner_in), name="inner")
    assert inner.input is inner_in and inner.output_shape == (None, 2)
    outer_in = keras.Input((3,))
    out = keras.layers.Dense(1, kernel_initializer="ones")(inner(outer_in))
    model = keras.Model(outer_in, out)
    assert [w.name for w in model.weights] == ["scale/w:0", "dense/kernel:0", "dense/bias:0"]
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_allclose(model.predict(x), x.sum(1, keepdims=True) * 2)
    hidden = keras.backend.function([model.input], [model.layers[-1].input])
    np.testing.assert_allclose(hidden([x])[0], np.repeat(x.sum(1, keepdims=True), 2, 1))
    model.compile("sgd", "mse")
    assert model.train_on_batch(x, np.zeros((2, 1), np.float32)) > 0


def test_model_file_and_json_roundtrip(tmp_path):
    pytest.importorskip("h5py")
    inp = keras.Input((3,))
    shared = keras.layers.Dense(4, activation="relu", name="shared")
    h = keras.layers.Concatenate()([shared(inp), shared(keras.layers.Lambda(lambda t: -t)(inp))])
    model = keras.Model(inp, keras.layers.Dense(1, kernel_regularizer="l2")(h))
    model.compile(keras.optimizers.SGD(0.1, momentum=0.5), "mse", metrics=["mae"])
    x, _ = _blobs(8)
    x = np.concatenate([x, x[:, :1]], 1)
    model.save(str(tmp_path / "m.h5"))
    loaded = keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(loaded.predict(x), model.predict(x), rtol=1e-6)
    assert loaded.metrics_names == ["loss", "mean_absolute_error"] or \
        loaded.metrics_names == ["loss", "mae"]
    assert loaded.optimizer.get_config()["momentum"] == 0.5
    rebuilt = keras.models.model_from_json(model.to_json())
    assert [la.name for la in rebuilt.layers] == [la.name for la in model.layers]
    assert rebuilt.get_layer("shared")._inbound_nodes[1].inputs[0].op.type != "Placeholder"
    assert rebuilt.count_params() == model.count_params()
    with pytest.raises(NotImplementedError, match="HDF5"):
        model.save(str(tmp_path / "saved_model_dir"))

    class Scale(keras.layers.Layer):
        def __init__(self, factor, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def call(self, inputs):
            return inputs * self.factor

    with pytest.raises(NotImplementedError, match="must override `get_config"):
        Scale(2.0).get_config()


def test_masked_steps_carry_the_rnn_state_and_weights_scale_the_loss():
    inp = keras.Input((None,), dtype="int32")
    h = keras.layers.Embedding(5, 3, mask_zero=True)(inp)
    seq = keras.layers.SimpleRNN(2, return_sequences=True)(h)
    lstm = keras.layers.LSTM(2)
    out = lstm(seq)
    model = keras.Model(inp, out)
    assert lstm.input_mask is lstm.get_input_mask_at(0) is not None
    assert lstm.output_mask is None and lstm.get_output_shape_at(0) == (None, 2)
    padded = model.predict(np.array([[1, 2, 3, 0, 0], [4, 0, 0, 0, 0]]))
    # (unseeded weights: an output near 0 can differ by float32 noise, hence the atol)
    np.testing.assert_allclose(padded[0], model.predict(np.array([[1, 2, 3]]))[0], rtol=1e-6,
                               atol=1e-7)
    np.testing.assert_allclose(padded[1], model.predict(np.array([[4]]))[0], rtol=1e-6,
                               atol=1e-7)
    model.compile("sgd", "mse")
    x, y = np.array([[1, 2], [3, 0]]), np.array([[0.5, 0.0], [1.0, -1.0]], np.float32)
    full = model.evaluate(x, y, verbose=0)
    assert model.evaluate(x, y, sample_weight=np.array([2.0, 2.0]), verbose=0) == \
        pytest.approx(2 * full)
    first = model.evaluate(x[:1], y[:1], verbose=0)
    assert model.evaluate(x, y, sample_weight=np.array([2.0, 0.0]), verbose=0) == \
        pytest.approx(first)
    assert model.evaluate(x, y, verbose=0) == pytest.approx(full)


def test_callbacks_reduce_lr_csv_tensorboard_and_checkpoint(tmp_path):
    pytest.importorskip("h5py")
    x, y = _blobs(32)
    model = keras.Sequential([keras.layers.Dense(1, input_shape=(2,), activation="sigmoid")])
    model.compile(keras.optimizers.SGD(0.01), "binary_crossentropy", metrics=["acc"])
    callbacks = [keras.callbacks.ReduceLROnPlateau("loss", factor=0.5, patience=1,
                                                   min_delta=1.0),
                 keras.callbacks.CSVLogger(str(tmp_path / "log.csv")),
                 keras.callbacks.TensorBoard(str(tmp_path / "tb"), update_freq="batch"),
                 keras.callbacks.ModelCheckpoint(str(tmp_path / "m.h5"))]
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0, callbacks=callbacks)
    # (each epoch logs the rate it ran with; the plateau halves it after epochs 2 and 3)
    assert history.history["lr"] == pytest.approx([0.01, 0.01, 0.005])
    assert keras.backend.get_value(model.optimizer.lr) == pytest.approx(0.0025)
    lines = (tmp_path / "log.csv").read_text().splitlines()
    assert lines[0] == "epoch,acc,loss,lr" and len(lines) == 4
    tags = {(v.tag, e.step) for f in (tmp_path / "tb").iterdir()
            for e in tf.train.summary_iterator(str(f)) for v in e.summary.value}
    assert ("epoch_loss", 2 * 32) in tags and ("batch_loss", 5) in tags
    restored = keras.models.load_model(str(tmp_path / "m.h5"))
    np.testing.assert_allclose(restored.predict(x), model.predict(x), rtol=1e-6)
    model.compile(keras.optimizers.SGD(1e30), "mse")
    stop = model.fit(x, y * 1e30, batch_size=8, epochs=2, verbose=0,
                     callbacks=[keras.callbacks.TerminateOnNaN()])
    assert len(stop.history["loss"]) == 1


@pytest.mark.parametrize("loss,metrics,names", [
    ("mse", ["mae", "mse", "acc"],
     ["loss", "mean_absolute_error", "mean_squared_error", "acc"]),
    ("binary_crossentropy", ["crossentropy", "accuracy", keras.metrics.binary_accuracy],
     ["loss", "ce", "acc", "binary_accuracy"]),
])
def test_metric_names_are_tf1s(loss, metrics, names):
    """TF1 Keras names a string metric by its function (training_utils_v1.get_metric_name):
    "mae" -> mean_absolute_error; accuracy -> acc; crossentropy -> ce (by the loss)."""
    x = np.ones((4, 3), np.float32)
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("sgd", loss, metrics=metrics)
    history = model.fit(x, np.ones((4, 1), np.float32), epochs=1, verbose=0)
    assert model.metrics_names == names
    assert sorted(history.history) == sorted(names)


def test_batch_and_evaluate_results_are_float32_as_tf():
    """train_on_batch / test_on_batch / evaluate give numpy float32 scalars (a list of
    them with metrics), as TF1 Keras; fit's history holds Python floats of float32s."""
    x = np.ones((4, 3), np.float32)
    y = np.ones((4, 1), np.float32)
    model = keras.Sequential([keras.layers.Dense(1, activation="sigmoid", input_shape=(3,))])
    model.compile("sgd", "binary_crossentropy", metrics=["acc"])
    for result in (model.train_on_batch(x, y), model.test_on_batch(x, y),
                   model.evaluate(x, y, verbose=0)):
        assert [type(v) for v in result] == [np.float32, np.float32]
    history = model.fit(x, y, epochs=1, verbose=0).history
    assert type(history["loss"][0]) is float
    assert np.float32(history["loss"][0]) == history["loss"][0]
    model.compile("sgd", "mse")
    assert type(model.evaluate(x, y, verbose=0)) is np.float32
