"""Reference tier: TensorFlow restores a model from graphcore's .meta file and
checkpoint, and graphcore from TensorFlow's.  Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

X = np.array([[1.0, 0.5], [0.2, 1.0]], np.float32)


def _train_and_save(lib, prefix):
    """The same TF1 script under either library: train 3 steps, save with .meta."""
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [None, 2], name="x")
        # use_resource=False: TF 2.x's compat.v1 makes resource variables otherwise;
        # TF1 (and graphcore) make ref variables.
        w = lib.Variable(np.array([[1.0], [2.0]], np.float32), name="w", use_resource=False)
        step = lib.Variable(0, dtype=lib.int64, name="global_step", trainable=False,
                            use_resource=False, collections=[lib.GraphKeys.GLOBAL_VARIABLES,
                                                             lib.GraphKeys.GLOBAL_STEP])
        loss = lib.reduce_mean(lib.square(lib.matmul(x, w) - 1.0), name="loss")
        lib.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        saver = lib.train.Saver()
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            for _ in range(3):
                sess.run(lib.get_collection("train_op"), {x: X})
            return saver.save(sess, prefix, global_step=3), sess.run(w)


def _restore_and_step(lib, path):
    """Restore from path.meta + checkpoint; (w after restore, w and step after one more
    step of the collection's train op)."""
    with lib.Graph().as_default() as g:
        saver = lib.train.import_meta_graph(path + ".meta")
        with lib.Session() as sess:
            saver.restore(sess, path)
            (w,) = lib.trainable_variables()
            restored = sess.run(w)
            sess.run(lib.get_collection("train_op"), {g.get_tensor_by_name("x:0"): X})
            return restored, sess.run(w), sess.run(lib.train.get_global_step())


@pytest.mark.parametrize("writer,reader", [(tf, tf1), (tf1, tf)],
                         ids=["tf_reads_ours", "we_read_tfs"])
def test_meta_graph_and_checkpoint_restore_across_libraries(tmp_path, writer, reader):
    path, trained = _train_and_save(writer, str(tmp_path / "model"))
    restored, stepped, step = _restore_and_step(reader, path)
    np.testing.assert_array_equal(restored, trained)
    _, want, want_step = _restore_and_step(writer, path)
    np.testing.assert_allclose(stepped, want, rtol=1e-6)
    assert step == want_step == 4


def _loop_with_conds(lib):
    """A while loop with a cond in its body, and a cond after it; the MetaGraphDef."""
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [3], name="x")
        w = lib.Variable([1.0, 2.0, 3.0], name="w", use_resource=False)

        def body(i, acc):
            y = lib.cond(acc[0] > 5.0, lambda: acc * 0.5, lambda: acc * w + x)
            return i + 1, y

        _, out = lib.while_loop(lambda i, a: i < 4, body, (lib.constant(0), x),
                                maximum_iterations=10)
        z = lib.cond(lib.reduce_sum(out) > 0, lambda: out * 2.0, lambda: out)
        lib.reduce_sum(z * z, name="loss")
        return lib.train.export_meta_graph()


def _context_defs(meta):
    from tensorflow.core.protobuf import control_flow_pb2

    return ([control_flow_pb2.WhileContextDef.FromString(b)
             for b in meta.collection_def["while_context"].bytes_list.value],
            [control_flow_pb2.CondContextDef.FromString(b)
             for b in meta.collection_def["cond_context"].bytes_list.value])


def _gradients_of_imported(lib, serialized, scope):
    """Import the meta graph, build d loss / d (w, x) through the imported loop and
    conds, and run them for two inputs."""
    with lib.Graph().as_default() as g:
        meta = lib.MetaGraphDef.FromString(serialized)
        lib.train.import_meta_graph(meta, import_scope=scope)
        p = scope + "/" if scope else ""
        loss = g.get_tensor_by_name(p + "loss:0")
        x = g.get_tensor_by_name(p + "x:0")
        (w,) = lib.global_variables()
        grads = lib.gradients(loss, [w, x])
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            return [sess.run([loss, *grads], {x: v}) for v in ([0.5, -1.0, 2.0],
                                                               [3.0, 1.0, 1.0])]


@pytest.mark.usefixtures("tf_control_flow_v1")
def test_control_flow_contexts_export_as_tfs_and_import_for_gradients():
    ours, theirs = _loop_with_conds(tf), _loop_with_conds(tf1)
    # The while_context and cond_context collections hold the same protos as TF's
    # (the loop's values, enters, exits, pivots and its nested cond branches).
    assert _context_defs(ours) == _context_defs(theirs)
    assert len(_context_defs(ours)[1]) == 2
    want = _gradients_of_imported(tf1, theirs.SerializeToString(), None)
    for lib, meta in ((tf, ours), (tf, theirs), (tf1, ours)):
        for scope in (None, "imported"):
            got = _gradients_of_imported(lib, meta.SerializeToString(), scope)
            for g_step, w_step in zip(got, want):
                for a, b in zip(g_step, w_step):
                    np.testing.assert_allclose(a, b, rtol=1e-6)
