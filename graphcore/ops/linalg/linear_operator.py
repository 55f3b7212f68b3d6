"""``tf.linalg.LinearOperator``: the base class (shape, hints, matmul/matvec/solve/
solvevec, determinants, to_dense, diag_part, trace, inverse, cholesky, adjoint), with the
dense fallbacks TF uses when an operator has no structured rule, and the helpers the
operator modules share. The operators the fallbacks return (Composition, Inversion,
Adjoint, LowerTriangular) live in other modules and register themselves in ``DERIVED``."""

from __future__ import annotations

import contextlib
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    check_ops,
    elementwise_ops,
    linalg_ops,
    manip_ops,
    math_ops,
)
from graphcore.ops.linalg_impl import modulus

__all__ = ["LinearOperator"]

_T = ops_lib.Tensor

# The operator classes the base class's fallbacks build, keyed by role ("composition",
# "inversion", "adjoint", "lower_triangular"); filled in by the modules defining them.
DERIVED: dict[str, type] = {}
_FLOATS = (dtypes_lib.float16, dtypes_lib.bfloat16, dtypes_lib.float32, dtypes_lib.float64,
           dtypes_lib.complex64, dtypes_lib.complex128)


def adjoint(x: _T) -> _T:
    """The conjugate transpose of (a batch of) matrices."""
    t = linalg_ops.matrix_transpose(x)
    return math_ops.conj(t) if t.dtype.is_complex else t


def adjoint_if(x: _T, flag: bool) -> _T:
    return adjoint(x) if flag else x


def conj_if(x: _T, flag: bool) -> _T:
    return math_ops.conj(x) if flag and x.dtype.is_complex else x


def _real(x: _T) -> _T:
    return elementwise_ops.real(x) if x.dtype.is_complex else x


def broadcast_batch(a: _T, b: _T) -> tuple[_T, _T]:
    """``a`` and ``b`` [..., M, N] broadcast to their common batch shape (TF's solve
    kernels, unlike matmul, take equal batch shapes)."""
    if a.shape[:-2].is_fully_defined() and a.shape[:-2] == b.shape[:-2]:
        return a, b
    batch = manip_ops.broadcast_dynamic_shape(array_ops.shape(a)[:-2],
                                              array_ops.shape(b)[:-2])
    static = manip_ops.broadcast_static_shape(a.shape[:-2], b.shape[:-2])

    def to(x: _T) -> _T:
        out = manip_ops.broadcast_to(x, array_ops.concat([batch, array_ops.shape(x)[-2:]], 0))
        out.set_shape(static.concatenate(x.shape[-2:]))
        return out

    return to(a), to(b)


def check_dtype(tensor: _T, what: str, allowed: tuple = _FLOATS) -> None:
    if tensor.dtype.base_dtype not in allowed:
        raise TypeError(f"Argument {what} must have dtype in {[d.name for d in allowed]}. "
                        f"Found: {tensor.dtype.name}")


