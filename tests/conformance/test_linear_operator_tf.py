"""Reference tier: tf.linalg's LinearOperator family (graphcore/ops/linalg/), expm and the
tridiagonal ops against TensorFlow's compat.v1 — dense forms, matmul/matvec/solve/solvevec
(plain and adjoint), determinants, diag_part, trace, inverse/cholesky/adjoint operators,
static shapes, hints and names; gradients where TF has them. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

_rng = np.random.RandomState(0)
A = _rng.randn(2, 3, 3)
PD = A @ A.transpose(0, 2, 1) + 3 * np.eye(3)
XB = _rng.randn(2, 8, 2)
X = XB[:, :3]
V = _rng.randn(2, 3)
DIAGS = _rng.randn(2, 3, 3) + np.array([0.0, 4.0, 0.0])[:, None]
CPLX = (_rng.randn(3) + 1j * _rng.randn(3)).astype(np.complex128) + 3

OPERATORS = {
    "full": lambda L: L.LinearOperatorFullMatrix(A),
    "full_pd": lambda L: L.LinearOperatorFullMatrix(PD, is_self_adjoint=True,
                                                    is_positive_definite=True),
    "diag": lambda L: L.LinearOperatorDiag(np.abs(V) + 1, is_positive_definite=True),
    "diag_complex": lambda L: L.LinearOperatorDiag(CPLX),
    "identity": lambda L: L.LinearOperatorIdentity(3, batch_shape=[2], dtype="float64"),
    "scaled_identity": lambda L: L.LinearOperatorScaledIdentity(3, np.array([2.0, 3.0]),
                                                                is_positive_definite=True),
    "lower_triangular": lambda L: L.LinearOperatorLowerTriangular(A + 3 * np.eye(3)),
    "zeros": lambda L: L.LinearOperatorZeros(3, batch_shape=[2], dtype="float64"),
    "composition": lambda L: L.LinearOperatorComposition(
        [L.LinearOperatorFullMatrix(A), L.LinearOperatorDiag(np.abs(V) + 1)]),
    "kronecker": lambda L: L.LinearOperatorKronecker(
        [L.LinearOperatorFullMatrix(PD[0, :2, :2]), L.LinearOperatorFullMatrix(A[1, :2, :2])]),
    "block_diag": lambda L: L.LinearOperatorBlockDiag(
        [L.LinearOperatorFullMatrix(PD[:, :1, :1]), L.LinearOperatorFullMatrix(A[:, :2, :2])]),
    "block_lower_triangular": lambda L: L.LinearOperatorBlockLowerTriangular(
        [[L.LinearOperatorFullMatrix(PD[0, :2, :2])],
         [L.LinearOperatorFullMatrix(A[0, :1, :2]), L.LinearOperatorFullMatrix(PD[1, :1, :1])]]),
    "inversion": lambda L: L.LinearOperatorInversion(L.LinearOperatorFullMatrix(PD)),
    "adjoint": lambda L: L.LinearOperatorAdjoint(L.LinearOperatorFullMatrix(A)),
    "low_rank_update": lambda L: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorDiag(np.abs(V) + 1), A[:, :, :2], diag_update=np.array([1.0, 2.0])),
    "low_rank_update_v": lambda L: L.LinearOperatorLowRankUpdate(
        L.LinearOperatorFullMatrix(PD), A[:, :, :1], v=A[:, :, 1:2]),
    "circulant": lambda L: L.LinearOperatorCirculant(np.array([6.0, 1.0, 1.0]),
                                                     input_output_dtype="float64"),
    "circulant_complex": lambda L: L.LinearOperatorCirculant(CPLX,
                                                             input_output_dtype="complex128"),
    "circulant2d": lambda L: L.LinearOperatorCirculant2D(
        np.array([[9.0, 1.0], [1.0, 2.0]]), input_output_dtype="float64"),
    "circulant3d": lambda L: L.LinearOperatorCirculant3D(
        np.array([[[9.0, 1.0], [1.0, 2.0]], [[2.0, 1.0], [1.0, 3.0]]]),
        input_output_dtype="float64"),
    "toeplitz": lambda L: L.LinearOperatorToeplitz(np.array([5.0, 1.0, 2.0]),
                                                   np.array([5.0, 3.0, -1.0])),
    "tridiag": lambda L: L.LinearOperatorTridiag(DIAGS),
    "tridiag_sequence": lambda L: L.LinearOperatorTridiag(
        [DIAGS[0, 0], DIAGS[0, 1], DIAGS[0, 2]], diagonals_format="sequence"),
    "tridiag_matrix": lambda L: L.LinearOperatorTridiag(PD, diagonals_format="matrix"),
    "householder": lambda L: L.LinearOperatorHouseholder(V),
    "permutation": lambda L: L.LinearOperatorPermutation(np.array([[2, 0, 1], [1, 0, 2]], np.int32),
                                                         dtype="float64"),
}
SINGULAR = {"zeros"}
NOT_SQUARE = set()


def _x_for(op, rows):
    x = XB[..., :rows, :] if op.batch_shape.as_list() else XB[0, :rows, :]
    if op.dtype.is_complex:
        x = x + 0.5j * x
    return x.astype(op.dtype.as_numpy_dtype)


def _methods(lib, op):
    n = op.domain_dimension
    x = _x_for(op, n)
    out = {"dense": op.to_dense(), "matmul": op.matmul(x), "matmul_adj": op.matmul(x, adjoint=True),
           "matmul_adj_arg": op.matmul(np.swapaxes(x, -1, -2), adjoint_arg=True),
           "matvec": op.matvec(x[..., 0]), "matvec_adj": op.matvec(x[..., 0], adjoint=True),
           "diag_part": op.diag_part(), "trace": op.trace(), "shape": op.shape_tensor(),
           "adjoint": op.adjoint().to_dense(), "add_to_tensor": op.add_to_tensor(
               lib.ones(op.shape.as_list(), op.dtype))}
    if op.is_self_adjoint:
        out["eigvals"] = op.eigvals()
    if op.is_non_singular is not False and op.name not in SINGULAR:
        out.update(solve=op.solve(x), solve_adj=op.solve(x, adjoint=True),
                   solvevec=op.solvevec(x[..., 0]),
                   solvevec_adj=op.solvevec(x[..., 0], adjoint=True),
                   determinant=op.determinant(), log_abs_determinant=op.log_abs_determinant(),
                   inverse=op.inverse().to_dense())
    if op.is_self_adjoint and op.is_positive_definite:
        out["cholesky"] = op.cholesky().to_dense()
    return out


def _static(op):
    return {"shape": op.shape.as_list(), "batch_shape": op.batch_shape.as_list(),
            "domain": op.domain_dimension, "range": op.range_dimension,
            "rank": op.tensor_rank, "dtype": op.dtype.name, "name": op.name,
            "hints": (op.is_non_singular, op.is_self_adjoint, op.is_positive_definite,
                      op.is_square)}


def _run_operator(lib, case):
    with lib.Graph().as_default():
        op = OPERATORS[case](lib.linalg)
        fetches = _methods(lib, op)
        static = _static(op)
        with lib.Session() as sess:
            return sess.run(fetches), static


@pytest.mark.parametrize("case", sorted(OPERATORS))
def test_operator_matches_tf(case):
    (ours, our_static), (theirs, their_static) = (_run_operator(tf, case),
                                                  _run_operator(tf1, case))
    assert our_static == their_static
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        a, b = ours[key], theirs[key]
        if key == "eigvals":  # TF leaves some unsorted (Diag, Circulant)
            a, b = np.sort_complex(np.ravel(a)), np.sort_complex(np.ravel(b))
        assert np.shape(a) == np.shape(b), key
        assert np.asarray(a).dtype == np.asarray(b).dtype, key
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-8, err_msg=key)


def test_operator_errors_match_tf():
    for lib in (tf, tf1):
        L = lib.linalg
        with lib.Graph().as_default():
            with pytest.raises(ValueError, match="always non-singular"):
                L.LinearOperatorIdentity(3, is_non_singular=False)
            with pytest.raises(ValueError, match="A real diagonal operator is always self"):
                L.LinearOperatorDiag([1.0, 2.0], is_self_adjoint=False)
            with pytest.raises(TypeError, match="same dtype"):
                L.LinearOperatorComposition([L.LinearOperatorDiag([1.0]),
                                             L.LinearOperatorDiag(np.array([1.0]))])
            with pytest.raises(ValueError, match="Cannot take the Cholesky"):
                L.LinearOperatorFullMatrix(A).cholesky()
            with pytest.raises(NotImplementedError, match="Only self-adjoint"):
                L.LinearOperatorFullMatrix(A).eigvals()
            with pytest.raises(TypeError, match="Expected argument to have dtype"):
                L.LinearOperatorFullMatrix(A).matmul(X.astype(np.float32))
            with pytest.raises(ValueError):
                L.LinearOperatorFullMatrix(A).matmul(np.ones((2, 4, 1)))
            composed = L.LinearOperatorFullMatrix(A).matmul(L.LinearOperatorDiag(V))
            assert type(composed).__name__ == "LinearOperatorComposition"


def _grads(lib):
    a = lib.constant(PD)
    d = lib.constant(np.abs(V) + 1)
    diags = lib.constant(DIAGS)
    x = lib.constant(X)
    m = lib.constant(A * 0.3)
    L = lib.linalg
    targets = {
        "full_log_abs_det": (L.LinearOperatorFullMatrix(a).log_abs_determinant(), a),
        "full_solve": (L.LinearOperatorFullMatrix(a).solve(x), a),
        "diag_solve": (L.LinearOperatorDiag(d).solve(x), d),
        "tridiag_matmul": (L.tridiagonal_matmul(diags, x), diags),
        "tridiag_matmul_rhs": (L.tridiagonal_matmul(diags, x), x),
        "tridiag_solve": (L.tridiagonal_solve(diags, x), diags),
        "tridiag_solve_rhs": (L.tridiagonal_solve(diags, x), x),
        "expm": (L.expm(m), m),
    }
    return {k: lib.gradients(lib.reduce_sum(y * y), w)[0] for k, (y, w) in targets.items()}


def test_gradients_match_tf():
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            grads = _grads(lib)
            with lib.Session() as sess:
                results.append(sess.run(grads))
    for key in results[1]:
        np.testing.assert_allclose(results[0][key], results[1][key], rtol=1e-6, atol=1e-8,
                                   err_msg=key)


LINALG_CASES = {
    "expm_f32": lambda t: t.linalg.expm(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)),
    "expm_f64_batch": lambda t: t.linalg.expm(A * 2),
    "expm_small": lambda t: t.linalg.expm(A * 0.01),
    "expm_complex": lambda t: t.linalg.expm(np.outer(CPLX, CPLX) * 0.05),
    "tridiagonal_matmul": lambda t: t.linalg.tridiagonal_matmul(DIAGS, X),
    "tridiagonal_matmul_sequence": lambda t: t.linalg.tridiagonal_matmul(
        (DIAGS[:, 0], DIAGS[:, 1], DIAGS[:, 2]), X, diagonals_format="sequence"),
    "tridiagonal_matmul_matrix": lambda t: t.linalg.tridiagonal_matmul(
        PD, X, diagonals_format="matrix"),
    "tridiagonal_solve": lambda t: t.linalg.tridiagonal_solve(t.constant(DIAGS), t.constant(X)),
    "tridiagonal_solve_no_pivoting": lambda t: t.linalg.tridiagonal_solve(
        t.constant(DIAGS), t.constant(X), partial_pivoting=False),
    "tridiagonal_solve_vector": lambda t: t.linalg.tridiagonal_solve(t.constant(DIAGS),
                                                                   t.constant(X[..., 0])),
    "tridiagonal_solve_sequence": lambda t: t.linalg.tridiagonal_solve(
        (t.constant(DIAGS[:, 0, :-1]), t.constant(DIAGS[:, 1]), t.constant(DIAGS[:, 2, 1:])),
        t.constant(X), diagonals_format="sequence"),
    "tridiagonal_solve_transpose_rhs": lambda t: t.linalg.tridiagonal_solve(
        t.constant(DIAGS), t.constant(np.swapaxes(X, -1, -2)), transpose_rhs=True),
    "tridiagonal_solve_pivot_needed": lambda t: t.linalg.tridiagonal_solve(
        t.constant([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [0.0, 4.0, 1.0]], t.float64),
        t.constant(X[0])),
    "eigh_tridiagonal": lambda t: t.linalg.eigh_tridiagonal(np.array([1.0, 2.0, 3.0, 4.0]),
                                                            np.array([1.0, 0.5, 0.25])),
    "eigh_tridiagonal_index": lambda t: t.linalg.eigh_tridiagonal(
        np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.5, 0.25]), select="i",
        select_range=[1, 2]),
    "eigh_tridiagonal_value": lambda t: t.linalg.eigh_tridiagonal(
        np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.5, 0.25]), select="v",
        select_range=[1.5, 5.0]),
    "eigh_tridiagonal_vectors": lambda t: t.abs(t.linalg.eigh_tridiagonal(
        np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.5, 0.25]), eigvals_only=False)[1]),
    "conjugate_gradient": lambda t: t.linalg.experimental.conjugate_gradient(
        t.linalg.LinearOperatorFullMatrix(PD[0], is_self_adjoint=True,
                                          is_positive_definite=True), t.constant(X[0, :, 0])).x,
}


@pytest.mark.parametrize("case", sorted(LINALG_CASES))
def test_linalg_functions_match_tf(case):
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default(), lib.Session() as sess:
            results.append(sess.run(LINALG_CASES[case](lib)))
    ours, theirs = results
    assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=1e-6)


def test_tridiagonal_errors_match_tf():
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            singular = lib.linalg.tridiagonal_solve(lib.zeros((3, 3), lib.float64),
                                                    lib.constant(X[0]))
            with pytest.raises(ValueError, match="Unrecognized diagonals_format"):
                lib.linalg.tridiagonal_solve(DIAGS, X, diagonals_format="banded")
            with lib.Session() as sess:
                assert np.isnan(sess.run(singular)).all()
