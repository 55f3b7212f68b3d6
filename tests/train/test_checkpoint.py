"""tf.train.Checkpoint, CheckpointManager and CheckpointOptions in graph mode, without
TensorFlow (tests/conformance/test_checkpoint_tf.py compares them with TF's)."""

import copy
import gc
import logging
import os

import numpy as np
import pytest

import graphcore as tf
from graphcore.protobuf import trackable_object_graph_pb2
from graphcore.train import trackable


def _object_graph(path):
    proto = trackable_object_graph_pb2.TrackableObjectGraph()
    proto.ParseFromString(tf.train.load_checkpoint(path).get_tensor(
        trackable.OBJECT_GRAPH_PROTO_KEY))
    return proto


def test_module_dependencies_in_assignment_order():
    with tf.Graph().as_default():
        m = tf.Module()
        m.d = {"b": tf.Variable(1.0), "a": tf.Variable(2.0), "c": 3, "l": [1, 2]}
        m.t = (tf.Variable(3.0), 4)
        m.ints = (1, 2)
        m.e = []
        m.s = "text"
        m._p = tf.Variable(5.0)
        assert list(trackable.children(m)) == ["d", "t", "e", "_p"]
        assert list(trackable.children(m.d)) == ["b", "a", "l"]
        assert list(trackable.children(m.t)) == ["0"]
        graph = trackable.object_graph(m)
        assert [graph.names[id(o)] for o in graph.objects] == [
            "", "d", "t", "e", "_p", "d/b", "d/a", "d/l", "t/0"]
        m.bad = {1: tf.Variable(0.0)}
        with pytest.raises(ValueError, match="non-string key"):
            trackable.object_graph(m)


