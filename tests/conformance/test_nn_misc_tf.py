"""Reference tier: the tf.nn activations, logistic/Poisson losses, moments family, batch
normalization, LRN, top_k and space ops against TensorFlow's compat.v1 graph mode: the same
GraphDef nodes (names and op types), values, static shapes and tf.gradients."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

pytestmark = pytest.mark.usefixtures("tf_control_flow_v1")

RNG = np.random.default_rng(11)
X = (RNG.normal(size=(3, 4)) * 2).astype(np.float32)
X[0, 1] = 0.0
LAB = RNG.uniform(size=(3, 4)).astype(np.float32)
IMG = RNG.normal(size=(2, 4, 6, 3)).astype(np.float32)


def _tf_config():
    """TF's session config with grappler off: its remapper rewrites an inference
    FusedBatchNormV3 into Mul/Add and then cannot fetch the op's other outputs."""
    from tensorflow.core.protobuf import rewriter_config_pb2

    rewrite = rewriter_config_pb2.RewriterConfig(disable_meta_optimizer=True)
    return tf1.ConfigProto(graph_options=tf1.GraphOptions(rewrite_options=rewrite))


_TF_CONFIG = _tf_config()


def _nodes(graph_def):
    return sorted((n.name, n.op) for n in graph_def.node)


def _run(lib, build, grads):
    """(values, grad values, nodes before gradients, output shapes) of build(lib)."""
    with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default() as g:
        outs, xs = build(lib)
        outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
        nodes = _nodes(g.as_graph_def())
        shapes = [o.shape.as_list() if o.shape.ndims is not None else None for o in outs]
        dtypes = [o.dtype.name for o in outs]
        gs = []
        if grads:
            ys = [o for o in outs if o.dtype.is_floating]
            gs = [t for t in lib.gradients(ys, xs) if t is not None]
        with (tf.Session() if lib is tf else tf1.Session(config=_TF_CONFIG)) as sess:
            values = sess.run(outs)
            gvalues = sess.run(gs)
    return values, gvalues, nodes, shapes, dtypes


def _check(build, grads=True, rtol=1e-5, atol=1e-5, nodes=True):
    got, ggot, gnodes, gshapes, gdtypes = _run(tf, build, grads)
    want, gwant, wnodes, wshapes, wdtypes = _run(tf1, build, grads)
    if nodes:
        assert gnodes == wnodes
    assert gshapes == wshapes
    assert gdtypes == wdtypes
    assert len(ggot) == len(gwant)
    for g, w in zip(list(got) + list(ggot), list(want) + list(gwant)):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape and g.dtype == w.dtype
        if g.dtype.kind != "c":
            g, w = g.astype(np.float64), w.astype(np.float64)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


def _const(lib, value):
    return lib.constant(value)


