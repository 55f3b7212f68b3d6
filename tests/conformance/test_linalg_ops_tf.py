"""Reference tier: the linalg op family against TensorFlow's compat.v1 — values, static
shapes, dtypes and gradients (tf.gradients) per op, the GraphDef each Python call builds
(node names, op types, attrs), and the OpDefs. Skipped when TensorFlow is not installed."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore import errors  # noqa: E402
from graphcore.framework import op_registry  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(11)


def _mat(*shape, dtype=np.float64):
    return RNG.normal(size=shape).astype(dtype)


def _spd(*shape, dtype=np.float64):
    a = RNG.normal(size=shape)
    return (a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def _sign_fixed(v):
    """Eigen- or singular vectors with the largest entry of each column made positive:
    both libraries' vectors are right up to sign."""
    return v * np.sign(np.take_along_axis(v, np.abs(v).argmax(-2)[..., None, :], -2))


# (id, build(lib, *inputs) -> list of tensors, inputs, gradient checked)
CASES = [
    ("inv", lambda t, a: [t.linalg.inv(a)], [_mat(2, 3, 3)], True),
    ("inv_adjoint", lambda t, a: [t.matrix_inverse(a, adjoint=True)], [_mat(3, 3)], True),
    ("det", lambda t, a: [t.linalg.det(a)], [_mat(2, 3, 3)], True),
    ("slogdet", lambda t, a: list(t.linalg.slogdet(a)), [_mat(2, 3, 3)], True),
    ("cholesky", lambda t, a: [t.cholesky(a)], [_spd(2, 4, 4)], True),
    # Not positive definite (the second matrix): TF fills its lower triangle with NaNs
    # and leaves the upper one unset.
    ("cholesky_not_pd", lambda t, a: [t.matrix_band_part(t.cholesky(a), -1, 0)], [np.stack([np.eye(2), -np.eye(2)])],
     False),
    ("qr", lambda t, a: list(t.qr(a)), [_mat(4, 3)], True),
    ("qr_wide", lambda t, a: list(t.qr(a)), [_mat(2, 3, 5)], True),
    ("qr_full", lambda t, a: list(t.qr(a, full_matrices=True)), [_mat(4, 3)], False),
    ("svd_values", lambda t, a: [t.svd(a, compute_uv=False)], [_mat(2, 4, 3)], True),
    ("svd", lambda t, a: [t.linalg.svd(a)[0]], [_mat(3, 5)], True),
    ("svd_full_shapes", lambda t, a: [t.linalg.svd(a, full_matrices=True)[0]],
     [_mat(4, 3)], False),
    ("eigvalsh", lambda t, a: [t.self_adjoint_eigvals(a)], [_spd(2, 3, 3)], True),
    ("eigh_values", lambda t, a: [t.self_adjoint_eig(a)[0]], [_spd(3, 3)], True),
    ("solve", lambda t, a, b: [t.matrix_solve(a, b)], [_spd(2, 3, 3), _mat(2, 3, 2)], True),
    ("solve_adjoint", lambda t, a, b: [t.linalg.solve(a, b, adjoint=True)],
     [_spd(3, 3), _mat(3, 2)], True),
    ("triangular_solve", lambda t, a, b: [t.matrix_triangular_solve(a, b)],
     [_spd(3, 3), _mat(3, 2)], True),
    ("triangular_solve_upper_bcast",
     lambda t, a, b: [t.linalg.triangular_solve(a, b, lower=False, adjoint=True)],
     [_spd(3, 3), _mat(2, 3, 2)], True),
    ("lstsq_over", lambda t, a, b: [t.linalg.lstsq(a, b)], [_mat(5, 3), _mat(5, 2)], True),
    ("lstsq_under_l2", lambda t, a, b: [t.matrix_solve_ls(a, b, l2_regularizer=0.5)],
     [_mat(3, 5), _mat(3, 2)], True),
    ("lstsq_slow", lambda t, a, b: [t.matrix_solve_ls(a, b, fast=False)],
     [_mat(5, 3), _mat(5, 2)], False),
    ("band_part", lambda t, a: [t.matrix_band_part(a, 1, -1)], [_mat(2, 4, 5)], True),
    ("band_part_lower", lambda t, a: [t.linalg.band_part(a, -1, 0)], [_mat(4, 4)], True),
    ("matrix_diag", lambda t, d: [t.matrix_diag(d)], [_mat(2, 3)], True),
    ("linalg_diag_k", lambda t, d: [t.linalg.diag(d, k=(-1, 1), num_rows=3, num_cols=4)],
     [_mat(2, 3, 3)], True),
    ("linalg_diag_left", lambda t, d: [t.linalg.diag(d, k=(0, 1), align="LEFT_RIGHT")],
     [_mat(2, 3)], True),
    ("diag_part", lambda t, a: [t.matrix_diag_part(a)], [_mat(2, 3, 4)], True),
    ("diag_part_k", lambda t, a: [t.linalg.diag_part(a, k=(-1, 2), padding_value=9)],
     [_mat(3, 4)], True),
    ("set_diag", lambda t, a, d: [t.matrix_set_diag(a, d)], [_mat(2, 3, 4), _mat(2, 3)], True),
    ("set_diag_k", lambda t, a, d: [t.linalg.set_diag(a, d, k=(0, 1))],
     [_mat(3, 4), _mat(2, 3)], True),
    ("diag", lambda t, d: [t.diag(d)], [_mat(2, 3)], True),
    ("diag_part_tensor", lambda t, a: [t.diag_part(a)], [_mat(2, 3, 2, 3)], True),
    ("trace", lambda t, a: [t.trace(a)], [_mat(2, 3, 3)], True),
    ("eye", lambda t, a: [t.eye(3, dtype=t.float64) + a], [_mat(3, 3)], False),
    ("eye_batch", lambda t, a: [t.eye(2, 4, batch_shape=[3])], [_mat(1)], False),
    ("norm", lambda t, a: [t.norm(a)], [_mat(3, 4)], True),
    ("norm_axis_keep", lambda t, a: [t.norm(a, axis=1, keepdims=True)], [_mat(3, 4)], True),
    ("norm_1_matrix", lambda t, a: [t.norm(a, ord=1, axis=[-2, -1])], [_mat(2, 3, 4)], True),
    ("norm_inf_matrix", lambda t, a: [t.norm(a, ord=np.inf, axis=(0, 1))], [_mat(3, 4)], True),
    ("norm_2_matrix", lambda t, a: [t.norm(a, ord=2, axis=[1, 2])], [_mat(2, 3, 4)], False),
    ("norm_p3", lambda t, a: [t.norm(a, ord=3, axis=0)], [np.abs(_mat(3, 4)) + 0.1], True),
    ("tensordot_int", lambda t, a, b: [t.tensordot(a, b, 1)], [_mat(2, 3), _mat(3, 4)], True),
    ("tensordot_axes", lambda t, a, b: [t.tensordot(a, b, [[0, 2], [2, 0]])],
     [_mat(2, 3, 4), _mat(4, 5, 2)], True),
    ("einsum_matmul", lambda t, a, b: [t.einsum("ij,jk->ik", a, b)], [_mat(2, 3), _mat(3, 4)],
     True),
    ("einsum_batch_ellipsis", lambda t, a, b: [t.einsum("...ij,...jk->...ik", a, b)],
     [_mat(2, 2, 3), _mat(1, 3, 4)], True),
    ("einsum_reduce", lambda t, a: [t.einsum("ijk->j", a)], [_mat(2, 3, 4)], True),
    ("einsum_trace", lambda t, a: [t.einsum("ii", a)], [_mat(3, 3)], True),
    ("einsum_outer_implicit", lambda t, a, b: [t.einsum("i,j", a, b)], [_mat(3), _mat(2)],
     True),
    ("einsum_dot_reduced", lambda t, a, b: [t.einsum("ij,ik->k", a, b)],
     [_mat(2, 3), _mat(2, 4)], True),
    ("einsum_three", lambda t, a, b, c: [t.einsum("ij,jk,kl->il", a, b, c)],
     [_mat(2, 3), _mat(3, 4), _mat(4, 2)], True),
    ("cross", lambda t, a, b: [t.linalg.cross(a, b)], [_mat(2, 3), _mat(2, 3)], True),
    ("adjoint", lambda t, a: [t.linalg.adjoint(a)], [_mat(2, 3, 4)], True),
    ("matrix_transpose", lambda t, a: [t.linalg.matrix_transpose(a)], [_mat(2, 3, 4)], True),
    ("matvec", lambda t, a, b: [t.linalg.matvec(a, b)], [_mat(2, 3, 4), _mat(2, 4)], True),
    ("matmul_batch", lambda t, a, b: [t.linalg.matmul(a, b)], [_mat(2, 1, 3, 4), _mat(3, 4, 2)],
     True),
    ("logdet", lambda t, a: [t.linalg.logdet(a)], [_spd(2, 3, 3)], True),
    ("float32_inv", lambda t, a: [t.matrix_inverse(a)], [_spd(3, 3, dtype=np.float32)], True),
    ("pinv", lambda t, a: [t.linalg.pinv(a)], [_mat(2, 4, 3)], True),
    ("matrix_rank", lambda t, a: [t.linalg.matrix_rank(a)],
     [np.stack([_mat(3, 3), np.ones((3, 3))])], False),
    ("lu", lambda t, a: list(t.linalg.lu(a)), [_mat(2, 4, 4)], False),
    ("lu_solve", lambda t, a, b: [t.linalg.lu_solve(*t.linalg.lu(a), b)],
     [_mat(3, 3), _mat(3, 2)], False),  # TF has no gradient for Lu
    ("lu_matrix_inverse", lambda t, a: [t.linalg.lu_matrix_inverse(*t.linalg.lu(a))],
     [_mat(3, 3)], False),
    ("lu_reconstruct", lambda t, a: [t.linalg.lu_reconstruct(*t.linalg.lu(a))], [_mat(4, 4)],
     False),
    ("lu_solve_batch", lambda t, a, b: [t.linalg.lu_solve(*t.linalg.lu(a), b)],
     [_mat(2, 3, 3, 3), _mat(3, 3, 2)], False),
    ("lu_matrix_inverse_batch", lambda t, a: [t.linalg.lu_matrix_inverse(*t.linalg.lu(a))],
     [_mat(2, 3, 3)], False),
    ("lu_reconstruct_batch", lambda t, a: [t.linalg.lu_reconstruct(*t.linalg.lu(a))],
     [_mat(2, 2, 4, 4)], False),
    ("sqrtm", lambda t, a: [t.linalg.sqrtm(a)], [_spd(2, 3, 3)], True),
    ("normalize", lambda t, a: list(t.linalg.normalize(a, axis=1)), [_mat(3, 4)], True),
    # Large and I/O-bound: TF's matrix_solve_ls uses the MatrixSolveLs kernel and its gradient.
    ("lstsq_op", lambda t, a, b: [t.linalg.lstsq(a, b, l2_regularizer=0.1)],
     [_mat(300, 12, 10), _mat(300, 12, 2)], True),
    ("logm", lambda t, a: [t.linalg.logm(a)],
     [(_spd(2, 3, 3) + 0j).astype(np.complex128)], False),
    # tf.math compositions and TF1's top-level spellings
    ("erfcinv", lambda t, a: [t.math.erfcinv(a)], [np.array([0.0, 0.2, 1.0, 1.5, 2.0])], True),
    ("reduce_variance", lambda t, a: [t.math.reduce_variance(a, axis=1)], [_mat(3, 4)], True),
    ("reduce_std", lambda t, a: [t.math.reduce_std(a, keepdims=True)], [_mat(3, 4)], True),
    ("reciprocal_no_nan", lambda t, a: [t.math.reciprocal_no_nan(a)],
     [np.array([0.0, 2.0, -4.0])], False),
    ("polyval", lambda t, a: [t.math.polyval([1.0, -2.0, 3.0], a)],
     [_mat(4, dtype=np.float32)], True),
    ("accumulate_n", lambda t, a, b: [t.accumulate_n([a, b, a])], [_mat(2, 3), _mat(2, 3)],
     True),
    ("arg_max", lambda t, a: [t.arg_max(a, 1), t.arg_min(a, 0, output_type=t.int32)],
     [_mat(3, 4)], False),
    ("to_bfloat16_complex", lambda t, a: [t.to_bfloat16(a), t.to_complex64(a),
                                          t.to_complex128(a)], [_mat(3)], False),
    ("bitwise", lambda t, a, b: [t.bitwise.left_shift(a, b), t.bitwise.right_shift(a, b),
                                 t.bitwise.bitwise_and(a, b), t.bitwise.invert(a)],
     [np.array([1, -8, 255, 3], np.int32), np.array([1, 2, 40, -1], np.int32)], False),
    ("complex_det", lambda t, a: [t.matrix_determinant(a)],
     [(_mat(3, 3) + 1j * _mat(3, 3)).astype(np.complex128)], False),
]


