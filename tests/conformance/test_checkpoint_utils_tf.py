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


def test_cluster_def_is_tf_wire_compatible():
    ours = gc.train.ClusterDef(job=[gc.train.JobDef(name="ps", tasks={0: "a:1", 1: "b:2"})])
    theirs = tf1.train.ClusterDef.FromString(ours.SerializeToString())
    assert dict(theirs.job[0].tasks) == {0: "a:1", 1: "b:2"}
    assert theirs.job[0].name == "ps"
    back = gc.train.ClusterDef.FromString(theirs.SerializeToString())
    assert back == ours
