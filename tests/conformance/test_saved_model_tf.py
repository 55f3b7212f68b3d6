"""Reference tier: TF1 SavedModels. What graphcore's builder writes TF loads (values,
signatures, assets moved with the directory, main op), what TF writes graphcore loads,
and the SignatureDef helpers and errors are TF's. Skipped without TensorFlow."""

import os
import shutil

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

X = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], np.float32)
W = np.arange(6, dtype=np.float32).reshape(3, 2)


def _export(lib, export_dir, asset_file):
    """A model y = x @ w + b with a string variable that the main op fills from an
    asset file, saved under two tag sets (serve with a Predict signature, and train)."""
    with lib.Graph().as_default(), lib.Session() as sess:
        x = lib.placeholder(lib.float32, [None, 3], name="x")
        w = lib.Variable(W, name="w")
        b = lib.Variable([0.5, -0.5], name="b")
        y = lib.add(lib.matmul(x, w), b, name="y")
        vocab = lib.constant(str(asset_file), name="vocab_path")
        lib.add_to_collection(lib.GraphKeys.ASSET_FILEPATHS, vocab)
        text = lib.Variable("", name="text")
        sess.run(lib.global_variables_initializer())
        main = lib.group(lib.assign(text, lib.read_file(vocab)), name="main_op")
        builder = lib.saved_model.Builder(str(export_dir))
        signature = lib.saved_model.predict_signature_def({"x": x}, {"y": y})
        builder.add_meta_graph_and_variables(
            sess, [lib.saved_model.SERVING], {"serving_default": signature},
            assets_collection=lib.get_collection(lib.GraphKeys.ASSET_FILEPATHS),
            main_op=main)
        builder.add_meta_graph([lib.saved_model.TRAINING], clear_devices=True)
        builder.save()


def _load(lib, export_dir, tags):
    with lib.Graph().as_default(), lib.Session() as sess:
        meta = lib.saved_model.loader.load(sess, tags, str(export_dir))
        if lib.saved_model.SERVING not in tags:
            return sess.run("y:0", {"x:0": X}), None, None
        signature = meta.signature_def["serving_default"]
        y = sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X})
        text = [v for v in lib.global_variables() if v.op.name == "text"]
        return y, sess.run(text[0]), signature.SerializeToString()


@pytest.mark.parametrize("writer", ["graphcore", "tf"])
def test_saved_model_written_by_one_loads_in_the_other(writer, tmp_path):
    asset = tmp_path / "vocab.txt"
    asset.write_bytes(b"alpha\nbeta\n")
    built = tmp_path / "built"
    _export(tf if writer == "graphcore" else tf1, built, asset)
    moved = tmp_path / "moved"
    shutil.move(built, moved)  # assets are found where the directory is now
    asset.unlink()
    assert sorted(os.listdir(moved)) == ["assets", "saved_model.pb", "variables"]
    assert os.listdir(moved / "assets") == ["vocab.txt"]
    expected = X @ W + np.array([0.5, -0.5], np.float32)
    ours, theirs = _load(tf, moved, ["serve"]), _load(tf1, moved, ["serve"])
    for y, text, _ in (ours, theirs):
        np.testing.assert_allclose(y, expected, rtol=1e-6)
        assert text == b"alpha\nbeta\n"
    assert ours[2] == theirs[2]  # the same SignatureDef bytes
    np.testing.assert_allclose(_load(tf, moved, ["train"])[0], expected, rtol=1e-6)
    np.testing.assert_allclose(_load(tf1, moved, ["train"])[0], expected, rtol=1e-6)


def test_simple_save_round_trip_and_signature_bytes(tmp_path):
    def build(lib, export_dir):
        with lib.Graph().as_default(), lib.Session() as sess:
            x = lib.placeholder(lib.float32, [None, 3], name="x")
            y = lib.nn.relu(lib.matmul(x, lib.Variable(W, name="w")), name="y")
            sess.run(lib.global_variables_initializer())
            lib.saved_model.simple_save(sess, str(export_dir), {"x": x}, {"y": y})
            return lib.saved_model.predict_signature_def({"x": x}, {"y": y})

    ours = build(tf, tmp_path / "ours")
    theirs = build(tf1, tmp_path / "tf")
    assert ours.SerializeToString() == theirs.SerializeToString()
    for directory in ("ours", "tf"):
        for lib in (tf, tf1):
            y, _, _ = _load_simple(lib, tmp_path / directory)
            np.testing.assert_allclose(y, np.maximum(X @ W, 0), rtol=1e-6)


def _load_simple(lib, export_dir):
    with lib.Graph().as_default(), lib.Session() as sess:
        meta = lib.saved_model.load(sess, [lib.saved_model.SERVING], str(export_dir))
        signature = meta.signature_def[lib.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY]
        return sess.run(signature.outputs["y"].name, {signature.inputs["x"].name: X}), \
            None, None


def _error(fn):
    try:
        fn()
    except Exception as e:  # the class is what is compared
        return type(e).__name__
    return None


def test_errors_and_signature_helpers_behave_as_tf(tmp_path):
    def cases(lib, root):
        with lib.Graph().as_default():
            examples = lib.placeholder(lib.string, [None], name="examples")
            scores = lib.placeholder(lib.float32, [None, 2], name="scores")
            classes = lib.placeholder(lib.string, [None, 2], name="classes")
            ints = lib.placeholder(lib.int32, [None], name="ints")
            sm = lib.saved_model
            (root / "full").mkdir(parents=True)
            (root / "full" / "file").write_text("x")
            out = {
                "non_empty_dir": _error(lambda: sm.Builder(str(root / "full"))),
                "no_model": _error(lambda: sm.loader.load(lib.Session(graph=lib.Graph()),
                                                          ["serve"], str(root / "none"))),
                "predict_empty": _error(lambda: sm.predict_signature_def({}, {"s": scores})),
                "regress_int": _error(lambda: sm.regression_signature_def(examples, ints)),
                "classify_none": _error(lambda: sm.classification_signature_def(
                    examples, None, None)),
                "contains": (sm.contains_saved_model(str(root / "full")),
                             sm.maybe_saved_model_directory(str(root))),
            }
            signatures = {
                "classify": sm.classification_signature_def(examples, classes, scores),
                "regress": sm.regression_signature_def(examples, scores[:, 0]),
                "predict": sm.predict_signature_def({"e": examples}, {"s": scores}),
                "bad": sm.build_signature_def({"e": sm.build_tensor_info(ints)},
                                              {"s": sm.build_tensor_info(scores)},
                                              sm.CLASSIFY_METHOD_NAME),
            }
            for key, signature in signatures.items():
                out[key] = (signature.SerializeToString(), sm.is_valid_signature(signature))
            builder = sm.Builder(str(root / "export"))
            out["add_before_variables"] = _error(lambda: builder.add_meta_graph(["serve"]))
            return out

    ours, theirs = cases(tf, tmp_path / "ours"), cases(tf1, tmp_path / "tf")
    assert ours == theirs


def test_loading_unknown_tags_is_a_runtime_error_naming_the_available_ones(tmp_path):
    asset = tmp_path / "vocab.txt"
    asset.write_bytes(b"a")
    _export(tf, tmp_path / "m", asset)
    with tf.Graph().as_default(), tf.Session() as sess:
        with pytest.raises(RuntimeError, match="could not be found in SavedModel, with "
                                               "available tags"):
            tf.saved_model.loader.load(sess, ["gpu"], str(tmp_path / "m"))
