"""tf.train.Saver and the V2 checkpoint format (graphcore/train/saver.py,
graphcore/train/checkpoint_format.py, graphcore/ops/io_ops.py,
graphcore/kernels/io_kernels.py)."""

import os
import subprocess
import sys
import textwrap

import ml_dtypes
import numpy as np
import pytest

import graphcore as tf
import graphcore.kernels.io_kernels  # noqa: F401 - kernel registrations
from graphcore.lib.io import checkpoint_format as fmt
from graphcore.train import saver as saver_lib

VALUES = {
    "f32": np.arange(6, dtype=np.float32).reshape(2, 3),
    "f64": np.array(2.5, dtype=np.float64),
    "f16": np.array([0.5, -1.0], dtype=np.float16),
    "bf16": np.array([1.5, 3.0], dtype=ml_dtypes.bfloat16),
    "i8": np.array([-1, 7], dtype=np.int8),
    "u8": np.array([[0, 255]], dtype=np.uint8),
    "i32": np.array([1, -2, 3], dtype=np.int32),
    "i64": np.array([2**40, -5], dtype=np.int64),
    "u16": np.array([65535], dtype=np.uint16),
    "c64": np.array([1 + 2j, -3j], dtype=np.complex64),
    "c128": np.array(1 - 1j, dtype=np.complex128),
    "flag": np.array([True, False, True]),
    "words": np.array([b"alpha", b"", b"\x00\xffbytes"], dtype=object),
    "word": np.array(b"scalar", dtype=object),
    "empty": np.zeros((0, 4), dtype=np.float32),
    "cube": np.arange(24, dtype=np.int32).reshape(2, 3, 4),
}


def _variables(values=VALUES):
    return {k: tf.Variable(v, name=k) for k, v in values.items()}


def _assert_same(got, want):
    got = np.asarray(got, dtype=object) if want.dtype == object else np.asarray(got)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    if want.dtype == object:
        assert list(got.reshape(-1)) == list(want.reshape(-1))
    else:
        np.testing.assert_array_equal(got, want)


def _zero_like(v):
    if v.dtype == object:
        return np.full(v.shape, b"?", dtype=object)
    return np.zeros_like(v)


# -- graph ---------------------------------------------------------------------------------


def test_graph_nodes_and_saver_def_match_tf1_names():
    v = tf.Variable([1.0, 2.0], name="v")
    tf.Variable(3, name="w")
    saver = tf.train.Saver()
    graph = tf.get_default_graph()
    nodes = {n.name: n for n in graph.as_graph_def().node if n.name.startswith("save")}
    assert list(nodes) == [
        "save/filename/input", "save/filename", "save/Const", "save/SaveV2/tensor_names",
        "save/SaveV2/shape_and_slices", "save/SaveV2", "save/control_dependency",
        "save/RestoreV2/tensor_names", "save/RestoreV2/shape_and_slices", "save/RestoreV2",
        "save/Assign", "save/Assign_1", "save/restore_all"]
    assert list(nodes["save/SaveV2"].input) == [
        "save/Const", "save/SaveV2/tensor_names", "save/SaveV2/shape_and_slices", "v", "w"]
    assert list(nodes["save/control_dependency"].input) == ["save/Const", "^save/SaveV2"]
    assert nodes["save/RestoreV2"].device == "/device:CPU:0"
    assert list(nodes["save/Assign_1"].input) == ["w", "save/RestoreV2:1"]
    assert list(nodes["save/restore_all"].input) == ["^save/Assign", "^save/Assign_1"]
    sd = saver.as_saver_def()
    assert (sd.filename_tensor_name, sd.save_tensor_name, sd.restore_op_name) == (
        "save/Const:0", "save/control_dependency:0", "save/restore_all")
    assert sd.max_to_keep == 5 and sd.version == tf.train.SaverDef.V2
    assert graph.get_operation_by_name("save/Assign").get_attr("_class") == [b"loc:@v"]
    assert v.name == "v:0"
    second = tf.train.Saver()
    assert second.saver_def.restore_op_name == "save_1/restore_all"


