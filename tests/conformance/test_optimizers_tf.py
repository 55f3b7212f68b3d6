"""Reference tier: the TF1 optimizers against TensorFlow's compat.v1 (ref variables, graph
mode): loss curves of a fixed linear regression, the graph apply_gradients builds
(names, types, inputs, colocation), slots and the training ops' numerics.  Skipped when
TensorFlow is not installed."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.kernels import training_kernels  # noqa: E402, F401 - registers the kernels
from graphcore.ops import math_ops  # noqa: E402
from graphcore.train import (  # noqa: E402
    adadelta,
    adagrad,
    adagrad_da,
    adam,
    ftrl,
    gradient_descent,
    momentum,
    proximal_adagrad,
    proximal_gradient_descent,
    rmsprop,
    training_util,
)

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

_RNG = np.random.default_rng(1234)
X = _RNG.normal(size=(32, 4)).astype(np.float32)
TRUE_W = np.array([[0.5], [-1.0], [2.0], [0.25]], np.float32)
Y = (X @ TRUE_W + 0.1 * _RNG.normal(size=(32, 1)) + 0.7).astype(np.float32)
W_INIT = np.array([[0.1], [0.2], [-0.3], [0.4]], np.float32)
B_INIT = np.array([0.05], np.float32)

# graphcore's optimizer classes, by TF's name.
OURS = {
    "GradientDescentOptimizer": gradient_descent.GradientDescentOptimizer,
    "MomentumOptimizer": momentum.MomentumOptimizer,
    "AdagradOptimizer": adagrad.AdagradOptimizer,
    "AdamOptimizer": adam.AdamOptimizer,
    "RMSPropOptimizer": rmsprop.RMSPropOptimizer,
    "FtrlOptimizer": ftrl.FtrlOptimizer,
    "AdadeltaOptimizer": adadelta.AdadeltaOptimizer,
    "ProximalGradientDescentOptimizer": proximal_gradient_descent.ProximalGradientDescentOptimizer,
    "ProximalAdagradOptimizer": proximal_adagrad.ProximalAdagradOptimizer,
    "AdagradDAOptimizer": adagrad_da.AdagradDAOptimizer,
}

CASES = {
    "sgd": ("GradientDescentOptimizer", dict(learning_rate=0.05)),
    "momentum": ("MomentumOptimizer", dict(learning_rate=0.02, momentum=0.9)),
    "nesterov": ("MomentumOptimizer", dict(learning_rate=0.02, momentum=0.9,
                                           use_nesterov=True)),
    "adagrad": ("AdagradOptimizer", dict(learning_rate=0.3)),
    "adam": ("AdamOptimizer", dict(learning_rate=0.05)),
    "rmsprop": ("RMSPropOptimizer", dict(learning_rate=0.01)),
    "rmsprop_centered": ("RMSPropOptimizer", dict(learning_rate=0.01, momentum=0.5,
                                                  centered=True)),
    "ftrl": ("FtrlOptimizer", dict(learning_rate=0.3)),
    "ftrl_l1_l2_beta": ("FtrlOptimizer", dict(learning_rate=0.3, l1_regularization_strength=0.01,
                                               l2_regularization_strength=0.02, beta=0.1)),
    "ftrl_shrinkage_power": ("FtrlOptimizer", dict(
        learning_rate=0.3, learning_rate_power=-0.6, l1_regularization_strength=0.001,
        l2_shrinkage_regularization_strength=0.01, accum_name="acc", linear_name="lin")),
    "adadelta": ("AdadeltaOptimizer", dict(learning_rate=1.0, rho=0.9, epsilon=1e-6)),
    "proximal_sgd": ("ProximalGradientDescentOptimizer", dict(learning_rate=0.05)),
    "proximal_sgd_l1_l2": ("ProximalGradientDescentOptimizer", dict(
        learning_rate=0.05, l1_regularization_strength=0.01, l2_regularization_strength=0.01)),
    "proximal_adagrad": ("ProximalAdagradOptimizer", dict(learning_rate=0.3)),
    "proximal_adagrad_l1_l2": ("ProximalAdagradOptimizer", dict(
        learning_rate=0.3, l1_regularization_strength=0.01, l2_regularization_strength=0.01)),
    "adagrad_da": ("AdagradDAOptimizer", dict(learning_rate=0.3)),
    "adagrad_da_l1_l2": ("AdagradDAOptimizer", dict(
        learning_rate=0.3, l1_regularization_strength=0.001, l2_regularization_strength=0.01)),
}


def _optimizer(lib, cls_name, kwargs):
    if cls_name == "AdagradDAOptimizer":
        kwargs = dict(kwargs, global_step=_global_step(lib))
    if lib is tf:
        return OURS[cls_name](**kwargs)
    return getattr(tf1.train, cls_name)(**kwargs)


def _variable(lib, value, name, **kwargs):
    if lib is tf:
        return tf.Variable(value, name=name, **kwargs)
    return tf1.Variable(value, name=name, use_resource=False, **kwargs)


def _global_step(lib):
    if lib is tf:
        return training_util.get_or_create_global_step()
    return tf1.train.get_or_create_global_step()


@pytest.fixture(autouse=True)
def _tf_ref_variables():
    """TF's get_variable makes ref variables (as in TF1) while these tests run."""
    tf1.disable_resource_variables()
    yield
    tf1.enable_resource_variables()


