"""``tf.linalg``: the linear-algebra functions of :mod:`graphcore.ops.linalg_ops` (and the
matrix functions living with the math, array and nn ops) under TF1's ``tf.linalg`` names,
the LinearOperator family (:mod:`graphcore.ops.linalg`), expm and the tridiagonal ops.
"""

# ruff: noqa: F401, I001
from graphcore.ops.array_ops import transpose
from graphcore.ops.clip_ops import global_norm
from graphcore.ops.linalg_ops import (
    adjoint, band_part, cholesky, cholesky_solve, cross, det, eigh, eigvalsh, einsum, eye,
    inv, logdet, logm, lstsq, lu, lu_matrix_inverse, lu_reconstruct, lu_solve, matmul, matrix_rank,
    matrix_transpose, matvec, norm, normalize, pinv, qr, set_diag, slogdet, solve, sqrtm,
    svd, tensor_diag, tensor_diag_part, tensordot, trace, triangular_solve,
)
from graphcore.ops.linalg_ops import matrix_diag as diag
from graphcore.ops.linalg_ops import matrix_diag_part as diag_part
from graphcore.ops.nn_ops import l2_normalize
from graphcore.ops.linalg_impl import matrix_exponential as expm
from graphcore.ops.tridiagonal_ops import eigh_tridiagonal, tridiagonal_matmul, tridiagonal_solve
from graphcore.ops.linalg.linear_operator import LinearOperator
from graphcore.ops.linalg.linear_operator_basic import (
    LinearOperatorDiag, LinearOperatorFullMatrix, LinearOperatorIdentity,
    LinearOperatorLowerTriangular, LinearOperatorScaledIdentity, LinearOperatorZeros,
)
from graphcore.ops.linalg.linear_operator_composite import (
    LinearOperatorAdjoint, LinearOperatorBlockDiag, LinearOperatorBlockLowerTriangular,
    LinearOperatorComposition, LinearOperatorInversion, LinearOperatorKronecker,
    LinearOperatorLowRankUpdate,
)
from graphcore.ops.linalg.linear_operator_structured import (
    LinearOperatorCirculant, LinearOperatorCirculant2D, LinearOperatorCirculant3D,
    LinearOperatorHouseholder, LinearOperatorPermutation, LinearOperatorToeplitz,
    LinearOperatorTridiag,
)
from graphcore.linalg import experimental
