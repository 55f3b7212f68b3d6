"""Reference tier: math ops against TensorFlow's compat.v1 (values, dtypes, static shapes,
op names and types of wrapper calls, build-time errors).  Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.framework.op_def_library import apply_op  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(5)


def _raw(lib, op_type, **kwargs):
    if lib is tf:
        outs = apply_op(op_type, **kwargs).outputs
    else:
        res = getattr(tf_ref.raw_ops, op_type)(**kwargs)
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
    return outs if len(outs) > 1 else outs[0]


def _flat(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _build_both(build):
    with tf.Graph().as_default() as g:
        ours = build(tf)
        with tf.Session() as sess:
            got = sess.run(ours)
        our_ops = [(op.name, op.type) for op in g.get_operations()]
    with tf_ref.Graph().as_default() as tg:
        theirs = build(tf1)
        with tf1.Session() as sess:
            want = sess.run(theirs)
        their_ops = [(op.name, op.type) for op in tg.get_operations()]
    return got, want, ours, theirs, our_ops, their_ops


def _check(build, rtol=1e-6, atol=1e-6, names=True):
    got, want, ours, theirs, our_ops, their_ops = _build_both(build)
    for g, w, o, t in zip(_flat(got), _flat(want), _flat(ours), _flat(theirs)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        assert o.dtype.name == t.dtype.name
        assert o.shape.as_list() == t.shape.as_list() if t.shape.rank is not None \
            else o.shape.ndims is None
        if g.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
        else:
            np.testing.assert_array_equal(g, w)
    if names:
        assert our_ops == their_ops


F23 = RNG.uniform(-2, 2, (2, 3)).astype(np.float32)
F3 = RNG.uniform(0.5, 2, (3,)).astype(np.float32)
P23 = RNG.uniform(0.1, 3, (2, 3)).astype(np.float32)
I23 = np.array([[7, -7, 3], [0, 5, -9]], np.int32)
I3 = np.array([2, -3, 4], np.int32)
SPECIAL = np.array([0.0, -0.0, 1.5, -2.5, np.inf, -np.inf, np.nan, 1e-30], np.float32)

CASES = {
    "add": lambda t: t.add(F23, F3),
    "subtract": lambda t: t.subtract(F23, F3),
    "multiply": lambda t: t.multiply(I23, I3),
    "divide": lambda t: t.divide(F23, F3),
    "divide_named": lambda t: t.divide(I23, I3, name="d"),
    "truediv_int": lambda t: t.truediv(I23, I3),
    "realdiv": lambda t: t.realdiv(F23, F3),
    "div_int": lambda t: t.div(I23, I3),
    "div_float": lambda t: t.div(F23, 2.0),
    "floordiv_int": lambda t: t.floordiv(I23, I3),
    "floordiv_float": lambda t: t.floordiv(F23, F3),
    "floormod_int": lambda t: t.floormod(I23, I3),
    "floormod_float": lambda t: t.floormod(F23, -F3),
    "mod": lambda t: t.mod(I23, I3),
    "negative": lambda t: t.negative(F23),
    "abs": lambda t: t.abs(I23),
    "sign": lambda t: t.sign(SPECIAL),
    "square": lambda t: t.square(I23),
    "sqrt": lambda t: t.sqrt(SPECIAL),
    "rsqrt": lambda t: t.rsqrt(P23),
    "exp": lambda t: t.exp(F23),
    "floor": lambda t: t.floor(SPECIAL),
    "ceil": lambda t: t.ceil(-F23),
    "round": lambda t: t.round(F23 * 2.5),
    "rint": lambda t: t.rint(SPECIAL),
    "cos": lambda t: t.cos(F23),
    "sin": lambda t: t.sin(SPECIAL),
    "reciprocal": lambda t: t.reciprocal(P23),
    "log": lambda t: t.log(SPECIAL),
    "log1p": lambda t: t.log1p(P23),
    "pow": lambda t: t.pow(P23, F3),
    "pow_int": lambda t: t.pow(I3, 3),
    "maximum_nan": lambda t: t.maximum(SPECIAL, 0.5),
    "minimum": lambda t: t.minimum(I23, I3),
    "tanh": lambda t: t.tanh(SPECIAL),
    "sigmoid": lambda t: t.sigmoid(SPECIAL * 100),
    "squared_difference": lambda t: t.squared_difference(F23, F3),
    "cast_f2i": lambda t: t.cast(np.array([1.7, -2.7, 0.2, 1e3], np.float32), t.int32),
    "cast_i2b": lambda t: t.cast(I23, t.bool),
    "cast_f2h": lambda t: t.cast(F23, t.float16),
    "to_float": lambda t: t.to_float(I23),
    "to_int64": lambda t: t.to_int64(F23),
    "equal": lambda t: t.equal(I23, I3),
    "not_equal": lambda t: t.not_equal(F23, F23[0]),
    "less": lambda t: t.less(F23, F3),
    "less_equal": lambda t: t.less_equal(I23, 3),
    "greater": lambda t: t.greater(I23, I3),
    "greater_equal": lambda t: t.greater_equal(F23, 0.0),
    "logical": lambda t: [t.logical_and(F23 > 0, F3 > 1), t.logical_or([True, False], False),
                          t.logical_not([True, False]), t.logical_xor([True, False], True)],
    "where": lambda t: t.where([True, False], I23, -I23),
    "where_v2": lambda t: t.where_v2(F23 > 0, F23, 0.0),
    "add_n": lambda t: t.add_n([F23, F23, F23 * 2]),
    "add_n_one_named": lambda t: t.add_n([F23], name="s"),
    "matmul": lambda t: t.matmul(F23, P23, transpose_b=True),
    "matmul_ta": lambda t: t.matmul(F23, P23, transpose_a=True),
    "matmul_batched": lambda t: t.matmul(np.stack([F23, P23]), P23.T),
    "matmul_adjoint": lambda t: t.matmul(np.stack([F23, P23]), np.stack([F23, P23]),
                                         adjoint_b=True),
    "matmul_int": lambda t: t.matmul(I23, I23.T),
    "reduce_sum": lambda t: t.reduce_sum(F23),
    "reduce_sum_axis": lambda t: t.reduce_sum(F23, 1, keepdims=True),
    "reduce_sum_v1_aliases": lambda t: t.reduce_sum(F23, reduction_indices=[0],
                                                    keep_dims=True),
    "reduce_sum_scalar": lambda t: t.reduce_sum(t.constant(3.0)),
    "reduce_sum_list": lambda t: t.reduce_sum([[1.0, 2.0], [3.0, 4.0]]),
    "reduce_mean_int": lambda t: t.reduce_mean(I23, 1),
    "reduce_mean": lambda t: t.reduce_mean(F23, [0, -1]),
    "reduce_max": lambda t: t.reduce_max(F23, -1, name="mx"),
    "reduce_min_int": lambda t: t.reduce_min(I23, 0),
    "reduce_prod": lambda t: t.reduce_prod(F23, 0),
    "reduce_max_empty": lambda t: t.reduce_max(t.zeros([0, 2]), 0),
    "reduce_mean_empty": lambda t: t.reduce_mean(t.zeros([0, 2]), 0),
    "argmax": lambda t: t.argmax(F23, 1),
    "argmax_dimension": lambda t: t.argmax(F23, dimension=0, output_type=t.int32),
    "argmin": lambda t: t.argmin(I23, 0),
    "argmax_nan": lambda t: t.argmax([1.0, np.nan, 3.0]),
    "range": lambda t: t.range(10),
    "range_args": lambda t: t.range(2, 11, 3),
    "range_neg": lambda t: t.range(5, -5, -3),
    "range_float": lambda t: t.range(0.0, 10.0, 0.1),
    "range_mixed": lambda t: t.range(1, 4.5),
    "range_dtype": lambda t: t.range(4, dtype=t.int64),
    "scalar_mul": lambda t: t.scalar_mul(2.0, t.constant(F23)),
    "cumsum": lambda t: t.cumsum(F23, 1, exclusive=True, reverse=True),
    "cumprod": lambda t: t.cumprod(P23, 0),
    "div_no_nan": lambda t: t.div_no_nan(F23, np.array([0.0, 1.0, 2.0], np.float32)),
    "bcast_args": lambda t: [r for a, b in (([2, 3], [3]), ([1, 1], [1]), ([3, 1], [1]),
                                          ([], [2]), ([5, 1, 3], [1, 4, 1]), ([1], [1]),
                                          ([0, 3], [1, 3]), ([2, 1, 1], [1, 1]))
                             for r in _raw(t, "BroadcastGradientArgs",
                                           s0=t.constant(a, t.int32, shape=[len(a)]),
                                           s1=t.constant(b, t.int32, shape=[len(b)]))],
    "empty_binary": lambda t: t.add(t.zeros([0, 3]), t.ones([1, 3])),
    "half": lambda t: t.exp(t.constant(F23, t.float16)) * t.constant(2.0, t.float16),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_names_match_tf(name):
    _check(CASES[name], rtol=2e-3 if name == "half" else 1e-6)


def _operators(t):
    x = t.constant(F23, name="x")
    i = t.constant(I23, name="i")
    b = t.constant(F23 > 0, name="b")
    return [x + 1, 1 + x, x - 2, 2 - x, x * x, 3 * x, x / 2, 2 / x, x // 2, 7 // (i * 0 + 3), x % 2,
            i % 3, x ** 2, 2 ** x, x @ t.transpose(x), -x, abs(x), x < 1, x <= 1, x > 1,
            x >= 1, b & True, b | False, b ^ True, ~b, i & 6, i | 1, i ^ 3, ~i, b * b]


def test_operators_match_tf():
    _check(_operators)


def test_gradient_graph_values_match_tf():
    def build(t):
        x = t.constant(F23, name="x")
        y = t.constant(F3, name="y")
        z = t.reduce_mean(t.square(x * y - t.sigmoid(x)) / y + t.maximum(x, 0.1)
                          + t.reduce_max(x, 0) * t.reduce_prod(y))
        return t.gradients(z, [x, y])

    _check(build, names=False)


BUILD_ERRORS = {
    "sub_dtype": lambda t: t.subtract(t.zeros([2]), t.zeros([2], t.int32)),
    "sub_float_into_int": lambda t: t.zeros([2], t.int32) - 2.5,
    "sqrt_int": lambda t: t.sqrt(t.zeros([2], t.int32)),
    "sum_bool": lambda t: t.reduce_sum(t.zeros([2], t.bool)),
    "truediv_bool": lambda t: t.truediv(t.zeros([2], t.bool), True),
    "bad_bcast": lambda t: t.subtract(t.zeros([2, 3]), t.zeros([4])),
    "matmul_inner": lambda t: t.matmul(t.zeros([2, 3]), t.zeros([4, 5])),
    "add_n_shapes": lambda t: t.add_n([t.zeros([2]), t.zeros([3])]),
    "reduce_axis": lambda t: t.reduce_sum(t.zeros([2, 3]), -3),
    "argmax_axis": lambda t: t.argmax(t.zeros([2, 3]), 4),
    "range_delta": lambda t: t.range(1, 5, 0),
    "range_order": lambda t: t.range(5, 1),
    "select_shape": lambda t: t.where([True, False, True], [[1, 2], [3, 4]], [[5, 6], [7, 8]]),
}


@pytest.mark.parametrize("name", list(BUILD_ERRORS))
def test_build_errors_match_tf(name):
    build = BUILD_ERRORS[name]
    with tf_ref.Graph().as_default():
        with pytest.raises((TypeError, ValueError)) as theirs:
            build(tf1)
    with tf.Graph().as_default():
        with pytest.raises(theirs.type) as ours:
            build(tf)
    # TF's message up to its node description is ours (for a failed conversion, up to
    # the converter's own error text).
    want = str(theirs.value).split(" for '{{node")[0].split(" Error: ")[0]
    assert str(ours.value).split(" for '{{node")[0].split(" Error: ")[0] == want


def _feed_run(lib, build, value):
    with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
        p = lib.placeholder(lib.as_dtype(value.dtype))
        out = build(lib, p)
        with lib.Session() as sess:
            return sess.run(out, {p: value})


RUN_ERRORS = {
    "incompatible": (lambda t, p: p + t.zeros([4]), np.zeros((2, 3), np.float32)),
    "matmul": (lambda t, p: t.matmul(p, t.zeros([4, 5])), np.zeros((2, 3), np.float32)),
    "batch_matmul": (lambda t, p: t.matmul(p, t.zeros([3, 4, 6])),
                     np.zeros((2, 3, 4), np.float32)),
    "int_div_zero": (lambda t, p: t.floordiv(t.constant([1, 2]), p), np.array([1, 0], np.int32)),
    "reduce_axis": (lambda t, p: t.reduce_sum(t.zeros([2, 2]), p), np.array(2, np.int32)),
    "reduce_dup": (lambda t, p: t.reduce_sum(t.zeros([2, 2]), p), np.array([0, 0], np.int32)),
    "argmax_empty": (lambda t, p: t.argmax(p, 0), np.zeros((0, 2), np.float32)),
    "range_delta": (lambda t, p: t.range(0, 3, p), np.array(0, np.int32)),
    "pow_neg": (lambda t, p: t.pow(2, p), np.array(-1, np.int32)),
    "select": (lambda t, p: t.where(p, [[1, 2], [3, 4]], [[5, 6], [7, 8]]),
               np.array([True, False, True])),
    "add_n": (lambda t, p: t.add_n([p, t.zeros([3])]), np.zeros(2, np.float32)),
    "bcast_args": (lambda t, p: _raw(t, "BroadcastGradientArgs", s0=p, s1=[3]),
                   np.array([2], np.int32)),
}


@pytest.mark.parametrize("name", list(RUN_ERRORS))
def test_run_errors_match_tf(name):
    build, value = RUN_ERRORS[name]
    with pytest.raises(tf_ref.errors.OpError) as theirs:
        _feed_run(tf1, build, value)
    with pytest.raises(tf.errors.OpError) as ours:
        _feed_run(tf, build, value)
    assert type(ours.value).__name__ == type(theirs.value).__name__
    their_msg = theirs.value.message
    first = [ln for ln in their_msg.splitlines() if ln.strip() and not ln.startswith(
        (" ", "\t", "Detected", "Graph execution", "Node:"))][0]
    assert first.strip() in ours.value.message