def _run(lib, graph_cls, session_cls, build, inputs, with_grads):
    with graph_cls().as_default():
        consts = [lib.constant(x) for x in inputs]
        outs = build(lib, *consts)
        fetch = {"outs": outs}
        if with_grads:
            loss = lib.add_n([lib.reduce_sum(o * lib.constant(
                np.random.default_rng(3).normal(size=o.shape.as_list()).astype(
                    o.dtype.as_numpy_dtype))) for o in outs])
            fetch["grads"] = lib.gradients(loss, consts)
        with session_cls() as sess:
            got = sess.run(fetch)
        return got, [(o.shape.as_list() if o.shape.ndims is not None else None, o.dtype.name)
                     for o in outs]


# TF permutes the axes of a matrix 2-norm with map_fn, which loses the static shape;
# graphcore permutes with constants when the rank is known and keeps it.
_FINER_STATIC_SHAPE = {"norm_2_matrix"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_linalg_matches_tf(case):
    name, build, inputs, with_grads = case
    got, ours = _run(tf, tf.Graph, tf.Session, build, inputs, with_grads)
    want, theirs = _run(tf1, tf_ref.Graph, tf1.Session, build, inputs, with_grads)
    if name not in _FINER_STATIC_SHAPE:
        assert ours == theirs
    tol = 1e-4 if any(x.dtype == np.float32 for x in inputs) else 1e-8
    for g, w in zip(got["outs"], want["outs"]):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape
        if name.startswith("qr"):  # Q and R are unique up to the signs of R's diagonal
            g, w = np.abs(g), np.abs(w)
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)
    for g, w in zip(got.get("grads", []), want.get("grads", [])):
        np.testing.assert_allclose(g, w, rtol=1e-5 if tol < 1e-6 else 1e-3,
                                   atol=1e-6 if tol < 1e-6 else 1e-3)