def test_no_variables_and_allow_empty(tmp_path):
    with pytest.raises(ValueError, match="No variables to save"):
        tf.train.Saver()
    saver = tf.train.Saver(allow_empty=True)
    with tf.Session() as sess:
        assert saver.save(sess, str(tmp_path / "m")) is None
        assert saver.restore(sess, str(tmp_path / "m")) is None
    assert os.listdir(tmp_path) == []


# -- round trips ---------------------------------------------------------------------------


def test_round_trip_all_dtypes_and_shapes(tmp_path):
    variables = _variables()
    saver = tf.train.Saver()
    prefix = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert saver.save(sess, prefix) == prefix
        assert sorted(os.listdir(tmp_path)) == [
            "checkpoint", "model.data-00000-of-00001", "model.index", "model.meta"]
        for k, v in variables.items():
            sess.run(v.assign(_zero_like(VALUES[k])))
        saver.restore(sess, prefix)
        for k, v in variables.items():
            _assert_same(sess.run(v), VALUES[k])
    reader = tf.train.load_checkpoint(prefix)
    assert sorted(reader.get_variable_to_shape_map()) == sorted(VALUES)
    assert reader.get_variable_to_shape_map()["cube"] == [2, 3, 4]
    assert reader.get_variable_to_dtype_map()["bf16"] == tf.bfloat16
    _assert_same(reader.get_tensor("i64"), VALUES["i64"])
    assert reader.get_tensor("word") == b"scalar"
    assert tf.train.list_variables(str(tmp_path))[0] == ("bf16", [2])
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "f32:0"), VALUES["f32"])


def test_restore_initializes_variables_in_a_fresh_session(tmp_path):
    v = tf.Variable([[1, 2], [3, 4]], name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = saver.save(sess, str(tmp_path / "m"))
    with tf.Session() as sess:
        assert not sess.run(tf.is_variable_initialized(v))
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(v), [[1, 2], [3, 4]])


def test_var_list_as_list_and_dict(tmp_path):
    a = tf.Variable([1.0], name="a")
    b = tf.Variable([2.0], name="scope/b")
    c = tf.Variable([3.0], name="c")
    list_saver = tf.train.Saver([b, a])
    dict_saver = tf.train.Saver({"renamed_a": a, "other": c})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        p1 = list_saver.save(sess, str(tmp_path / "list"), write_state=False)
        p2 = dict_saver.save(sess, str(tmp_path / "dict"), write_state=False)
        assert sorted(tf.train.load_checkpoint(p1).get_variable_to_shape_map()) == [
            "a", "scope/b"]
        assert sorted(tf.train.load_checkpoint(p2).get_variable_to_shape_map()) == [
            "other", "renamed_a"]
        assert not os.path.exists(tmp_path / "checkpoint")
        # Restore a's value from c's key: dict keys decide what is read.
        cross = tf.train.Saver({"other": a})
        cross.restore(sess, p2)
        assert sess.run(a)[0] == 3.0
        sess.run(b.assign([0.0]))
        list_saver.restore(sess, p1)
        assert sess.run([a, b]) == [[1.0], [2.0]]
    with pytest.raises(ValueError, match="two variables have the same name"):
        tf.train.Saver([a, a])
    with pytest.raises(TypeError):
        tf.train.Saver({"x": tf.constant(1.0)})


def test_reshape_restores_into_a_differently_shaped_variable(tmp_path):
    v = tf.Variable(np.arange(6.0, dtype=np.float32), name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    v = tf.Variable(np.zeros((2, 3), np.float32), name="v")
    with tf.Session() as sess:
        tf.train.Saver(reshape=True).restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(v), np.arange(6.0).reshape(2, 3))


# -- global step, max_to_keep and the checkpoint file --------------------------------------


