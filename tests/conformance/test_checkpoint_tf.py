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

import os

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


MODELS = {
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
            sess.run(lib.global_variables_initializer())
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
            return sess.run(variables + [ckpt.save_counter])


def _object_graph(path):
    reader = tf1.train.load_checkpoint(path)
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(reader.get_tensor(OBJECT_GRAPH_KEY))
    return reader, proto


@pytest.mark.parametrize("name", sorted(MODELS))
def test_checkpoints_interchange(name, tmp_path):
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
        if key != OBJECT_GRAPH_KEY:
            np.testing.assert_allclose(gc_reader.get_tensor(key), tf_reader.get_tensor(key),
                                       rtol=1e-6, err_msg=key)
    # Each side restores the other's checkpoint, save counter included.
    for got, want in zip(_restore(tf1, build, gc_path), gc_values + [1]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    for got, want in zip(_restore(gc, build, tf_path), tf_values + [1]):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with open(tmp_path / "gc" / "checkpoint") as f_gc, \
            open(tmp_path / "tf" / "checkpoint") as f_tf:
        assert f_gc.read() == f_tf.read()