def test_decompositions_reconstruct_and_match_up_to_sign():
    """Vectors of svd/eigh equal TF's up to each column's sign; Q R equals the input."""
    a, s = _mat(2, 4, 3), _spd(2, 3, 3)
    with tf.Graph().as_default():
        sv, u, v = tf.svd(tf.constant(a))
        e, ev = tf.self_adjoint_eig(tf.constant(s))
        q, r = tf.qr(tf.constant(a))
        with tf.Session() as sess:
            got = sess.run([u, v, ev, tf.matmul(q, r)])
    with tf_ref.Graph().as_default():
        _, u, v = tf1.svd(tf1.constant(a))
        _, ev = tf1.self_adjoint_eig(tf1.constant(s))
        with tf1.Session() as sess:
            want = sess.run([u, v, ev])
    for g, w in zip(got[:3], want):
        np.testing.assert_allclose(_sign_fixed(g), _sign_fixed(w), atol=1e-8)
    np.testing.assert_allclose(got[3], a, atol=1e-10)


# -- GraphDefs: the same Python calls build the same nodes ---------------------------------

GRAPH_CALLS = [
    ("inv", lambda t, a: t.linalg.inv(a)), ("det", lambda t, a: t.linalg.det(a)),
    ("slogdet", lambda t, a: t.linalg.slogdet(a)), ("cholesky", lambda t, a: t.cholesky(a)),
    ("qr", lambda t, a: t.qr(a, full_matrices=True)), ("svd", lambda t, a: t.svd(a)),
    ("svd_s", lambda t, a: t.svd(a, compute_uv=False)),
    ("solve", lambda t, a: t.linalg.solve(a, a, adjoint=True)),
    ("triangular_solve", lambda t, a: t.linalg.triangular_solve(a, a, lower=False)),
    ("band_part", lambda t, a: t.linalg.band_part(a, 1, -1)),
    ("matrix_diag", lambda t, a: t.matrix_diag(a[0])),
    ("linalg_diag", lambda t, a: t.linalg.diag(a[:2], k=(0, 1), num_rows=3)),
    ("diag_part", lambda t, a: t.linalg.diag_part(a, k=-1, padding_value=1)),
    ("set_diag", lambda t, a: t.linalg.set_diag(a, a[0], name="sd")),
    ("diag", lambda t, a: t.diag(a[0])), ("tensor_diag_part", lambda t, a: t.diag_part(a)),
    ("trace", lambda t, a: t.trace(a)), ("eye", lambda t, a: t.eye(3)),
    ("eye_batch", lambda t, a: t.eye(2, 3, batch_shape=[2])),
    ("norm", lambda t, a: t.norm(a)), ("norm_1", lambda t, a: t.norm(a, ord=1, axis=[-2, -1])),
    ("tensordot", lambda t, a: t.tensordot(a, a, 1)),
    ("tensordot_axes", lambda t, a: t.tensordot(a, a, [[0], [1]])),
    ("einsum", lambda t, a: t.einsum("ij,jk->ik", a, a)),
    ("adjoint", lambda t, a: t.linalg.adjoint(a)), ("cross", lambda t, a: t.linalg.cross(a, a)),
    ("lstsq", lambda t, a: t.linalg.lstsq(a, a)),
    ("lstsq_l2", lambda t, a: t.matrix_solve_ls(a, a, l2_regularizer=0.1)),
    ("logdet", lambda t, a: t.linalg.logdet(a)), ("eig", lambda t, a: t.self_adjoint_eig(a)),
    ("eigvals", lambda t, a: t.self_adjoint_eigvals(a)),
    ("matvec", lambda t, a: t.linalg.matvec(a, a[0])),
    ("matrix_transpose", lambda t, a: t.linalg.matrix_transpose(a)),
    ("pinv", lambda t, a: t.linalg.pinv(a)), ("matrix_rank", lambda t, a: t.linalg.matrix_rank(a)),
    ("reduce_std", lambda t, a: t.math.reduce_std(a, axis=0)),
    ("reciprocal_no_nan", lambda t, a: t.math.reciprocal_no_nan(a)),
    ("polyval", lambda t, a: t.math.polyval([1.0, 2.0], a)),
    ("accumulate_n", lambda t, a: t.accumulate_n([a, a], name="acc")),
    ("arg_max", lambda t, a: t.arg_max(a, 0)), ("to_bfloat16", lambda t, a: t.to_bfloat16(a)),
    ("conj", lambda t, a: t.conj(a)),
    ("lu", lambda t, a: t.linalg.lu(a)), ("sqrtm", lambda t, a: t.linalg.sqrtm(a)),
    ("lu_solve", lambda t, a: t.linalg.lu_solve(*t.linalg.lu(a), a)),
    ("lu_reconstruct", lambda t, a: t.linalg.lu_reconstruct(*t.linalg.lu(a))),
    ("normalize", lambda t, a: t.linalg.normalize(a)),
    ("erfcinv", lambda t, a: t.math.erfcinv(a)),
]


