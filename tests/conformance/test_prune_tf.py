"""Reference tier: which work a step runs, against TensorFlow (its graph optimizer drops
control edges whose only purpose is effect-free work nothing needs).

Each case is built with both libraries; the step either fails in both or in neither,
and the step stats list the same ops of interest.  Skipped without TensorFlow.
"""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _stateless_control_dep(lib):
    x = lib.placeholder(lib.float32, [None], name="x")
    bad = lib.reshape(x, [2], name="bad")  # fails for 3 elements, if it runs
    with lib.control_dependencies([bad]):
        out = lib.identity(x, name="out")
    return out


def _stateless_group(lib):
    x = lib.placeholder(lib.float32, [None], name="x")
    return lib.group(lib.reshape(x, [2], name="bad"), name="grp")


def _effect_behind_stateless(lib):
    x = lib.placeholder(lib.float32, [None], name="x")
    v = lib.Variable(0.0, name="v", use_resource=False) if lib is tf1 else \
        lib.Variable(0.0, name="v")
    inc = lib.assign_add(v, lib.reduce_sum(lib.reshape(x, [2], name="bad")), name="inc")
    with lib.control_dependencies([lib.identity(inc, name="after")]):
        out = lib.identity(x, name="out")
    return out


def _placeholder_behind_control_dep(lib):
    x = lib.placeholder(lib.float32, [None], name="x")
    lib.placeholder(lib.float32, [None], name="unfed")
    with lib.control_dependencies([lib.get_default_graph().get_tensor_by_name("unfed:0")]):
        out = lib.identity(x, name="out")
    return out


CASES = {
    "stateless control dependency": (_stateless_control_dep, False),
    "group of stateless work": (_stateless_group, False),
    "an update behind a stateless node": (_effect_behind_stateless, True),
    "an unfed placeholder behind a control dependency": (_placeholder_behind_control_dep,
                                                         True),
}


def _run(lib, build):
    with lib.Graph().as_default() as g:
        fetch = build(lib)
        init = lib.global_variables_initializer()
        with lib.Session() as sess:
            sess.run(init)
            try:
                sess.run(fetch, {g.get_tensor_by_name("x:0"): np.ones(3, np.float32)})
            except lib.errors.OpError as e:
                return type(e).__name__
    return None


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_step_fails_exactly_when_tf_does(case):
    build, fails = CASES[case]
    theirs = _run(tf1, build)
    ours = _run(tf, build)
    assert ours == theirs
    assert (ours is not None) == fails


def test_the_unused_input_gradient_of_a_matmul_is_not_computed():
    def build(lib):
        x = lib.placeholder(lib.float32, [None, 4], name="x")
        w = lib.Variable(np.ones((4, 3), np.float32), name="w")
        loss = lib.reduce_sum(lib.matmul(x, w))
        return lib.train.GradientDescentOptimizer(0.1).minimize(loss)

    ran = {}
    for name, lib in (("tf", tf1), ("graphcore", tf)):
        with lib.Graph().as_default() as g:
            train = build(lib)
            with lib.Session() as sess:
                sess.run(lib.global_variables_initializer())
                md = lib.RunMetadata()
                sess.run(train, {g.get_tensor_by_name("x:0"): np.ones((2, 4), np.float32)},
                         options=lib.RunOptions(trace_level=lib.RunOptions.FULL_TRACE),
                         run_metadata=md)
        ran[name] = sorted(ns.node_name for d in md.step_stats.dev_stats
                           for ns in d.node_stats if ns.node_name.endswith("MatMul")
                           or ns.node_name.endswith("MatMul_1"))
    assert "gradients/MatMul_grad/MatMul" not in ran["tf"]
    assert ran["graphcore"] == ran["tf"]