CASES = {
    "leaky_relu": lambda lib, x: lib.nn.leaky_relu(x),
    "leaky_relu_alpha": lambda lib, x: lib.nn.leaky_relu(x, alpha=0.05, name="lr"),
    "selu": lambda lib, x: lib.nn.selu(x),
    "softsign": lambda lib, x: lib.nn.softsign(x),
    "swish": lambda lib, x: lib.nn.swish(x),
    "silu_beta": lambda lib, x: lib.nn.silu(x, beta=0.7),
    "crelu": lambda lib, x: lib.nn.crelu(x),
    "crelu_axis0": lambda lib, x: lib.nn.crelu(x, axis=0, name="cr"),
    "relu_layer": lambda lib, x: lib.nn.relu_layer(x, lib.transpose(x), [0.5, -1.0, 0.2]),
    "xw_plus_b": lambda lib, x: lib.nn.xw_plus_b(x, lib.transpose(x), [0.5, -1.0, 0.2]),
    "zero_fraction": lambda lib, x: lib.nn.zero_fraction(x),
    "math_zero_fraction": lambda lib, x: lib.math.zero_fraction(x, name="zf"),
    "sigmoid_xent": lambda lib, x: lib.nn.sigmoid_cross_entropy_with_logits(
        labels=LAB, logits=x),
    "weighted_xent": lambda lib, x: lib.nn.weighted_cross_entropy_with_logits(
        labels=LAB, logits=x, pos_weight=1.7),
    "weighted_xent_targets": lambda lib, x: lib.nn.weighted_cross_entropy_with_logits(
        targets=LAB, logits=x, pos_weight=0.5, name="w"),
    "log_poisson": lambda lib, x: lib.nn.log_poisson_loss(LAB * 3, x),
    "log_poisson_full": lambda lib, x: lib.nn.log_poisson_loss(LAB * 3, x,
                                                               compute_full_loss=True),
    "sufficient_statistics": lambda lib, x: [
        t for t in lib.nn.sufficient_statistics(x, [0]) if t is not None],
    "sufficient_statistics_shift": lambda lib, x: lib.nn.sufficient_statistics(
        x, [1, 0], shift=0.5, keep_dims=True)[:3],
    "normalize_moments": lambda lib, x: lib.nn.normalize_moments(
        *lib.nn.sufficient_statistics(x, [1], shift=lib.constant(0.25))),
    "normalize_moments_noshift": lambda lib, x: lib.nn.normalize_moments(
        *lib.nn.sufficient_statistics(x, [0])),
    "weighted_moments": lambda lib, x: lib.nn.weighted_moments(x, [1], LAB),
    "weighted_moments_keep": lambda lib, x: lib.nn.weighted_moments(
        x, [0], LAB[:1], keep_dims=True),
    "batch_normalization": lambda lib, x: lib.nn.batch_normalization(
        x, LAB[0], LAB[1] + 1, LAB[2], None, 1e-3),
    "batch_normalization_scale": lambda lib, x: lib.nn.batch_normalization(
        x, LAB[0], LAB[1] + 1, None, LAB[2], 1e-3, name="bn"),
    "bn_global": lambda lib, x: lib.nn.batch_norm_with_global_normalization(
        x, LAB[0], LAB[1] + 1, LAB[2], LAB[0], 1e-3, True),
    "bn_global_noscale": lambda lib, x: lib.nn.batch_norm_with_global_normalization(
        input=x, mean=LAB[0], variance=LAB[1] + 1, beta=LAB[2], gamma=LAB[0],
        variance_epsilon=1e-3, scale_after_normalization=False),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_nn_composites_match_tf(case):
    def build(lib):
        x = _const(lib, X)
        return CASES[case](lib, x), [x]

    _check(build)


@pytest.mark.parametrize("fn", ["leaky_relu", "selu", "softsign"])
@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_activations_dtypes_match_tf(fn, dtype):
    def build(lib):
        x = _const(lib, X.astype(dtype))
        return getattr(lib.nn, fn)(x), [x]

    tol = 2e-3 if dtype == np.float16 else 1e-10
    _check(build, rtol=tol, atol=tol)


def test_leaky_relu_int_input_is_cast_like_tf():
    _check(lambda lib: (lib.nn.leaky_relu(np.array([-3, 0, 4], np.int32)), []), grads=False)


@pytest.mark.parametrize("fn", ["leaky_relu", "selu", "swish"])
def test_activation_second_order_gradients_match_tf(fn):
    def build(lib):
        x = _const(lib, X)
        y = getattr(lib.nn, fn)(x)
        dx = lib.gradients(y * y, x)[0]
        return dx, [x]

    _check(build, nodes=False)


def test_softsign_has_no_second_order_gradient_like_tf():
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            x = lib.constant(X)
            dx = lib.gradients(lib.nn.softsign(x), x)[0]
            with pytest.raises(LookupError, match="SoftsignGrad"):
                lib.gradients(dx, x)


POS = (np.abs(X) + 0.3).astype(np.float32)
MATH_CASES = {
    **{f"special_{n}": (lambda lib, x, n=n: getattr(lib.math.special, n)(x))
       for n in ["bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0",
                 "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e",
                 "bessel_k1", "bessel_k1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin",
                 "spence"]},
    "bessel_i1e_signed": lambda lib, x: lib.math.bessel_i1e(x - 1.0, name="b"),
    "bessel_i0_signed": lambda lib, x: lib.math.bessel_i0(x - 1.0),
    "multiply_no_nan": lambda lib, x: lib.math.multiply_no_nan(x, X * (X > 0)),
    "multiply_no_nan_bcast": lambda lib, x: lib.math.multiply_no_nan(
        x, np.array([0.0, 1.0, 2.0, 0.0], np.float32)),
    "xlog1py": lambda lib, x: lib.math.xlog1py(x * (X > 0), x),
    "nextafter": lambda lib, x: lib.math.nextafter(x, 0.0 * x),
    "reduce_euclidean_norm": lambda lib, x: lib.math.reduce_euclidean_norm(x),
    "reduce_euclidean_norm_axis": lambda lib, x: lib.math.reduce_euclidean_norm(
        x, axis=1, keepdims=True, name="n"),
    "reduce_euclidean_norm_axis0": lambda lib, x: lib.math.reduce_euclidean_norm(x, [0]),
    "cumulative_logsumexp": lambda lib, x: lib.math.cumulative_logsumexp(x),
    "cumulative_logsumexp_rev": lambda lib, x: lib.math.cumulative_logsumexp(
        x - 2.0, axis=1, exclusive=True, reverse=True),
    "cumulative_logsumexp_excl": lambda lib, x: lib.math.cumulative_logsumexp(
        x, axis=-1, exclusive=True, name="c"),
}


@pytest.mark.parametrize("case", sorted(MATH_CASES))
def test_math_leftovers_match_tf(case):
    def build(lib):
        x = _const(lib, POS)
        return MATH_CASES[case](lib, x), [x]

    _check(build, rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("dtype", [np.int32, np.float64, np.complex64])
def test_reduce_euclidean_norm_dtypes_match_tf(dtype):
    x = np.array([[3, -4, 1], [2, 2, 5]]).astype(dtype)
    _check(lambda lib: ([lib.math.reduce_euclidean_norm(x, 1),
                         lib.math.reduce_euclidean_norm(x)], []), grads=False)


TIES = np.array([[3, 1, 3, 2, 1], [0, 5, 5, 5, -1], [2, 2, 2, 2, 2]], np.float32)
SORT_CASES = {
    "top_k": lambda lib, x: list(lib.nn.top_k(x, 3)),
    "top_k_k1": lambda lib, x: lib.math.top_k(x, name="tk").values,
    "top_k_int64": lambda lib, x: list(lib.nn.top_k(x, k=5, index_type=lib.int64)),
    "top_k_3d": lambda lib, x: list(lib.nn.top_k(lib.reshape(x, [3, 1, 5]), 2)),
    "sort": lambda lib, x: lib.sort(x),
    "sort_desc": lambda lib, x: lib.sort(x, direction="DESCENDING", name="s"),
    "sort_axis0": lambda lib, x: lib.sort(x, axis=0),
    "argsort": lambda lib, x: [lib.argsort(x), x * 1.0],
    "argsort_axis0_desc": lambda lib, x: [lib.argsort(x, axis=0, direction="DESCENDING"),
                                          x * 1.0],
    "sort_int": lambda lib, x: [lib.sort(lib.cast(x, lib.int32)), x * 1.0],
    "sort_uint8": lambda lib, x: [lib.sort(lib.cast(x + 1.0, lib.uint8)), x * 1.0],
}


@pytest.mark.parametrize("case", sorted(SORT_CASES))
def test_top_k_and_sort_match_tf(case):
    def build(lib):
        x = _const(lib, TIES + X[:, :1].repeat(5, 1) * 0)
        return SORT_CASES[case](lib, x), [x]

    # TF's TopKV2 gradient adds int32 offsets to the indices: int64 ones fail in both.
    _check(build, grads=case != "top_k_int64")


def test_top_k_errors_match_tf():
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            with pytest.raises(ValueError, match="must have last dimension >= k"):
                lib.nn.top_k(TIES, 6)
            k = lib.placeholder(lib.int32, [])
            out = lib.nn.top_k(TIES, k)
            assert out.values.shape.as_list() == [3, None]
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with (tf.Session if lib is tf else tf1.Session)() as sess:
                with pytest.raises(err, match="at least k columns. Had 5, needed 7"):
                    sess.run(out, {k: 7})


SPACE_CASES = {
    "space_to_batch_nd": lambda lib, x: lib.space_to_batch_nd(x, [2, 3], [[0, 0], [1, 2]]),
    "space_to_batch_nd_1d": lambda lib, x: lib.space_to_batch_nd(x, [2], [[1, 1]], name="s"),
    "batch_to_space_nd": lambda lib, x: lib.batch_to_space_nd(
        lib.space_to_batch_nd(x, [2, 2], [[2, 0], [1, 1]]), [2, 2], [[1, 1], [0, 2]]),
    "space_to_batch": lambda lib, x: lib.space_to_batch(x, [[1, 1], [0, 2]], 2),
    "nn_space_to_batch": lambda lib, x: lib.nn.space_to_batch(x, [[0, 0], [1, 1]],
                                                              block_size=4),
    "batch_to_space": lambda lib, x: lib.batch_to_space(
        lib.concat([x, x], 0), [[0, 0], [1, 0]], 2),
    "space_to_depth": lambda lib, x: lib.space_to_depth(x, 2),
    "nn_depth_to_space": lambda lib, x: lib.nn.depth_to_space(lib.tile(x, [1, 1, 1, 4]), 2),
    "depth_to_space_round_trip": lambda lib, x: lib.depth_to_space(
        lib.nn.space_to_depth(x, 2, name="s2d"), 2),
    "extract_image_patches_valid": lambda lib, x: lib.extract_image_patches(
        x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 1, 1, 1], "VALID"),
    "extract_image_patches_same": lambda lib, x: lib.extract_image_patches(
        x, ksizes=[1, 3, 2, 1], strides=[1, 2, 3, 1], rates=[1, 1, 2, 1], padding="SAME"),
    "required_paddings": lambda lib, x: list(lib.required_space_to_batch_paddings(
        [5, 7], [2, 3], base_paddings=[[1, 0], [0, 2]])),
    "required_paddings_dynamic": lambda lib, x: list(lib.required_space_to_batch_paddings(
        lib.shape(lib.placeholder_with_default(x, [None] * 4))[1:3], [3, 4])),
}


@pytest.mark.parametrize("case", sorted(SPACE_CASES))
def test_space_ops_match_tf(case):
    def build(lib):
        x = _const(lib, IMG)
        return SPACE_CASES[case](lib, x), [x]

    _check(build, rtol=1e-6, atol=1e-6)


def test_space_ops_raw_and_partial_shapes_match_tf():
    def build(lib):
        x = lib.placeholder_with_default(IMG, [None, None, None, 3])
        b = lib.placeholder_with_default(np.array([2, 2], np.int32), [2])
        outs = [lib.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]]),
                lib.batch_to_space_nd(lib.concat([x, x], 0), [1, 2], [[0, 0], [0, 0]]),
                lib.space_to_batch_nd(IMG, b, [[0, 0], [0, 0]]),
                lib.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")]
        if lib is tf:
            from graphcore.framework.op_def_library import apply_op
            raw = apply_op("SpaceToBatch", input=IMG, paddings=[[0, 0], [0, 2]],
                           block_size=2).outputs[0]
            raw = [raw, apply_op("BatchToSpace", input=raw, crops=[[0, 0], [0, 2]],
                                 block_size=2).outputs[0]]
        else:
            raw = tf_ref.raw_ops.SpaceToBatch(input=IMG, paddings=[[0, 0], [0, 2]],
                                              block_size=2)
            raw = [raw, tf_ref.raw_ops.BatchToSpace(input=raw, crops=[[0, 0], [0, 2]],
                                                    block_size=2)]
        return outs + raw, [x]

    _check(build, nodes=False)