def _loss_curve(lib, cls_name, kwargs, steps=50):
    mod = tf if lib is tf else tf1
    graph = tf.Graph() if lib is tf else tf1.Graph()
    with graph.as_default():
        x = mod.constant(X)
        y = mod.constant(Y)
        w = _variable(lib, W_INIT, "w")
        b = _variable(lib, B_INIT, "b")
        loss = mod.reduce_mean(mod.square(mod.matmul(x, w) + b - y))
        step = _global_step(lib)
        train = _optimizer(lib, cls_name, kwargs).minimize(loss, global_step=step)
        init = mod.global_variables_initializer()
        with mod.Session(graph=graph) as sess:
            sess.run(init)
            losses = []
            for _ in range(steps):
                losses.append(sess.run([train, loss])[1])
            return np.array(losses), sess.run([w, b]), sess.run(step)


@pytest.mark.parametrize("case", sorted(CASES))
def test_loss_curve_matches_tf(case):
    cls_name, kwargs = CASES[case]
    ours, (w, b), step = _loss_curve(tf, cls_name, kwargs)
    ref, (ref_w, ref_b), ref_step = _loss_curve(tf_ref, cls_name, kwargs)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(w, ref_w, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(b, ref_b, rtol=1e-4, atol=1e-5)
    assert step == ref_step == 50
    assert ours[-1] < ours[0]


# -- IndexedSlices gradients (embedding lookups) -----------------------------------------

EMB_INIT = _RNG.normal(size=(6, 3)).astype(np.float32)
IDS = np.array([[0, 2, 2], [5, 1, 2]], np.int32)
TARGET = _RNG.normal(size=(2, 3, 1)).astype(np.float32)


def _sparse_train(lib, cls_name, kwargs, use_resource, steps=6):
    """Trains an embedding table (IndexedSlices gradient, repeated ids) and a dense
    projection; returns both variables and every slot after ``steps`` steps."""
    mod = tf if lib is tf else tf1
    graph = tf.Graph() if lib is tf else tf1.Graph()
    with graph.as_default():
        emb = mod.Variable(EMB_INIT, name="emb", use_resource=use_resource)
        w = mod.Variable(W_INIT[:3], name="w", use_resource=use_resource)
        looked_up = mod.nn.embedding_lookup(emb, IDS)
        pred = mod.reshape(mod.matmul(mod.reshape(looked_up, [-1, 3]), w), [2, 3, 1])
        loss = mod.reduce_sum(mod.square(pred - TARGET))
        step = _global_step(lib)
        opt = _optimizer(lib, cls_name, kwargs)
        train = opt.minimize(loss, global_step=step)
        slots = [opt.get_slot(v, n) for v in (emb, w) for n in opt.get_slot_names()]
        with mod.Session(graph=graph) as sess:
            sess.run(mod.global_variables_initializer())
            for _ in range(steps):
                sess.run(train)
            return sess.run([emb, w] + slots)


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_gradients_match_tf(case, use_resource):
    cls_name, kwargs = CASES[case]
    ours = _sparse_train(tf, cls_name, kwargs, use_resource)
    theirs = _sparse_train(tf_ref, cls_name, kwargs, use_resource)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-6)