def test_checkpoint_keys_escape_names(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        ckpt = tf.train.Checkpoint(**{"a.b/c": v})
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = ckpt.write(str(tmp_path / "w"), session=sess)
    assert path == str(tmp_path / "w")
    assert not os.path.exists(tmp_path / "checkpoint")  # write() records nothing
    keys = sorted(tf.train.load_checkpoint(path).get_variable_to_shape_map())
    assert keys == ["_CHECKPOINTABLE_OBJECT_GRAPH", "a..b.Sc/.ATTRIBUTES/VARIABLE_VALUE"]
    node = _object_graph(path).nodes[1]
    assert node.attributes[0].full_name == "v"
    assert node.has_checkpoint_values.value


def test_save_numbers_and_restore_creates_later_objects(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        m = tf.Module()
        m.w = tf.Variable([1.0, 2.0])
        m.late = tf.Variable(5.0)
        ckpt = tf.train.Checkpoint(model=m)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert ckpt.save(prefix, session=sess) == prefix + "-1"
            sess.run(m.w.assign([3.0, 4.0]))
            assert ckpt.save(prefix, session=sess) == prefix + "-2"
    assert tf.train.latest_checkpoint(str(tmp_path)) == prefix + "-2"
    with tf.Graph().as_default():
        m = tf.Module()
        m.w = tf.Variable([0.0, 0.0])
        ckpt = tf.train.Checkpoint(model=m)
        status = ckpt.restore(prefix + "-2")
        with pytest.raises(AssertionError, match=r"Unresolved object in checkpoint "
                                                 r"\(root\).model.late"):
            status.assert_consumed()
        status.assert_existing_objects_matched().assert_nontrivial_match()
        m.late = tf.Variable(0.0)  # created after restore: matched when the status runs
        with tf.Session() as sess:
            status.assert_consumed().run_restore_ops(sess)
            np.testing.assert_array_equal(sess.run(m.w), [3.0, 4.0])
            assert sess.run(m.late) == 5.0
            assert sess.run(ckpt.save_counter) == 2
            assert ckpt.save(prefix, session=sess) == prefix + "-3"


def test_initialize_or_restore(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        ckpt = tf.train.Checkpoint(a=a)
        with tf.Session() as sess:
            sess.run(a.initializer)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    with tf.Graph().as_default():
        a, b = tf.Variable(7.0), tf.Variable(8.0)
        ckpt = tf.train.Checkpoint(a=a, b=b)
        status = ckpt.restore(path)
        with pytest.raises(AssertionError, match="Found 1 Python objects that were not bound"):
            status.assert_existing_objects_matched()
        with tf.Session() as sess:
            status.initialize_or_restore(sess)
            assert sess.run([a, b, ckpt.save_counter]) == [1.0, 8.0, 1]
    with tf.Graph().as_default():
        a = tf.Variable(7.0)
        ckpt = tf.train.Checkpoint(a=a)
        status = ckpt.restore(None)
        for check in (status.assert_consumed, status.assert_existing_objects_matched,
                      status.assert_nontrivial_match):
            with pytest.raises(AssertionError, match="No checkpoint specified"):
                check()
        with tf.Session() as sess:
            with pytest.raises(AssertionError, match="no restore ops are available"):
                status.run_restore_ops(sess)
            status.initialize_or_restore(sess)
            assert sess.run([a, ckpt.save_counter]) == [7.0, 0]


def test_optimizer_slots_and_non_slot_variables(tmp_path):
    with tf.Graph().as_default():
        x = tf.Variable([1.0, 2.0], name="x")
        opt = tf.train.AdamOptimizer(0.1)
        train = opt.minimize(tf.reduce_sum(x * x))
        ckpt = tf.train.Checkpoint(opt=opt, x=x)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
            want = sess.run([x, opt.get_slot(x, "m"), opt.get_slot(x, "v")])
    keys = sorted(tf.train.load_checkpoint(path).get_variable_to_shape_map())
    assert keys == ["_CHECKPOINTABLE_OBJECT_GRAPH",
                    "opt/beta1_power/.ATTRIBUTES/VARIABLE_VALUE",
                    "opt/beta2_power/.ATTRIBUTES/VARIABLE_VALUE",
                    "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
                    "x/.ATTRIBUTES/VARIABLE_VALUE",
                    "x/.OPTIMIZER_SLOT/opt/m/.ATTRIBUTES/VARIABLE_VALUE",
                    "x/.OPTIMIZER_SLOT/opt/v/.ATTRIBUTES/VARIABLE_VALUE"]
    opt_node = _object_graph(path).nodes[1]
    assert [(s.slot_name, s.original_variable_node_id) for s in opt_node.slot_variables] == \
        [("m", 2), ("v", 2)]
    with tf.Graph().as_default():
        x = tf.Variable([0.0, 0.0], name="x")
        opt = tf.train.AdamOptimizer(0.1)
        ckpt = tf.train.Checkpoint(opt=opt, x=x)
        status = ckpt.restore(path)
        opt.minimize(tf.reduce_sum(x * x))  # the slots are made after restore
        with tf.Session() as sess:
            status.assert_consumed().run_restore_ops(sess)
            got = sess.run([x, opt.get_slot(x, "m"), opt.get_slot(x, "v")])
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_checkpoint_errors(tmp_path):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="was expecting a trackable object"):
            tf.train.Checkpoint(n=3)
        ckpt = tf.train.Checkpoint(v=tf.Variable(1.0))
        with pytest.raises(RuntimeError, match="without a default session"):
            ckpt.write(str(tmp_path / "x"))
        with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching"):
            ckpt.restore(str(tmp_path / "missing"))


def test_checkpoint_options():
    calls = []
    options = tf.train.CheckpointOptions(experimental_io_device="/cpu:0",
                                         experimental_write_callbacks=[calls.append])
    copied = copy.copy(options)
    copied.experimental_write_callbacks.append(lambda: calls.append("no-arg"))
    assert len(options.experimental_write_callbacks) == 1
    assert copied.experimental_io_device == "/cpu:0"
    assert not copied.enable_async and not options.experimental_skip_slot_variables
    with pytest.raises(ValueError, match="must be of type ShardingCallback"):
        tf.train.CheckpointOptions(experimental_sharding_callback=object())


def test_write_callbacks_and_io_device(tmp_path):
    calls = []
    options = tf.train.CheckpointOptions(
        experimental_io_device="/cpu:0",
        experimental_write_callbacks=[calls.append, lambda: calls.append("done")])
    with tf.Graph().as_default():
        v = tf.Variable(2.0)
        ckpt = tf.train.Checkpoint(v=v)
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = ckpt.write(str(tmp_path / "w"), session=sess, options=options)
    assert calls == [path, "done"]
    assert tf.train.load_variable(path, "v/.ATTRIBUTES/VARIABLE_VALUE") == 2.0


def test_manager_rotation_and_kept_checkpoints(tmp_path):
    directory = str(tmp_path)
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        ckpt = tf.train.Checkpoint(step=step)
        with pytest.raises(ValueError, match="positive integer or `None`"):
            tf.train.CheckpointManager(ckpt, directory, max_to_keep=0)
        with pytest.raises(ValueError, match="`step_counter` should be passed"):
            tf.train.CheckpointManager(ckpt, directory, 1, checkpoint_interval=2)
        with tf.Session() as sess:
            sess.run(step.initializer)
            # Every checkpoint leaving the active set is kept (each is "an hour" apart).
            manager = tf.train.CheckpointManager(ckpt, directory, max_to_keep=1,
                                                 keep_checkpoint_every_n_hours=1e-9)
            for _ in range(3):
                manager.save()
            assert [os.path.basename(p) for p in manager.checkpoints] == ["ckpt-3"]
            assert sorted(f for f in os.listdir(directory) if f.endswith(".index")) == [
                "ckpt-1.index", "ckpt-2.index", "ckpt-3.index"]
            state = tf.train.get_checkpoint_state(directory)
            assert len(state.all_model_checkpoint_timestamps) == 1
            assert state.last_preserved_timestamp > 0
            # Saves every 2 steps of the step counter only.
            interval = tf.train.CheckpointManager(
                ckpt, str(tmp_path / "interval"), max_to_keep=None, step_counter=step,
                checkpoint_interval=2)
            saved = []
            for _ in range(5):
                saved.append(interval.save() is not None)
                sess.run(step.assign_add(1))
            assert saved == [True, False, True, False, True]
            assert len(interval.checkpoints) == 3


def test_manager_restore_or_initialize(tmp_path):
    calls = []
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        ckpt = tf.train.Checkpoint(v=v)
        manager = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2,
                                             init_fn=lambda: calls.append("init"))
        assert manager.restore_or_initialize() is None and calls == ["init"]
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = manager.save(checkpoint_number=41)
        assert path == os.path.join(str(tmp_path), "ckpt-41")
        assert manager.latest_checkpoint == path and manager.directory == str(tmp_path)
        again = tf.train.CheckpointManager(ckpt, str(tmp_path), max_to_keep=2)
        assert again.restore_or_initialize() == path


def test_save_follows_reassigned_attributes(tmp_path):
    key = "m/v/.ATTRIBUTES/VARIABLE_VALUE"
    with tf.Graph().as_default():
        m = tf.Module()
        m.v = tf.Variable(1.0)
        ckpt = tf.train.Checkpoint(m=m)
        with tf.Session() as sess:
            sess.run(m.v.initializer)
            first = ckpt.write(str(tmp_path / "first"), session=sess)
            m.v = tf.Variable(2.0)  # the cached save op no longer saves this variable
            sess.run(m.v.initializer)
            second = ckpt.write(str(tmp_path / "second"), session=sess)
            status = ckpt.restore(first)
            status.run_restore_ops(sess)
            assert sess.run(m.v) == 1.0
    assert tf.train.load_variable(first, key) == 1.0
    assert tf.train.load_variable(second, key) == 2.0


def test_dropped_partial_restore_warns_unless_expected(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="tensorflow")
    with tf.Graph().as_default():
        a, b = tf.Variable(1.0), tf.Variable(2.0)
        ckpt = tf.train.Checkpoint(a=a, b=b)
        with tf.Session() as sess:
            sess.run([a.initializer, b.initializer])
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    for expect_partial in (False, True):
        caplog.clear()
        with tf.Graph().as_default():
            ckpt = tf.train.Checkpoint(a=tf.Variable(0.0))
            status = ckpt.restore(path)
            status.assert_existing_objects_matched()
            if expect_partial:
                status.expect_partial()
            del status
        gc.collect()  # (the status dies with the graph's reference cycles)
        messages = [r.getMessage() for r in caplog.records]
        if expect_partial:
            assert messages == []
        else:
            assert messages[0].startswith("Detecting that an object or model or "
                                          "tf.train.Checkpoint is being deleted")
            assert messages[1:] == [
                "Value in checkpoint could not be found in the restored object: (root).b"]


def test_keras_model_built_after_restore(tmp_path):
    def build():
        model = tf.keras.Sequential([tf.keras.layers.Dense(3), tf.keras.layers.Dense(1)])
        return model, tf.train.Checkpoint(model=model)

    with tf.Graph().as_default():
        model, ckpt = build()
        model(tf.ones([2, 4]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            want = sess.run(model.weights)
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    assert "model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE" in \
        tf.train.load_checkpoint(path).get_variable_to_shape_map()
    with tf.Graph().as_default():
        model, ckpt = build()
        status = ckpt.restore(path)  # before the layers have weights
        status.assert_existing_objects_matched()
        with pytest.raises(AssertionError, match="Unresolved object"):
            status.assert_consumed()
        model(tf.ones([2, 4]))
        with tf.Session() as sess:
            status.assert_consumed().initialize_or_restore(sess)
            got = sess.run(model.weights)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_static_table_dependencies(tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("a\nb\n")
    with tf.Graph().as_default():
        init = tf.lookup.TextFileInitializer(str(vocab), tf.string,
                                             tf.lookup.TextFileIndex.WHOLE_LINE, tf.int64,
                                             tf.lookup.TextFileIndex.LINE_NUMBER)
        table = tf.lookup.StaticHashTable(init, -1)
        ckpt = tf.train.Checkpoint(h=table)
        with tf.Session() as sess:
            status = ckpt.restore(None)
            status.initialize_or_restore(sess)  # runs the table's initializer too
            assert sess.run(table.lookup(tf.constant(["b", "c"]))).tolist() == [1, -1]
            path = ckpt.save(str(tmp_path / "ckpt"), session=sess)
    graph = _object_graph(path)
    # (root) -> h -> _initializer -> _filename, as TF's (the file is an Asset there).
    assert [[(c.local_name, c.node_id) for c in n.children] for n in graph.nodes] == [
        [("h", 1), ("save_counter", 2)], [("_initializer", 3)], [], [("_filename", 4)], []]
    assert [n.has_checkpoint_values.value for n in graph.nodes] == [
        True, False, True, False, False]