@pytest.mark.parametrize("build", [
    lambda lib: lib.space_to_depth(IMG[:, :3], 2),
    lambda lib: lib.depth_to_space(IMG, 2),
    lambda lib: lib.space_to_batch_nd(IMG, [2, 4], [[0, 0], [0, 0]]),
    lambda lib: lib.batch_to_space_nd(IMG, [3, 1], [[0, 0], [0, 0]]),
])
def test_space_ops_shape_errors_match_tf(build):
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            with pytest.raises(ValueError, match="evenly divisible by"):
                build(lib)


SCALE = (RNG.uniform(size=3) + 0.5).astype(np.float32)
OFFSET = RNG.normal(size=3).astype(np.float32)
MEAN = RNG.normal(size=3).astype(np.float32)
VAR = (RNG.uniform(size=3) + 0.5).astype(np.float32)
NORM_CASES = {
    "fused_train": lambda lib, x: list(lib.nn.fused_batch_norm(x, SCALE, OFFSET)),
    "fused_train_eps": lambda lib, x: list(lib.nn.fused_batch_norm(
        x, SCALE, OFFSET, epsilon=0.1, name="bn")),
    "fused_inference": lambda lib, x: list(lib.nn.fused_batch_norm(
        x, SCALE, OFFSET, MEAN, VAR, is_training=False)),
    "fused_avg": lambda lib, x: list(lib.nn.fused_batch_norm(
        x, SCALE, OFFSET, MEAN, VAR, exponential_avg_factor=0.3)),
    "fused_nchw_train": lambda lib, x: list(lib.nn.fused_batch_norm(
        lib.transpose(x, [0, 3, 1, 2]), SCALE, OFFSET, data_format="NCHW")),
    "fused_nchw_inference": lambda lib, x: list(lib.nn.fused_batch_norm(
        lib.transpose(x, [0, 3, 1, 2]), SCALE, OFFSET, MEAN, VAR, data_format="NCHW",
        is_training=False)),
    "fused_half": lambda lib, x: list(lib.nn.fused_batch_norm(
        lib.cast(x, lib.float16), SCALE, OFFSET))[:1],
    "lrn": lambda lib, x: lib.nn.lrn(x),
    "lrn_args": lambda lib, x: lib.nn.local_response_normalization(
        lib.tile(x, [1, 1, 1, 3]), depth_radius=2, bias=0.5, alpha=0.3, beta=0.75, name="n"),
}


