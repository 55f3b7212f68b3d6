"""The LinearOperator family, expm and the tridiagonal ops without TensorFlow: every
operator's methods against numpy on its dense form."""

import numpy as np
import pytest

import graphcore as tf

L = tf.linalg
_rng = np.random.RandomState(1)
A = _rng.randn(2, 3, 3)
PD = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
X = _rng.randn(2, 4, 2)

OPERATORS = {
    "full": lambda: L.LinearOperatorFullMatrix(PD, is_self_adjoint=True,
                                               is_positive_definite=True),
    "diag": lambda: L.LinearOperatorDiag(np.abs(A[:, 0]) + 1),
    "scaled_identity": lambda: L.LinearOperatorScaledIdentity(3, np.array([2.0, -3.0])),
    "lower_triangular": lambda: L.LinearOperatorLowerTriangular(A + 3 * np.eye(3)),
    "kronecker": lambda: L.LinearOperatorKronecker(
        [L.LinearOperatorFullMatrix(PD[0, :2, :2]), L.LinearOperatorFullMatrix(PD[1, :2, :2])]),
    "block_lower_triangular": lambda: L.LinearOperatorBlockLowerTriangular(
        [[L.LinearOperatorFullMatrix(PD[0, :2, :2])],
         [L.LinearOperatorFullMatrix(A[0, :1, :2]), L.LinearOperatorDiag(np.array([2.0]))]]),
    "low_rank_update": lambda: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorFullMatrix(PD), A[:, :, :1], v=A[:, :, 1:2]),
    "circulant": lambda: L.LinearOperatorCirculant2D(np.array([[9.0, 1.0], [1.0, 2.0]]),
                                                     input_output_dtype=tf.float64),
    "toeplitz": lambda: L.LinearOperatorToeplitz(np.array([5.0, 1.0, 2.0]),
                                                 np.array([5.0, 3.0, -1.0])),
    "tridiag": lambda: L.LinearOperatorTridiag(A + np.array([0.0, 5.0, 0.0])[:, None]),
    "householder": lambda: L.LinearOperatorHouseholder(A[:, 0]),
    "permutation": lambda: L.LinearOperatorPermutation(np.array([2, 0, 1]), tf.float64),
}


@pytest.mark.parametrize("case", sorted(OPERATORS))
def test_methods_agree_with_the_dense_matrix(case):
    with tf.Graph().as_default():
        op = OPERATORS[case]()
        n = op.domain_dimension
        x = X[:, :n] if op.batch_shape.as_list() else X[0, :n]
        fetches = {"dense": op.to_dense(), "matmul": op.matmul(x),
                   "matmul_adj": op.matmul(x, adjoint=True), "solve": op.solve(x),
                   "solve_adj": op.solve(x, adjoint=True), "det": op.determinant(),
                   "log_abs_det": op.log_abs_determinant(), "diag": op.diag_part(),
                   "trace": op.trace(), "inverse": op.inverse().to_dense()}
        with tf.Session() as sess:
            out = sess.run(fetches)
    dense = out["dense"]
    dense_t = np.swapaxes(dense, -1, -2)
    expected = {"matmul": dense @ x, "matmul_adj": dense_t @ x,
                "solve": np.linalg.solve(dense, x), "solve_adj": np.linalg.solve(dense_t, x),
                "det": np.linalg.det(dense), "log_abs_det": np.linalg.slogdet(dense)[1],
                "diag": np.diagonal(dense, axis1=-2, axis2=-1),
                "trace": np.trace(dense, axis1=-2, axis2=-1), "inverse": np.linalg.inv(dense)}
    for key, value in expected.items():
        np.testing.assert_allclose(out[key], value, rtol=1e-7, atol=1e-9, err_msg=key)


def test_expm_and_tridiagonal_ops_against_numpy():
    diags = A + np.array([0.0, 5.0, 0.0])[:, None]
    dense = np.stack([np.diag(d[1]) + np.diag(d[0, :-1], 1) + np.diag(d[2, 1:], -1)
                      for d in diags])
    rhs = X[:, :3]
    with tf.Graph().as_default():
        fetches = [L.expm(np.array([[0.0, 1.0], [-1.0, 0.0]])), L.tridiagonal_matmul(diags, rhs),
                   L.tridiagonal_solve(diags, rhs),
                   L.tridiagonal_solve(diags, rhs, partial_pivoting=False),
                   L.eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]))]
        with tf.Session() as sess:
            rotation, product, solved, solved_plain, eigvals = sess.run(fetches)
    np.testing.assert_allclose(rotation, [[np.cos(1), np.sin(1)], [-np.sin(1), np.cos(1)]])
    np.testing.assert_allclose(product, dense @ rhs)
    np.testing.assert_allclose(solved, np.linalg.solve(dense, rhs))
    np.testing.assert_allclose(solved_plain, np.linalg.solve(dense, rhs))
    np.testing.assert_allclose(eigvals, [1.0, 3.0])


def test_hints_and_errors():
    with tf.Graph().as_default():
        ident = L.LinearOperatorIdentity(3)
        assert ident.inverse() is ident and ident.cholesky() is ident
        assert L.LinearOperatorDiag([1.0, 2.0]).is_self_adjoint is True
        with pytest.raises(ValueError, match="always non-singular"):
            L.LinearOperatorIdentity(2, is_non_singular=False)
        with pytest.raises(NotImplementedError, match="expected to be singular"):
            L.LinearOperatorZeros(2).solve(np.ones((2, 1), np.float32))
        with pytest.raises(ValueError, match="Cannot take the Inverse"):
            L.LinearOperatorFullMatrix(A, is_non_singular=False).inverse()