# -- the graph apply_gradients builds -------------------------------------------------------

def _apply_graph(lib, cls_name, kwargs, with_step=True):
    """GraphDef (as TF's proto) of apply_gradients on two variables, placeholder grads."""
    mod = tf if lib is tf else tf1
    graph = tf.Graph() if lib is tf else tf1.Graph()
    with graph.as_default():
        w = _variable(lib, W_INIT, "w")
        with mod.name_scope("layer"):
            b = _variable(lib, B_INIT, "b")
        gw = mod.placeholder(mod.float32, [4, 1], name="gw")
        gb = mod.placeholder(mod.float32, [1], name="gb")
        step = _global_step(lib) if with_step else None
        opt = _optimizer(lib, cls_name, kwargs)
        train = opt.apply_gradients([(gw, w), (gb, b)], global_step=step)
        slots = {(v.op.name, s): opt.get_slot(v, s).op.name
                 for v in (w, b) for s in opt.get_slot_names()}
        names = sorted(v.op.name for v in opt.variables())
        gd = graph.as_graph_def()
    if lib is tf:
        gd = tf_ref.compat.v1.GraphDef.FromString(gd.SerializeToString())
    return gd, train.name, opt.get_slot_names(), slots, names


# TF 2.x bookkeeping (for tf.function's automatic control dependencies), not TF1 graph
# semantics; graphcore does not write it (as in test_graph_tf.py).
TF_INTERNAL_ATTRS = frozenset({"_has_manual_control_dependencies"})


def _node_summary(node):
    attrs = {}
    for key, value in node.attr.items():
        if key in TF_INTERNAL_ATTRS:
            continue
        if key == "value":
            attrs[key] = tf_ref.make_ndarray(value.tensor).tolist()
        else:
            attrs[key] = value.SerializeToString(deterministic=True)
    return node.op, list(node.input), node.device, attrs


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("with_step", [True, False])
def test_apply_gradients_graph_matches_tf(case, with_step):
    cls_name, kwargs = CASES[case]
    ours = _apply_graph(tf, cls_name, kwargs, with_step)
    ref = _apply_graph(tf_ref, cls_name, kwargs, with_step)
    assert ours[1:] == ref[1:]
    our_nodes = {n.name: _node_summary(n) for n in ours[0].node}
    ref_nodes = {n.name: _node_summary(n) for n in ref[0].node}
    assert sorted(our_nodes) == sorted(ref_nodes)
    for name in ref_nodes:
        assert our_nodes[name] == ref_nodes[name], name


def test_minimize_update_subgraph_matches_tf_for_gradient_descent():
    def build(lib):
        mod = tf if lib is tf else tf1
        graph = tf.Graph() if lib is tf else tf1.Graph()
        with graph.as_default():
            w = _variable(lib, W_INIT, "w")
            b = _variable(lib, B_INIT, "b")
            loss = mod.reduce_mean(mod.square(mod.matmul(mod.constant(X), w) + b - Y))
            step = _global_step(lib)
            opt = _optimizer(lib, "GradientDescentOptimizer", dict(learning_rate=0.1))
            train = opt.minimize(loss, global_step=step, name="train")
            nodes = {}
            for op in graph.get_operations():
                if op.name == "train" or op.name.startswith("train/"):
                    inputs = [t.name for t in op.inputs]
                    # Gradient tensors are named by tf.gradients; keep their op's type only.
                    inputs = [i if not i.startswith("gradients/") else "gradients"
                              for i in inputs]
                    nodes[op.name] = (op.type, inputs, sorted(c.name for c in op.control_inputs),
                                      op.get_attr("_class") if "_class" in op.node_def.attr
                                      else None)
            return train.name, nodes

    assert build(tf) == build(tf_ref)


