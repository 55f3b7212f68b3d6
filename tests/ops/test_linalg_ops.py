"""The linalg ops against numpy (graphcore/ops/linalg_ops.py, gen_linalg_ops.py and their
kernels), with no TensorFlow needed: values, static shapes, gradients by finite differences,
and TF's error messages."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors
from graphcore.ops import gradient_checker

RNG = np.random.default_rng(5)
A = RNG.normal(size=(2, 3, 3))
SPD = A @ np.swapaxes(A, -1, -2) + 3 * np.eye(3)
B = RNG.normal(size=(2, 3, 2))
V = RNG.normal(size=(2, 3))

# (id, build(a, spd, b, v), numpy reference(a, spd, b, v), static shape)
CASES = [
    ("inv", lambda a, s, b, v: tf.linalg.inv(a), lambda a, s, b, v: np.linalg.inv(a), [2, 3, 3]),
    ("det", lambda a, s, b, v: tf.linalg.det(a), lambda a, s, b, v: np.linalg.det(a), [2]),
    ("logdet", lambda a, s, b, v: tf.linalg.logdet(s),
     lambda a, s, b, v: np.linalg.slogdet(s)[1], [2]),
    ("cholesky", lambda a, s, b, v: tf.cholesky(s), lambda a, s, b, v: np.linalg.cholesky(s),
     [2, 3, 3]),
    ("solve", lambda a, s, b, v: tf.matrix_solve(s, b), lambda a, s, b, v: np.linalg.solve(s, b),
     [2, 3, 2]),
    ("triangular", lambda a, s, b, v: tf.matrix_triangular_solve(s, b, lower=False),
     lambda a, s, b, v: np.linalg.solve(np.triu(s), b), [2, 3, 2]),
    ("lstsq", lambda a, s, b, v: tf.linalg.lstsq(a, b),
     lambda a, s, b, v: np.linalg.solve(a, b), [2, 3, 2]),
    ("eigvalsh", lambda a, s, b, v: tf.self_adjoint_eigvals(s),
     lambda a, s, b, v: np.linalg.eigvalsh(s), [2, 3]),
    ("svd_values", lambda a, s, b, v: tf.svd(a, compute_uv=False),
     lambda a, s, b, v: np.linalg.svd(a, compute_uv=False), [2, 3]),
    ("band", lambda a, s, b, v: tf.matrix_band_part(a, 0, 1),
     lambda a, s, b, v: np.triu(a) - np.triu(a, 2), [2, 3, 3]),
    ("diag_k", lambda a, s, b, v: tf.linalg.diag(v, k=1),
     lambda a, s, b, v: np.stack([np.diag(x, 1) for x in v]), [2, 4, 4]),
    ("diag_part", lambda a, s, b, v: tf.linalg.diag_part(a),
     lambda a, s, b, v: np.diagonal(a, axis1=-2, axis2=-1), [2, 3]),
    ("set_diag", lambda a, s, b, v: tf.linalg.set_diag(a, v),
     lambda a, s, b, v: a - a * np.eye(3) + v[..., None] * np.eye(3), [2, 3, 3]),
    ("trace", lambda a, s, b, v: tf.trace(a), lambda a, s, b, v: np.trace(a, axis1=1, axis2=2),
     [2]),
    ("einsum", lambda a, s, b, v: tf.einsum("bij,bjk->bik", a, b),
     lambda a, s, b, v: a @ b, [2, 3, 2]),
    ("tensordot", lambda a, s, b, v: tf.tensordot(a, b, [[0, 2], [0, 1]]),
     lambda a, s, b, v: np.tensordot(a, b, [[0, 2], [0, 1]]), [3, 2]),
    ("norm", lambda a, s, b, v: tf.norm(a, axis=[-2, -1]),
     lambda a, s, b, v: np.linalg.norm(a, axis=(-2, -1)), [2]),
    ("cross", lambda a, s, b, v: tf.linalg.cross(v, v[::-1]),
     lambda a, s, b, v: np.cross(v, v[::-1]), [2, 3]),
    ("eye", lambda a, s, b, v: tf.eye(2, 3, dtype=tf.float64),
     lambda a, s, b, v: np.eye(2, 3), [2, 3]),
    ("pinv", lambda a, s, b, v: tf.linalg.pinv(a), lambda a, s, b, v: np.linalg.pinv(a),
     [2, 3, 3]),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_value_and_static_shape(case):
    _, build, ref, shape = case
    with tf.Graph().as_default():
        out = build(*(tf.constant(x) for x in (A, SPD, B, V)))
        assert out.shape.as_list() == shape
        with tf.Session() as sess:
            got = sess.run(out)
    np.testing.assert_allclose(got, ref(A, SPD, B, V), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("build,x", [
    (lambda x: tf.linalg.inv(x), A[0]),
    (lambda x: tf.linalg.det(x), A[0]),
    (lambda x: tf.cholesky((x + tf.linalg.adjoint(x)) / 2), SPD[0]),
    (lambda x: tf.qr(x)[1], A[0]),
    (lambda x: tf.svd(x, compute_uv=False), A[0]),
    (lambda x: tf.self_adjoint_eigvals((x + tf.linalg.adjoint(x)) / 2), SPD[0]),
    (lambda x: tf.matrix_triangular_solve(x, tf.constant(B[0])), SPD[0]),
    (lambda x: tf.einsum("ij,jk->ik", x, x), A[0]),
    (lambda x: tf.linalg.diag_part(x, k=(-1, 1)), A[0]),
], ids=["inv", "det", "cholesky", "qr", "svd", "eig", "triangular_solve", "einsum", "diag"])
def test_gradient_matches_finite_differences(build, x):
    with tf.Graph().as_default():
        t = tf.constant(x)
        y = build(t)
        with tf.Session():
            err = gradient_checker.compute_gradient_error(t, list(x.shape), y,
                                                          y.shape.as_list(), x_init_value=x)
    assert err < 1e-3  # central differences on float64 (delta 1e-3 by default)


def test_errors_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.matrix_inverse(tf.zeros([2, 3]))
        p = tf.placeholder(tf.float64)
        inv = tf.matrix_inverse(p)
        with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError,
                                                 match="Input is not invertible."):
            sess.run(inv, {p: np.ones((2, 2))})