def test_global_step_suffixes(tmp_path):
    step = tf.Variable(42, name="global_step", trainable=False)
    tf.Variable(1.0, name="x")
    saver = tf.train.Saver()
    base = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert saver.save(sess, base, global_step=7) == base + "-7"
        assert saver.save(sess, base, global_step=np.int64(8)) == base + "-8"
        assert saver.save(sess, base, global_step=step) == base + "-42"
        assert saver.save(sess, base, global_step=tf.constant(9) * 2) == base + "-18"
        assert saver.save(sess, base, global_step="global_step:0") == base + "-42"
        padded = tf.train.Saver(pad_step_number=True)
        assert padded.save(sess, base, global_step=3) == base + "-00000003"
    assert saver.last_checkpoints == [base + "-7", base + "-8", base + "-18", base + "-42"]


def test_max_to_keep_deletes_oldest_and_checkpoint_file(tmp_path):
    w = tf.Variable(0, name="w")
    saver = tf.train.Saver(max_to_keep=2)
    base = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(w.initializer)
        for step in range(4):
            sess.run(w.assign(step))
            saver.save(sess, base, global_step=step)
        assert saver.last_checkpoints == [base + "-2", base + "-3"]
        assert sorted(os.listdir(tmp_path)) == [
            "checkpoint", "model-2.data-00000-of-00001", "model-2.index", "model-2.meta",
            "model-3.data-00000-of-00001", "model-3.index", "model-3.meta"]
        text = (tmp_path / "checkpoint").read_text()
        assert text == (f'model_checkpoint_path: "{base}-3"\n'
                        f'all_model_checkpoint_paths: "{base}-2"\n'
                        f'all_model_checkpoint_paths: "{base}-3"\n')
        state = tf.train.get_checkpoint_state(str(tmp_path))
        assert state.model_checkpoint_path == base + "-3"
        assert list(state.all_model_checkpoint_paths) == [base + "-2", base + "-3"]
        assert tf.train.latest_checkpoint(str(tmp_path)) == base + "-3"
        assert tf.train.checkpoint_exists(base + "-2")
        assert not tf.train.checkpoint_exists(base + "-1")
        # Saving the same prefix again moves it to the end without a duplicate.
        saver.save(sess, base, global_step=2)
        assert saver.last_checkpoints == [base + "-3", base + "-2"]
        assert tf.train.latest_checkpoint(str(tmp_path)) == base + "-2"
        saver.restore(sess, base + "-3")
        assert sess.run(w) == 3


def test_max_to_keep_none_keeps_everything(tmp_path):
    tf.Variable(0, name="w")
    saver = tf.train.Saver(max_to_keep=None)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(7):
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert len([f for f in os.listdir(tmp_path) if f.endswith(".index")]) == 7
    assert saver.last_checkpoints == []
    state = tf.train.get_checkpoint_state(str(tmp_path))
    assert list(state.all_model_checkpoint_paths) == [str(tmp_path / "m-6")]


def test_keep_checkpoint_every_n_hours_preserves_old_checkpoints(tmp_path):
    tf.Variable(0, name="w")
    saver = tf.train.Saver(max_to_keep=1, keep_checkpoint_every_n_hours=1e-9)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, str(tmp_path / "m"), global_step=step)
    assert saver.last_checkpoints == [str(tmp_path / "m-2")]
    assert all(tf.train.checkpoint_exists(str(tmp_path / f"m-{i}")) for i in range(3))


def test_relative_paths_and_save_relative_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkdir("ckpt")
    tf.Variable(1.0, name="x")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, "ckpt/model", global_step=1)
        assert "model_checkpoint_path: \"model-1\"" in open("ckpt/checkpoint").read()
        assert tf.train.latest_checkpoint("ckpt") == os.path.join("ckpt", "model-1")
        os.mkdir("abs")
        tf.train.Saver(save_relative_paths=True).save(
            sess, str(tmp_path / "abs" / "m"), global_step=2)
        assert 'model_checkpoint_path: "m-2"' in (tmp_path / "abs" / "checkpoint").read_text()
        assert tf.train.latest_checkpoint(str(tmp_path / "abs")) == str(tmp_path / "abs/m-2")


