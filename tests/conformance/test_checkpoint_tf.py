"""Reference tier for tf.compat.v1.train.Checkpoint, CheckpointManager and
CheckpointOptions in graph mode: the same program built with graphcore and with TF.

a. Each model of MODELS is saved by both: the bundle keys and the serialized
   TrackableObjectGraph are equal, TF restores graphcore's checkpoint (assert_consumed,
   run_restore_ops) to graphcore's values and graphcore restores TF's to TF's.
b. CheckpointManager rotates as TF's: the same `checkpoints`, files and `checkpoint`
   state file (timestamps aside); each side's manager takes over the other's directory.
c. The restore statuses raise TF's errors with TF's messages.

Skipped when TensorFlow is not installed.
"""

import functools
import os
import re

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as gc  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1
from tensorflow.core.protobuf import trackable_object_graph_pb2  # noqa: E402

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


# -- the models: build(lib, scale) -> (checkpoint, train op or None, variables to read) --

def _plain(lib, scale):
    a = lib.Variable(np.array([1.0, 2.0], np.float32) * scale, name="a")
    b = lib.Variable(np.array([[3, 4]], np.int32) * int(scale), name="b")
    step = lib.train.get_or_create_global_step()
    ckpt = lib.train.Checkpoint(step=step, a=a, bee=b, **{"odd.name/x": a})
    return ckpt, step.assign_add(7), [a, b, step]


def _module(lib, scale):
    class Net(lib.Module):
        def __init__(self):
            super().__init__()
            self.w = lib.Variable(np.full((2, 3), 0.5, np.float32) * scale, name="w")
            self.layers = [lib.Variable(3.0 * scale, name="l0"), 5,
                           {"k": lib.Variable(4.0 * scale, name="k"), "n": [1, 2]}]
            self.pair = (lib.Variable(6.0 * scale, name="p"), 1)
            self.sub = lib.Module(name="sub")
            self.sub.z = lib.Variable(7.0 * scale, name="z")
            self.alias = self.w

    net = Net()
    return lib.train.Checkpoint(net=net), None, [
        net.w, net.layers[0], net.layers[2]["k"], net.pair[0], net.sub.z]


def _optimizer(make_opt):
    def build(lib, scale):
        x = lib.Variable(np.array([1.0, -2.0], np.float32) * scale, name="x")
        m = lib.Module(name="m")
        m.w = lib.Variable(np.array([[0.5], [1.5]], np.float32) * scale, name="w")
        step = lib.train.get_or_create_global_step()
        loss = lib.reduce_sum(x * x) + lib.reduce_sum(lib.matmul(lib.reshape(x, [1, 2]), m.w))
        opt = make_opt(lib)
        train = opt.minimize(loss, global_step=step)
        ckpt = lib.train.Checkpoint(optimizer=opt, model=m, x=x, step=step)
        slots = [opt.get_slot(v, n) for n in opt.get_slot_names() for v in (x, m.w)]
        return ckpt, train, [x, m.w, step] + slots + sorted(
            opt._non_slot_dict.values(), key=lambda v: v.name)
    return build


def _wrapped_optimizer(kind):
    def build(lib, scale):
        x = lib.Variable(np.array([1.0, -2.0], np.float32) * scale, name="x")
        step = lib.train.get_or_create_global_step()
        base = lib.train.AdamOptimizer(0.1)
        if kind == "loss_scale":
            opt = lib.train.experimental.MixedPrecisionLossScaleOptimizer(base, "dynamic")
        else:
            opt = lib.train.SyncReplicasOptimizer(base, replicas_to_aggregate=1)
        train = opt.minimize(lib.reduce_sum(x * x), global_step=step)
        ckpt = lib.train.Checkpoint(opt=opt, x=x)
        # A SyncReplicasOptimizer's step needs its hook's tokens: not run here. (TF 1.x
        # names the loss scale optimizer's beta powers cond_1/..., as under the fixture.)
        return ckpt, train if kind == "loss_scale" else None, [x] + [
            base.get_slot(x, n) for n in ("m", "v")]
    return build