class LinearOperator:
    """A (batch of) linear operator(s) A [..., M, N] known by how it acts: subclasses give
    ``_shape``/``_shape_tensor`` and ``_matmul``, and the structured rules they have."""

    def __init__(self, dtype: Any, graph_parents: Any = None, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: Any = None, name: str | None = None, parameters: Any = None):
        if is_positive_definite:
            if is_non_singular is False:
                raise ValueError("A positive definite matrix is always non-singular.")
            is_non_singular = True
        if is_non_singular:
            if is_square is False:
                raise ValueError("A non-singular matrix is always square.")
            is_square = True
        if is_self_adjoint:
            if is_square is False:
                raise ValueError("A self-adjoint matrix is always square.")
            is_square = True
        self._dtype = dtypes_lib.as_dtype(dtype).base_dtype if dtype is not None else None
        self._graph_parents = list(graph_parents or [])
        self._is_non_singular = is_non_singular
        self._is_self_adjoint = is_self_adjoint
        self._is_positive_definite = is_positive_definite
        self._is_square_hint = is_square
        self._name = name or type(self).__name__
        self._parameters = dict(parameters or {})

    # -- properties --------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._dtype

    @property
    def name(self) -> str:
        return self._name

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    @property
    def graph_parents(self) -> list:
        return self._graph_parents

    @property
    def is_non_singular(self) -> bool | None:
        return self._is_non_singular

    @property
    def is_self_adjoint(self) -> bool | None:
        return self._is_self_adjoint

    @property
    def is_positive_definite(self) -> bool | None:
        return self._is_positive_definite

    @property
    def is_square(self) -> bool | None:
        """True/False when known from the hints or the static shape, else None."""
        auto = None
        rows, cols = self.range_dimension, self.domain_dimension
        if rows is not None and cols is not None:
            auto = rows == cols
        if self._is_square_hint is False and auto:
            raise ValueError("User set is_square hint to False, but the operator was square.")
        if self._is_square_hint is None:
            return auto
        return self._is_square_hint

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._shape()

    @property
    def batch_shape(self) -> shape_lib.TensorShape:
        return self.shape[:-2]

    @property
    def tensor_rank(self) -> int | None:
        return self.shape.ndims

    @property
    def domain_dimension(self) -> int | None:
        return shape_lib.dimension_value(shape_lib.dimension_at_index(self.shape, -1))

    @property
    def range_dimension(self) -> int | None:
        return shape_lib.dimension_value(shape_lib.dimension_at_index(self.shape, -2))

    @property
    def H(self) -> LinearOperator:  # noqa: N802
        return self.adjoint()

    @contextlib.contextmanager
    def _name_scope(self, name: str | None = None):
        with ops_lib.name_scope(self.name):
            with ops_lib.name_scope(name) as scope:
                yield scope

    # -- shapes as tensors ---------------------------------------------------------------
    def _shape_tensor(self) -> _T:
        raise NotImplementedError

    def shape_tensor(self, name: str = "shape_tensor") -> _T:
        with self._name_scope(name):
            if self.shape.is_fully_defined():
                return array_ops.constant(self.shape.as_list(), dtypes_lib.int32)
            return self._shape_tensor()

    def batch_shape_tensor(self, name: str = "batch_shape_tensor") -> _T:
        with self._name_scope(name):
            if self.batch_shape.is_fully_defined():
                return array_ops.constant(self.batch_shape.as_list(), dtypes_lib.int32)
            return self._shape_tensor()[:-2]

    def tensor_rank_tensor(self, name: str = "tensor_rank_tensor") -> _T:
        with self._name_scope(name):
            if self.tensor_rank is not None:
                return array_ops.constant(self.tensor_rank, dtypes_lib.int32)
            return array_ops.size(self._shape_tensor())

    def domain_dimension_tensor(self, name: str = "domain_dimension_tensor") -> _T:
        with self._name_scope(name):
            if self.domain_dimension is not None:
                return array_ops.constant(self.domain_dimension, dtypes_lib.int32)
            return self._shape_tensor()[-1]

    def range_dimension_tensor(self, name: str = "range_dimension_tensor") -> _T:
        with self._name_scope(name):
            if self.range_dimension is not None:
                return array_ops.constant(self.range_dimension, dtypes_lib.int32)
            return self._shape_tensor()[-2]

    # -- checks --------------------------------------------------------------------------
    def _check_input_dtype(self, arg: _T) -> None:
        if arg.dtype.base_dtype != self.dtype:
            raise TypeError(f"Expected argument to have dtype {self.dtype}.  Found: "
                            f"{arg.dtype} in tensor {arg}")

    def _can_use_cholesky(self) -> bool:
        return bool(self.is_self_adjoint and self.is_positive_definite)

    def _check_square(self, what: str) -> None:
        if self.is_square is False:
            raise NotImplementedError(f"{what} not implemented for an operator that is "
                                      "expected to not be square.")

    def assert_non_singular(self, name: str = "assert_non_singular") -> Any:
        with self._name_scope(name):
            eigs = self._singular_values_or_eigs()
            return check_ops.assert_less(
                array_ops.zeros([], eigs.dtype), math_ops.reduce_min(eigs, -1),
                message="Singular operator:  Found zero singular values.")

    def assert_positive_definite(self, name: str = "assert_positive_definite") -> Any:
        with self._name_scope(name):
            if not self.is_self_adjoint:
                raise NotImplementedError("Only self-adjoint matrices are supported.")
            eigs = _real(self.eigvals())
            return check_ops.assert_positive(eigs, message="Operator was not positive "
                                                           "definite.")

    def assert_self_adjoint(self, name: str = "assert_self_adjoint") -> Any:
        with self._name_scope(name):
            dense = self.to_dense()
            return check_ops.assert_equal(dense, adjoint(dense),
                                          message="Matrix was not equal to its adjoint.")

    def _singular_values_or_eigs(self) -> _T:
        if self.is_self_adjoint:
            return modulus(self.eigvals())
        return linalg_ops.svd(self.to_dense(), compute_uv=False)

    # -- the operations ------------------------------------------------------------------
    def _matmul(self, x: _T, adjoint: bool = False, adjoint_arg: bool = False) -> _T:
        raise NotImplementedError

    def matmul(self, x: Any, adjoint: bool = False, adjoint_arg: bool = False,
               name: str = "matmul") -> Any:
        """``A x`` (``A^H`` when ``adjoint``; ``x^H`` when ``adjoint_arg``); a
        LinearOperator ``x`` gives their composition."""
        if isinstance(x, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = x.adjoint() if adjoint_arg else x
            if right.range_dimension is not None and left.domain_dimension is not None \
                    and right.range_dimension != left.domain_dimension:
                raise ValueError(f"Operators are incompatible. Expected `x` to have dimension"
                                 f" {left.domain_dimension} but got {right.range_dimension}.")
            with self._name_scope(name):
                return left._linop_matmul(right)
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            arg_dim = -1 if adjoint_arg else -2
            shape_lib.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(
                x.shape[arg_dim])
            return self._matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _linop_matmul(self, right: LinearOperator) -> LinearOperator:
        return DERIVED["composition"]([self, right])

    def __matmul__(self, other: Any) -> Any:
        return self.matmul(other)

    def _matvec(self, x: _T, adjoint: bool = False) -> _T:
        return array_ops.squeeze(self.matmul(array_ops.expand_dims(x, -1), adjoint=adjoint),
                                 -1)

    def matvec(self, x: Any, adjoint: bool = False, name: str = "matvec") -> Any:
        """``A x`` for vectors ``x`` [..., N]."""
        if isinstance(x, LinearOperator):
            return self.matmul(x, adjoint=adjoint, name=name)
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            self_dim = -2 if adjoint else -1
            shape_lib.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(
                x.shape[-1])
            return self._matvec(x, adjoint=adjoint)

    def _determinant(self) -> _T:
        if self._can_use_cholesky():
            return math_ops.exp(self.log_abs_determinant())
        return linalg_ops.matrix_determinant(self.to_dense())

    def determinant(self, name: str = "det") -> _T:
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._determinant()

    def _log_abs_determinant(self) -> _T:
        if self._can_use_cholesky():
            diag = linalg_ops.matrix_diag_part(linalg_ops.cholesky(self.to_dense()))
            return 2.0 * math_ops.reduce_sum(math_ops.log(_real(diag)), axis=-1)
        _, log_abs_det = linalg_ops.log_matrix_determinant(self.to_dense())
        return log_abs_det

    def log_abs_determinant(self, name: str = "log_abs_det") -> _T:
        self._check_square("Determinant")
        with self._name_scope(name):
            return self._log_abs_determinant()

    def _dense_solve(self, rhs: _T, adjoint: bool = False, adjoint_arg: bool = False) -> _T:
        matrix, rhs = broadcast_batch(self.to_dense(), adjoint_if(rhs, adjoint_arg))
        if self._can_use_cholesky():
            return linalg_ops.cholesky_solve(linalg_ops.cholesky(matrix), rhs)
        return linalg_ops.matrix_solve(matrix, rhs, adjoint=adjoint)

    def _solve(self, rhs: _T, adjoint: bool = False, adjoint_arg: bool = False) -> _T:
        return self._dense_solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _check_solvable(self) -> None:
        if self.is_non_singular is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to be singular.")
        if self.is_square is False:
            raise NotImplementedError("Exact solve not implemented for an operator that is "
                                      "expected to not be square.")

    def solve(self, rhs: Any, adjoint: bool = False, adjoint_arg: bool = False,
              name: str = "solve") -> Any:
        """X with ``A X = rhs`` (``A^H`` when ``adjoint``; ``rhs^H`` when
        ``adjoint_arg``); a LinearOperator ``rhs`` gives A^-1 composed with it."""
        self._check_solvable()
        if isinstance(rhs, LinearOperator):
            left = self.adjoint() if adjoint else self
            right = rhs.adjoint() if adjoint_arg else rhs
            with self._name_scope(name):
                return left.inverse()._linop_matmul(right)
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            arg_dim = -1 if adjoint_arg else -2
            shape_lib.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(
                rhs.shape[arg_dim])
            return self._solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs: _T, adjoint: bool = False) -> _T:
        return array_ops.squeeze(self.solve(array_ops.expand_dims(rhs, -1), adjoint=adjoint),
                                 -1)

    def solvevec(self, rhs: Any, adjoint: bool = False, name: str = "solve") -> Any:
        """x with ``A x = rhs`` for vectors ``rhs`` [..., M]."""
        self._check_solvable()
        with self._name_scope(name):
            rhs = convert_to_tensor(rhs, name="rhs")
            self._check_input_dtype(rhs)
            self_dim = -1 if adjoint else -2
            shape_lib.dimension_at_index(self.shape, self_dim).assert_is_compatible_with(
                rhs.shape[-1])
            return self._solvevec(rhs, adjoint=adjoint)

    def _to_dense(self) -> _T:
        if self.batch_shape.is_fully_defined():
            batch_shape = self.batch_shape.as_list()
        else:
            batch_shape = self.batch_shape_tensor()
        dim = self.domain_dimension
        n = dim if dim is not None else self.domain_dimension_tensor()
        eye = linalg_ops.eye(num_rows=n, batch_shape=batch_shape, dtype=self.dtype)
        return self.matmul(eye)

    def to_dense(self, name: str = "to_dense") -> _T:
        """The operator as a dense [..., M, N] tensor."""
        with self._name_scope(name):
            return self._to_dense()

    def _diag_part(self) -> _T:
        return linalg_ops.matrix_diag_part(self.to_dense())

    def diag_part(self, name: str = "diag_part") -> _T:
        with self._name_scope(name):
            return self._diag_part()

    def _trace(self) -> _T:
        return math_ops.reduce_sum(self.diag_part(), axis=-1)

    def trace(self, name: str = "trace") -> _T:
        with self._name_scope(name):
            return self._trace()

    def _add_to_tensor(self, x: _T) -> _T:
        return self.to_dense() + x

    def add_to_tensor(self, x: Any, name: str = "add_to_tensor") -> _T:
        with self._name_scope(name):
            x = convert_to_tensor(x, name="x")
            self._check_input_dtype(x)
            return self._add_to_tensor(x)

    def _eigvals(self) -> _T:
        return linalg_ops.self_adjoint_eigvals(self.to_dense())

    def eigvals(self, name: str = "eigvals") -> _T:
        if not self.is_self_adjoint:
            raise NotImplementedError("Only self-adjoint matrices are supported.")
        with self._name_scope(name):
            return self._eigvals()

    def _cond(self) -> _T:
        vals = self._singular_values_or_eigs()
        return math_ops.reduce_max(vals, axis=-1) / math_ops.reduce_min(vals, axis=-1)

    def cond(self, name: str = "cond") -> _T:
        with self._name_scope(name):
            return self._cond()

    def _linop_inverse(self) -> LinearOperator:
        return DERIVED["inversion"](self)

    def inverse(self, name: str = "inverse") -> LinearOperator:
        if self.is_square is False:
            raise ValueError("Cannot take the Inverse: This operator represents a non square "
                             "matrix.")
        if self.is_non_singular is False:
            raise ValueError("Cannot take the Inverse: This operator represents a singular "
                             "matrix.")
        with self._name_scope(name):
            return self._linop_inverse()

    def _linop_cholesky(self) -> LinearOperator:
        return DERIVED["lower_triangular"](linalg_ops.cholesky(self.to_dense()),
                                           is_non_singular=True, is_self_adjoint=False,
                                           is_square=True)

    def cholesky(self, name: str = "cholesky") -> LinearOperator:
        if not self._can_use_cholesky():
            raise ValueError("Cannot take the Cholesky decomposition: Not a positive definite "
                             "self adjoint matrix.")
        with self._name_scope(name):
            return self._linop_cholesky()

    def _linop_adjoint(self) -> LinearOperator:
        return DERIVED["adjoint"](self, is_non_singular=self.is_non_singular,
                                     is_self_adjoint=self.is_self_adjoint,
                                     is_positive_definite=self.is_positive_definite,
                                     is_square=self.is_square)

    def adjoint(self, name: str = "adjoint") -> LinearOperator:
        if self.is_self_adjoint is True:
            return self
        with self._name_scope(name):
            return self._linop_adjoint()