def test_latest_checkpoint_without_state_or_files(tmp_path):
    assert tf.train.latest_checkpoint(str(tmp_path)) is None
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None
    tf.train.update_checkpoint_state(str(tmp_path), str(tmp_path / "gone"))
    assert tf.train.get_checkpoint_state(str(tmp_path)).model_checkpoint_path == str(
        tmp_path / "gone")
    assert tf.train.latest_checkpoint(str(tmp_path)) is None  # no files behind it
    assert os.listdir(tmp_path) == ["checkpoint"]  # no temporary file left
    (tmp_path / "checkpoint").write_text("not a { proto")
    assert tf.train.get_checkpoint_state(str(tmp_path)) is None


def test_recover_last_checkpoints(tmp_path):
    tf.Variable(1.0, name="x")
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(2):
            saver.save(sess, str(tmp_path / "m"), global_step=step)
        fresh = tf.train.Saver(max_to_keep=2)
        state = tf.train.get_checkpoint_state(str(tmp_path))
        fresh.recover_last_checkpoints(list(state.all_model_checkpoint_paths))
        assert fresh.last_checkpoints == saver.last_checkpoints
        fresh.save(sess, str(tmp_path / "m"), global_step=5)
        assert not tf.train.checkpoint_exists(str(tmp_path / "m-0"))


# -- other processes -----------------------------------------------------------------------