# -- training ops' numerics ---------------------------------------------------------------

def _raw_update(lib, op_type, refs, values, attrs, steps=3):
    """Runs op_type on ref variables initialized to ``refs`` ``steps`` times; returns the
    final values of the refs."""
    mod = tf if lib is tf else tf1
    graph = tf.Graph() if lib is tf else tf1.Graph()
    with graph.as_default():
        variables = {k: _variable(lib, v, k) for k, v in refs.items()}
        kwargs = {k: v._ref() for k, v in variables.items()}
        kwargs.update({k: mod.constant(v) for k, v in values.items()})
        kwargs.update(attrs)
        if lib is tf:
            from graphcore.framework.op_def_library import apply_op

            out = apply_op(op_type, **kwargs).outputs[0]
        else:
            out = getattr(tf_ref.raw_ops, op_type)(**kwargs)
        with mod.Session(graph=graph) as sess:
            sess.run(mod.global_variables_initializer())
            for _ in range(steps):
                sess.run(out.op)
            return sess.run(list(variables.values()))


_R = np.random.default_rng(5)
_V = _R.normal(size=(3, 5)).astype(np.float32)
_G = _R.normal(size=(3, 5)).astype(np.float32)
_POS = np.abs(_R.normal(size=(3, 5))).astype(np.float32) + 0.1
S = np.float32

RAW_CASES = {
    "ApplyGradientDescent": (dict(var=_V), dict(alpha=S(0.1), delta=_G), {}),
    "ApplyMomentum": (dict(var=_V, accum=_G * 0.5), dict(lr=S(0.1), grad=_G, momentum=S(0.9)),
                      dict(use_nesterov=True)),
    "ApplyAdagrad": (dict(var=_V, accum=_POS), dict(lr=S(0.1), grad=_G), {}),
    "ApplyAdagradV2": (dict(var=_V, accum=_POS), dict(lr=S(0.1), epsilon=S(1e-3), grad=_G), {}),
    "ApplyAdam": (dict(var=_V, m=_G * 0.1, v=_POS), dict(
        beta1_power=S(0.9 ** 3), beta2_power=S(0.999 ** 3), lr=S(0.01), beta1=S(0.9),
        beta2=S(0.999), epsilon=S(1e-7), grad=_G), dict(use_nesterov=True)),
    "ApplyRMSProp": (dict(var=_V, ms=_POS, mom=_G * 0.1), dict(
        lr=S(0.01), rho=S(0.9), momentum=S(0.5), epsilon=S(1e-6), grad=_G), {}),
    "ApplyCenteredRMSProp": (dict(var=_V, mg=_G * 0.01, ms=_POS, mom=_G * 0.1), dict(
        lr=S(0.01), rho=S(0.9), momentum=S(0.5), epsilon=S(1e-6), grad=_G), {}),
    "ApplyFtrl": (dict(var=_V, accum=_POS, linear=_G * 0.1), dict(
        grad=_G, lr=S(0.2), l1=S(0.05), l2=S(0.1), lr_power=S(-0.7)),
        dict(multiply_linear_by_lr=True)),
    "ApplyFtrlV2": (dict(var=_V, accum=_POS, linear=_G * 0.1), dict(
        grad=_G, lr=S(0.2), l1=S(0.05), l2=S(0.1), l2_shrinkage=S(0.03), lr_power=S(-0.5)), {}),
    "ApplyAdadelta": (dict(var=_V, accum=_POS, accum_update=_POS * 0.5), dict(
        lr=S(0.5), rho=S(0.9), epsilon=S(1e-6), grad=_G), {}),
    "ApplyProximalGradientDescent": (dict(var=_V), dict(
        alpha=S(0.1), l1=S(0.2), l2=S(0.1), delta=_G), {}),
    "ApplyProximalAdagrad": (dict(var=_V, accum=_POS), dict(
        lr=S(0.1), l1=S(0.05), l2=S(0.1), grad=_G), {}),
    "ApplyAdagradDA": (dict(var=_V, gradient_accumulator=_G, gradient_squared_accumulator=_POS),
                       dict(grad=_G, lr=S(0.1), l1=S(0.05), l2=S(0.1),
                            global_step=np.int64(7)), {}),
}


