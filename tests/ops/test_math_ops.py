"""Math ops: values against numpy (broadcasting, empty tensors), output dtypes, shape
inference, op names and errors (graphcore/ops/math_ops.py, graphcore/kernels/math_kernels.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework.op_def_library import apply_op

RNG = np.random.default_rng(3)


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _ph(value):
    value = np.asarray(value)
    return tf.placeholder(tf.as_dtype(value.dtype), [None] * value.ndim), value


SHAPE_PAIRS = [((2, 3), (2, 3)), ((2, 3), (3,)), ((4, 1, 3), (2, 1)), ((), (2, 2)),
               ((0, 3), (1, 3)), ((2, 0), ())]

BINARY = [
    (tf.add, np.add), (tf.subtract, np.subtract), (tf.multiply, np.multiply),
    (tf.maximum, np.maximum), (tf.minimum, np.minimum), (tf.realdiv, np.true_divide),
    (tf.squared_difference, lambda a, b: (a - b) ** 2), (tf.pow, np.power),
]


@pytest.mark.parametrize("shapes", SHAPE_PAIRS, ids=str)
@pytest.mark.parametrize("fn,ref", BINARY, ids=lambda f: getattr(f, "__name__", ""))
def test_binary_values_broadcast(fn, ref, shapes):
    a = RNG.uniform(0.5, 2.0, shapes[0]).astype(np.float32)
    b = RNG.uniform(0.5, 2.0, shapes[1]).astype(np.float32)
    pa, va = _ph(a)
    pb, vb = _ph(b)
    out = fn(pa, pb)
    got = _run(out, {pa: va, pb: vb})
    want = ref(a, b)
    assert got.dtype == np.float32
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6)
    # static shape inference from the static shapes
    assert fn(tf.zeros(shapes[0]), tf.zeros(shapes[1])).shape.as_list() == list(want.shape)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.float64, np.float16])
def test_binary_dtypes(dtype):
    a = np.array([[7, -7, 3]], dtype)
    b = np.array([2, 2, -2], dtype)
    x, y = tf.constant(a), tf.constant(b)
    outs = _run([x + y, x - y, x * y, x // y, x % y, tf.maximum(x, y), tf.abs(x), -x,
                 tf.square(x), tf.sign(x)])
    wants = [a + b, a - b, a * b, a // b, a % b, np.maximum(a, b), np.abs(a), -a, a * a,
             np.sign(a)]
    for g, w in zip(outs, wants):
        assert g.dtype == dtype
        np.testing.assert_allclose(g, w)


def test_truediv_casts_integers():
    out = tf.constant([7, -7]) / tf.constant([2, 2])
    assert out.dtype == tf.float64
    assert out.op.type == "RealDiv" and out.op.name == "truediv"
    np.testing.assert_allclose(_run(out), [3.5, -3.5])
    small = tf.constant([1], tf.int16) / tf.constant([4], tf.int16)
    assert small.dtype == tf.float32
    with pytest.raises(TypeError, match="Invalid dtype"):
        tf.constant([True]) / tf.constant([True])


def test_div_legacy_and_floor_semantics():
    x, y = tf.constant([7, -7, 7]), tf.constant([2, 2, -2])
    d = tf.div(x, y)
    assert d.op.type == "FloorDiv" and d.op.name == "div"
    np.testing.assert_array_equal(_run(d), [3, -4, -4])
    raw = apply_op("Div", x=x, y=y).outputs[0]  # legacy Div truncates
    np.testing.assert_array_equal(_run(raw), [3, -3, -3])
    np.testing.assert_array_equal(_run(tf.floormod(x, y)), [1, 1, -1])
    f = tf.constant([7.5, -7.5]) // tf.constant([2.0, 2.0])
    np.testing.assert_array_equal(_run(f), [3.0, -4.0])
    np.testing.assert_allclose(_run(tf.div(tf.constant([1.0]), 4.0)), [0.25])


def test_integer_division_by_zero():
    y = tf.placeholder(tf.int32, [None])
    for out in (tf.constant([1, 2]) // y, tf.floormod(tf.constant([1, 2]), y)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Integer division by zero"):
            _run(out, {y: [1, 0]})


def test_pow_negative_integer_exponent():
    with pytest.raises(tf.errors.InvalidArgumentError, match="negative integer powers"):
        _run(tf.pow(tf.constant(2), tf.constant(-1)))


@pytest.mark.parametrize("fn,ref", [
    (tf.sqrt, np.sqrt), (tf.rsqrt, lambda x: 1 / np.sqrt(x)), (tf.exp, np.exp),
    (tf.log, np.log), (tf.log1p, np.log1p), (tf.tanh, np.tanh),
    (tf.sigmoid, lambda x: 1 / (1 + np.exp(-x))), (tf.negative, np.negative),
    (tf.abs, np.abs), (tf.square, np.square), (tf.sign, np.sign),
    (tf.floor, np.floor), (tf.ceil, np.ceil), (tf.rint, np.rint), (tf.round, np.round),
    (tf.cos, np.cos), (tf.sin, np.sin), (tf.reciprocal, np.reciprocal),
], ids=lambda f: getattr(f, "__name__", ""))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_unary_values(fn, ref, dtype):
    a = RNG.uniform(0.1, 3.0, (2, 3)).astype(dtype)
    got = _run(fn(tf.constant(a)))
    assert got.dtype == dtype
    tol = 2e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(got, ref(a.astype(np.float64)), rtol=tol, atol=tol)
    empty = _run(fn(tf.zeros([0, 2], dtype)))
    assert empty.shape == (0, 2) and empty.dtype == dtype


def test_round_is_half_to_even_and_keeps_integers():
    got = _run(tf.round(tf.constant([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])))
    np.testing.assert_array_equal(got, [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0])
    ints = tf.constant([1, 2])
    assert tf.round(ints) is ints
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.floor(ints)


def test_sigmoid_is_stable():
    got = _run(tf.sigmoid(tf.constant([-1000.0, 0.0, 1000.0])))
    np.testing.assert_array_equal(got, [0.0, 0.5, 1.0])


def test_unary_type_errors():
    with pytest.raises(TypeError, match="not in list of allowed values"):
        tf.sqrt(tf.constant([1, 2]))
    with pytest.raises(TypeError):
        tf.constant([1.0]) - tf.constant([1])
    with pytest.raises(TypeError):
        tf.constant([1]) - 2.5
    with pytest.raises(ValueError, match="Dimensions must be equal"):
        tf.zeros([2, 3]) + tf.zeros([4])


def test_incompatible_shapes_at_run_time():
    x = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Incompatible shapes: \[2,3\] vs. "
                                                           r"\[4\]"):
        _run(x * tf.zeros([4]), {x: np.zeros((2, 3), np.float32)})


def test_cast():
    x = tf.constant([1.7, -2.7, 0.0])
    out = tf.cast(x, tf.int32)
    assert out.op.type == "Cast" and out.op.get_attr("DstT") == tf.int32
    assert out.op.get_attr("SrcT") == tf.float32 and out.op.get_attr("Truncate") is False
    np.testing.assert_array_equal(_run(out), [1, -2, 0])
    np.testing.assert_array_equal(_run(tf.cast(x, tf.bool)), [True, True, False])
    assert tf.cast(x, tf.float32) is x
    assert tf.to_float(tf.constant([1])).op.name == "ToFloat"
    assert tf.to_int32(x).dtype == tf.int32 and tf.to_int64(x).dtype == tf.int64
    np.testing.assert_array_equal(_run(tf.cast(tf.constant([True, False]), tf.float32)),
                                  [1.0, 0.0])


def test_comparisons_and_logical():
    a = np.array([[1, 5, 3]], np.int32)
    b = np.array([[3], [1]], np.int32)
    x, y = tf.constant(a), tf.constant(b)
    outs = _run([x < y, x <= y, x > y, x >= y, tf.equal(x, y), tf.not_equal(x, y)])
    for g, w in zip(outs, [a < b, a <= b, a > b, a >= b, a == b, a != b]):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, w)
    p, q = tf.constant([True, True, False]), tf.constant([True, False, False])
    got = _run([p & q, p | q, p ^ q, ~p, tf.logical_and(p, q), tf.logical_or(p, q),
                tf.logical_xor(p, q), tf.logical_not(p)])
    np.testing.assert_array_equal(got[0], [True, False, False])
    np.testing.assert_array_equal(got[1], [True, True, False])
    np.testing.assert_array_equal(got[2], [False, True, False])
    np.testing.assert_array_equal(got[3], [False, False, True])
    np.testing.assert_array_equal(got[6], got[2])
    i, j = tf.constant([12, 10]), tf.constant([10, 6])
    np.testing.assert_array_equal(_run([i & j, i | j, i ^ j, ~i]),
                                  [[8, 2], [14, 14], [6, 12], [-13, -11]])
    s = tf.constant([b"a", b"b"])
    np.testing.assert_array_equal(_run(tf.equal(s, b"a")), [True, False])


def test_equal_incompatible_shape_error_false():
    x = tf.placeholder(tf.float32)
    out = apply_op("Equal", x=x, y=tf.zeros([4]), incompatible_shape_error=False).outputs[0]
    assert not _run(out, {x: np.zeros((2, 3), np.float32)})
    static = apply_op("NotEqual", x=tf.zeros([2, 3]), y=tf.zeros([4]),
                      incompatible_shape_error=False).outputs[0]
    assert static.shape.as_list() == []
    assert _run(static)


def test_select_and_where_v2():
    c = tf.constant([True, False])
    t = tf.constant([[1, 2], [3, 4]])
    e = tf.constant([[5, 6], [7, 8]])
    out = tf.select(c, t, e)
    assert out.op.type == "Select"
    np.testing.assert_array_equal(_run(out), [[1, 2], [7, 8]])
    np.testing.assert_array_equal(_run(tf.select(tf.constant([[True, False], [False, True]]),
                                                 t, e)), [[1, 6], [7, 4]])
    np.testing.assert_array_equal(_run(tf.select(True, t, e)), [[1, 2], [3, 4]])
    v2 = tf.where_v2(tf.constant([[True], [False]]), tf.constant([1, 2, 3]), 0)
    assert v2.op.type == "SelectV2" and v2.shape.as_list() == [2, 3]
    np.testing.assert_array_equal(_run(v2), [[1, 2, 3], [0, 0, 0]])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes must be equal"):
        tf.select(tf.constant([True, False, True]), t, e)
    cond = tf.placeholder(tf.bool)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Number of batches"):
        _run(tf.select(cond, t, e), {cond: [True, False, True]})


def test_add_n():
    xs = [tf.constant(RNG.normal(size=(2, 3)).astype(np.float32)) for _ in range(3)]
    out = tf.add_n(xs)
    assert out.op.type == "AddN" and out.op.get_attr("N") == 3
    vals = _run(xs)
    np.testing.assert_allclose(_run(out), vals[0] + vals[1] + vals[2], rtol=1e-6)
    assert tf.add_n(xs[:1]) is xs[0]
    assert tf.add_n(xs[:1], name="one").op.type == "Identity"
    with pytest.raises(ValueError, match="Inputs must be an iterable"):
        tf.add_n([])
    with pytest.raises(ValueError, match="Dimension 0 in both shapes"):
        tf.add_n([tf.zeros([2]), tf.zeros([3])])
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="must have the same size"):
        _run(tf.add_n([p, tf.zeros([3])]), {p: np.zeros(2, np.float32)})


@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul(ta, tb):
    a = RNG.normal(size=(3, 2) if ta else (2, 3))
    b = RNG.normal(size=(4, 3) if tb else (3, 4))
    out = tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
    assert out.op.type == "MatMul" and out.shape.as_list() == [2, 4]
    want = (a.T if ta else a) @ (b.T if tb else b)
    got = _run(out)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, want)


def test_matmul_batched_and_operator():
    a = RNG.normal(size=(5, 2, 3)).astype(np.float32)
    b = RNG.normal(size=(3, 4)).astype(np.float32)
    out = tf.constant(a) @ tf.constant(b)
    assert out.op.type == "BatchMatMulV2" and out.op.name == "matmul"
    assert out.shape.as_list() == [5, 2, 4]
    np.testing.assert_allclose(_run(out), a @ b, rtol=1e-5)
    adj = tf.matmul(tf.constant(a), tf.constant(a), transpose_a=True)
    assert adj.op.get_attr("adj_x") is True
    np.testing.assert_allclose(_run(adj), np.swapaxes(a, -1, -2) @ a, rtol=1e-5)
    ints = tf.matmul(tf.constant([[1, 2]]), tf.constant([[3], [4]]))
    got = _run(ints)
    assert got.dtype == np.int32 and got.tolist() == [[11]]
    empty = _run(tf.matmul(tf.zeros([0, 3]), tf.zeros([3, 2])))
    assert empty.shape == (0, 2)


def test_matmul_errors():
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 4"):
        tf.matmul(tf.zeros([2, 3]), tf.zeros([4, 5]))
    with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
        tf.matmul(tf.zeros([2, 3, 4]), tf.zeros([3, 4, 6]))
    a = tf.placeholder(tf.float32, [None, None])
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Matrix size-incompatible: In\[0\]: \[2,3\], In\[1\]: \[4,5\]"):
        _run(tf.matmul(a, tf.zeros([4, 5])), {a: np.zeros((2, 3), np.float32)})
    b = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="compatible batch dimensions"):
        _run(tf.matmul(b, tf.zeros([3, 4, 6])), {b: np.zeros((2, 3, 4), np.float32)})
    with pytest.raises(TypeError):
        tf.matmul(tf.zeros([2, 2]), tf.zeros([2, 2], tf.float64))


REDUCE = [(tf.reduce_sum, np.sum), (tf.reduce_mean, np.mean), (tf.reduce_max, np.max),
          (tf.reduce_min, np.min), (tf.reduce_prod, np.prod)]


@pytest.mark.parametrize("axis", [None, 0, 1, -1, [0, 2], (), [-3, 1]])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("fn,ref", REDUCE, ids=lambda f: getattr(f, "__name__", ""))
def test_reductions(fn, ref, axis, keepdims):
    a = RNG.uniform(0.5, 1.5, (2, 3, 4)).astype(np.float32)
    out = fn(tf.constant(a), axis=axis, keepdims=keepdims)
    np_axis = tuple(axis) if isinstance(axis, (list, tuple)) else axis
    want = ref(a, axis=np_axis, keepdims=keepdims)
    got = _run(out)
    assert got.dtype == np.float32
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5)
    p = tf.placeholder(tf.float32)
    dyn = fn(p, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(_run(dyn, {p: a}), want, rtol=1e-5)


def test_reduction_names_aliases_and_dtypes():
    x = tf.constant([[1, 2], [3, -8]])
    s = tf.reduce_sum(x)
    assert s.op.type == "Sum" and s.op.name == "Sum" and s.shape.as_list() == []
    assert s.op.inputs[1].op.name == "Const_1"
    assert tf.reduce_sum(x, reduction_indices=[0], keep_dims=True).shape.as_list() == [1, 2]
    with pytest.raises(ValueError, match="Cannot specify both"):
        tf.reduce_sum(x, axis=0, reduction_indices=0)
    got = _run([tf.reduce_sum(x), tf.reduce_mean(x, 0), tf.reduce_mean(x, 1),
                tf.reduce_prod(x)])
    assert [g.dtype for g in got] == [np.int32] * 4
    assert got[0] == -2 and got[1].tolist() == [2, -3] and got[2].tolist() == [1, -2]
    assert got[3] == -48
    assert tf.reduce_mean(tf.constant(2.0)).shape.as_list() == []
    assert tf.reduce_max(x, 0, name="m").op.name == "m"
    with pytest.raises(TypeError):
        tf.reduce_sum(tf.constant([True]))


def test_reduction_empty_and_errors():
    z = tf.zeros([0, 2])
    got = _run([tf.reduce_sum(z, 0), tf.reduce_max(z, 0), tf.reduce_min(z, 0),
                tf.reduce_prod(z, 0), tf.reduce_mean(z, 0)])
    np.testing.assert_array_equal(got[0], [0, 0])
    np.testing.assert_array_equal(got[1], [-np.inf, -np.inf])
    np.testing.assert_array_equal(got[2], [np.inf, np.inf])
    np.testing.assert_array_equal(got[3], [1, 1])
    assert np.isnan(got[4]).all()
    assert _run(tf.reduce_max(tf.zeros([0], tf.int32))) == np.iinfo(np.int32).min
    with pytest.raises(ValueError, match="Invalid reduction dimension 2 for input with 2"):
        tf.reduce_sum(tf.zeros([2, 2]), 2)
    ax = tf.placeholder(tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid reduction dimension"):
        _run(tf.reduce_sum(tf.zeros([2, 2]), ax), {ax: 2})
    with pytest.raises(tf.errors.InvalidArgumentError, match="duplicate dimension: 0"):
        _run(tf.reduce_sum(tf.zeros([2, 2]), ax), {ax: [0, 0]})


def test_argmax_argmin():
    a = np.array([[1.0, 5.0, 3.0], [7.0, 2.0, 7.0]], np.float32)
    x = tf.constant(a)
    am = tf.argmax(x, 1)
    assert am.op.type == "ArgMax" and am.dtype == tf.int64 and am.shape.as_list() == [2]
    np.testing.assert_array_equal(_run(am), [1, 0])
    np.testing.assert_array_equal(_run(tf.argmin(x, dimension=0)), [0, 1, 0])
    out = tf.argmax(x, axis=-1, output_type=tf.int32)
    assert _run(out).dtype == np.int32
    assert _run(tf.argmax(tf.constant([1.0, np.nan, 3.0]))) == 2
    with pytest.raises(ValueError, match=r"Dimension \(4\) must be in the range \[-2, 2\)"):
        tf.argmax(x, 4)
    p = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Reduction axis 0 is empty"):
        _run(tf.argmax(p, 0), {p: np.zeros((0, 2), np.float32)})


def test_range():
    r = tf.range(5)
    assert r.op.type == "Range" and r.op.name == "range" and r.dtype == tf.int32
    assert r.shape.as_list() == [5]
    np.testing.assert_array_equal(_run(r), np.arange(5))
    np.testing.assert_array_equal(_run(tf.range(10, 1, -3)), [10, 7, 4])
    f = tf.range(0, 1, 0.25)
    assert f.dtype == tf.float32 and f.shape.as_list() == [4]
    np.testing.assert_allclose(_run(f), [0, 0.25, 0.5, 0.75])
    assert tf.range(3, dtype=tf.int64).dtype == tf.int64
    assert _run(tf.range(0)).shape == (0,)
    with pytest.raises(ValueError, match="Requires start <= limit when delta > 0"):
        tf.range(5, 1)
    with pytest.raises(ValueError, match="Requires delta != 0"):
        tf.range(1, 5, 0)
    n = tf.placeholder(tf.int32, [])
    assert tf.range(n).shape.as_list() == [None]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Requires delta != 0"):
        _run(tf.range(0, 3, n), {n: 0})


def test_broadcast_gradient_args():
    cases = [([2, 3], [3], [], [0]), ([1, 1], [1], [0, 1], [0, 1]),
             ([5, 1, 3], [1, 4, 1], [1], [0, 2]), ([2, 3], [2, 3], [], [])]
    for s0, s1, r0, r1 in cases:
        op = apply_op("BroadcastGradientArgs", s0=tf.constant(s0, tf.int32),
                      s1=tf.constant(s1, tf.int32))
        got = _run(op.outputs)
        assert got[0].tolist() == r0 and got[1].tolist() == r1
        assert got[0].dtype == np.int32
    op = apply_op("BroadcastGradientArgs", s0=tf.constant([2], tf.int64),
                  s1=tf.constant([3], tf.int64))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Incompatible shapes"):
        _run(op.outputs)


def test_cumsum_cumprod():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    x = tf.constant(a)
    np.testing.assert_allclose(_run(tf.cumsum(x, 1)), np.cumsum(a, 1))
    np.testing.assert_allclose(_run(tf.cumprod(x, 1, exclusive=True)),
                               [[1, 1, 2], [1, 4, 20]])
    np.testing.assert_allclose(_run(tf.cumsum(x, 1, reverse=True)), [[6, 5, 3], [15, 11, 6]])


def test_operator_names_and_reflection():
    x = tf.constant([1.0, 2.0], name="x")
    d = x - 1
    assert d.op.name == "sub" and d.op.type == "Sub" and d.op.inputs[1].op.name == "sub/y"
    m2 = 2 * x
    assert m2.op.name == "mul" and m2.op.inputs[0].op.name == "mul/x"
    assert (x / 2).op.name == "truediv"
    assert (x // 2).op.type == "FloorDiv" and (x % 2).op.type == "FloorMod"
    assert (x ** 2).op.name == "pow"
    assert (-x).op.name == "Neg" and abs(x).op.name == "Abs"
    assert (x < 1).op.name == "Less" and (x >= 1).op.type == "GreaterEqual"
    np.testing.assert_allclose(_run(1 - x), [0.0, -1.0])
    np.testing.assert_allclose(_run(3 / x), [3.0, 1.5])
    np.testing.assert_allclose(_run(2 ** x), [2.0, 4.0])
    m = tf.constant([[1.0, 2.0]])
    np.testing.assert_allclose(_run(m @ tf.constant([[1.0], [1.0]])), [[3.0]])
    np.testing.assert_allclose(_run([[1.0, 1.0]] @ tf.transpose(m)), [[3.0]])
    b = tf.constant([True, False])
    got = _run(b * tf.constant([True, True]))
    assert got.dtype == np.bool_ and got.tolist() == [True, False]


def test_scalar_mul():
    x = tf.constant([1.0, 2.0])
    out = tf.scalar_mul(3, x)
    assert out.op.type == "Mul"
    np.testing.assert_allclose(_run(out), [3.0, 6.0])
    with pytest.raises(ValueError, match="must be a 0-D value"):
        tf.scalar_mul([1.0, 2.0], x)


def test_read_only_inputs_untouched():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)
    a.flags.writeable = False
    p = tf.placeholder(tf.float64, [2, 3])
    outs = [tf.reduce_mean(p, 0), tf.cumsum(p, 1, reverse=True, exclusive=True),
            tf.argmax(p, 1), p * 2, tf.sigmoid(p)]
    _run(outs, {p: a})
    np.testing.assert_array_equal(a, np.arange(6).reshape(2, 3))