def _graph_nodes(lib, graph_cls, build):
    with graph_cls().as_default() as g:
        a = lib.placeholder(lib.float32, [3, 3], name="a")
        build(lib, a)
    nodes = []
    for n in g.as_graph_def().node:
        attrs = {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()
                 if k not in ("value", "_output_shapes")}
        nodes.append((n.name, n.op, list(n.input), attrs))
    return nodes


@pytest.mark.parametrize("call", GRAPH_CALLS, ids=[c[0] for c in GRAPH_CALLS])
def test_graph_def_matches_tf(call):
    assert _graph_nodes(tf, tf.Graph, call[1]) == _graph_nodes(tf1, tf_ref.Graph, call[1])


def test_op_defs_match_tf():
    from tensorflow.python.framework import op_def_registry

    for op_type in ("MatrixInverse", "Cholesky", "MatrixDeterminant", "LogMatrixDeterminant",
                    "Qr", "Svd", "SelfAdjointEigV2", "MatrixSolve", "MatrixTriangularSolve",
                    "MatrixSolveLs", "MatrixBandPart", "MatrixDiag", "MatrixDiagV3",
                    "MatrixDiagPart", "MatrixDiagPartV3", "MatrixSetDiag", "MatrixSetDiagV3",
                    "Diag", "DiagPart", "Einsum", "Cross", "Lu", "MatrixSquareRoot",
                    "MatrixLogarithm"):
        theirs = op_def_registry.get(op_type).__deepcopy__({})
        theirs.ClearField("summary")
        theirs.ClearField("description")
        for field in list(theirs.input_arg) + list(theirs.output_arg) + list(theirs.attr):
            field.ClearField("description")
        assert op_registry.get(op_type).op_def.SerializeToString(deterministic=True) == \
            theirs.SerializeToString(deterministic=True), op_type