RESTORE_SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import graphcore as tf
    import graphcore.kernels.io_kernels  # noqa: F401
    a = tf.Variable(np.zeros((2, 3), np.float32), name="layer/a")
    b = tf.Variable(np.zeros(4, np.int64), name="layer/b")
    s = tf.Variable(np.array([b"", b""], dtype=object), name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        saver.restore(sess, tf.train.latest_checkpoint(sys.argv[1]))
        va, vb, vs = sess.run([a, b, s])
    np.save(sys.argv[1] + "/a.npy", va)
    np.save(sys.argv[1] + "/b.npy", vb)
    print(",".join(x.decode() for x in vs))
""")


def test_restore_in_a_new_process(tmp_path):
    rng = np.random.default_rng(0)
    a_val = rng.standard_normal((2, 3)).astype(np.float32)
    b_val = np.array([1, -2, 2**50, 4], np.int64)
    a = tf.Variable(a_val, name="layer/a")
    b = tf.Variable(b_val, name="layer/b")
    tf.Variable(np.array([b"hi", b"there"], dtype=object), name="s")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "model"), global_step=3)
        assert a is not None and b is not None
    script = tmp_path / "restore.py"
    script.write_text(RESTORE_SCRIPT)
    proc = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "hi,there"
    np.testing.assert_array_equal(np.load(tmp_path / "a.npy"), a_val)
    np.testing.assert_array_equal(np.load(tmp_path / "b.npy"), b_val)


# -- failures ------------------------------------------------------------------------------


class _Crash(OSError):
    pass


def _crash_after(monkeypatch, n_ok):
    real = fmt._write_chunk
    calls = [0]

    def failing(f, chunk):
        calls[0] += 1
        if calls[0] > n_ok:
            real(f, chunk[: len(chunk) // 2])  # a partial write, then the "crash"
            raise _Crash(5, "simulated crash")
        real(f, chunk)

    monkeypatch.setattr(fmt, "_write_chunk", failing)


@pytest.mark.parametrize("same_prefix", [False, True])
def test_crash_mid_save_keeps_previous_checkpoint(tmp_path, monkeypatch, same_prefix):
    big = tf.Variable(np.arange(1000, dtype=np.float64), name="big")
    small = tf.Variable([1, 2, 3], name="small")
    saver = tf.train.Saver()
    base = str(tmp_path / "model")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, base, global_step=None if same_prefix else 1)
        state_before = (tmp_path / "checkpoint").read_text()
        files_before = sorted(os.listdir(tmp_path))
        sess.run([big.assign(-np.ones(1000)), small.assign([7, 8, 9])])
        _crash_after(monkeypatch, 1)  # the first tensor is written, the second fails
        with pytest.raises(tf.errors.OpError, match="simulated crash"):
            saver.save(sess, base, global_step=None if same_prefix else 2)
        monkeypatch.undo()
        assert sorted(os.listdir(tmp_path)) == files_before  # no temporary files left
        assert (tmp_path / "checkpoint").read_text() == state_before
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        assert saver.last_checkpoints == [first]
        saver.restore(sess, first)
        np.testing.assert_array_equal(sess.run(big), np.arange(1000))
        assert list(sess.run(small)) == [1, 2, 3]
        # The session and the saver still work.
        sess.run(small.assign([4, 5, 6]))
        second = saver.save(sess, base, global_step=None if same_prefix else 2)
        sess.run(small.assign([0, 0, 0]))
        saver.restore(sess, second)
        assert list(sess.run(small)) == [4, 5, 6]


def test_crash_while_writing_state_file_keeps_old_state(tmp_path, monkeypatch):
    tf.Variable(1.0, name="x")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, str(tmp_path / "m"), global_step=1)
        real_replace = os.replace

        def failing_replace(src, dst):
            if os.path.basename(dst) == "checkpoint":
                raise _Crash(5, "simulated crash")
            real_replace(src, dst)

        monkeypatch.setattr(os, "replace", failing_replace)
        with pytest.raises(_Crash):
            saver.save(sess, str(tmp_path / "m"), global_step=2)
        monkeypatch.undo()
    assert tf.train.latest_checkpoint(str(tmp_path)) == first
    assert not [f for f in os.listdir(tmp_path) if "tempstate" in f]


def test_restore_missing_path_raises_not_found_and_session_survives(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver()
    missing = str(tmp_path / "nothere")
    with tf.Session() as sess:
        sess.run(v.initializer)
        with pytest.raises(tf.errors.NotFoundError,
                           match="The passed save_path is not a valid checkpoint: .*nothere"):
            saver.restore(sess, missing)
        with pytest.raises(ValueError):  # what TF 1.13+ raises: both work
            saver.restore(sess, missing)
        with pytest.raises(ValueError, match="save_path when it is None"):
            saver.restore(sess, None)
        # The RestoreV2 op itself: TF's NotFoundError message.
        with pytest.raises(tf.errors.NotFoundError,
                           match="Failed to find any matching files for .*nothere"):
            sess.run(saver.saver_def.restore_op_name,
                     {saver.saver_def.filename_tensor_name: missing})
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
        prefix = saver.save(sess, str(tmp_path / "ok"))
        saver.restore(sess, prefix)
    with pytest.raises(tf.errors.NotFoundError, match="Failed to find any matching files"):
        tf.train.NewCheckpointReader(missing)
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        (tmp_path / "empty").mkdir()
        tf.train.load_checkpoint(str(tmp_path / "empty"))


def test_restore_graph_mismatch_errors(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = tf.train.Saver().save(sess, str(tmp_path / "m"))
        missing_key = tf.train.Saver({"zz": v})
        with pytest.raises(tf.errors.NotFoundError,
                           match="(?s)Variable name or other graph key.*Key zz not found"):
            missing_key.restore(sess, prefix)
        wrong_shape = tf.Variable([1.0, 2.0, 3.0], name="w")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="(?s)mismatch between the current graph.*lhs shape= \\[3\\] "
                                 "rhs shape= \\[2\\]"):
            tf.train.Saver({"v": wrong_shape}).restore(sess, prefix)
        wrong_dtype = tf.Variable([1, 2], name="i")
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="expected dtype int32 does not equal original dtype float"):
            tf.train.Saver({"v": wrong_dtype}).restore(sess, prefix)
        assert list(sess.run(v)) == [1.0, 2.0]


def test_save_into_missing_directory(tmp_path):
    tf.Variable(1.0, name="x")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
            saver.save(sess, str(tmp_path / "no" / "such" / "model"))
        with pytest.raises(ValueError, match="collides"):
            saver.save(sess, str(tmp_path / "checkpoint"))
        assert saver.save(sess, str(tmp_path / "fine")).endswith("fine")
        # As TF's BundleWriter: the prefix's own directory is made, not its parents.
        assert saver.save(sess, str(tmp_path / "new" / "model")).endswith("new/model")
        assert (tmp_path / "new" / "model.index").exists()


def test_uninitialized_variable_save_fails_cleanly(tmp_path):
    tf.Variable(1.0, name="x")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
            saver.save(sess, str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def test_corrupted_data_is_data_loss(tmp_path):
    v = tf.Variable(np.arange(8, dtype=np.int32), name="v")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = saver.save(sess, str(tmp_path / "m"))
        data = tmp_path / "m.data-00000-of-00001"
        raw = bytearray(data.read_bytes())
        raw[3] ^= 0xFF
        data.write_bytes(bytes(raw))
        with pytest.raises(tf.errors.DataLossError, match="Checksum does not match"):
            saver.restore(sess, prefix)
        index = tmp_path / "m.index"
        index.write_bytes(b"\0" * 60)
        with pytest.raises(tf.errors.DataLossError):
            saver.restore(sess, prefix)


def test_sharded_saver(tmp_path):
    v = tf.Variable([1.0, 2.0], name="v")
    with tf.device("/cpu:0"):
        w = tf.Variable(np.array([b"a", b"bc"], dtype=object), name="w")
    saver = tf.train.Saver(sharded=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model"), global_step=1)
        assert prefix == str(tmp_path / "model-1")
        assert sorted(f for f in os.listdir(tmp_path) if f.startswith("model")) == [
            "model-1.data-00000-of-00002", "model-1.data-00001-of-00002", "model-1.index",
            "model-1.meta"]
        sess.run([v.assign([0.0, 0.0]), w.assign(np.array([b"", b""], dtype=object))])
        saver.restore(sess, prefix)
        assert list(sess.run(v)) == [1.0, 2.0]
        assert list(sess.run(w)) == [b"a", b"bc"]


# -- the format on its own -----------------------------------------------------------------


def test_table_round_trip_with_many_blocks():
    builder = fmt.TableBuilder(block_size=64)
    entries = [(f"key/{i:05d}".encode(), bytes([i % 256]) * (i % 7)) for i in range(500)]
    entries.insert(0, (b"", b"header"))
    for k, val in entries:
        builder.add(k, val)
    data = builder.finish()
    assert data[-8:] == bytes.fromhex("57fb808b247547db")
    assert fmt.read_table(data) == entries
    with pytest.raises(ValueError, match="out of order"):
        builder = fmt.TableBuilder()
        builder.add(b"b", b"")
        builder.add(b"a", b"")


def test_bundle_many_tensors_across_index_blocks(tmp_path, monkeypatch):
    monkeypatch.setattr(fmt, "BLOCK_SIZE", 128)
    values = {f"layer_{i:03d}/w": np.full((i % 4,), i, np.int16) for i in range(300)}
    writer = fmt.BundleWriter(str(tmp_path / "b"))
    for k, val in values.items():
        writer.add(k, val, tf.int16)
    writer.finish()
    reader = fmt.BundleReader(str(tmp_path / "b"))
    assert reader.keys() == sorted(values)
    for k, val in values.items():
        _assert_same(reader.read(k), val)
    assert reader.header.num_shards == 1 and reader.header.version.producer == 1


def test_bundle_writer_rejects_duplicates_and_cleans_up(tmp_path):
    writer = fmt.BundleWriter(str(tmp_path / "b"))
    writer.add("x", np.ones(2, np.float32), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate key: x"):
        writer.add("x", np.ones(2, np.float32), tf.float32)
    writer.abort()
    assert os.listdir(tmp_path) == []


def test_masked_crc_matches_tf_record_convention():
    from graphcore.summary.record_writer import masked_crc32c

    assert fmt.masked_crc32c(b"hello") == masked_crc32c(b"hello")
    assert fmt.unmask_crc(fmt.mask_crc(0x12345678)) == 0x12345678


def test_saver_module_exports():
    for name in ("Saver", "latest_checkpoint", "get_checkpoint_state",
                 "update_checkpoint_state", "checkpoint_exists", "load_checkpoint",
                 "NewCheckpointReader", "list_variables", "load_variable"):
        assert hasattr(saver_lib, name) and name in saver_lib.__all__
        assert getattr(tf.train, name) is getattr(saver_lib, name)


# -- partitioned variables ------------------------------------------------------------------

PARTITIONED = np.arange(30, dtype=np.float32).reshape(10, 3)


def _partitioned_graph(shards, var_list=None, sharded=False):
    """A graph with ``emb`` in ``shards`` shards (None: unpartitioned) and its Saver."""
    g = tf.Graph()
    with g.as_default():
        emb = tf.get_variable("emb", shape=[10, 3], initializer=tf.zeros_initializer(),
                              partitioner=tf.fixed_size_partitioner(shards) if shards
                              else None)
        saver = tf.train.Saver(var_list(emb) if var_list else None, sharded=sharded)
    return g, emb, saver


@pytest.mark.parametrize("var_list", [None, lambda v: [v], lambda v: {"emb": v},
                                      lambda v: list(v)],
                         ids=["default", "partitioned", "dict", "shards"])
@pytest.mark.parametrize("sharded", [False, True])
def test_partitioned_variables_restore_into_any_partitioning(tmp_path, var_list, sharded):
    g, emb, saver = _partitioned_graph(2, var_list, sharded)
    with tf.Session(graph=g) as sess:
        sess.run(emb.assign(PARTITIONED))
        prefix = saver.save(sess, str(tmp_path / "ck"), write_meta_graph=False)
    assert saver_lib.list_variables(prefix) == [("emb", [10, 3])]
    np.testing.assert_array_equal(saver_lib.load_variable(prefix, "emb"), PARTITIONED)
    for shards in (3, 1, None):
        g, emb, saver = _partitioned_graph(shards)
        with tf.Session(graph=g) as sess:
            saver.restore(sess, prefix)
            value = tf.convert_to_tensor(emb) if shards else emb
            np.testing.assert_array_equal(sess.run(value), PARTITIONED)


def test_restore_of_a_slice_checks_the_full_shape(tmp_path):
    g, emb, saver = _partitioned_graph(2)
    with tf.Session(graph=g) as sess:
        sess.run(emb.assign(PARTITIONED))
        prefix = saver.save(sess, str(tmp_path / "ck"), write_meta_graph=False)
    g = tf.Graph()
    with g.as_default():
        emb = tf.get_variable("emb", shape=[12, 3], partitioner=tf.fixed_size_partitioner(2))
        saver = tf.train.Saver()
    with tf.Session(graph=g) as sess, \
            pytest.raises(tf.errors.InvalidArgumentError, match="does not match the shape"):
        saver.restore(sess, prefix)


def test_slices_of_different_variables_under_one_name_are_rejected():
    with tf.Graph().as_default():
        a = tf.get_variable("a", [4], partitioner=tf.fixed_size_partitioner(2))
        b = tf.get_variable("b", [4], partitioner=tf.fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="Slices must all be from the same tensor"):
            tf.train.Saver({"x": [list(a)[0], list(b)[1]]})


def test_sharded_saver_merges_the_slices_of_shards_on_different_devices(tmp_path):
    """Each device's SaveV2 writes its shards' slices; MergeV2Checkpoints joins them into
    one full entry with all the slices."""
    g = tf.Graph()
    with g.as_default():
        with tf.device(lambda op: "/cpu:0" if op.name == "emb/part_1" else ""):
            emb = tf.get_variable("emb", shape=[10, 3], initializer=tf.zeros_initializer(),
                                  partitioner=tf.fixed_size_partitioner(2))
        assert [v.device for v in emb] == ["", "/device:CPU:0"]
        saver = tf.train.Saver(sharded=True)
    with tf.Session(graph=g) as sess:
        sess.run(emb.assign(PARTITIONED))
        prefix = saver.save(sess, str(tmp_path / "ck"), write_meta_graph=False)
    reader = fmt.BundleReader(prefix)
    assert reader.num_shards == 2 and len(reader.entry("emb").slices) == 2
    g, emb, saver = _partitioned_graph(3)
    with tf.Session(graph=g) as sess:
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(tf.convert_to_tensor(emb)), PARTITIONED)