def _tf_layers(lib, scale):
    layers = (pytest.importorskip("tf_keras.api._v1.keras.__internal__.legacy.layers")
              if _is_tf(lib) else lib.layers)
    x = lib.placeholder(lib.float32, [None, 3])
    dense = layers.Dense(4, name="fc", kernel_initializer=lib.constant_initializer(scale))
    norm = layers.BatchNormalization()
    norm(dense(x))
    ckpt = lib.train.Checkpoint(dense=dense, bn=norm)
    return ckpt, None, dense.weights + norm.weights


def _tables(lib, scale):
    lookup = lib.lookup.experimental
    table = lookup.MutableHashTable(lib.string, lib.int64, -1, name="tab")
    dense = lookup.DenseHashTable(lib.int64, lib.int64, default_value=-1, empty_key=0,
                                  deleted_key=-1, name="dense")
    static = lib.lookup.StaticHashTable(lib.lookup.KeyValueTensorInitializer(
        ["a"], [1], lib.string, lib.int64), -1)
    step = lib.train.get_or_create_global_step()
    ckpt = lib.train.Checkpoint(t=table, d=dense, h=static, step=step)
    n = int(scale)
    fill = lib.group(table.insert(["x", "y"], np.array([1, 2]) * n),
                     dense.insert(np.array([5, 7]), np.array([6, 8]) * n))
    queries = [table.lookup(lib.constant(["x", "y", "z"])),
               dense.lookup(lib.constant([5, 7, 9], lib.int64)),
               static.lookup(lib.constant(["a", "b"])), table.size(), step]
    return ckpt, fill, queries


MODELS = {
    "tables": _tables,
    "tf_layers": _tf_layers,
    "loss_scale_optimizer": _wrapped_optimizer("loss_scale"),
    "sync_replicas_optimizer": _wrapped_optimizer("sync_replicas"),
    "plain_variables": _plain,
    "module_tree": _module,
    "adam": _optimizer(lambda lib: lib.train.AdamOptimizer(0.1)),
    "momentum": _optimizer(lambda lib: lib.train.MomentumOptimizer(0.1, 0.9)),
    "rmsprop": _optimizer(lambda lib: lib.train.RMSPropOptimizer(0.01, momentum=0.5)),
}


def _is_tf(lib):
    return lib is tf1


def _graph(lib):
    return tf_ref.Graph() if _is_tf(lib) else gc.Graph()


def _save(lib, build, prefix):
    """Builds at scale 1, trains a step and saves; returns (path, values)."""
    with _graph(lib).as_default():
        ckpt, train, variables = build(lib, 1.0)
        with lib.Session() as sess:
            sess.run([lib.global_variables_initializer(), lib.tables_initializer()])
            if train is not None:
                sess.run(train)
            path = ckpt.save(prefix, session=sess)
            return path, sess.run(variables)


def _restore(lib, build, path):
    """Builds at scale 3 and restores ``path``; returns the restored values."""
    with _graph(lib).as_default():
        ckpt, _, variables = build(lib, 3.0)
        with lib.Session() as sess:
            status = ckpt.restore(path)
            status.assert_consumed().assert_existing_objects_matched()
            status.assert_nontrivial_match()
            status.run_restore_ops(sess)
            sess.run(lib.tables_initializer())  # a static table is not restored
            return sess.run(variables + [ckpt.save_counter])


def _object_graph(path):
    reader = tf1.train.load_checkpoint(path)
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(reader.get_tensor(OBJECT_GRAPH_KEY))
    return reader, proto