@pytest.mark.parametrize("build,inputs,message", [
    (lambda t, a: t.matrix_inverse(a), [np.ones((2, 2))], "not invertible"),
    (lambda t, a: t.matrix_solve(a, a), [np.zeros((2, 2))], "not invertible"),
], ids=["inverse", "solve"])
def test_runtime_errors_as_tf(build, inputs, message):
    with tf.Graph().as_default():
        out = build(tf, tf.placeholder(tf.float64, [None, None]))
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match=message):
            sess.run(out, {out.op.inputs[0]: inputs[0]})
    with tf_ref.Graph().as_default():
        out = build(tf1, tf1.placeholder(tf1.float64, [None, None]))
        with tf1.Session() as sess, pytest.raises(tf_ref.errors.InvalidArgumentError,
                                                 match=message):
            sess.run(out, {out.op.inputs[0]: inputs[0]})


@pytest.mark.parametrize("build,message", [
    (lambda t: t.matrix_inverse(t.zeros([2, 3])), "Dimensions must be equal"),
    (lambda t: t.cholesky(t.zeros([3])), "must be at least rank 2"),
    (lambda t: t.matrix_solve(t.zeros([3, 3]), t.zeros([2, 1])), "Dimensions must be equal"),
    (lambda t: t.linalg.cross(t.zeros([2, 4]), t.zeros([2, 4])), "must be 3"),
    (lambda t: t.einsum("ij,jk", t.zeros([2, 3]), t.zeros([4, 5])), "but are 3 and 4"),
], ids=["inverse_square", "cholesky_rank", "solve_rows", "cross_3", "einsum_dims"])
def test_shape_errors_as_tf(build, message):
    with tf.Graph().as_default(), pytest.raises(ValueError, match=message):
        build(tf)
    with tf_ref.Graph().as_default(), pytest.raises(ValueError, match=message):
        build(tf1)