@pytest.mark.parametrize("op_type", sorted(RAW_CASES))
def test_training_op_numerics_match_tf(op_type):
    refs, values, attrs = RAW_CASES[op_type]
    ours = _raw_update(tf, op_type, refs, values, attrs)
    theirs = _raw_update(tf_ref, op_type, refs, values, attrs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _decay_values(lib, build, steps=(0, 7, 10, 25, 40)):
    """(op names, op types, values at ``steps``) of build(decay_module, step)."""
    from graphcore.train import learning_rate_decay

    mod = tf if lib is tf else tf1
    graph = tf.Graph() if lib is tf else tf1.Graph()
    with graph.as_default():
        step = mod.placeholder(mod.int64, [], name="step")
        outs = build(learning_rate_decay if lib is tf else tf1.train, step)
        names = [t.op.name for t in outs]
        types = [t.op.type for t in outs]
        with mod.Session(graph=graph) as sess:
            vals = [sess.run(outs, {step: s}) for s in steps]
        return names, types, np.array(vals)


def _compare_decay(build):
    ours, ref = _decay_values(tf, build), _decay_values(tf_ref, build)
    assert ours[:2] == ref[:2]
    assert ours[2].dtype == ref[2].dtype
    np.testing.assert_allclose(ours[2], ref[2], rtol=1e-6)


def test_exponential_and_inverse_time_decay_match_tf():
    _compare_decay(lambda lib, step: [
        lib.exponential_decay(0.1, step, 10, 0.5),
        lib.exponential_decay(0.1, step, 10, 0.5, name="lr"),
        lib.inverse_time_decay(0.1, step, 10, 0.5),
        lib.natural_exp_decay(0.1, step, 10, 0.5),
        lib.polynomial_decay(0.1, step, 20, end_learning_rate=0.01, power=2.0),
    ])


@pytest.mark.skipif(not hasattr(math_ops, "floor"), reason="needs math_ops.floor")
def test_staircase_decay_matches_tf():
    _compare_decay(lambda lib, step: [
        lib.exponential_decay(0.1, step, 10, 0.5, staircase=True),
        lib.inverse_time_decay(0.1, step, 10, 0.5, staircase=True),
    ])


def test_piecewise_constant_values_match_tf():
    def build(lib, step):
        return [lib.piecewise_constant(step, [5, 20], [1.0, 0.5, 0.1])]

    ours, ref = _decay_values(tf, build), _decay_values(tf_ref, build)
    np.testing.assert_allclose(ours[2], ref[2])
    np.testing.assert_allclose(ours[2].ravel(), [1.0, 0.5, 0.5, 0.1, 0.1], rtol=1e-7)


def test_cosine_family_decay_values_match_tf():
    def build(lib, step):
        return [lib.cosine_decay_restarts(0.1, step, 8),
                lib.cosine_decay_restarts(0.1, step, 8, t_mul=1.0, m_mul=0.5, alpha=0.1),
                lib.linear_cosine_decay(0.1, step, 30),
                lib.linear_cosine_decay(0.1, step, 30, num_periods=2.0, alpha=0.1, beta=0.01),
                lib.noisy_linear_cosine_decay(0.1, step, 30, initial_variance=0.0)]

    ours, ref = _decay_values(tf, build), _decay_values(tf_ref, build)
    assert ours[1][2:4] == ref[1][2:4]  # Mul named like the scope (the restarts use cond)
    assert ours[0][2:4] == ref[0][2:4] == ["LinearCosineDecay", "LinearCosineDecay_1"]
    assert ours[2].dtype == ref[2].dtype
    np.testing.assert_allclose(ours[2], ref[2], rtol=1e-5, atol=1e-7)