@pytest.mark.parametrize("case", sorted(NORM_CASES))
def test_norm_ops_match_tf(case):
    def build(lib):
        x = lib.placeholder_with_default(IMG, IMG.shape)
        return NORM_CASES[case](lib, x), [x]

    tol = 3e-3 if case == "fused_half" else 2e-5
    _check(build, rtol=tol, atol=tol)


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_second_order_grads_match_tf(is_training, data_format):
    def build(lib):
        x = lib.placeholder_with_default(IMG, IMG.shape)
        xf = x if data_format == "NHWC" else lib.transpose(x, [0, 3, 1, 2])
        scale = _const(lib, SCALE)
        y = lib.nn.fused_batch_norm(xf, scale, OFFSET, MEAN, VAR, is_training=is_training,
                                    data_format=data_format)[0]
        dx, dscale = lib.gradients(lib.reduce_sum(y * y * xf), [x, scale])
        return lib.reduce_sum(dx * dx) + lib.reduce_sum(dscale * dscale), [x, scale]

    _check(build, rtol=2e-4, atol=2e-4, nodes=False)


@pytest.mark.parametrize("is_training", [True, False])
def test_fused_batch_norm_param_grads_match_tf(is_training):
    def build(lib):
        x = lib.placeholder_with_default(IMG, IMG.shape)
        scale, offset = _const(lib, SCALE), _const(lib, OFFSET)
        y = lib.nn.fused_batch_norm(x, scale, offset, MEAN, VAR, is_training=is_training)[0]
        return lib.reduce_sum(y * y * IMG), [x, scale, offset]

    _check(build, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("kwargs", [
    {}, {"num_classes": 6}, {"weights": [0.5, 1.0, 2.0, 1.0, 3.0], "dtype": "float32"},
    {"num_classes": 5, "dtype": "int64", "name": "cm"},
])
def test_confusion_matrix_matches_tf(kwargs):
    labels, predictions = [1, 2, 4, 1, 0], [[2], [2], [4], [1], [3]]

    def build(lib):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(lib, kw["dtype"])
        return [lib.math.confusion_matrix(labels, predictions, **kw),
                lib.confusion_matrix(predictions, labels)], []

    _check(build, grads=False)


def test_confusion_matrix_bounds_error_matches_tf():
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            labels = lib.placeholder_with_default(np.array([1, 5]), [None])
            out = lib.math.confusion_matrix(labels, [0, 1], num_classes=3)
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with (tf.Session() if lib is tf else tf1.Session()) as sess:
                with pytest.raises(err, match="`labels` out of bound"):
                    sess.run(out)


LOSSES = np.array([[1.0, 2.0, 3.0], [1.0, 0.5, 4.0]], np.float32)
AVERAGE_CASES = {
    "plain": lambda lib, x: lib.nn.compute_average_loss(x),
    "weights_expand": lambda lib, x: lib.nn.compute_average_loss(
        x, sample_weight=[0.5, 2.0], global_batch_size=4),
    "weights_squeeze": lambda lib, x: lib.nn.compute_average_loss(
        x[:, 0], sample_weight=[[0.5], [2.0]]),
    "weights_scalar": lambda lib, x: lib.nn.compute_average_loss(
        x, sample_weight=3.0, global_batch_size=lib.constant(5)),
    "regularization": lambda lib, x: lib.nn.scale_regularization_loss([x, x * 2.0]),
    "regularization_one": lambda lib, x: lib.nn.scale_regularization_loss(x),
}


@pytest.mark.parametrize("case", sorted(AVERAGE_CASES))
def test_compute_average_and_regularization_loss_match_tf(case):
    def build(lib):
        x = _const(lib, LOSSES)
        return AVERAGE_CASES[case](lib, x), [x]

    _check(build)


@pytest.mark.parametrize("build", [
    lambda lib, x: lib.math.approx_max_k(x, 2),
    lambda lib, x: lib.nn.approx_min_k(x, 2, reduction_dimension=0, name="amin"),
    lambda lib, x: lib.math.approx_max_k(lib.reshape(x, [1, 3, 5]), 3, reduction_dimension=1,
                                         recall_target=0.9),
])
def test_approx_top_k_graph_matches_tf_and_values_are_exact(build):
    """TF has no CPU kernel for ApproxTopK (XLA only): the GraphDefs and static shapes are
    compared with TF's, the values and gradients with the exact top k."""
    graphs = {}
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default() as g:
            out = build(lib, lib.constant(TIES))
            graphs[lib] = ([(n.name, n.op, sorted(n.attr)) for n in g.as_graph_def().node],
                           [t.shape.as_list() for t in out], type(out).__name__)
    assert graphs[tf] == graphs[tf1]
    with tf.Graph().as_default():
        x = tf.constant(TIES)
        out = build(tf, x)
        op = out.values.op
        grad = tf.gradients(out.values * 2.0, x)[0]
        with tf.Session() as sess:
            values, indices, dx = sess.run([out.values, out.indices, grad])
    axis = op.get_attr("reduction_dimension") % len(op.inputs[0].shape)
    data = np.asarray(TIES).reshape(op.inputs[0].shape.as_list())
    moved = np.moveaxis(data, axis, -1)
    if op.get_attr("is_max_k"):
        order = np.argsort(-moved, axis=-1, kind="stable")
    else:
        order = np.argsort(moved, axis=-1, kind="stable")
    want_idx = np.moveaxis(order[..., :op.get_attr("k")], -1, axis)
    np.testing.assert_array_equal(indices, want_idx)
    np.testing.assert_array_equal(values, np.take_along_axis(data, want_idx, axis))
    want_dx = np.zeros_like(data)
    np.put_along_axis(want_dx, want_idx, 2.0, axis)
    np.testing.assert_array_equal(dx.reshape(data.shape), want_dx)


@pytest.mark.parametrize("kwargs", [
    {"dim": 5, "num_results": 9, "skip": 3}, {"dim": 300, "num_results": 20},
    {"dim": 2, "num_results": 4, "skip": 1000, "dtype": "float64", "name": "s"},
])
def test_sobol_sample_matches_tf(kwargs):
    def build(lib):
        kw = dict(kwargs)
        if "dtype" in kw:
            kw["dtype"] = getattr(lib, kw["dtype"])
        return lib.math.sobol_sample(**kw), []

    _check(build, grads=False, rtol=0, atol=0)


def test_sobol_sample_errors_and_partial_shapes_match_tf():
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            dim = lib.placeholder(lib.int32, [])
            assert lib.math.sobol_sample(dim, 4).shape.as_list() == [4, None]
            out = lib.math.sobol_sample(dim, 2)
            err = tf.errors.InvalidArgumentError if lib is tf \
                else tf_ref.errors.InvalidArgumentError
            with (tf.Session() if lib is tf else tf1.Session()) as sess:
                with pytest.raises(err, match="dim must be at least one"):
                    sess.run(out, {dim: 0})
                with pytest.raises(err, match="dim must be at most 21200"):
                    sess.run(out, {dim: 30000})


@pytest.mark.parametrize("case", ["stateless", "stateless_tensor_rate", "general"])
def test_experimental_dropouts_match_tf_graphs(case):
    """Same GraphDef as TF's; the kept fraction is right and a seed fixes the mask (the
    stateless kernel's stream is graphcore's own, not TF's Philox)."""
    x = np.ones((40, 50), np.float32)
    results = {}
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default() as g:
            exp = lib.nn.experimental
            if case == "stateless":
                outs = [exp.stateless_dropout(x, 0.3, seed=[4, 2]),
                        exp.stateless_dropout(x, 0.3, seed=[4, 2], name="again")]
            elif case == "stateless_tensor_rate":
                outs = [exp.stateless_dropout(x, lib.constant(0.5), [1, 2],
                                              noise_shape=[40, 1])]
            else:
                outs = [exp.general_dropout(x, 0.25, lib.random.uniform)]
            nodes = _nodes(g.as_graph_def())
            with (tf.Session() if lib is tf else tf1.Session(config=_TF_CONFIG)) as sess:
                results[lib] = (nodes, sess.run(outs))
    assert results[tf][0] == results[tf1][0]
    values = results[tf][1]
    keep = {"stateless": 0.7, "stateless_tensor_rate": 0.5, "general": 0.75}[case]
    kept = values[0][values[0] != 0]
    np.testing.assert_allclose(kept, 1 / keep, rtol=1e-6)
    draws = 40 if case == "stateless_tensor_rate" else x.size
    assert abs((values[0] > 0).mean() - keep) < 4 * np.sqrt(keep * (1 - keep) / draws)
    if case == "stateless":
        np.testing.assert_array_equal(values[0], values[1])
    if case == "stateless_tensor_rate":
        assert (values[0] == values[0][:, :1]).all()


class _StateSaver:
    """A state saver over variables: ``state`` reads one, ``save_state`` assigns it."""

    def __init__(self, lib, sizes):
        self._lib = lib
        self._vars = {name: lib.Variable(np.full((2, size), 0.1 * (i + 1), np.float32),
                                         name=name)
                      for i, (name, size) in enumerate(sizes.items())}

    def state(self, name):
        return self._vars[name].read_value() if hasattr(self._vars[name], "read_value") \
            else self._lib.identity(self._vars[name])

    def save_state(self, name, value):
        return self._vars[name].assign(value)


@pytest.mark.parametrize("cell_kind", ["basic", "lstm"])
def test_static_state_saving_rnn_matches_tf(cell_kind):
    inputs = [RNG.normal(size=(2, 3)).astype(np.float32) for _ in range(3)]
    results = {}
    for lib in (tf, tf1):
        with (tf.Graph() if lib is tf else tf_ref.Graph()).as_default():
            # TF's own copy of the TF1 cells (Keras 3 hides tf.compat.v1.nn.rnn_cell).
            cells = lib.nn.rnn_cell if lib is tf else pytest.importorskip(
                "tensorflow.python.keras.layers.legacy_rnn.rnn_cell_impl")
            with lib.variable_scope("rnn_test", initializer=lib.constant_initializer(0.2)):
                if cell_kind == "basic":
                    cell = cells.BasicRNNCell(4)
                    saver = _StateSaver(lib, {"h": 4})
                    names = "h"
                else:
                    cell = cells.LSTMCell(4, state_is_tuple=True)
                    saver = _StateSaver(lib, {"c": 4, "m": 4})
                    names = ("c", "m")
                outputs, state = lib.nn.static_state_saving_rnn(
                    cell, [lib.constant(x) for x in inputs], saver, names,
                    sequence_length=[3, 2])
            with (tf.Session() if lib is tf else tf1.Session()) as sess:
                sess.run(lib.global_variables_initializer())
                first = sess.run([outputs, state])
                second = sess.run([outputs[-1], state])
            results[lib] = nest_flat(first) + nest_flat(second)
    for got, want in zip(results[tf], results[tf1]):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def nest_flat(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in nest_flat(v)]
    return [np.asarray(value)]
