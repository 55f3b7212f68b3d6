"""Reference tier: nn and random ops against TensorFlow's compat.v1 (values, shapes, dtypes,
names, seed attrs).  Skipped when TensorFlow is not installed."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.framework.op_def_library import apply_op  # noqa: E402
from graphcore.ops import array_ops, math_ops  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(7)


def _needs(*names):
    missing = [n for n in names if not hasattr(math_ops, n) and not hasattr(array_ops, n)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {missing}")


def _raw(lib, op_type, **kwargs):
    """The outputs of one raw op built with graphcore or TF."""
    if lib is tf:
        outs = apply_op(op_type, **kwargs).outputs
    else:
        res = getattr(tf_ref.raw_ops, op_type)(**kwargs)
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
    return outs if len(outs) > 1 else outs[0]


def _both(build, feed=None):
    """(graphcore result, TF result, graphcore fetches, TF fetches) of build(lib)."""
    with tf.Graph().as_default():
        ours = build(tf)
        with tf.Session() as sess:
            got = sess.run(ours, feed(tf) if feed else None)
    with tf_ref.Graph().as_default():
        theirs = build(tf1)
        with tf1.Session() as sess:
            want = sess.run(theirs, feed(tf1) if feed else None)
    return got, want, ours, theirs


def _flat(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _check(build, rtol=1e-6, atol=1e-6, names=False):
    got, want, ours, theirs = _both(build)
    for g, w, o, t in zip(_flat(got), _flat(want), _flat(ours), _flat(theirs)):
        assert np.asarray(g).dtype == np.asarray(w).dtype
        assert np.shape(g) == np.shape(w)
        assert o.shape.as_list() == t.shape.as_list()
        assert o.dtype.name == t.dtype.name
        if names:
            assert o.name == t.name
        np.testing.assert_allclose(np.asarray(g, dtype=np.float64),
                                   np.asarray(w, dtype=np.float64), rtol=rtol, atol=atol)


X = RNG.normal(size=(3, 5)) * 3
IMG = RNG.normal(size=(2, 7, 6, 3))


@pytest.mark.parametrize("fn", ["relu", "relu6", "elu", "softplus", "softmax", "log_softmax",
                                "l2_loss"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_unary_nn_ops_match_tf(fn, dtype):
    tol = 2e-3 if dtype == np.float16 else 1e-6
    _check(lambda lib: getattr(lib.nn, fn)(X.astype(dtype)), rtol=tol, atol=tol, names=True)


def test_activations_int_and_extremes():
    big = np.array([-1e4, -30.0, -1.0, 0.0, 1.0, 30.0, 1e4], np.float32)
    _check(lambda lib: [lib.nn.softplus(big), lib.nn.elu(big), lib.nn.softmax(big)],
           names=True)
    _check(lambda lib: lib.nn.relu(np.array([-3, 0, 4], np.int32)), names=True)
    _check(lambda lib: lib.nn.relu6(np.array([-3, 0, 4, 9], np.int64)), names=True)


# Edges of the exp-based activations: softplus's thresholds (+-13.94 in float32, +-34.04
# in float64), exp's overflow and underflow, zeros, infinities and NaN.
EDGES = np.concatenate([RNG.normal(size=40) * 6, [
    0.0, -0.0, 1e-3, -1e-3, 13.9, 13.95, -13.9, -13.95, 34.0, -34.1, 88.0, 89.0, -88.0, -89.0,
    -104.0, 710.0, -750.0, np.inf, -np.inf, np.nan]])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_exp_based_activations_and_grads_match_tf_at_edges(dtype):
    # exp(x) - 1 near 0 (TF's elu and selu) and tails that TF flushes to 0 as denormals
    # are within atol; elsewhere a few ulps.
    rtol, atol = (2e-6, 3e-7) if dtype == np.float32 else (1e-14, 1e-15)
    x = EDGES.astype(dtype)
    g = RNG.normal(size=x.shape).astype(dtype)
    _check(lambda lib: [lib.sigmoid(x), lib.nn.softplus(x), lib.nn.elu(x), lib.nn.selu(x)],
           rtol=rtol, atol=atol, names=True)
    for op_type, args in (("SigmoidGrad", {"y": x / 200 + 0.5, "dy": g}),
                          ("SoftplusGrad", {"gradients": g, "features": x}),
                          ("EluGrad", {"gradients": g, "outputs": x}),
                          ("SeluGrad", {"gradients": g, "outputs": x})):
        _check(lambda lib, t=op_type, a=args: _raw(lib, t, **a), rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log1p_expm1_match_tf_at_edges(dtype):
    x = np.concatenate([EDGES, [-1.0, -1.5, -0.999, 1e-9, -1e-9, 1e-20, 3e38, -3e38]])
    x = x.astype(dtype)
    rtol, atol = (2e-6, 1e-30) if dtype == np.float32 else (1e-14, 1e-300)
    with np.errstate(all="ignore"):
        _check(lambda lib: [lib.math.log1p(x), lib.math.expm1(x)], rtol=rtol, atol=atol,
               names=True)


def test_scalar_bounds_match_tf_at_edges():
    # Maximum/Minimum against a scalar and ClipByValue run numpy's clip (NaN, infinities)
    x = EDGES.astype(np.float32)
    _check(lambda lib: [lib.maximum(x, 0.0), lib.minimum(np.float32(0.5), x),
                        lib.clip_by_value(x, -1.0, 1.0), lib.nn.relu6(x),
                        lib.maximum(x, np.float32(np.nan)), lib.minimum(x, -np.inf)],
           names=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.float16, np.bool_])
def test_selects_and_one_hot_match_tf(dtype):
    # Select/SelectV2 over >= SELECT_BITS_MIN elements select bitwise (NaN payloads, -0.0,
    # infinities kept); OneHot writes on-values at in-range indices only
    x = RNG.normal(size=(64, 40)) * 100
    if np.dtype(dtype).kind == "f":
        x[0, :6] = [np.nan, -0.0, np.inf, -np.inf, 0.0, 1e-30]
    t, e = x.astype(dtype), (-x).astype(dtype)
    cond = RNG.random(size=x.shape) > 0.5
    rows = RNG.random(size=64) > 0.5
    idx = RNG.integers(-3, 45, size=(8, 5)).astype(np.int32)
    _check(lambda lib: [lib.where(cond, t, e), lib.where(rows, t, e),
                        lib.where_v2(cond, t, e), lib.where_v2(rows[:40], t, e),
                        lib.one_hot(idx, 40, on_value=t[0, 0], off_value=e[1, 1]),
                        lib.one_hot(idx, 40, axis=1)])


def test_grad_helper_ops_match_tf():
    g, f = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4)) * 4
    for op_type, second in (("ReluGrad", "features"), ("Relu6Grad", "features"),
                            ("EluGrad", "outputs"), ("SoftplusGrad", "features")):
        _check(lambda lib, t=op_type, s=second: _raw(lib, t, gradients=g, **{s: f}))
    _check(lambda lib: _raw(lib, "BiasAddGrad", out_backprop=IMG))
    _check(lambda lib: _raw(lib, "BiasAddGrad", out_backprop=IMG, data_format="NCHW"))


@pytest.mark.parametrize("labels_shape", [(4, 3), (1, 3), (4, 1)])
def test_softmax_xent_raw_op_matches_tf(labels_shape):
    logits = RNG.normal(size=(4, 3))
    labels = RNG.uniform(size=labels_shape)
    _check(lambda lib: _raw(lib, "SoftmaxCrossEntropyWithLogits", features=logits,
                            labels=labels), rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_sparse_xent_raw_op_matches_tf(dtype):
    logits = RNG.normal(size=(5, 4)).astype(np.float32)
    labels = np.array([0, 3, 1, 1, 2], dtype)
    _check(lambda lib: _raw(lib, "SparseSoftmaxCrossEntropyWithLogits", features=logits,
                            labels=labels), rtol=1e-5)


def test_sparse_xent_bad_label_error_matches_tf():
    logits = np.zeros((2, 3), np.float32)
    labels = np.array([0, 5], np.int64)
    with pytest.raises(tf.errors.InvalidArgumentError) as ours:
        _both(lambda lib: _raw(lib, "SparseSoftmaxCrossEntropyWithLogits", features=logits,
                               labels=labels))
    with tf_ref.Graph().as_default():
        out = _raw(tf1, "SparseSoftmaxCrossEntropyWithLogits", features=logits, labels=labels)
        with pytest.raises(tf_ref.errors.InvalidArgumentError) as theirs, tf1.Session() as s:
            s.run(out)
    assert ours.value.message.split(".")[0] in theirs.value.message


@pytest.mark.parametrize("data_format", [None, "NHWC", "NCHW", "N...C"])
def test_bias_add_matches_tf(data_format):
    bias = RNG.normal(size=(7 if data_format == "NCHW" else 3,))
    _check(lambda lib: lib.nn.bias_add(IMG, bias, data_format=data_format), names=True)


CONV_CASES = [
    dict(strides=[1, 1, 1, 1], padding="SAME"),
    dict(strides=[1, 2, 2, 1], padding="SAME"),
    dict(strides=[1, 2, 3, 1], padding="VALID"),
    dict(strides=1, padding="VALID", dilations=[1, 2, 2, 1]),
    dict(strides=[1, 1, 2, 1], padding="SAME", dilations=[1, 1, 2, 1]),
    dict(strides=1, padding=[[0, 0], [2, 1], [0, 3], [0, 0]]),
]


@pytest.mark.parametrize("case", CONV_CASES)
@pytest.mark.parametrize("kshape", [(3, 3), (2, 1), (1, 1)])
def test_conv2d_matches_tf(case, kshape):
    w = RNG.normal(size=(*kshape, 3, 4))
    _check(lambda lib: lib.nn.conv2d(IMG, w, **case), rtol=1e-10, atol=1e-10, names=True)


@pytest.mark.parametrize("case", [c for c in CONV_CASES if "dilations" not in c])
def test_conv2d_backprops_match_tf(case):
    # (TF's CPU backprop kernels reject dilations > 1; graphcore's handle them.)
    w = RNG.normal(size=(3, 2, 3, 4))
    with tf.Graph().as_default():
        out_shape = tf.nn.conv2d(IMG, w, **case).shape.as_list()
    g = RNG.normal(size=out_shape)
    seq = case["strides"] if isinstance(case["strides"], list) else [1, 1, 1, 1]
    padding = case["padding"]
    explicit = []
    if isinstance(padding, list):
        explicit, padding = [p for pair in padding for p in pair], "EXPLICIT"
    attrs = dict(strides=seq, padding=padding, explicit_paddings=explicit,
                 dilations=case.get("dilations", [1, 1, 1, 1]))
    _check(lambda lib: [
        _raw(lib, "Conv2DBackpropInput", input_sizes=np.array(IMG.shape, np.int32), filter=w,
             out_backprop=g, **attrs),
        _raw(lib, "Conv2DBackpropFilter", input=IMG, filter_sizes=np.array(w.shape, np.int32),
             out_backprop=g, **attrs)], rtol=1e-9, atol=1e-9)


POOL_CASES = [((2, 2), (2, 2), "VALID"), ((2, 2), (2, 2), "SAME"), ((3, 3), (2, 2), "SAME"),
              ((3, 2), (1, 3), "VALID"), ((3, 3), (1, 1), "SAME"), (4, 3, "SAME")]


@pytest.mark.parametrize("k,s,padding", POOL_CASES)
def test_pools_match_tf(k, s, padding):
    _check(lambda lib: [lib.nn.max_pool(lib.constant(IMG), k, s, padding),
                        lib.nn.avg_pool(IMG, k, s, padding)], rtol=1e-12, names=True)
    _check(lambda lib: lib.nn.max_pool(IMG.astype(np.float32), k, s, padding, name="mp"),
           names=True)


def test_default_type_attr_does_not_narrow_numpy_inputs():
    _check(lambda lib: lib.nn.max_pool(IMG, 2, 2, "VALID"), names=True)


@pytest.mark.parametrize("k,s,padding", POOL_CASES)
def test_pool_grads_match_tf(k, s, padding):
    x = RNG.permutation(IMG.size).reshape(IMG.shape).astype(np.float64)
    with tf.Graph().as_default():
        y = tf.nn.max_pool(tf.constant(x), k, s, padding)
        with tf.Session() as sess:
            y_value = sess.run(y)
        ksize, strides = y.op.get_attr("ksize"), y.op.get_attr("strides")
    g = RNG.normal(size=y_value.shape)
    attrs = dict(ksize=ksize, strides=strides, padding=padding)
    _check(lambda lib: [
        _raw(lib, "MaxPoolGrad", orig_input=lib.constant(x), orig_output=y_value, grad=g,
             **attrs),
        _raw(lib, "AvgPoolGrad", orig_input_shape=np.array(x.shape, np.int32), grad=g,
             **attrs)], rtol=1e-12)


def test_in_top_k_matches_tf():
    preds = np.array([[0.1, 0.5, 0.4, 0.5], [0.3, 0.3, 0.4, 0.0], [np.inf, 1.0, 0.0, 2.0]],
                     np.float32)
    for k in (1, 2, 3):
        for targets in ([1, 0, 3], [3, 1, 0], [0, 4, 2]):
            _check(lambda lib, k=k, t=targets: lib.nn.in_top_k(preds, np.array(t, np.int32), k),
                   names=True)


@pytest.mark.parametrize("build", [
    lambda lib: lib.nn.relu6([1.0, -2.0], name="r6"),
    lambda lib: lib.nn.bias_add([[1.0, 2.0]], [3.0, 4.0]),
    lambda lib: lib.nn.max_pool(np.ones((1, 4, 4, 1), np.float32), 2, 2, "VALID"),
    lambda lib: lib.nn.avg_pool(np.ones((1, 4, 4, 1), np.float32), [2, 2], [1, 1], "SAME"),
    lambda lib: lib.nn.conv2d(np.ones((1, 4, 4, 1), np.float32),
                              np.ones((2, 2, 1, 2), np.float32), 1, "SAME"),
    lambda lib: lib.nn.in_top_k([[1.0, 2.0]], [1], 1),
    lambda lib: lib.random_uniform([2, 3], seed=1),
    lambda lib: lib.random_uniform([2], maxval=5, dtype=lib.int64, seed=1),
    lambda lib: lib.random_shuffle([1, 2, 3], seed=2),
])
def test_graph_defs_equal_tf(build):
    with tf.Graph().as_default() as g:
        build(tf)
    ours = g.as_graph_def()
    with tf_ref.Graph().as_default() as tg:
        build(tf1)
    from graphcore.protobuf import graph_pb2

    theirs = graph_pb2.GraphDef.FromString(tg.as_graph_def().SerializeToString())
    assert [(n.name, n.op, list(n.input)) for n in ours.node] == \
        [(n.name, n.op, list(n.input)) for n in theirs.node]
    for a, b in zip(ours.node, theirs.node):
        assert dict(a.attr) == dict(b.attr), a.name


# -- random ops ---------------------------------------------------------------------------

def test_seed_attrs_match_tf():
    def build(lib):
        out = [lib.random_uniform([2], seed=5), lib.random_shuffle([1, 2])]
        lib.set_random_seed(9)
        out += [lib.random_uniform([2]), lib.random_uniform([2]),
                lib.random_uniform([2], seed=3), lib.random_uniform([2], maxval=4,
                                                                    dtype=lib.int32)]
        lib.set_random_seed(0)
        out.append(lib.random_shuffle([1, 2], seed=0))
        return [(o.op.get_attr("seed"), o.op.get_attr("seed2")) for o in out]

    with tf.Graph().as_default():
        ours = build(tf)
    with tf_ref.Graph().as_default():
        theirs = build(tf1)
    assert ours == theirs
    assert [tf.get_seed(s) for s in (None, 0, 12)] == [tf1.get_seed(s) for s in (None, 0, 12)]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "bfloat16"])
@pytest.mark.parametrize("op_type", ["RandomUniform", "RandomStandardNormal",
                                     "TruncatedNormal"])
def test_random_float_ops_shapes_dtypes_and_distributions(op_type, dtype):
    def build(lib):
        return _raw(lib, op_type, shape=np.array([40, 250], np.int32),
                    dtype=getattr(lib, dtype), seed=3, seed2=4)

    got, want, ours, theirs = _both(build)
    assert ours.shape.as_list() == theirs.shape.as_list() == [40, 250]
    assert got.dtype == want.dtype and got.shape == want.shape
    got, want = got.astype(np.float64), want.astype(np.float64)
    tol = 0.03
    assert abs(got.mean() - want.mean()) < tol and abs(got.std() - want.std()) < tol
    if op_type == "TruncatedNormal":
        assert np.abs(got).max() <= 2.0
    if op_type == "RandomUniform":
        assert got.min() >= 0 and got.max() < 1


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_random_uniform_int_matches_tf_distribution(dtype):
    def build(lib):
        return lib.random_uniform([10000], minval=-5, maxval=3, dtype=dtype, seed=1)

    got, want, ours, theirs = _both(build)
    assert got.dtype == want.dtype and ours.name == theirs.name
    assert got.min() == want.min() == -5 and got.max() == want.max() == 2
    np.testing.assert_allclose(np.bincount(got + 5) / 1e4, np.bincount(want + 5) / 1e4,
                               atol=0.03)


@_needs("multiply")
def test_random_wrappers_names_and_distributions_match_tf():
    def build(lib):
        return [lib.random_uniform([5000], -2.0, 3.0, seed=1),
                lib.random_normal([5000], 1.0, 2.0, seed=1),
                lib.truncated_normal([5000], -1.0, 0.5, seed=1),
                lib.random_uniform([5000], maxval=4.0, seed=1)]

    got, want, ours, theirs = _both(build)
    assert [o.name for o in ours] == [t.name for t in theirs]
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        assert abs(g.mean() - w.mean()) < 0.1 and abs(g.std() - w.std()) < 0.1
        assert g.min() >= w.min() - 0.5 and g.max() <= w.max() + 0.5


def test_random_seeded_repeatability_like_tf():
    """TF: same graph seed -> same values in a new session; steps differ; graph seeds differ."""
    def values(lib, session, graph_seed):
        with (tf if lib is tf else tf_ref).Graph().as_default():
            lib.set_random_seed(graph_seed)
            r = lib.random_uniform([4])
            with session() as sess:
                return [sess.run(r), sess.run(r)]

    for lib, session in ((tf, tf.Session), (tf1, tf1.Session)):
        a, b, c = values(lib, session, 1), values(lib, session, 1), values(lib, session, 2)
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
        assert not np.array_equal(a[0], a[1])
        assert not np.array_equal(a[0], c[0])


# -- wrappers built on the math/array ops ---------------------------------------------------

@_needs("shape", "cast")
def test_sparse_softmax_xent_wrapper_matches_tf():
    logits = RNG.normal(size=(4, 3)).astype(np.float32)
    _check(lambda lib: lib.nn.sparse_softmax_cross_entropy_with_logits(
        labels=np.array([0, 2, 1, 2], np.int32), logits=logits), rtol=1e-5, names=True)


@_needs("shape", "cast", "rank", "slice", "reshape", "concat", "subtract", "stop_gradient",
        "transpose", "range")
@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_softmax_xent_wrappers_match_tf(axis):
    logits = RNG.normal(size=(3, 4)).astype(np.float32)
    labels = RNG.uniform(size=(3, 4)).astype(np.float32)
    _check(lambda lib: [
        lib.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits, dim=axis),
        lib.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis),
        lib.nn.softmax(logits, axis=axis), lib.nn.log_softmax(logits, axis=axis)],
        rtol=1e-5, names=True)


@_needs("reduce_sum", "squared_difference", "div_no_nan", "cast", "equal", "where",
        "ones_like", "zeros_like", "size")
def test_losses_match_tf():
    logits = RNG.normal(size=(4, 3)).astype(np.float32)
    labels = np.array([0, 2, 1, 2], np.int32)
    onehot = np.eye(3, dtype=np.float32)[labels]
    w = np.array([1.0, 0.0, 2.0, 0.5], np.float32)

    def build(lib):
        out = [lib.losses.sparse_softmax_cross_entropy(labels, logits),
               lib.losses.sparse_softmax_cross_entropy(labels, logits, weights=w),
               lib.losses.softmax_cross_entropy(onehot, logits, label_smoothing=0.1),
               lib.losses.mean_squared_error(onehot, logits, weights=w[:, None]),
               lib.losses.mean_squared_error(onehot, logits,
                                             reduction=lib.losses.Reduction.SUM)]
        counts.append(len(lib.get_collection(lib.GraphKeys.LOSSES)))
        return out

    counts = []
    got, want, ours, theirs = _both(build)
    assert counts == [5, 5]
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-5)


RANK3_GRAPH_CASES = {
    # unknown batch: TF asserts labels' shape == logits' shape[:-1] before reshaping
    "sparse_xent_unknown_batch": lambda t: t.nn.sparse_softmax_cross_entropy_with_logits(
        labels=t.placeholder(t.int32, [None, 5]), logits=t.placeholder(t.float32, [None, 5, 4])),
    "sparse_xent_static": lambda t: t.nn.sparse_softmax_cross_entropy_with_logits(
        labels=t.zeros([2, 5], t.int32), logits=t.zeros([2, 5, 4])),
    "tensordot_dense": lambda t: t.tensordot(t.placeholder(t.float32, [None, 5, 4]),
                                             t.zeros([4, 3]), [[2], [0]]),
}


@pytest.mark.parametrize("case", sorted(RANK3_GRAPH_CASES))
def test_rank3_graphs_match_tf(case):
    """Rank-3 losses and dense layers add TF's ops, in TF's order (op counts decide later
    random ops' seeds)."""
    graphs = {}
    for lib in (tf, tf1):
        with lib.Graph().as_default() as g:
            RANK3_GRAPH_CASES[case](lib)
            graphs[lib] = [(n.name, n.op) for n in g.as_graph_def().node]
    assert graphs[tf] == graphs[tf1]
