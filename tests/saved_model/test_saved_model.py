"""graphcore.saved_model without TensorFlow: builder, loader, simple_save, main ops."""

import numpy as np
import pytest

import graphcore as tf


def test_simple_save_then_load_serves_the_signature(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        y = tf.matmul(x, tf.Variable([[2.0], [3.0]], name="w"), name="y")
        sess.run(tf.global_variables_initializer())
        tf.saved_model.simple_save(sess, str(tmp_path / "m"), {"x": x}, {"y": y})
    assert tf.saved_model.contains_saved_model(str(tmp_path / "m"))
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], str(tmp_path / "m"))
        signature = meta.signature_def["serving_default"]
        assert signature.method_name == "tensorflow/serving/predict"
        assert list(meta.meta_info_def.tags) == ["serve"]
        out = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: [[1, 1]]})
    np.testing.assert_allclose(out, [[5.0]])


def test_main_op_runs_after_restore_and_text_format_loads(tmp_path):
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable(1.0, name="v")
        counter = tf.Variable(0, name="counter", collections=[tf.GraphKeys.LOCAL_VARIABLES])
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v, 7.0))
        builder = tf.saved_model.Builder(str(tmp_path / "m"))
        with tf.control_dependencies([tf.local_variables_initializer()]):
            main = tf.group(tf.assign_add(counter, 5))
        assert tf.saved_model.main_op.main_op().type == "NoOp"
        builder.add_meta_graph_and_variables(sess, ["a"], main_op=main)
        assert tf.saved_model.MAIN_OP_KEY in [k for k in tf.get_default_graph()
                                              .get_all_collection_keys()]
        builder.save(as_text=True)
    assert (tmp_path / "m" / "saved_model.pbtxt").exists()
    with tf.Graph().as_default(), tf.Session() as sess:
        tf.saved_model.loader.load(sess, ["a"], str(tmp_path / "m"))
        assert sess.run("v:0") == 7.0  # restored, not re-initialized
        assert sess.run("counter:0") == 5


def test_builder_and_loader_errors(tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.Builder(str(tmp_path / "full"))
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(OSError, match="SavedModel file does not exist"):
            tf.saved_model.loader.load(sess, ["serve"], str(tmp_path / "nothing"))
        builder = tf.saved_model.Builder(str(tmp_path / "new"))
        with pytest.raises(AssertionError, match="has not been saved yet"):
            builder.add_meta_graph(["serve"])
        with pytest.raises(ValueError, match="Prediction inputs cannot be None or empty"):
            tf.saved_model.predict_signature_def({}, {"y": tf.constant(1.0)})