TENSORDOT_DYNAMIC = {
    # unknown rank, integer axes on an unknown rank, axes given as a tensor
    "unknown_rank_list_axes": lambda t, a, c: t.tensordot(a, c, [[1], [1]]),
    "unknown_rank_negative_axes": lambda t, a, c: t.tensordot(c, a, [[-1], [-1]]),
    "int_axes_unknown_rank": lambda t, a, c: t.tensordot(c, t.transpose(a), 1),
    "tensor_axes": lambda t, a, c: t.tensordot(c, a, t.constant([[1], [1]])),
}


@pytest.mark.parametrize("case", sorted(TENSORDOT_DYNAMIC))
def test_tensordot_of_unknown_rank_matches_tf(case):
    """TF's dynamic tensordot (rank or axes known only at run time): its graph and values."""
    results = {}
    for lib in (tf, tf1):
        with lib.Graph().as_default() as g:
            a, c = lib.placeholder(lib.float32), lib.placeholder(lib.float32, [4, 3])
            out = TENSORDOT_DYNAMIC[case](lib, a, c)
            nodes = [(n.name, n.op) for n in g.as_graph_def().node]
            with lib.Session() as sess:
                value = sess.run(out, {a: np.arange(15, dtype=np.float32).reshape(5, 3),
                                       c: np.arange(12, dtype=np.float32).reshape(4, 3)})
            results[lib] = (nodes, str(out.shape), value)
    assert results[tf][:2] == results[tf1][:2]
    np.testing.assert_allclose(results[tf][2], results[tf1][2])
