"""Reference tier: tf.nn convolutions and pooling against TensorFlow's compat.v1.

Each case builds the same op in TF and graphcore from the same inputs and compares the
forward values, the gradients (tf.gradients of a weighted sum, wrt every float input), the
static output shapes, and the GraphDef (node names and op types, gradient nodes included).
Skipped when TensorFlow is not installed."""

import os
import re

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(11)


def _n(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


# name -> (build(lib, *inputs), input arrays, differentiable)
CASES = {
    "conv1d": (lambda lib, x, w: lib.nn.conv1d(x, w, 2, "SAME"), [_n(2, 9, 3), _n(3, 3, 4)]),
    "conv1d_valid": (lambda lib, x, w: lib.nn.conv1d(x, w, 1, "VALID"),
                     [_n(2, 9, 3), _n(2, 3, 2)]),
    "conv1d_transpose": (lambda lib, x, w: lib.nn.conv1d_transpose(
        x, w, [2, 9, 3], 2, "SAME"), [_n(2, 5, 4), _n(3, 3, 4)]),
    "conv2d_rank5": (lambda lib, x, w: lib.nn.conv2d(x, w, 1, "SAME"),
                     [_n(2, 2, 5, 5, 3), _n(3, 3, 3, 2)]),
    "conv2d_backprop_input": (lambda lib, w, g: lib.nn.conv2d_backprop_input(
        [2, 7, 7, 3], w, g, [1, 2, 2, 1], "SAME"), [_n(3, 3, 3, 4), _n(2, 4, 4, 4)]),
    "conv2d_backprop_filter": (lambda lib, x, g: lib.nn.conv2d_backprop_filter(
        x, [3, 3, 3, 4], g, [1, 2, 2, 1], "VALID"), [_n(2, 7, 7, 3), _n(2, 3, 3, 4)]),
    "conv2d_transpose": (lambda lib, x, w: lib.nn.conv2d_transpose(
        x, w, [2, 8, 8, 3], [1, 2, 2, 1], "SAME"), [_n(2, 4, 4, 5), _n(3, 3, 3, 5)]),
    "conv2d_transpose_valid": (lambda lib, x, w: lib.nn.conv2d_transpose(
        x, w, [2, 9, 9, 3], [1, 2, 2, 1], "VALID"),
        [_n(2, 4, 4, 5), _n(3, 3, 3, 5)]),
    "conv2d_transpose_named": (lambda lib, x, w: lib.nn.conv2d_transpose(
        value=x, filter=w, output_shape=lib.constant([2, 8, 8, 3]), strides=2,
        name="deconv"), [_n(2, 4, 4, 5), _n(3, 3, 3, 5)]),
    "conv3d": (lambda lib, x, w: lib.nn.conv3d(x, w, [1, 1, 2, 1, 1], "SAME"),
               [_n(2, 4, 5, 4, 2), _n(2, 3, 2, 2, 3)]),
    "conv3d_valid": (lambda lib, x, w: lib.nn.conv3d(
        x, w, [1, 2, 1, 1, 1], "VALID", name="c"), [_n(1, 5, 4, 4, 2), _n(2, 2, 2, 2, 3)]),
    "conv3d_transpose": (lambda lib, x, w: lib.nn.conv3d_transpose(
        x, w, [2, 4, 6, 4, 2], [1, 2, 2, 2, 1], "SAME"),
        [_n(2, 2, 3, 2, 3), _n(2, 2, 2, 2, 3)]),
    "conv3d_backprop_filter_v2": (lambda lib, x, g: lib.nn.conv3d_backprop_filter_v2(
        x, [2, 2, 2, 2, 3], g, [1, 1, 1, 1, 1], "VALID"),
        [_n(1, 4, 4, 4, 2), _n(1, 3, 3, 3, 3)]),
    "conv_transpose_2d": (lambda lib, x, w: lib.nn.conv_transpose(
        x, w, [2, 8, 8, 3], 2), [_n(2, 4, 4, 5), _n(3, 3, 3, 5)]),
    "convolution_1d": (lambda lib, x, w: lib.nn.convolution(x, w, "SAME", strides=[2]),
                       [_n(2, 9, 3), _n(3, 3, 2)]),
    "convolution_2d": (lambda lib, x, w: lib.nn.convolution(
        x, w, "VALID", strides=[2, 1]), [_n(2, 7, 6, 3), _n(3, 3, 3, 2)]),
    "convolution_3d": (lambda lib, x, w: lib.nn.convolution(x, w, "SAME", name="c3"),
                       [_n(1, 4, 4, 4, 2), _n(2, 2, 2, 2, 3)]),
    "depthwise_conv2d_native": (lambda lib, x, w: lib.nn.depthwise_conv2d_native(
        x, w, [1, 2, 2, 1], "SAME"), [_n(2, 7, 7, 3), _n(3, 3, 3, 2)]),
    "depthwise_conv2d_native_valid": (lambda lib, x, w: lib.nn.depthwise_conv2d_native(
        x, w, [1, 1, 1, 1], "VALID"), [_n(2, 7, 7, 3), _n(2, 2, 3, 2)]),
    "depthwise_conv2d_native_backprop_input": (
        lambda lib, w, g: lib.nn.depthwise_conv2d_native_backprop_input(
            [2, 7, 7, 3], w, g, [1, 2, 2, 1], "SAME"), [_n(3, 3, 3, 2), _n(2, 4, 4, 6)]),
    "depthwise_conv2d_backprop_filter": (
        lambda lib, x, g: lib.nn.depthwise_conv2d_backprop_filter(
            x, [3, 3, 3, 2], g, [1, 1, 1, 1], "VALID"), [_n(2, 6, 6, 3), _n(2, 4, 4, 6)]),
    "depthwise_conv2d": (lambda lib, x, w: lib.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
                         [_n(2, 6, 6, 3), _n(3, 3, 3, 2)]),
    "separable_conv2d": (lambda lib, x, d, p: lib.nn.separable_conv2d(
        x, d, p, [1, 2, 2, 1], "VALID"), [_n(2, 7, 7, 3), _n(3, 3, 3, 2), _n(1, 1, 6, 4)]),
    "dilation2d": (lambda lib, x, f: lib.nn.dilation2d(x, f, [1, 2, 2, 1], [1, 1, 1, 1],
                                                       "SAME"), [_n(2, 7, 7, 3), _n(3, 3, 3)]),
    "dilation2d_rates_valid": (lambda lib, x, f: lib.nn.dilation2d(
        x, f, [1, 1, 1, 1], [1, 2, 2, 1], "VALID"), [_n(2, 7, 7, 3), _n(2, 3, 3)]),
    "erosion2d": (lambda lib, x, f: lib.nn.erosion2d(x, f, [1, 1, 1, 1], [1, 1, 1, 1],
                                                     "SAME"), [_n(2, 6, 6, 3), _n(3, 2, 3)]),
    "extract_volume_patches": (lambda lib, x: lib.extract_volume_patches(
        x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"), [_n(2, 3, 5, 4, 2)]),
    "extract_volume_patches_valid": (lambda lib, x: lib.extract_volume_patches(
        x, [1, 1, 3, 2, 1], [1, 2, 2, 2, 1], "VALID", name="evp"), [_n(1, 4, 6, 5, 3)]),
    "max_pool1d": (lambda lib, x: lib.nn.max_pool1d(x, 3, 2, "SAME"), [_n(2, 9, 3)]),
    "max_pool2d": (lambda lib, x: lib.nn.max_pool2d(x, 2, 2, "VALID"), [_n(2, 6, 6, 3)]),
    "max_pool3d": (lambda lib, x: lib.nn.max_pool3d(x, 2, [1, 1, 2, 2, 1], "SAME"),
                   [_n(2, 4, 5, 5, 2)]),
    "max_pool_v2_1d": (lambda lib, x: lib.nn.max_pool_v2(x, 2, 1, "VALID"), [_n(2, 7, 3)]),
    "max_pool_v2_3d": (lambda lib, x: lib.nn.max_pool_v2(x, 2, 2, "SAME"),
                       [_n(1, 3, 4, 4, 2)]),
    "max_pool_v2_op_grad_grad": (lambda lib, x: lib.gradients(lib.nn.l2_loss(
        lib.raw_ops.MaxPoolV2(input=x, ksize=[1, 2, 2, 1], strides=[1, 1, 1, 1],
                              padding="VALID")), x)[0], [_n(2, 5, 5, 3)]),
    "max_pool_grad_grad": (lambda lib, x: lib.gradients(lib.nn.l2_loss(
        lib.nn.max_pool(x, 3, 2, "SAME")), x)[0], [_n(2, 5, 5, 3)]),
    "avg_pool1d": (lambda lib, x: lib.nn.avg_pool1d(x, 3, 2, "SAME"), [_n(2, 9, 3)]),
    "avg_pool2d": (lambda lib, x: lib.nn.avg_pool2d(x, 3, 2, "SAME"), [_n(2, 7, 7, 3)]),
    "avg_pool3d": (lambda lib, x: lib.nn.avg_pool3d(x, 3, 2, "SAME", name="ap3"),
                   [_n(2, 5, 5, 4, 2)]),
    "avg_pool_v2_2d": (lambda lib, x: lib.nn.avg_pool_v2(x, 2, 2, "VALID"),
                       [_n(2, 6, 6, 3)]),
    "max_pool_with_argmax": (lambda lib, x: lib.nn.max_pool_with_argmax(
        x, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"), [_n(2, 5, 5, 3)]),
    "max_pool_with_argmax_batch": (lambda lib, x: lib.nn.max_pool_with_argmax(
        x, [1, 3, 3, 1], [1, 2, 2, 1], "VALID", include_batch_in_index=True),
        [_n(2, 7, 7, 3)]),
    "pool_max_2d": (lambda lib, x: lib.nn.pool(x, [2, 2], "MAX", "SAME", strides=[2, 2]),
                    [_n(2, 5, 5, 3)]),
    # The deep MNIST tutorial's layers: 5x5 SAME conv at stride 1, 2x2 max-pool at stride 2
    # (SAME on an odd size); ties in a window send the gradient to its first maximum.
    "conv2d_5x5_same": (lambda lib, x, w: lib.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"),
                        [_n(3, 9, 9, 4), _n(5, 5, 4, 6)]),
    "max_pool_2x2_same_ties": (lambda lib, x: lib.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1],
                                                              "SAME"),
                               [np.round(_n(2, 7, 7, 3))]),
    "max_pool_3x3_overlap_ties": (lambda lib, x: lib.nn.max_pool(x, 3, 1, "SAME"),
                                  [np.round(_n(2, 6, 6, 2))]),
    "pool_avg_1d": (lambda lib, x: lib.nn.pool(x, [3], "AVG", "VALID"), [_n(2, 8, 3)]),
    "pool_avg_3d": (lambda lib, x: lib.nn.pool(x, [2, 2, 2], "AVG", "VALID",
                                               strides=[1, 2, 2]), [_n(1, 4, 4, 4, 2)]),
}

# Dilated convolution and pooling: through SpaceToBatchND/BatchToSpaceND.
DILATED = {
    "convolution_dilated": (lambda lib, x, w: lib.nn.convolution(
        x, w, "SAME", dilation_rate=[2, 2]), [_n(2, 9, 9, 3), _n(3, 3, 3, 2)]),
    "atrous_conv2d": (lambda lib, x, w: lib.nn.atrous_conv2d(x, w, 2, "VALID"),
                      [_n(2, 9, 9, 3), _n(3, 3, 3, 2)]),
    "atrous_conv2d_transpose": (lambda lib, x, w: lib.nn.atrous_conv2d_transpose(
        x, w, [2, 9, 9, 3], 2, "SAME"), [_n(2, 9, 9, 2), _n(3, 3, 3, 2)]),
    "depthwise_conv2d_rate": (lambda lib, x, w: lib.nn.depthwise_conv2d(
        x, w, [1, 1, 1, 1], "SAME", rate=[2, 2]), [_n(2, 8, 8, 3), _n(3, 3, 3, 2)]),
    "with_space_to_batch": (lambda lib, x: lib.nn.with_space_to_batch(
        x, [2, 2], "VALID", lambda inp, _, padding: lib.nn.avg_pool(inp, 2, 1, padding)),
        [_n(2, 8, 7, 3)]),
    "pool_dilated": (lambda lib, x: lib.nn.pool(x, [2, 2], "MAX", "VALID",
                                                dilation_rate=[2, 2]), [_n(2, 8, 8, 3)]),
}


# The loss's own gradient nodes (Sum, mul, the seed: graphcore names some of them otherwise)
# are not the ops under test.
_LOSS_GRAD = re.compile(r"gradients(_\d+)?/(.*mul_grad/|Sum_grad/|Shape|grad_ys_0|Fill)")


def _run(lib, build, arrays):
    """(values, gradient values, static shapes, [(name, op)] of the GraphDef)."""
    compat = tf if lib is tf else tf1
    with compat.Graph().as_default() as g:
        inputs = [compat.constant(a, name=f"in{i}") for i, a in enumerate(arrays)]
        out = build(compat, *inputs)
        outs = list(out) if isinstance(out, tuple) else [out]
        weight = compat.constant(np.linspace(-1, 1, outs[0].shape.num_elements())
                                 .reshape(outs[0].shape.as_list()).astype(np.float32))
        loss = compat.reduce_sum(outs[0] * weight)
        grads = compat.gradients(loss, inputs)
        grads = [gr for gr in grads if gr is not None]
        with compat.Session() as sess:
            values, grad_values = sess.run([outs, grads])
        nodes = [(n.name, n.op) for n in g.as_graph_def().node
                 if not _LOSS_GRAD.match(n.name)]
        return values, grad_values, [o.shape.as_list() for o in outs + grads], nodes


@pytest.mark.parametrize("case", sorted(CASES) + sorted(DILATED))
def test_conv_and_pool_match_tf(case):
    build, arrays = {**CASES, **DILATED}[case]
    got, got_grads, got_shapes, got_nodes = _run(tf, build, arrays)
    want, want_grads, want_shapes, want_nodes = _run(tf1, build, arrays)
    assert got_shapes == want_shapes
    assert got_nodes == want_nodes
    assert len(got_grads) == len(want_grads) > 0
    for g, w in zip(got + got_grads, want + want_grads):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-4)


def _conv(lib, x, w, **kwargs):
    return lib.conv(x, w, padding="SAME", **kwargs)


# Ops without gradients in TF (Conv), or without a TF CPU kernel (the V2 backprops, whose
# values compare with TF's Conv2DBackpropInput/Filter over the same shapes).
FORWARD = {
    "conv_2d": (lambda lib, x, w: _conv(lib, x, w, strides=[1, 2, 2, 1]),
                lambda lib, x, w: _conv(lib, x, w, strides=[1, 2, 2, 1]),
                [_n(2, 6, 6, 4), _n(3, 3, 4, 3)]),
    "conv_3d_batch_dims": (
        lambda lib, x, w: _conv(lib, x, w, strides=[1, 1, 1, 1, 1], batch_dims=2,
                                name="c"),
        lambda lib, x, w: _conv(lib, x, w, strides=[1, 1, 1, 1, 1], batch_dims=2,
                                name="c"),
        [_n(2, 2, 4, 4, 4, 2), _n(2, 2, 2, 2, 3)]),
    "conv2d_backprop_input_v2": (
        lambda lib, x, w, g: lib.conv2d_backprop_input_v2(x, w, g, [1, 2, 2, 1], "SAME"),
        lambda lib, x, w, g: lib.nn.conv2d_backprop_input(x.shape.as_list(), w, g,
                                                          [1, 2, 2, 1], "SAME"),
        [_n(2, 7, 7, 3), _n(3, 3, 3, 4), _n(2, 4, 4, 4)]),
    "conv2d_backprop_filter_v2": (
        lambda lib, x, w, g: lib.conv2d_backprop_filter_v2(x, w, g, [1, 1, 1, 1], "VALID",
                                                           name="bpf"),
        lambda lib, x, w, g: lib.nn.conv2d_backprop_filter(x, w.shape.as_list(), g,
                                                           [1, 1, 1, 1], "VALID"),
        [_n(2, 5, 5, 3), _n(3, 3, 3, 4), _n(2, 3, 3, 4)]),
}


def _forward(compat, build, arrays, run):
    with compat.Graph().as_default() as g:
        out = build(compat, *[compat.constant(a, name=f"in{i}") for i, a in enumerate(arrays)])
        nodes = [(n.name, n.op) for n in g.as_graph_def().node]
        if not run:
            return out.shape.as_list(), nodes
        with compat.Session() as sess:
            return sess.run(out)


@pytest.mark.parametrize("case", sorted(FORWARD))
def test_ops_without_gradients_match_tf(case):
    build, reference, arrays = FORWARD[case]
    assert _forward(tf, build, arrays, False) == _forward(tf1, build, arrays, False)
    np.testing.assert_allclose(_forward(tf, build, arrays, True),
                               _forward(tf1, reference, arrays, True), rtol=2e-4, atol=2e-4)


def _error(lib, build):
    compat = tf if lib is tf else tf1
    with compat.Graph().as_default():
        try:
            out = build(compat)
            with compat.Session() as sess:
                sess.run(out)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return type(e).__name__
    return None


ERRORS = {
    "conv2d_depth_mismatch": lambda lib: lib.nn.conv2d(_n(1, 5, 5, 3), _n(3, 3, 2, 2), 1,
                                                       "SAME"),
    "conv3d_rank": lambda lib: lib.nn.conv3d(_n(1, 5, 5, 3), _n(3, 3, 3, 2, 2),
                                             [1, 1, 1, 1, 1], "SAME"),
    "conv3d_strides_len": lambda lib: lib.nn.conv3d(_n(1, 4, 4, 4, 1), _n(2, 2, 2, 1, 1),
                                                    [1, 1, 1, 1], "SAME"),
    "max_pool3d_batch_window": lambda lib: lib.nn.max_pool3d(
        lib.placeholder_with_default(_n(2, 4, 4, 4, 1), [None, 4, 4, 4, 1]),
        [2, 2, 2, 2, 1], 1, "VALID"),
    "pool_bad_type": lambda lib: lib.nn.pool(_n(1, 4, 4, 1), [2, 2], "MIN", "VALID"),
    "conv_transpose_bad_length": lambda lib: lib.nn.conv_transpose(
        _n(1, 4, 4, 4, 4, 1), _n(2, 2, 2, 1), [1, 1, 1, 1, 1, 1], 1),
    "backprop_input_mismatch": lambda lib: lib.nn.conv2d_backprop_input(
        [1, 8, 8, 3], _n(3, 3, 3, 2), _n(1, 3, 3, 2), [1, 1, 1, 1], "SAME"),
    "conv_grouped": lambda lib: lib.conv(_n(1, 4, 4, 4), _n(2, 2, 2, 4), [1, 1, 1, 1],
                                         "SAME", groups=2),
    "conv_rank": lambda lib: lib.conv(_n(1, 4, 4), _n(2, 4, 4), [1, 1, 1], "SAME"),
    "argmax_nchw": lambda lib: lib.nn.max_pool_with_argmax(
        _n(1, 4, 4, 1), 2, 2, "VALID", data_format="NCHW"),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_tf(case):
    assert _error(tf, ERRORS[case]) == _error(tf1, ERRORS[case]) is not None


@pytest.mark.parametrize("pooling", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
def test_fractional_pool_matches_tf(pooling, pseudo_random, overlapping):
    """The regions are random (TF's Philox stream is not reproduced): the GraphDef and
    shapes compare with TF's, the regions are checked as TF draws them (sizes k or k + 1
    covering the input), the output against them, the gradient against TF's gradient op
    over graphcore's regions."""
    x = _n(2, 11, 9, 3)
    ratio = [1.0, 1.6, 1.4, 1.0]

    def build(compat):
        inp = compat.constant(x, name="x")
        fn = getattr(compat.nn, f"fractional_{pooling}_pool")
        out, rows, cols = fn(inp, ratio, pseudo_random=pseudo_random, overlapping=overlapping,
                             deterministic=True, seed=1, seed2=2)
        weight = compat.constant(_n(*out.shape.as_list()), name="w")
        grad = compat.gradients(compat.reduce_sum(out * weight), inp)[0]
        return (out, rows, cols, grad, weight)

    graphs = []
    for compat in (tf, tf1):
        with compat.Graph().as_default() as g:
            tensors = build(compat)
            graphs.append(([t.shape.as_list() for t in tensors],
                           [(n.name, n.op) for n in g.as_graph_def().node
                            if not _LOSS_GRAD.match(n.name)]))
            if compat is tf:
                with tf.Session() as sess:
                    out, rows, cols, grad, weight = sess.run(tensors)
    assert graphs[0] == graphs[1]
    for seq, size, n_out in ((rows, 11, out.shape[1]), (cols, 9, out.shape[2])):
        diff = np.diff(seq)
        assert seq[0] == 0 and seq[-1] == size and len(diff) == n_out
        assert set(diff) <= {size // n_out, size // n_out + 1}
    reduce = np.max if pooling == "max" else np.mean
    extra = 1 if overlapping else 0
    for i in range(out.shape[1]):
        for j in range(out.shape[2]):
            block = x[:, rows[i]:rows[i + 1] + extra, cols[j]:cols[j + 1] + extra, :]
            np.testing.assert_allclose(out[:, i, j, :], reduce(block, axis=(1, 2)), rtol=1e-6)
    with tf_ref.Graph().as_default():
        if pooling == "max":
            want = tf_ref.raw_ops.FractionalMaxPoolGrad(
                orig_input=x, orig_output=out, out_backprop=weight, row_pooling_sequence=rows,
                col_pooling_sequence=cols, overlapping=overlapping)
        else:
            want = tf_ref.raw_ops.FractionalAvgPoolGrad(
                orig_input_tensor_shape=x.shape, out_backprop=weight,
                row_pooling_sequence=rows, col_pooling_sequence=cols, overlapping=overlapping)
        with tf1.Session() as sess:
            np.testing.assert_allclose(grad, sess.run(want), rtol=1e-5, atol=1e-6)


def _quantized(compat, values, dtype):
    return compat.bitcast(compat.constant(values), dtype)


QUANTIZED = {
    "avg_pool_quint8": lambda lib, x: lib.nn.quantized_avg_pool(
        _quantized(lib, x, lib.quint8), -1.0, 2.0, [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    "max_pool_quint8": lambda lib, x: lib.nn.quantized_max_pool(
        _quantized(lib, x, lib.quint8), 0.0, 6.0, [1, 3, 3, 1], [1, 1, 1, 1], "VALID",
        name="qmp"),
    "conv2d": lambda lib, x: lib.nn.quantized_conv2d(
        _quantized(lib, x, lib.quint8), _quantized(lib, W_Q, lib.quint8), -1.0, 3.0,
        -2.5, 1.5, [1, 1, 1, 1], "SAME"),
    "conv2d_strided_valid": lambda lib, x: lib.nn.quantized_conv2d(
        _quantized(lib, x, lib.quint8), _quantized(lib, W_Q, lib.quint8), 0.0, 1.0,
        -1.0, 1.0, [1, 2, 2, 1], "VALID"),
}
X_Q = RNG.integers(0, 256, size=(2, 6, 5, 3)).astype(np.uint8)
W_Q = RNG.integers(0, 256, size=(3, 2, 3, 2)).astype(np.uint8)


@pytest.mark.parametrize("case", sorted(QUANTIZED))
def test_quantized_ops_match_tf(case):
    results = []
    for compat in (tf, tf1):
        with compat.Graph().as_default() as g:
            out = QUANTIZED[case](compat, X_Q)
            base = compat.int32 if out[0].dtype == compat.qint32 else compat.uint8
            fetches = [compat.bitcast(out[0], base), out[1], out[2]]
            with compat.Session() as sess:
                values = sess.run(fetches)
            results.append((values, [t.shape.as_list() for t in out],
                            [t.dtype.name for t in out],
                            [(n.name, n.op) for n in g.as_graph_def().node]))
    (got, *got_info), (want, *want_info) = results
    assert got_info == want_info
    for g_value, w_value in zip(got, want):
        np.testing.assert_array_equal(g_value, w_value)


def test_quantized_relu_x_matches_tf():
    """TF builds QuantizedReluX but has no kernel for it: the GraphDef and shapes compare
    with TF's, the values with TF's QuantizedRelu6 (ReLU-X with X = 6)."""
    graphs = []
    for compat in (tf, tf1):
        with compat.Graph().as_default() as g:
            out = compat.nn.quantized_relu_x(_quantized(compat, X_Q, compat.quint8), 6.0,
                                             -2.0, 10.0)
            graphs.append(([t.shape.as_list() for t in out], [t.dtype.name for t in out],
                           [(n.name, n.op) for n in g.as_graph_def().node]))
            if compat is tf:
                with tf.Session() as sess:
                    got = sess.run([tf.bitcast(out[0], tf.uint8), out[1], out[2]])
    assert graphs[0] == graphs[1]
    with tf_ref.Graph().as_default():
        relu6 = tf_ref.raw_ops.QuantizedRelu6(features=_quantized(tf1, X_Q, tf1.quint8),
                                              min_features=-2.0, max_features=10.0)
        with tf1.Session() as sess:
            want = sess.run([tf1.bitcast(relu6[0], tf1.uint8), relu6[1], relu6[2]])
    for g_value, w_value in zip(got, want):
        np.testing.assert_array_equal(g_value, w_value)
