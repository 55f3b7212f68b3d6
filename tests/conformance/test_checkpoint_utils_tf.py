"""Reference tier: tf.train.init_from_checkpoint and tf.train.warm_start against TF's
compat.v1 (same checkpoint, same assignment maps: names, variables, scopes, the root),
their errors, and tf.train.ClusterDef/JobDef on the wire. Skipped when TensorFlow is not
installed."""

import numpy as np
import pytest

import graphcore as gc

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

VALUES = {"old/w": np.arange(6, dtype=np.float32).reshape(2, 3),
          "old/b": np.array([0.5, -1.0, 2.0], np.float32),
          "other": np.array(7.0, np.float32)}


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ckpt") / "model")
    with gc.Graph().as_default():
        variables = [gc.Variable(v, name=k) for k, v in VALUES.items()]
        with gc.Session() as sess:
            sess.run(gc.global_variables_initializer())
            gc.train.Saver(variables).save(sess, path)
    return path


def _run(lib, ckpt, setup):
    graph = lib.Graph()
    with graph.as_default():
        with lib.variable_scope("new"):
            w = lib.get_variable("w", [2, 3], initializer=lib.zeros_initializer())
            b = lib.get_variable("b", [3], initializer=lib.zeros_initializer())
        other = lib.get_variable("other", [], initializer=lib.zeros_initializer())
        setup(lib, ckpt, {"w": w, "b": b, "other": other})
        with lib.Session(graph=graph) as sess:
            sess.run(lib.global_variables_initializer())
            return sess.run([w, b, other])


SETUPS = {
    "names": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"old/w": "new/w", "other": "other"}),
    "variables": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"old/b": v["b"], "old/w": v["w"]}),
    "scope": lambda lib, ckpt, v: lib.train.init_from_checkpoint(ckpt, {"old/": "new/"}),
    "root_to_scope": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"old/": "new/", "other": v["other"]}),
    "warm_start_renames": lambda lib, ckpt, v: lib.train.warm_start(
        ckpt, ["new/"], var_name_to_prev_var_name={"new/w": "old/w", "new/b": "old/b"}),
    "warm_start_variables": lambda lib, ckpt, v: lib.train.warm_start(
        ckpt, [v["other"]]),
}


@pytest.mark.parametrize("case", sorted(SETUPS))
def test_initialized_values_match_tf(ckpt, case):
    ours = _run(gc, ckpt, SETUPS[case])
    theirs = _run(tf1, ckpt, SETUPS[case])
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


ERRORS = {
    "missing tensor": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"nope": "other"}),
    "bad shape": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"old/b": "new/w"}),
    "scope to name": lambda lib, ckpt, v: lib.train.init_from_checkpoint(
        ckpt, {"old/w": "new/"}),
    "unused rename": lambda lib, ckpt, v: lib.train.warm_start(
        ckpt, ["new/b"], var_name_to_prev_var_name={"new/x": "old/w", "new/b": "old/b"}),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(ckpt, case):
    with pytest.raises(ValueError) as ours:
        _run(gc, ckpt, ERRORS[case])
    with pytest.raises(ValueError) as theirs:
        _run(tf1, ckpt, ERRORS[case])
    assert str(ours.value).split(" ")[:4] == str(theirs.value).split(" ")[:4]


VOCAB_CASES = {
    "rows": dict(shape=[5, 3], info=dict(new_vocab_size=4, num_oov_buckets=1)),
    "rows_old_size": dict(shape=[4, 3], info=dict(new_vocab_size=4, num_oov_buckets=0,
                                                  old_vocab_size=2)),
    "cols": dict(shape=[3, 5], info=dict(new_vocab_size=4, num_oov_buckets=1, axis=1)),
    # Partitioned variables: each shard remaps its own rows (the last ones OOV buckets).
    "rows_3_shards": dict(shape=[5, 3], shards=3,
                          info=dict(new_vocab_size=4, num_oov_buckets=1)),
    "rows_6_shards": dict(shape=[6, 3], shards=6,
                          info=dict(new_vocab_size=4, num_oov_buckets=2)),
    "cols_2_shards": dict(shape=[3, 5], shards=2,
                          info=dict(new_vocab_size=4, num_oov_buckets=1, axis=1)),
}


@pytest.mark.parametrize("case", sorted(VOCAB_CASES))
def test_warm_start_with_vocab_matches_tf(tmp_path, case):
    (tmp_path / "old").write_text("a\nb\nc\n")
    (tmp_path / "new").write_text("c\nz\na\nb\n")
    spec = VOCAB_CASES[case]
    axis = spec["info"].get("axis", 0)
    old_shape = [3, 3]
    old_value = np.arange(9, dtype=np.float32).reshape(old_shape) + 1
    path = str(tmp_path / "model")
    with gc.Graph().as_default():
        gc.Variable(old_value if axis == 0 else old_value.T, name="m")
        with gc.Session() as sess:
            sess.run(gc.global_variables_initializer())
            gc.train.Saver().save(sess, path)
    results = []
    for lib in (gc, tf1):
        with lib.Graph().as_default():
            partitioner = lib.fixed_size_partitioner(spec["shards"]) if "shards" in spec \
                else None
            m = lib.get_variable("m", spec["shape"], initializer=lib.zeros_initializer(),
                                 partitioner=partitioner)
            info = lib.train.VocabInfo(str(tmp_path / "new"), old_vocab=str(tmp_path / "old"),
                                       backup_initializer=lib.ones_initializer(),
                                       **spec["info"])
            lib.train.warm_start(path, ["m"], var_name_to_vocab_info={"m": info})
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                results.append(sess.run(lib.convert_to_tensor(m)))
    np.testing.assert_array_equal(results[0], results[1])


def test_cluster_def_is_tf_wire_compatible():
    ours = gc.train.ClusterDef(job=[gc.train.JobDef(name="ps", tasks={0: "a:1", 1: "b:2"})])
    theirs = tf1.train.ClusterDef.FromString(ours.SerializeToString())
    assert dict(theirs.job[0].tasks) == {0: "a:1", 1: "b:2"}
    assert theirs.job[0].name == "ps"
    back = gc.train.ClusterDef.FromString(theirs.SerializeToString())
    assert back == ours