def _entries(reader, key):
    """A saved table's {key: value}, without a dense table's empty (0) and deleted (-1)
    buckets."""
    keys = reader.get_tensor(key + "-keys").ravel().tolist()
    values = reader.get_tensor(key + "-values").ravel().tolist()
    return {k: v for k, v in zip(keys, values) if k not in (0, -1)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_checkpoints_interchange(name, tmp_path, tf_control_flow_v1):
    build = MODELS[name]
    gc_path, gc_values = _save(gc, build, str(tmp_path / "gc" / "ckpt"))
    tf_path, tf_values = _save(tf1, build, str(tmp_path / "tf" / "ckpt"))
    assert os.path.basename(gc_path) == os.path.basename(tf_path) == "ckpt-1"
    gc_reader, gc_proto = _object_graph(gc_path)
    tf_reader, tf_proto = _object_graph(tf_path)
    assert gc_proto == tf_proto
    assert sorted(gc_reader.get_variable_to_shape_map().items()) == \
        sorted(tf_reader.get_variable_to_shape_map().items())
    assert gc_reader.get_variable_to_dtype_map() == tf_reader.get_variable_to_dtype_map()
    for key in gc_reader.get_variable_to_shape_map():
        if key.endswith("/table-keys"):
            # A table's entries, in the order of each side's hashing.
            assert _entries(gc_reader, key[:-5]) == _entries(tf_reader, key[:-5])
        elif key != OBJECT_GRAPH_KEY and not key.endswith("/table-values"):
            np.testing.assert_allclose(gc_reader.get_tensor(key), tf_reader.get_tensor(key),
                                       rtol=1e-6, err_msg=key)
    # Each side restores the other's checkpoint, save counter included. (TF cannot
    # restore a SyncReplicasOptimizer's slots, from its own checkpoints neither: they are
    # looked up in the wrapper's empty slot dict; graphcore restores them through
    # get_slot, which the wrapper forwards.)
    if name != "sync_replicas_optimizer":
        for got, want in zip(_restore(tf1, build, gc_path), gc_values + [1]):
            np.testing.assert_allclose(got, want, rtol=1e-6)
    for got, want in zip(_restore(gc, build, tf_path), tf_values + [1]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with open(tmp_path / "gc" / "checkpoint") as f_gc, \
            open(tmp_path / "tf" / "checkpoint") as f_tf:
        assert f_gc.read() == f_tf.read()


# -- CheckpointManager ---------------------------------------------------------------------

def _manager_run(lib, directory, other_directory):
    """Four saves under max_to_keep=2, then a manager taking over ``other_directory``."""
    events = []
    with _graph(lib).as_default():
        v = lib.Variable(1.0, name="v")
        step = lib.train.get_or_create_global_step()
        ckpt = lib.train.Checkpoint(v=v, step=step)
        bump = [v.assign_add(1.0), step.assign_add(10)]
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            manager = lib.train.CheckpointManager(ckpt, directory, max_to_keep=2)
            events.append(manager.latest_checkpoint)
            for i in range(4):
                sess.run(bump)
                number = step if i == 3 else None
                path = manager.save(checkpoint_number=number)
                events.append(os.path.relpath(path, directory))
                events.append([os.path.relpath(p, directory) for p in manager.checkpoints])
            events.append(sorted(os.listdir(directory)))
            events.append(_state_without_times(directory))
            events.append(lib.train.latest_checkpoint(directory) == manager.latest_checkpoint)
            # A new manager on the same directory takes over its state.
            again = lib.train.CheckpointManager(ckpt, directory, max_to_keep=1)
            events.append([os.path.relpath(p, directory) for p in again.checkpoints])
            again.save()
            events.append(sorted(os.listdir(directory)))
            events.append(int(sess.run(ckpt.save_counter)))
            if other_directory is not None:
                other = lib.train.CheckpointManager(ckpt, other_directory, max_to_keep=3)
                events.append([os.path.relpath(p, other_directory) for p in other.checkpoints])
                ckpt.restore(other.latest_checkpoint).run_restore_ops(sess)
                events.append([float(x) for x in sess.run([v, step])])
    return events


def _state_without_times(directory):
    with open(os.path.join(directory, "checkpoint")) as f:
        return [line for line in f.read().splitlines() if "timestamp" not in line]


def test_checkpoint_manager(tmp_path):
    gc_dir, tf_dir = str(tmp_path / "gc"), str(tmp_path / "tf")
    tf_events = _manager_run(tf1, tf_dir, None)
    gc_events = _manager_run(gc, gc_dir, tf_dir)
    assert gc_events[:len(tf_events)] == tf_events
    # graphcore's manager took over TF's directory and restored its latest checkpoint.
    assert gc_events[len(tf_events):] == [["ckpt-5"], [5.0, 40.0]]
    tf_again = _manager_run(tf1, str(tmp_path / "tf2"), gc_dir)
    assert tf_again[len(tf_events):] == [["ckpt-5"], [5.0, 40.0]]


# -- restore statuses ------------------------------------------------------------------------

def _outcome(fn):
    try:
        out = fn()
    except Exception as e:  # noqa: BLE001 - the outcome compared with TF's is the error
        return type(e).__name__, re.sub(r"<[\w.]+ object at 0x[0-9a-f]+>", "<obj>", str(e))
    if isinstance(out, (list, tuple)):
        return "ok", [np.asarray(x).tolist() for x in out]
    return "ok", None if out is None or hasattr(out, "assert_consumed") else out


def _vars(lib, names, scale):
    return {n: lib.Variable(np.float32(i + 1) * scale, name=n, use_resource=True)
            for i, n in enumerate(names)}


def _status_scenario(saved, restored, actions, lib, directory):
    """Saves Checkpoint(**saved vars) (values 1, 2, ...), then restores it into
    Checkpoint(**restored vars) (values 10, 20, ...) and records each action's outcome."""
    with _graph(lib).as_default():
        ckpt = lib.train.Checkpoint(**_vars(lib, saved, 1.0))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            path = ckpt.save(os.path.join(directory, "ckpt"), session=sess)
    with _graph(lib).as_default():
        variables = _vars(lib, restored, 10.0)
        ckpt = lib.train.Checkpoint(**variables)
        out = []
        with lib.Session() as sess:
            status = ckpt.restore(path if actions[0] != "none" else None)
            for action in actions[1:]:
                if action == "values":
                    out.append(_outcome(lambda: sess.run(
                        [variables[n] for n in restored] + [ckpt.save_counter])))
                elif action in ("run_restore_ops", "initialize_or_restore"):
                    out.append(_outcome(functools.partial(getattr(status, action), sess)))
                else:
                    out.append(_outcome(getattr(status, action)))
    return out


ALL_CHECKS = ["assert_consumed", "assert_existing_objects_matched", "assert_nontrivial_match"]
STATUS_CASES = {
    "all_matched": (["a", "b"], ["a", "b"],
                    ["path"] + ALL_CHECKS + ["run_restore_ops", "values"]),
    "python_object_not_in_checkpoint": (["a"], ["a", "b"],
                                        ["path"] + ALL_CHECKS + ["initialize_or_restore",
                                                                 "values"]),
    "checkpoint_value_not_in_program": (["a", "b"], ["b"],
                                        ["path"] + ALL_CHECKS + ["run_restore_ops",
                                                                 "values"]),
    "nothing_in_common": (["a"], ["c"], ["path"] + ALL_CHECKS),
    "no_checkpoint": (["a"], ["a", "b"], ["none"] + ALL_CHECKS + [
        "run_restore_ops", "initialize_or_restore", "values"]),
}


@pytest.mark.parametrize("name", sorted(STATUS_CASES))
def test_restore_status(name, tmp_path):
    saved, restored, actions = STATUS_CASES[name]
    want = _status_scenario(saved, restored, actions, tf1, str(tmp_path / "tf"))
    got = _status_scenario(saved, restored, actions, gc, str(tmp_path / "gc"))
    assert got == want


def test_restore_missing_checkpoint(tmp_path):
    missing = str(tmp_path / "nothing-1")
    outcomes = []
    for lib in (tf1, gc):
        with _graph(lib).as_default():
            ckpt = lib.train.Checkpoint(v=lib.Variable(1.0))
            outcomes.append(_outcome(functools.partial(ckpt.restore, missing)))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "NotFoundError"


def _restore_before_minimize(lib, path):
    """Restores an Adam checkpoint before minimize creates the slots and beta powers:
    assert_consumed fails until they exist, then run_restore_ops restores them too."""
    out = []
    with _graph(lib).as_default():
        x = lib.Variable(np.array([7.0, 7.0], np.float32), name="x")
        m = lib.Module(name="m")
        m.w = lib.Variable(np.array([[7.0], [7.0]], np.float32), name="w")
        step = lib.train.get_or_create_global_step()
        opt = lib.train.AdamOptimizer(0.1)
        ckpt = lib.train.Checkpoint(optimizer=opt, model=m, x=x, step=step)
        status = ckpt.restore(path)
        out.append(_outcome(status.assert_existing_objects_matched))
        out.append(_outcome(status.assert_consumed))
        loss = lib.reduce_sum(x * x) + lib.reduce_sum(lib.matmul(lib.reshape(x, [1, 2]), m.w))
        opt.minimize(loss, global_step=step)
        out.append(_outcome(status.assert_consumed))
        with lib.Session() as sess:
            out.append(_outcome(lambda: status.initialize_or_restore(sess)))
            out.append(_outcome(lambda: sess.run(
                [x, m.w, step] + [opt.get_slot(v, n) for n in ("m", "v") for v in (x, m.w)]
                + sorted(opt._non_slot_dict.values(), key=lambda v: v.name))))
    return out


def test_restore_before_variables_exist(tmp_path):
    path, values = _save(tf1, MODELS["adam"], str(tmp_path / "tf" / "ckpt"))
    want = _restore_before_minimize(tf1, path)
    assert want[1][0] == "AssertionError" and want[2] == ("ok", None)
    assert _restore_before_minimize(gc, path) == want
    for got, value in zip(want[-1][1], values):
        np.testing.assert_allclose(got, value, rtol=1e-6)


# -- Keras models (tf_keras' v1 API in graph mode against graphcore.keras) --------------------

def _keras_sequential(keras):
    layers = keras.layers
    return keras.Sequential([
        layers.Conv2D(4, 3, input_shape=(6, 6, 2)), layers.MaxPooling2D(),
        layers.BatchNormalization(), layers.Flatten(), layers.Dropout(0.5), layers.Dense(3)])


def _keras_recurrent(keras):
    layers = keras.layers
    return keras.Sequential([
        layers.Embedding(10, 4, input_length=5), layers.LSTM(3, return_sequences=True),
        layers.Bidirectional(layers.GRU(2))])


def _keras_functional(keras):
    layers = keras.layers
    x = keras.Input((5, 4))
    h = layers.LayerNormalization()(x)
    h = layers.TimeDistributed(layers.Dense(3))(h)
    h = layers.PReLU()(h)
    h = layers.Reshape((-1,))(layers.Conv1D(2, 2)(h))
    y = layers.Dense(1)(layers.Concatenate()([h, layers.Lambda(lambda t: t * 2)(h)]))
    return keras.Model(x, y)


def _keras_subclassed(keras):
    class Scale(keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = keras.layers.Dense(2)
            self.sizes = [1, 2]

        def build(self, input_shape):
            self.w = self.add_weight("w", shape=(2,), initializer="ones")
            super().build(input_shape)

        def call(self, x):
            return self.inner(x) * self.w

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self._first = keras.layers.Dense(4)
            self.blocks = [keras.layers.Dense(3), Scale()]

        def call(self, x):
            x = self._first(x)
            for block in self.blocks:
                x = block(x)
            return x

    net = Net()
    net(keras.Input((3,)))
    return net


def _keras_trained(keras):
    model = keras.Sequential([keras.layers.Dense(4, input_shape=(3,)),
                              keras.layers.Dropout(0.5), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01, amsgrad=True), loss="mse")
    model.fit(np.ones((4, 3)), np.ones((4, 2)), verbose=0)
    return model


KERAS_MODELS = {
    "sequential": _keras_sequential,
    "trained": _keras_trained,
    "recurrent": _keras_recurrent,
    "functional": _keras_functional,
    "subclassed": _keras_subclassed,
}


def _keras_of(lib):
    return pytest.importorskip("tf_keras.api._v1.keras") if _is_tf(lib) else gc.keras


def _keras_save(lib, build, prefix, restore_from=None):
    """Builds the model, restores ``restore_from`` if given, and saves it."""
    with _graph(lib).as_default():
        keras = _keras_of(lib)
        model = build(keras)
        ckpt = lib.train.Checkpoint(model=model)
        if getattr(model, "optimizer", None) is not None:
            ckpt.optimizer = model.optimizer
        with keras.backend.get_session() as sess:
            if restore_from is None:
                sess.run(lib.global_variables_initializer())
            else:
                status = ckpt.restore(restore_from).assert_consumed()
                status.initialize_or_restore(sess)
            return ckpt.save(prefix, session=sess)


def _tensors(path):
    reader = tf1.train.load_checkpoint(path)
    return {k: reader.get_tensor(k) for k in reader.get_variable_to_shape_map()
            if k not in (OBJECT_GRAPH_KEY, "save_counter/.ATTRIBUTES/VARIABLE_VALUE")}


@pytest.mark.parametrize("name", sorted(KERAS_MODELS))
def test_keras_checkpoints_interchange(name, tmp_path, tf_control_flow_v1):
    build = KERAS_MODELS[name]
    gc_path = _keras_save(gc, build, str(tmp_path / "gc" / "ckpt"))
    tf_path = _keras_save(tf1, build, str(tmp_path / "tf" / "ckpt"))
    assert _object_graph(gc_path)[1] == _object_graph(tf_path)[1]
    gc_values, tf_values = _tensors(gc_path), _tensors(tf_path)
    assert sorted(gc_values) == sorted(tf_values)
    # Each side restores the other's checkpoint and saves the same values again.
    for lib, path, want in ((tf1, gc_path, gc_values), (gc, tf_path, tf_values)):
        again = _tensors(_keras_save(lib, build, str(tmp_path / "again" / "ckpt"), path))
        for key, value in want.items():
            np.testing.assert_array_equal(again[key], value, err_msg=key)


def _name_based(lib, directory, with_save_counter):
    """Restores a tf.train.Saver checkpoint (with or without a ``save_counter`` variable)
    through Checkpoint.restore: matched by variable names."""
    with _graph(lib).as_default():
        x = lib.Variable([1.0, 2.0], name="x")
        opt = lib.train.AdamOptimizer(0.1)
        train = opt.minimize(lib.reduce_sum(x * x))
        if with_save_counter:
            lib.train.Checkpoint(x=x).save_counter  # noqa: B018 - creates the variable
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(train)
            path = lib.train.Saver().save(sess, os.path.join(directory, "model"))
    out = []
    with _graph(lib).as_default():
        x = lib.Variable([0.0, 0.0], name="x")
        opt = lib.train.AdamOptimizer(0.1)
        opt.minimize(lib.reduce_sum(x * x))
        ckpt = lib.train.Checkpoint(x=x, opt=opt)
        status = ckpt.restore(path)
        out.append(type(status).__name__)
        out.append(_outcome(status.assert_consumed))
        with lib.Session() as sess:
            outcome = _outcome(functools.partial(status.run_restore_ops, sess))
            out.append((outcome[0], outcome[1].splitlines()[0] if outcome[1] else None))
            out.append(_outcome(status.assert_consumed))
            if outcome[0] == "ok":
                out.append(_outcome(lambda: sess.run([x, opt.get_slot(x, "m")])))
    return out


@pytest.mark.parametrize("with_save_counter", [False, True])
def test_restore_name_based_checkpoint(with_save_counter, tmp_path):
    want = _name_based(tf1, str(tmp_path / "tf"), with_save_counter)
    assert _name_based(gc, str(tmp_path / "gc"), with_save_counter) == want
    assert want[2][0] == ("ok" if with_save_counter else "NotFoundError")



def _initializer_after_restore(lib, directory):
    """A Keras layer built after restore, initialized by global_variables_initializer
    alone: its initial value and a zero save counter (graph mode's restore-on-create runs
    through the status only), then the checkpoint's values from run_restore_ops."""
    keras = _keras_of(lib)

    def build():
        model = keras.Sequential([keras.layers.Dense(2, kernel_initializer="ones")])
        return model, lib.train.Checkpoint(model=model)

    with _graph(lib).as_default():
        model, ckpt = build()
        model(lib.ones([1, 3]))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            sess.run(model.weights[0].assign(lib.fill([3, 2], 7.0)))
            path = ckpt.save(os.path.join(directory, "ckpt"), session=sess)
    with _graph(lib).as_default():
        model, ckpt = build()
        status = ckpt.restore(path)
        model(lib.ones([1, 3]))
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            before = sess.run([model.weights[0], ckpt.save_counter])
            status.run_restore_ops(sess)
            after = sess.run([model.weights[0], ckpt.save_counter])
    return [np.asarray(x).tolist() for x in before + after]


def test_initializers_after_restore(tmp_path):
    want = _initializer_after_restore(tf1, str(tmp_path / "tf"))
    assert want == [[[1.0, 1.0]] * 3, 0, [[7.0, 7.0]] * 3, 1]
    assert _initializer_after_restore(gc, str(tmp_path / "gc")) == want
