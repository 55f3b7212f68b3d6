"""Reference tier: tf.train.ExponentialMovingAverage against TF's compat.v1 (ref and
resource variables, a tensor with zero-debiasing, num_updates): the averages' values
over several steps, the GraphDef ``apply`` builds, average_name and
variables_to_restore. Skipped when TensorFlow is not installed."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

TF_INTERNAL_ATTRS = frozenset({"_has_manual_control_dependencies"})


@pytest.fixture(autouse=True)
def _tf_ref_variables():
    """TF's slots of tensors are ref variables (as in TF1) while these tests run."""
    tf1.disable_resource_variables()
    yield
    tf1.enable_resource_variables()


def _build_and_run(lib, zero_debias, num_updates, use_resource, steps=4):
    mod = tf if lib is tf else tf1
    graph = mod.Graph()
    with graph.as_default():
        w = mod.Variable([[1.0, 2.0], [3.0, 4.0]], name="w", use_resource=use_resource)
        with mod.variable_scope("layer"):
            b = mod.Variable([0.5], name="b", use_resource=use_resource)
        other = mod.Variable(7.0, name="other", trainable=False, use_resource=use_resource)
        t = mod.reduce_sum(w) * 2.0
        step = mod.placeholder(mod.int64, [], name="step") if num_updates else None
        ema = (mod.train.ExponentialMovingAverage(0.9, num_updates=step,
                                                  zero_debias=zero_debias))
        before = ema.average_name(w)
        apply = ema.apply([w, b, t])
        bump = mod.group(mod.assign_add(w, [[1.0, -1.0], [0.5, 2.0]]),
                         mod.assign_add(b, [0.25]))
        names = (before, ema.average_name(w), ema.average_name(b), ema.average(t).op.name,
                 apply.name, sorted(ema.variables_to_restore()),
                 sorted((k, v.op.name) for k, v in ema.variables_to_restore().items()),
                 [v.op.name for v in mod.moving_average_variables()])
        averages = [ema.average(v) for v in (w, b, t)]
        gd = graph.as_graph_def()
        values = []
        with mod.Session(graph=graph) as sess:
            # The averages' initial values read the variables once they are initialized
            # (TF's cond races with the variables' own initializers in one run).
            sess.run(mod.variables_initializer([w, b]))
            sess.run(mod.global_variables_initializer())
            for i in range(steps):
                sess.run(apply, {step: i} if num_updates else None)
                sess.run(bump)
                values.append(sess.run(averages))
        del other
    if lib is tf:
        gd = tf1.GraphDef.FromString(gd.SerializeToString())
    return names, values, gd


def _nodes(gd):
    """The update ops (under the EMA's scope) and the variables; the averages' initial
    values are left out: TF 2 builds their cond with cond_v2."""
    out = {}
    for n in gd.node:
        if not (n.name.startswith("ExponentialMovingAverage")
                or n.op in ("VariableV2", "VarHandleOp")):
            continue
        attrs = {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()
                 if k not in TF_INTERNAL_ATTRS and k != "value"}
        out[n.name] = (n.op, list(n.input), n.device, attrs)
    return out


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("zero_debias, num_updates", [(False, False), (True, True)])
def test_exponential_moving_average_matches_tf(zero_debias, num_updates, use_resource):
    ours = _build_and_run(tf, zero_debias, num_updates, use_resource)
    theirs = _build_and_run(tf_ref, zero_debias, num_updates, use_resource)
    assert ours[0] == theirs[0]
    for mine, ref in zip(ours[1], theirs[1]):
        for a, b in zip(mine, ref):
            np.testing.assert_allclose(a, b, rtol=1e-6)
    if not use_resource:
        our_nodes, their_nodes = _nodes(ours[2]), _nodes(theirs[2])
        assert sorted(our_nodes) == sorted(their_nodes)
        for name in their_nodes:
            assert our_nodes[name] == their_nodes[name], name


def test_assign_non_float_variable_raises_type_error():
    with tf.Graph().as_default():
        v = tf.Variable(1, name="count")
        with pytest.raises(TypeError, match="The variables must be half, float, or double: "
                                            "count:0"):
            tf.train.ExponentialMovingAverage(0.9).apply([v])
