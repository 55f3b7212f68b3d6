"""nn ops against small numpy reference implementations (graphcore/ops/nn_ops.py)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors
from graphcore.ops import array_ops, math_ops


def _needs(*names):
    """Skips until the math/array wrappers a wrapper builds on exist."""
    missing = [n for n in names if not hasattr(math_ops, n) and not hasattr(array_ops, n)]
    return pytest.mark.skipif(bool(missing), reason=f"needs {missing}")


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


RNG = np.random.default_rng(0)


# -- numpy references ---------------------------------------------------------------------

def _pads(size, k, s, d, padding):
    eff = (k - 1) * d + 1
    if padding == "VALID":
        return (size - eff + s) // s, 0
    out = -(-size // s)
    return out, max(0, (out - 1) * s + eff - size) // 2


def ref_conv2d(x, w, strides, padding, dilations=(1, 1)):
    n, h, wd, c = x.shape
    kh, kw, _, co = w.shape
    oh, pt = _pads(h, kh, strides[0], dilations[0], padding)
    ow, pl = _pads(wd, kw, strides[1], dilations[1], padding)
    out = np.zeros((n, oh, ow, co))
    for b in range(n):
        for i in range(oh):
            for j in range(ow):
                for di in range(kh):
                    for dj in range(kw):
                        r = i * strides[0] + di * dilations[0] - pt
                        q = j * strides[1] + dj * dilations[1] - pl
                        if 0 <= r < h and 0 <= q < wd:
                            out[b, i, j] += x[b, r, q] @ w[di, dj]
    return out


def ref_pool(x, k, s, padding, kind):
    n, h, w, c = x.shape
    oh, pt = _pads(h, k[0], s[0], 1, padding)
    ow, pl = _pads(w, k[1], s[1], 1, padding)
    out = np.zeros((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * s[0] - pt, j * s[1] - pl
            win = x[:, max(r0, 0):r0 + k[0], max(c0, 0):c0 + k[1], :]
            out[:, i, j] = win.max(axis=(1, 2)) if kind == "max" else win.mean(axis=(1, 2))
    return out


def ref_softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# -- activations ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_activations_match_numpy(dtype):
    x = np.array([[-3.0, -0.5, 0.0], [0.5, 4.0, 7.5]], dtype=dtype)
    ops = [tf.nn.relu(x), tf.nn.relu6(x), tf.nn.elu(x), tf.nn.softplus(x)]
    assert [o.op.type for o in ops] == ["Relu", "Relu6", "Elu", "Softplus"]
    assert [o.op.name for o in ops] == ["Relu", "Relu6", "Elu", "Softplus"]
    relu, relu6, elu, softplus = _run(ops)
    tol = 1e-3 if dtype == np.float16 else 1e-6
    for got in (relu, relu6, elu, softplus):
        assert got.dtype == dtype and got.shape == (2, 3)
    np.testing.assert_allclose(relu, np.maximum(x, 0))
    np.testing.assert_allclose(relu6, np.clip(x, 0, 6))
    xf = x.astype(np.float64)
    np.testing.assert_allclose(elu, np.where(xf < 0, np.expm1(xf), xf), rtol=tol, atol=tol)
    np.testing.assert_allclose(softplus, np.log1p(np.exp(xf)), rtol=tol, atol=tol)


def test_relu_on_integers_and_grad_helper_ops():
    assert _run(tf.nn.relu(np.array([-2, 3], np.int32))).tolist() == [0, 3]
    g = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    f = np.array([-1.0, 0.5, 6.5, 3.0], np.float32)
    from graphcore.framework.op_def_library import apply_op

    relu_g = apply_op("ReluGrad", gradients=g, features=f).outputs[0]
    relu6_g = apply_op("Relu6Grad", gradients=g, features=f).outputs[0]
    elu_g = apply_op("EluGrad", gradients=g, outputs=f).outputs[0]
    sp_g = apply_op("SoftplusGrad", gradients=g, features=f).outputs[0]
    r, r6, e, s = _run([relu_g, relu6_g, elu_g, sp_g])
    np.testing.assert_allclose(r, [0, 2, 3, 4])
    np.testing.assert_allclose(r6, [0, 2, 0, 4])
    np.testing.assert_allclose(e, [0.0, 2, 3, 4])
    np.testing.assert_allclose(s, g / (1 + np.exp(-f)), rtol=1e-6)


# -- softmax and cross entropy ---------------------------------------------------------------

def test_softmax_and_log_softmax_last_axis():
    x = RNG.normal(size=(3, 5)).astype(np.float32)
    s, ls = tf.nn.softmax(x), tf.nn.log_softmax(x, name="ls")
    assert s.op.type == "Softmax" and ls.op.name == "ls" and s.shape.as_list() == [3, 5]
    got_s, got_ls = _run([s, ls])
    np.testing.assert_allclose(got_s, ref_softmax(x), rtol=1e-5)
    np.testing.assert_allclose(got_ls, np.log(ref_softmax(x)), rtol=1e-5, atol=1e-6)
    # rank-1 and large values stay finite
    big = np.array([1000.0, 1001.0, 1002.0], np.float64)
    np.testing.assert_allclose(_run(tf.nn.softmax(big)), ref_softmax(big))


@_needs("transpose", "concat", "range", "rank", "subtract")
def test_softmax_other_axis():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    s = tf.nn.softmax(x, axis=1)
    assert s.shape.as_list() == [2, 3, 4]
    np.testing.assert_allclose(_run(s), ref_softmax(x, axis=1), rtol=1e-5)
    np.testing.assert_allclose(_run(tf.nn.log_softmax(x, dim=0)),
                               np.log(ref_softmax(x, axis=0)), rtol=1e-5, atol=1e-6)


def test_softmax_shape_errors():
    with pytest.raises(ValueError, match="at least rank 1"):
        tf.nn.softmax(tf.constant(1.0))
    with pytest.raises(TypeError):
        tf.nn.softmax(tf.constant([1, 2]))


def test_xent_raw_ops():
    from graphcore.framework.op_def_library import apply_op

    logits = RNG.normal(size=(4, 3))
    labels = ref_softmax(RNG.normal(size=(4, 3)))
    op = apply_op("SoftmaxCrossEntropyWithLogits", features=logits, labels=labels)
    assert [t.shape.as_list() for t in op.outputs] == [[4], [4, 3]]
    loss, backprop = _run(op.outputs)
    np.testing.assert_allclose(loss, -(labels * np.log(ref_softmax(logits))).sum(1), rtol=1e-10)
    np.testing.assert_allclose(backprop, ref_softmax(logits) - labels, rtol=1e-10, atol=1e-12)
    # labels broadcast against logits
    op = apply_op("SoftmaxCrossEntropyWithLogits", features=logits, labels=labels[:1])
    assert op.outputs[1].shape.as_list() == [4, 3]
    sparse = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=logits,
                      labels=np.array([0, 2, 1, 2], np.int64))
    assert [t.shape.as_list() for t in sparse.outputs] == [[4], [4, 3]]
    loss, backprop = _run(sparse.outputs)
    p = ref_softmax(logits)
    np.testing.assert_allclose(loss, -np.log(p[np.arange(4), [0, 2, 1, 2]]), rtol=1e-10)
    onehot = np.eye(3)[[0, 2, 1, 2]]
    np.testing.assert_allclose(backprop, p - onehot, atol=1e-12)
    with pytest.raises(ValueError, match="rank 1"):
        apply_op("SparseSoftmaxCrossEntropyWithLogits", features=logits, labels=[[1]])


def test_sparse_xent_label_out_of_range():
    from graphcore.framework.op_def_library import apply_op

    op = apply_op("SparseSoftmaxCrossEntropyWithLogits", features=np.zeros((2, 3), np.float32),
                  labels=np.array([0, 5], np.int32))
    with pytest.raises(errors.InvalidArgumentError,
                       match=r"Received a label value of 5 which is outside the valid range "
                             r"of \[0, 3\)"):
        _run(op.outputs[0])


@_needs("shape", "cast")
def test_sparse_softmax_cross_entropy_with_logits_wrapper():
    logits = RNG.normal(size=(4, 3)).astype(np.float32)
    labels = np.array([0, 2, 1, 2], np.int32)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    assert loss.op.name == "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropy" \
                           "WithLogits"
    assert loss.shape.as_list() == [4]
    p = ref_softmax(logits.astype(np.float64))
    np.testing.assert_allclose(_run(loss), -np.log(p[np.arange(4), labels]), rtol=1e-5)
    with pytest.raises(ValueError, match="must equal"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[[1]], logits=logits)
    with pytest.raises(ValueError, match="named arguments"):
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels, logits)


@_needs("shape", "cast", "rank", "slice", "reshape", "concat", "subtract", "stop_gradient")
def test_softmax_cross_entropy_with_logits_wrappers():
    logits = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    labels = ref_softmax(RNG.normal(size=(2, 3, 4))).astype(np.float32)
    v1 = tf.nn.softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    v2 = tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)
    assert v1.shape.as_list() == [2, 3] and v2.shape.as_list() == [2, 3]
    assert v1.op.name == "softmax_cross_entropy_with_logits_sg/Reshape_2"
    want = -(labels * np.log(ref_softmax(logits.astype(np.float64)))).sum(-1)
    got1, got2 = _run([v1, v2])
    np.testing.assert_allclose(got1, want, rtol=1e-5)
    np.testing.assert_allclose(got2, want, rtol=1e-5)


# -- bias add, l2 loss, in_top_k -------------------------------------------------------------

def test_bias_add():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    b = np.arange(4, dtype=np.float32)
    out = tf.nn.bias_add(x, b)
    assert out.op.name == "BiasAdd" and out.op.inputs[0].op.name == "BiasAdd/input"
    assert out.op.inputs[1].op.name == "BiasAdd/bias"
    assert out.shape.as_list() == [2, 3, 4]
    np.testing.assert_allclose(_run(out), x + b)
    nchw = tf.nn.bias_add(x, np.arange(3, dtype=np.float32), data_format="NCHW")
    np.testing.assert_allclose(_run(nchw), x + np.arange(3.0)[:, None])
    with pytest.raises(ValueError):
        tf.nn.bias_add(x, np.ones(5, np.float32))
    with pytest.raises(ValueError, match="rank 1"):
        tf.nn.bias_add(x, np.ones((1, 4), np.float32))
    ph = tf.placeholder(tf.float32, [None, 4])
    y = tf.nn.bias_add(ph, b)
    assert y.shape.as_list() == [None, 4]
    with pytest.raises(errors.InvalidArgumentError):
        _run(tf.nn.bias_add(tf.placeholder(tf.float32), b), {"Placeholder_1:0": np.ones((2, 3))})


def test_bias_add_grad_op():
    from graphcore.framework.op_def_library import apply_op

    g = RNG.normal(size=(2, 3, 4))
    nhwc = apply_op("BiasAddGrad", out_backprop=g).outputs[0]
    nchw = apply_op("BiasAddGrad", out_backprop=g, data_format="NCHW").outputs[0]
    assert nhwc.shape.as_list() == [4] and nchw.shape.as_list() == [3]
    a, b = _run([nhwc, nchw])
    np.testing.assert_allclose(a, g.sum((0, 1)))
    np.testing.assert_allclose(b, g.sum((0, 2)))


def test_l2_loss():
    x = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32)
    out = tf.nn.l2_loss(x)
    assert out.shape.as_list() == [] and out.dtype == tf.float32 and out.op.name == "L2Loss"
    got = _run(out)
    assert got.dtype == np.float32 and got.shape == ()
    np.testing.assert_allclose(got, (x ** 2).sum() / 2)


def test_in_top_k():
    preds = np.array([[0.1, 0.5, 0.4], [0.3, 0.3, 0.4], [np.nan, 1.0, 0.0]], np.float32)
    out = tf.nn.in_top_k(preds, np.array([1, 0, 0], np.int32), 2)
    assert out.op.type == "InTopKV2" and out.dtype == tf.bool and out.shape.as_list() == [3]
    assert _run(out).tolist() == [True, True, False]
    out1 = tf.nn.in_top_k(preds, np.array([2, 1, 7], np.int64), 1)
    assert _run(out1).tolist() == [False, False, False]


# -- conv2d ------------------------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations,ksize", [
    ((1, 1), (1, 1), (3, 3)), ((2, 2), (1, 1), (3, 2)), ((1, 2), (1, 1), (2, 2)),
    ((1, 1), (2, 2), (2, 3)), ((3, 3), (1, 1), (1, 1))])
def test_conv2d_matches_reference(padding, strides, dilations, ksize):
    x = RNG.normal(size=(2, 7, 6, 3))
    w = RNG.normal(size=(ksize[0], ksize[1], 3, 4))
    out = tf.nn.conv2d(x, w, strides=[1, *strides, 1], padding=padding,
                       dilations=[1, *dilations, 1])
    want = ref_conv2d(x, w, strides, padding, dilations)
    assert out.op.type == "Conv2D" and out.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(_run(out), want, rtol=1e-10, atol=1e-10)


def test_conv2d_attrs_shapes_and_errors():
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    w = tf.constant(np.ones((3, 3, 3, 5), np.float32))
    out = tf.nn.conv2d(x, w, strides=2, padding="SAME", name="c")
    assert out.op.name == "c" and out.shape.as_list() == [None, 4, 4, 5]
    assert out.op.get_attr("strides") == [1, 2, 2, 1]
    assert out.op.get_attr("dilations") == [1, 1, 1, 1]
    assert out.op.get_attr("padding") == b"SAME"
    assert out.op.get_attr("data_format") == b"NHWC"
    assert out.op.get_attr("use_cudnn_on_gpu") is True
    assert tf.nn.conv2d(x, w, [1, 1, 1, 1], "VALID").shape.as_list() == [None, 6, 6, 5]
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [8, 8, 3]), w, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError, match="not a multiple"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [1, 8, 8, 4]), w, [1, 1, 1, 1], "SAME")
    with pytest.raises(ValueError):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "FULL")
    with pytest.raises(ValueError, match="negative"):
        tf.nn.conv2d(tf.placeholder(tf.float32, [1, 1, 1, 3]), w, [1, 1, 1, 1], "VALID")
    half = tf.nn.conv2d(np.ones((1, 3, 3, 1), np.float16), np.ones((2, 2, 1, 1), np.float16),
                        [1, 1, 1, 1], "VALID")
    got = _run(half)
    assert got.dtype == np.float16 and np.all(got == 4)


def test_conv2d_explicit_padding():
    x = RNG.normal(size=(1, 4, 4, 2))
    w = RNG.normal(size=(3, 3, 2, 1))
    out = tf.nn.conv2d(x, w, 1, [[0, 0], [1, 2], [0, 1], [0, 0]])
    assert out.op.get_attr("padding") == b"EXPLICIT"
    assert out.op.get_attr("explicit_paddings") == [0, 0, 1, 2, 0, 1, 0, 0]
    xp = np.pad(x, ((0, 0), (1, 2), (0, 1), (0, 0)))
    want = ref_conv2d(xp, w, (1, 1), "VALID")
    assert out.shape.as_list() == list(want.shape)
    np.testing.assert_allclose(_run(out), want, rtol=1e-10)


def test_conv2d_backprop_ops_match_numerical_vjp():
    from graphcore.framework.op_def_library import apply_op

    x = RNG.normal(size=(2, 5, 6, 3))
    w = RNG.normal(size=(3, 2, 3, 4))
    attrs = {"strides": [1, 2, 1, 1], "padding": "SAME"}
    y = ref_conv2d(x, w, (2, 1), "SAME")
    g = RNG.normal(size=y.shape)
    dx = apply_op("Conv2DBackpropInput", input_sizes=np.array(x.shape, np.int32), filter=w,
                  out_backprop=g, **attrs).outputs[0]
    dw = apply_op("Conv2DBackpropFilter", input=x, filter_sizes=np.array(w.shape, np.int32),
                  out_backprop=g, **attrs).outputs[0]
    assert dx.shape.as_list() == list(x.shape) and dw.shape.as_list() == list(w.shape)
    got_dx, got_dw = _run([dx, dw])
    # conv is bilinear: <g, conv(x, w)> = <dx, x> = <dw, w>
    total = (g * y).sum()
    np.testing.assert_allclose((got_dx * x).sum(), total, rtol=1e-9)
    np.testing.assert_allclose((got_dw * w).sum(), total, rtol=1e-9)
    e = np.zeros_like(x)
    e[1, 2, 3, 1] = 1
    np.testing.assert_allclose(got_dx[1, 2, 3, 1], (g * ref_conv2d(e, w, (2, 1), "SAME")).sum())


# -- pooling -----------------------------------------------------------------------------------

@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("k,s", [((2, 2), (2, 2)), ((3, 3), (2, 2)), ((3, 2), (1, 2)),
                                 ((1, 1), (1, 1))])
def test_pools_match_reference(padding, k, s):
    x = RNG.normal(size=(2, 7, 5, 3))
    mx = tf.nn.max_pool(x, [1, *k, 1], [1, *s, 1], padding)
    av = tf.nn.avg_pool(x, [1, *k, 1], [1, *s, 1], padding)
    want_max, want_avg = ref_pool(x, k, s, padding, "max"), ref_pool(x, k, s, padding, "avg")
    assert mx.shape.as_list() == list(want_max.shape) == av.shape.as_list()
    got_max, got_avg = _run([mx, av])
    np.testing.assert_allclose(got_max, want_max)
    np.testing.assert_allclose(got_avg, want_avg, rtol=1e-12)


def test_pool_names_attrs_and_errors():
    x = tf.placeholder(tf.float32, [None, 6, 6, 2])
    mx = tf.nn.max_pool(x, 2, 2, "VALID")
    av = tf.nn.avg_pool(x, (3, 3), (1, 1), "SAME", name="ap")
    assert mx.op.name == "MaxPool" and av.op.name == "ap"
    assert mx.op.get_attr("ksize") == [1, 2, 2, 1] and mx.shape.as_list() == [None, 3, 3, 2]
    assert av.shape.as_list() == [None, 6, 6, 2]
    assert _run(tf.nn.max_pool(np.arange(16, dtype=np.int32).reshape(1, 4, 4, 1), 2, 2,
                               "VALID")).ravel().tolist() == [5, 7, 13, 15]
    with pytest.raises(ValueError, match="cannot be zero"):
        tf.nn.max_pool(x, [1, 0, 2, 1], 2, "VALID")
    with pytest.raises(ValueError, match="rank 4"):
        tf.nn.avg_pool(tf.placeholder(tf.float32, [6, 6, 2]), 2, 2, "VALID")
    with pytest.raises(TypeError):
        tf.nn.avg_pool(tf.constant(np.ones((1, 2, 2, 1), np.int32)), 2, 2, "VALID")


def test_pool_grad_ops():
    from graphcore.framework.op_def_library import apply_op

    x = np.array([[1.0, 5.0, 2.0], [4.0, 3.0, 9.0], [0.0, 8.0, 7.0]]).reshape(1, 3, 3, 1)
    attrs = {"ksize": [1, 2, 2, 1], "strides": [1, 1, 1, 1], "padding": "VALID"}
    y = ref_pool(x, (2, 2), (1, 1), "VALID", "max")
    g = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(1, 2, 2, 1)
    mg = apply_op("MaxPoolGrad", orig_input=x, orig_output=y, grad=g, **attrs).outputs[0]
    ag = apply_op("AvgPoolGrad", orig_input_shape=np.array([1, 3, 3, 1], np.int32), grad=g,
                  **attrs).outputs[0]
    assert mg.shape.as_list() == [1, 3, 3, 1] and ag.shape.as_list() == [1, 3, 3, 1]
    got_m, got_a = _run([mg, ag])
    np.testing.assert_allclose(got_m.reshape(3, 3), [[0, 1, 0], [0, 0, 6], [0, 3, 0]])
    np.testing.assert_allclose(got_a.reshape(3, 3),
                               [[0.25, 0.75, 0.5], [1.0, 2.5, 1.5], [0.75, 1.75, 1.0]])


# -- dropout, l2_normalize, moments ------------------------------------------------------------

@_needs("shape", "greater_equal", "multiply")
def test_dropout_keep_prob_and_rate():
    x = np.ones((200, 50), np.float32)
    tf.set_random_seed(1)
    d = tf.nn.dropout(x, keep_prob=0.5)
    assert d.op.name == "dropout/SelectV2" and d.shape.as_list() == [200, 50]
    assert d.op.inputs[1].op.name == "dropout/Mul"
    got = _run(d)
    assert set(np.unique(got).tolist()) <= {0.0, 2.0}
    assert 0.45 < (got == 0).mean() < 0.55
    rate = tf.placeholder(tf.float32, [])
    d2 = tf.nn.dropout(x, rate=rate)
    got2 = _run(d2, {rate: 0.75})
    assert set(np.unique(got2).tolist()) <= {0.0, 4.0}
    assert 0.7 < (got2 == 0).mean() < 0.8
    assert tf.nn.dropout(x, rate=0.0).op.type == "Const"
    with pytest.raises(ValueError):
        tf.nn.dropout(x, rate=1.0)
    with pytest.raises(ValueError):
        tf.nn.dropout(x)
    with pytest.raises(ValueError, match="floating"):
        tf.nn.dropout(np.ones(3, np.int32), rate=0.5)


@_needs("reduce_sum", "square", "rsqrt", "maximum")
def test_l2_normalize():
    x = RNG.normal(size=(3, 4)).astype(np.float32)
    out = tf.nn.l2_normalize(x, axis=1)
    assert out.op.name == "l2_normalize"
    np.testing.assert_allclose(_run(out), x / np.linalg.norm(x, axis=1, keepdims=True),
                               rtol=1e-5)


@_needs("reduce_mean", "squared_difference", "stop_gradient", "squeeze")
def test_moments():
    x = RNG.normal(size=(5, 3)).astype(np.float32)
    mean, var = tf.nn.moments(tf.constant(x), axes=[0])
    assert mean.shape.as_list() == [3] and var.shape.as_list() == [3]
    got_m, got_v = _run([mean, var])
    np.testing.assert_allclose(got_m, x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(got_v, x.var(0), rtol=1e-5)


# -- tf.layers / tf.losses (built on the math/array ops) --------------------------------------

@_needs("matmul", "zeros", "multiply")
def test_layers_dense_variables_and_values():
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.layers.dense(x, 4, activation=tf.nn.relu)
    y2 = tf.layers.dense(y, 2, use_bias=False, name="out")
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["dense/kernel", "dense/bias", "out/kernel"]
    assert tf.trainable_variables()[0].shape.as_list() == [3, 4]
    assert y.shape.as_list() == [None, 4] and y2.shape.as_list() == [None, 2]
    tf.layers.dense(x, 1)
    assert tf.global_variables()[-1].op.name == "dense_1/bias"
    xv = RNG.normal(size=(5, 3)).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        k, b, k2, out = sess.run([tf.global_variables()[0], tf.global_variables()[1],
                                  tf.global_variables()[2], y2], {x: xv})
    assert np.all(b == 0) and np.abs(k).max() <= np.sqrt(6 / 7)
    np.testing.assert_allclose(out, np.maximum(xv @ k + b, 0) @ k2, rtol=1e-5)


@_needs("reshape", "shape", "stack", "strided_slice")
def test_layers_flatten():
    x = RNG.normal(size=(2, 3, 4)).astype(np.float32)
    f = tf.layers.flatten(x)
    assert f.shape.as_list() == [2, 12]
    np.testing.assert_allclose(_run(f), x.reshape(2, 12))
    ph = tf.placeholder(tf.float32, [None, 3, 4])
    assert tf.layers.flatten(ph).shape.as_list() == [None, 12]


@_needs("reduce_sum", "squared_difference", "cast", "equal", "ones_like", "zeros_like")
def test_losses_mean_squared_error_and_collection():
    p = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    t = np.array([[1.5, 2.0], [2.0, 6.0]], np.float32)
    loss = tf.losses.mean_squared_error(t, p)
    assert loss.shape.as_list() == [] and tf.get_collection(tf.GraphKeys.LOSSES) == [loss]
    np.testing.assert_allclose(_run(loss), ((p - t) ** 2).mean(), rtol=1e-6)
    w = np.array([[1.0], [0.0]], np.float32)
    np.testing.assert_allclose(_run(tf.losses.mean_squared_error(t, p, weights=w)),
                               ((p - t) ** 2 * w).sum() / 2, rtol=1e-6)
