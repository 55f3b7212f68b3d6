"""The simple LinearOperators of ``tf.linalg``: FullMatrix, Diag, Identity, ScaledIdentity,
LowerTriangular and Zeros."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, linalg_ops, math_ops
from graphcore.ops.linalg.linear_operator import (
    DERIVED,
    LinearOperator,
    adjoint_if,
    broadcast_batch,
    check_dtype,
    conj_if,
)
from graphcore.ops.linalg_impl import modulus

__all__ = ["LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorIdentity",
           "LinearOperatorLowerTriangular", "LinearOperatorScaledIdentity",
           "LinearOperatorZeros"]

_T = ops_lib.Tensor


def _hint_true(value: Any, message: str) -> bool:
    if value is False:
        raise ValueError(message)
    return True


class LinearOperatorFullMatrix(LinearOperator):
    """The operator given by a dense [..., M, N] matrix."""

    def __init__(self, matrix: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorFullMatrix"):
        parameters = dict(matrix=matrix, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ops_lib.name_scope(name, values=[matrix]):
            self._matrix = convert_to_tensor(matrix, name="matrix")
            check_dtype(self._matrix, "matrix")
        super().__init__(self._matrix.dtype, [self._matrix], is_non_singular, is_self_adjoint,
                         is_positive_definite, is_square, name, parameters)

    def _shape(self) -> shape_lib.TensorShape:
        return self._matrix.shape

    def _shape_tensor(self) -> _T:
        return array_ops.shape(self._matrix)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._matrix, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _to_dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The square operator diag(``diag``) for ``diag`` [..., N]."""

    def __init__(self, diag: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = True,
                 name: str = "LinearOperatorDiag"):
        parameters = dict(diag=diag, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ops_lib.name_scope(name, values=[diag]):
            self._diag = convert_to_tensor(diag, name="diag")
            check_dtype(self._diag, "diag")
            if self._diag.shape.ndims is not None and self._diag.shape.ndims < 1:
                raise ValueError(f"Argument diag must have at least 1 dimension.  Found: "
                                 f"{self._diag}")
        if not self._diag.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        if is_square is False:
            raise ValueError("Only square diagonal operators currently supported.")
        super().__init__(self._diag.dtype, [self._diag], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, parameters)

    @property
    def diag(self) -> _T:
        return self._diag

    def _shape(self):
        return self._diag.shape.concatenate(self._diag.shape[-1:])

    def _shape_tensor(self):
        d = array_ops.shape(self._diag)
        return array_ops.concat([d, d[-1:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diag_term = conj_if(self._diag, adjoint)
        return array_ops.expand_dims(diag_term, -1) * adjoint_if(x, adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return conj_if(self._diag, adjoint) * x

    def _determinant(self):
        return math_ops.reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return math_ops.cast(math_ops.reduce_sum(math_ops.log(modulus(self._diag)), axis=-1),
                             self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diag_term = conj_if(self._diag, adjoint)
        return adjoint_if(rhs, adjoint_arg) / array_ops.expand_dims(diag_term, -1)

    def _solvevec(self, rhs, adjoint=False):
        return rhs / conj_if(self._diag, adjoint)

    def _to_dense(self):
        return linalg_ops.matrix_diag(self._diag)

    def _diag_part(self):
        return self._diag

    def _add_to_tensor(self, x):
        return linalg_ops.matrix_set_diag(x, linalg_ops.matrix_diag_part(x) + self._diag)

    def _eigvals(self):
        return self._diag

    def _cond(self):
        a = modulus(self._diag)
        return math_ops.reduce_max(a, axis=-1) / math_ops.reduce_min(a, axis=-1)

    def _linop_inverse(self):
        return LinearOperatorDiag(1.0 / self._diag, is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_cholesky(self):
        return LinearOperatorDiag(math_ops.sqrt(self._diag), is_non_singular=True,
                                  is_self_adjoint=True, is_positive_definite=True,
                                  is_square=True)

    def _linop_adjoint(self):
        return LinearOperatorDiag(math_ops.conj(self._diag),
                                  is_non_singular=self.is_non_singular,
                                  is_self_adjoint=self.is_self_adjoint,
                                  is_positive_definite=self.is_positive_definite,
                                  is_square=True)

    def _linop_matmul(self, right):
        if isinstance(right, LinearOperatorDiag):
            return LinearOperatorDiag(self._diag * right.diag)
        return super()._linop_matmul(right)


def _static_int(value: Any, what: str) -> Any:
    """``value`` as a Python int when it is known at graph-build time, else a tensor."""
    from graphcore.framework import tensor_util

    static = tensor_util.constant_value(convert_to_tensor(value)) if isinstance(
        value, ops_lib.Tensor) else value
    if static is None:
        return convert_to_tensor(value, dtypes_lib.int32, name=what)
    static = int(static)
    if static < 0:
        raise ValueError(f"Argument {what} must be non-negative.  Found: {static}")
    return static


class _BaseIdentity(LinearOperator):
    """What Identity and ScaledIdentity share: a num_rows and an optional batch shape."""

    def _ones_diag(self) -> _T:
        shape = array_ops.concat([self.batch_shape_tensor(), [self._num_rows_t()]], 0)
        return array_ops.ones(shape, self.dtype)

    def _num_rows_t(self) -> _T:
        return convert_to_tensor(self._num_rows, dtypes_lib.int32)

    def _eye(self) -> _T:
        return linalg_ops.eye(self._num_rows, dtype=self.dtype)


class LinearOperatorIdentity(_BaseIdentity):
    """The identity operator on ``num_rows``-vectors, optionally batched."""

    def __init__(self, num_rows: Any, batch_shape: Any = None, dtype: Any = None,
                 is_non_singular: bool = True, is_self_adjoint: bool = True,
                 is_positive_definite: bool = True, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorIdentity"):
        parameters = dict(num_rows=num_rows, batch_shape=batch_shape, dtype=dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtypes_lib.as_dtype(dtype or dtypes_lib.float32)
        _hint_true(is_non_singular, "An identity operator is always non-singular.")
        _hint_true(is_positive_definite, "An identity operator is always positive-definite.")
        _hint_true(is_self_adjoint, "An identity operator is always self-adjoint.")
        _hint_true(is_square, "An identity operator is always square.")
        with ops_lib.name_scope(name):
            self._num_rows = _static_int(num_rows, "num_rows")
            self._batch_shape_arg = None if batch_shape is None else [
                int(d) for d in batch_shape]
        super().__init__(dtype, None, True, True, True, True, name, parameters)

    def _shape(self):
        rows = self._num_rows if isinstance(self._num_rows, int) else None
        batch = shape_lib.TensorShape(self._batch_shape_arg or [])
        return batch.concatenate([rows, rows])

    def _shape_tensor(self):
        n = self._num_rows_t()
        return array_ops.concat([convert_to_tensor(self._batch_shape_arg or [],
                                                   dtypes_lib.int32), [n, n]], 0)

    def _broadcast(self, x: _T) -> _T:
        if not self._batch_shape_arg:
            return x
        zeros = array_ops.zeros(self._batch_shape_arg + [1, 1], dtype=x.dtype)
        return x + zeros

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._broadcast(adjoint_if(x, adjoint_arg))

    def _matvec(self, x, adjoint=False):
        if not self._batch_shape_arg:
            return x
        return x + array_ops.zeros(self._batch_shape_arg + [1], dtype=x.dtype)

    def _determinant(self):
        return array_ops.ones(self._batch_shape_arg or [], dtype=self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(self._batch_shape_arg or [], dtype=self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._matvec(rhs)

    def _to_dense(self):
        return linalg_ops.eye(self._num_rows, batch_shape=self._batch_shape_arg,
                              dtype=self.dtype)

    def _diag_part(self):
        return self._ones_diag()

    def _trace(self):
        return math_ops.cast(self._num_rows_t(), self.dtype) * array_ops.ones(
            self._batch_shape_arg or [], dtype=self.dtype)

    def _add_to_tensor(self, x):
        return linalg_ops.matrix_set_diag(x, linalg_ops.matrix_diag_part(x) + 1)

    def _eigvals(self):
        return self._ones_diag()

    def _cond(self):
        return array_ops.ones(self._batch_shape_arg or [], dtype=self.dtype)

    def _linop_inverse(self):
        return self

    def _linop_cholesky(self):
        return self

    def _linop_matmul(self, right):
        if not self._batch_shape_arg:
            return right
        return super()._linop_matmul(right)


class LinearOperatorScaledIdentity(_BaseIdentity):
    """``multiplier`` [...] times the identity on ``num_rows``-vectors."""

    def __init__(self, num_rows: Any, multiplier: Any, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: bool = True, assert_proper_shapes: bool = False,
                 name: str = "LinearOperatorScaledIdentity"):
        parameters = dict(num_rows=num_rows, multiplier=multiplier,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        _hint_true(is_square, "A ScaledIdentity operator is always square.")
        with ops_lib.name_scope(name, values=[multiplier, num_rows]):
            self._multiplier = convert_to_tensor(multiplier, name="multiplier")
            check_dtype(self._multiplier, "multiplier")
            self._num_rows = _static_int(num_rows, "num_rows")
        if not self._multiplier.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A real diagonal operator is always self adjoint.")
            is_self_adjoint = True
        super().__init__(self._multiplier.dtype, [self._multiplier], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name, parameters)

    @property
    def multiplier(self) -> _T:
        return self._multiplier

    def _shape(self):
        rows = self._num_rows if isinstance(self._num_rows, int) else None
        return self._multiplier.shape.concatenate([rows, rows])

    def _shape_tensor(self):
        n = self._num_rows_t()
        return array_ops.concat([array_ops.shape(self._multiplier), [n, n]], 0)

    def _mult(self, adjoint: bool, extra: int = 2) -> _T:
        m = conj_if(self._multiplier, adjoint)
        for _ in range(extra):
            m = array_ops.expand_dims(m, -1)
        return m

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return adjoint_if(x, adjoint_arg) * self._mult(adjoint)

    def _matvec(self, x, adjoint=False):
        return x * self._mult(adjoint, 1)

    def _determinant(self):
        return self._multiplier ** math_ops.cast(self._num_rows_t(), self.dtype)

    def _log_abs_determinant(self):
        return math_ops.cast(math_ops.cast(self._num_rows_t(), self.dtype.real_dtype)
                             * math_ops.log(modulus(self._multiplier)), self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return adjoint_if(rhs, adjoint_arg) / self._mult(adjoint)

    def _solvevec(self, rhs, adjoint=False):
        return rhs / self._mult(adjoint, 1)

    def _to_dense(self):
        return self._mult(False) * self._eye()

    def _diag_part(self):
        return self._ones_diag() * self._mult(False, 1)

    def _trace(self):
        return math_ops.cast(self._num_rows_t(), self.dtype) * self._multiplier

    def _add_to_tensor(self, x):
        return x + self._to_dense()

    def _eigvals(self):
        return self._ones_diag() * self._mult(False, 1)

    def _cond(self):
        return array_ops.ones_like(modulus(self._multiplier))

    def _linop_inverse(self):
        return LinearOperatorScaledIdentity(self._num_rows, 1.0 / self._multiplier,
                                            is_non_singular=self.is_non_singular,
                                            is_self_adjoint=self.is_self_adjoint,
                                            is_positive_definite=self.is_positive_definite)

    def _linop_cholesky(self):
        return LinearOperatorScaledIdentity(self._num_rows, math_ops.sqrt(self._multiplier),
                                            is_non_singular=True, is_self_adjoint=True,
                                            is_positive_definite=True)

    def _linop_adjoint(self):
        return LinearOperatorScaledIdentity(self._num_rows, math_ops.conj(self._multiplier),
                                            is_non_singular=self.is_non_singular,
                                            is_self_adjoint=self.is_self_adjoint,
                                            is_positive_definite=self.is_positive_definite)


class LinearOperatorLowerTriangular(LinearOperator):
    """The square operator given by the lower triangle (diagonal included) of ``tril``."""

    def __init__(self, tril: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorLowerTriangular"):
        parameters = dict(tril=tril, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if is_square is False:
            raise ValueError("Only square lower triangular operators supported at this "
                             "time.")
        with ops_lib.name_scope(name, values=[tril]):
            self._tril = convert_to_tensor(tril, name="tril")
            check_dtype(self._tril, "tril")
            if self._tril.shape.ndims is not None and self._tril.shape.ndims < 2:
                raise ValueError(f"Argument tril must have at least 2 dimensions.  Found: "
                                 f"{self._tril}")
            self._lower = linalg_ops.matrix_band_part(self._tril, -1, 0)
        super().__init__(self._tril.dtype, [self._tril], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, parameters)

    def _shape(self):
        return self._tril.shape

    def _shape_tensor(self):
        return array_ops.shape(self._tril)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self._lower, x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        return linalg_ops.matrix_diag_part(self._tril)

    def _determinant(self):
        return math_ops.reduce_prod(self._diag_part(), axis=-1)

    def _log_abs_determinant(self):
        return math_ops.cast(math_ops.reduce_sum(math_ops.log(modulus(self._diag_part())),
                                                 axis=-1), self.dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        lower, rhs = broadcast_batch(self._lower, adjoint_if(rhs, adjoint_arg))
        return linalg_ops.matrix_triangular_solve(lower, rhs, lower=True, adjoint=adjoint)

    def _to_dense(self):
        return self._lower

    def _eigvals(self):
        return self._diag_part()


class LinearOperatorZeros(LinearOperator):
    """The zero operator [..., num_rows, num_columns]."""

    def __init__(self, num_rows: Any, num_columns: Any = None, batch_shape: Any = None,
                 dtype: Any = None, is_non_singular: bool = False, is_self_adjoint: bool = True,
                 is_positive_definite: bool = False, is_square: bool = True,
                 assert_proper_shapes: bool = False, name: str = "LinearOperatorZeros"):
        parameters = dict(num_rows=num_rows, num_columns=num_columns, batch_shape=batch_shape,
                          dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          assert_proper_shapes=assert_proper_shapes, name=name)
        dtype = dtypes_lib.as_dtype(dtype or dtypes_lib.float32)
        if is_non_singular:
            raise ValueError("A Zeros operator is always singular.")
        if is_positive_definite:
            raise ValueError("A Zeros operator is always not positive-definite.")
        with ops_lib.name_scope(name):
            self._num_rows = _static_int(num_rows, "num_rows")
            self._num_columns = self._num_rows if num_columns is None else _static_int(
                num_columns, "num_columns")
            self._batch_shape_arg = None if batch_shape is None else [
                int(d) for d in batch_shape]
        if num_columns is not None and self._num_columns != self._num_rows:
            is_square = False if is_square else is_square
            is_self_adjoint = False
        super().__init__(dtype, None, False, is_self_adjoint, False, is_square, name,
                         parameters)

    def _dims(self) -> list:
        return [d if isinstance(d, int) else None for d in (self._num_rows, self._num_columns)]

    def _shape(self):
        return shape_lib.TensorShape(self._batch_shape_arg or []).concatenate(self._dims())

    def _shape_tensor(self):
        return array_ops.concat([convert_to_tensor(self._batch_shape_arg or [],
                                                   dtypes_lib.int32),
                                 [self._num_rows, self._num_columns]], 0)

    def _zeros_like_product(self, x: _T, adjoint: bool, rows_axis: int) -> _T:
        out_rows = self._num_columns if adjoint else self._num_rows
        x_shape = array_ops.shape(x)
        shape = array_ops.concat([x_shape[:rows_axis], [out_rows], x_shape[rows_axis + 1:]]
                                 if rows_axis != -1 else [x_shape[:-1], [out_rows]], 0)
        zeros = array_ops.zeros(shape, dtype=self.dtype)
        if self._batch_shape_arg:
            extra = [1, 1] if rows_axis == -2 else [1]
            zeros = zeros + array_ops.zeros(self._batch_shape_arg + extra, self.dtype)
        return zeros

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._zeros_like_product(adjoint_if(x, adjoint_arg), adjoint, -2)

    def _matvec(self, x, adjoint=False):
        return self._zeros_like_product(x, adjoint, -1)

    def _determinant(self):
        return array_ops.zeros(self._batch_shape_arg or [], dtype=self.dtype)

    def _log_abs_determinant(self):
        return math_ops.log(self._determinant())

    def _to_dense(self):
        return array_ops.zeros((self._batch_shape_arg or []) + [self._num_rows,
                                                                self._num_columns],
                               dtype=self.dtype)

    def _diag_part(self):
        n = (min(self._num_rows, self._num_columns)
             if isinstance(self._num_rows, int) and isinstance(self._num_columns, int)
             else math_ops.minimum(self._num_rows, self._num_columns))
        return array_ops.zeros(array_ops.concat([convert_to_tensor(
            self._batch_shape_arg or [], dtypes_lib.int32), [n]], 0), dtype=self.dtype)

    def _trace(self):
        return array_ops.zeros(self._batch_shape_arg or [], dtype=self.dtype)

    def _add_to_tensor(self, x):
        return x + array_ops.zeros(self._batch_shape_arg + [1, 1], self.dtype) \
            if self._batch_shape_arg else x

    def _eigvals(self):
        return self._diag_part()

    def _linop_adjoint(self):
        return LinearOperatorZeros(self._num_columns, self._num_rows,
                                   batch_shape=self._batch_shape_arg, dtype=self.dtype,
                                   is_self_adjoint=self.is_self_adjoint,
                                   is_square=self.is_square)

    def _linop_matmul(self, right):
        square = self._num_rows == right.domain_dimension
        return LinearOperatorZeros(self._num_rows, right.domain_dimension,
                                   batch_shape=self._batch_shape_arg, dtype=self.dtype,
                                   is_square=square, is_self_adjoint=square)


DERIVED["lower_triangular"] = LinearOperatorLowerTriangular
