"""Structured LinearOperators: Circulant (1-, 2- and 3-D blocks, through the FFT),
Toeplitz, Tridiag (through the tridiagonal ops), Householder and Permutation."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    elementwise_ops,
    linalg_ops,
    manip_ops,
    math_ops,
    spectral_ops,
    tridiagonal_ops,
)
from graphcore.ops.linalg.linear_operator import (
    LinearOperator,
    adjoint_if,
    check_dtype,
    conj_if,
    modulus,
)

__all__ = ["LinearOperatorCirculant", "LinearOperatorCirculant2D",
           "LinearOperatorCirculant3D", "LinearOperatorHouseholder",
           "LinearOperatorPermutation", "LinearOperatorToeplitz", "LinearOperatorTridiag"]

_T = ops_lib.Tensor
_FFT = {1: (spectral_ops.fft, spectral_ops.ifft), 2: (spectral_ops.fft2d, spectral_ops.ifft2d),
        3: (spectral_ops.fft3d, spectral_ops.ifft3d)}


class _BaseCirculant(LinearOperator):
    """C = F^H diag(spectrum) F, F the ``block_depth``-dimensional DFT: applying C is a
    circular convolution, its eigenvalues are the spectrum."""

    def __init__(self, spectrum: Any, block_depth: int, input_output_dtype: Any,
                 is_non_singular: Any, is_self_adjoint: Any, is_positive_definite: Any,
                 is_square: Any, name: str, parameters: dict):
        allowed = (dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.float64,
                   dtypes_lib.complex64, dtypes_lib.complex128)
        with ops_lib.name_scope(name, values=[spectrum]):
            spectrum = convert_to_tensor(spectrum, name="spectrum")
            check_dtype(spectrum, "spectrum", allowed)
            if spectrum.shape.ndims is not None and spectrum.shape.ndims < block_depth:
                raise ValueError(f"Argument spectrum must have at least {block_depth} "
                                 f"dimensions.  Found: {spectrum}")
            if not spectrum.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real spectrum always corresponds to a self-adjoint "
                                     "operator.")
                is_self_adjoint = True
            complex_dtype = (dtypes_lib.complex128 if spectrum.dtype in (
                dtypes_lib.float64, dtypes_lib.complex128) else dtypes_lib.complex64)
            self._spectrum = spectrum
            self._spectrum_complex = math_ops.cast(spectrum, complex_dtype)
        if is_square is False:
            raise ValueError("A [[nested] block] circulant operator is always square.")
        self._block_depth = block_depth
        super().__init__(dtypes_lib.as_dtype(input_output_dtype), [spectrum], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name, parameters)

    @property
    def spectrum(self) -> _T:
        return self._spectrum

    @property
    def block_depth(self) -> int:
        return self._block_depth

    @property
    def block_shape(self) -> shape_lib.TensorShape:
        return self._spectrum.shape[-self._block_depth:]

    def block_shape_tensor(self) -> _T:
        return array_ops.shape(self._spectrum)[-self._block_depth:]

    def _n(self) -> int | None:
        dims = self.block_shape.as_list() if self.block_shape.ndims is not None else [None]
        if None in dims:
            return None
        n = 1
        for d in dims:
            n *= d
        return n

    def _shape(self):
        n = self._n()
        return self._spectrum.shape[:-self._block_depth].concatenate([n, n])

    def _shape_tensor(self):
        n = math_ops.reduce_prod(self.block_shape_tensor())
        return array_ops.concat([array_ops.shape(self._spectrum)[:-self._block_depth],
                                 [n, n]], 0)

    def _to_output(self, y: _T) -> _T:
        if self.dtype.is_complex:
            return math_ops.cast(y, self.dtype)
        return math_ops.cast(elementwise_ops.real(y), self.dtype)

    def _apply_spectrum(self, x: _T, spectrum: _T) -> _T:
        """F^H diag(spectrum) F x for x [..., N, R] (R right-hand sides)."""
        fft, ifft = _FFT[self._block_depth]
        x = math_ops.cast(x, spectrum.dtype)
        x_t = linalg_ops.matrix_transpose(x)  # [..., R, N]
        x_shape = array_ops.shape(x_t)
        blocks = array_ops.concat([x_shape[:-1], self.block_shape_tensor()], 0)
        x_blocks = array_ops.reshape(x_t, blocks)
        spec = spectrum
        # the spectrum [batch..., blocks] broadcasts over the R axis of [..., R, blocks]
        spec = array_ops.expand_dims(spec, -self._block_depth - 1)
        y = ifft(spec * fft(x_blocks))
        y = array_ops.reshape(y, x_shape)
        return linalg_ops.matrix_transpose(y)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = adjoint_if(x, adjoint_arg)
        spectrum = conj_if(self._spectrum_complex, adjoint)
        return self._to_output(self._apply_spectrum(x, spectrum))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = adjoint_if(rhs, adjoint_arg)
        spectrum = conj_if(self._spectrum_complex, adjoint)
        return self._to_output(self._apply_spectrum(rhs, 1.0 / spectrum))

    def _flat_spectrum(self) -> _T:
        shape = array_ops.concat([array_ops.shape(self._spectrum)[:-self._block_depth], [-1]],
                                 0)
        return array_ops.reshape(self._spectrum_complex, shape)

    def _determinant(self):
        return self._to_output(math_ops.reduce_prod(self._flat_spectrum(), axis=-1))

    def _log_abs_determinant(self):
        return math_ops.cast(math_ops.reduce_sum(
            math_ops.log(modulus(self._flat_spectrum())), axis=-1), self.dtype)

    def _trace(self):
        return self._to_output(math_ops.reduce_sum(self._flat_spectrum(), axis=-1))

    def _diag_part(self):
        flat = self._flat_spectrum()
        mean = math_ops.reduce_mean(flat, axis=-1, keepdims=True)
        return self._to_output(mean * array_ops.ones_like(flat))

    def _eigvals(self):
        return self._to_output(self._flat_spectrum())

    def convolution_kernel(self, name: str = "convolution_kernel") -> _T:
        """The kernel h with C x = h (*) x (the inverse DFT of the spectrum)."""
        with self._name_scope(name):
            return self._to_output(_FFT[self._block_depth][1](self._spectrum_complex))

    def _rebuild(self, spectrum: _T, **hints: Any) -> LinearOperator:
        cls = {1: LinearOperatorCirculant, 2: LinearOperatorCirculant2D,
               3: LinearOperatorCirculant3D}[self._block_depth]
        if not self._spectrum.dtype.is_complex:
            spectrum = math_ops.cast(elementwise_ops.real(spectrum), self._spectrum.dtype)
        return cls(spectrum, **hints)

    def _linop_inverse(self):
        return self._rebuild(1.0 / self._spectrum_complex, input_output_dtype=self.dtype,
                             is_non_singular=self.is_non_singular,
                             is_self_adjoint=self.is_self_adjoint,
                             is_positive_definite=self.is_positive_definite)

    def _linop_adjoint(self):
        # TF's adjoint takes the default input_output_dtype (complex64), not this one's
        return self._rebuild(math_ops.conj(self._spectrum_complex),
                             is_non_singular=self.is_non_singular,
                             is_self_adjoint=self.is_self_adjoint,
                             is_positive_definite=self.is_positive_definite)


def _circulant_class(depth: int, default_name: str) -> type:
    def __init__(self, spectrum: Any, input_output_dtype: Any = dtypes_lib.complex64,
                 is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = True,
                 name: str = default_name):
        parameters = dict(spectrum=spectrum, input_output_dtype=input_output_dtype,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        _BaseCirculant.__init__(self, spectrum, depth, input_output_dtype, is_non_singular,
                                is_self_adjoint, is_positive_definite, is_square, name,
                                parameters)

    doc = (f"The circulant operator{'' if depth == 1 else f' with {depth}-level nested blocks'}"
           f" of the given ``spectrum`` [..., N{', ...' * (depth - 1)}].")
    return type(default_name, (_BaseCirculant,), {"__init__": __init__, "__doc__": doc,
                                                  "__module__": __name__})


LinearOperatorCirculant = _circulant_class(1, "LinearOperatorCirculant")
LinearOperatorCirculant2D = _circulant_class(2, "LinearOperatorCirculant2D")
LinearOperatorCirculant3D = _circulant_class(3, "LinearOperatorCirculant3D")


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix T[i, j] = col[i - j] (i >= j), row[j - i] (j > i)."""

    def __init__(self, col: Any, row: Any, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: Any = None, name: str = "LinearOperatorToeplitz"):
        parameters = dict(col=col, row=row, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ops_lib.name_scope(name, values=[row, col]):
            self._row = convert_to_tensor(row, name="row")
            self._col = convert_to_tensor(col, name="col", dtype=self._row.dtype)
            check_dtype(self._row, "row")
        super().__init__(self._row.dtype, [self._row, self._col], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name, parameters)

    @property
    def col(self) -> _T:
        return self._col

    @property
    def row(self) -> _T:
        return self._row

    def _shape(self):
        batch = manip_ops.broadcast_static_shape(self._row.shape[:-1], self._col.shape[:-1])
        n = self._row.shape[-1]
        return batch.concatenate([n, n])

    def _shape_tensor(self):
        batch = manip_ops.broadcast_dynamic_shape(array_ops.shape(self._row)[:-1],
                                                  array_ops.shape(self._col)[:-1])
        n = array_ops.shape(self._row)[-1]
        return array_ops.concat([batch, [n, n]], 0)

    def _to_dense(self):
        n = array_ops.shape(self._row)[-1]
        # values[k] for k = i - j + n - 1: reversed row (j > i), then col (i >= j)
        values = array_ops.concat([array_ops.reverse(self._row[..., 1:], [-1]), self._col],
                                  -1)
        idx = math_ops.range(n)
        index = idx[:, None] - idx[None, :] + n - 1
        dense = array_ops.gather(values, index, axis=-1, batch_dims=0)
        return dense + array_ops.zeros(self.shape_tensor(), self.dtype)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _diag_part(self):
        return self._col[..., :1] * array_ops.ones(self.shape_tensor()[:-1], self.dtype)

    def _trace(self):
        return math_ops.cast(array_ops.shape(self._row)[-1], self.dtype) * self._col[..., 0]


class LinearOperatorTridiag(LinearOperator):
    """A square tridiagonal operator given by its diagonals ('compact' [..., 3, N],
    'sequence' (super, main, sub) or 'matrix')."""

    def __init__(self, diagonals: Any, diagonals_format: str = "compact",
                 is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorTridiag"):
        parameters = dict(diagonals=diagonals, diagonals_format=diagonals_format,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError(f"Diagonals Format must be one of compact, matrix, sequence, "
                             f"got : {diagonals_format}")
        with ops_lib.name_scope(name, values=[diagonals]):
            if diagonals_format == "sequence":
                self._diagonals = [convert_to_tensor(d, name=f"diag_{i}")
                                   for i, d in enumerate(diagonals)]
                dtype = self._diagonals[0].dtype
            else:
                self._diagonals = convert_to_tensor(diagonals, name="diagonals")
                dtype = self._diagonals.dtype
        self._diagonals_format = diagonals_format
        if is_square is False:
            raise ValueError("A tridiagonal operator is always square.")
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, parameters)

    @property
    def diagonals(self) -> Any:
        return self._diagonals

    @property
    def diagonals_format(self) -> str:
        return self._diagonals_format

    def _compact(self) -> _T:
        if self._diagonals_format == "compact":
            return self._diagonals
        if self._diagonals_format == "matrix":
            return tridiagonal_ops._matrix_to_compact(self._diagonals)
        superdiag, maindiag, subdiag = self._diagonals
        return array_ops.stack([superdiag, maindiag, subdiag], axis=-2)

    def _shape(self):
        if self._diagonals_format == "matrix":
            return self._diagonals.shape
        if self._diagonals_format == "sequence":
            main = self._diagonals[1].shape
            return main.concatenate(main[-1:])
        shape = self._diagonals.shape
        return shape[:-2].concatenate([shape[-1], shape[-1]])

    def _shape_tensor(self):
        if self._diagonals_format == "matrix":
            return array_ops.shape(self._diagonals)
        main = array_ops.shape(self._compact())
        return array_ops.concat([main[:-2], [main[-1], main[-1]]], 0)

    def _adjoint_compact(self) -> _T:
        from graphcore.ops.tridiagonal_grad import _adjoint_diagonals

        return _adjoint_diagonals(self._compact())

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        diags = self._adjoint_compact() if adjoint else self._compact()
        return tridiagonal_ops.tridiagonal_matmul(diags, adjoint_if(x, adjoint_arg))

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        diags = self._adjoint_compact() if adjoint else self._compact()
        return tridiagonal_ops.tridiagonal_solve(diags, adjoint_if(rhs, adjoint_arg))

    def _to_dense(self):
        if self._diagonals_format == "matrix":  # TF gives the matrix back as it came
            return self._diagonals
        return linalg_ops.matrix_diag(self._compact(), k=(-1, 1), align="LEFT_RIGHT")

    def _diag_part(self):
        if self._diagonals_format == "matrix":
            return linalg_ops.matrix_diag_part(self._diagonals)
        if self._diagonals_format == "sequence":
            return manip_ops.broadcast_to(self._diagonals[1], self.shape_tensor()[:-1])
        return self._diagonals[..., 1, :]


class LinearOperatorHouseholder(LinearOperator):
    """The reflection H = I - 2 v v^H / (v^H v) through the hyperplane normal to
    ``reflection_axis`` v [..., N]: self-adjoint, its own inverse, determinant -1."""

    def __init__(self, reflection_axis: Any, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: Any = None, name: str = "LinearOperatorHouseholder"):
        parameters = dict(reflection_axis=reflection_axis, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ops_lib.name_scope(name, values=[reflection_axis]):
            self._reflection_axis = convert_to_tensor(reflection_axis, name="reflection_axis")
            check_dtype(self._reflection_axis, "reflection_axis")
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_non_singular is False:
            raise ValueError("A Householder operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        super().__init__(self._reflection_axis.dtype, [self._reflection_axis],
                         is_non_singular, True, False, True, name, parameters)

    @property
    def reflection_axis(self) -> _T:
        return self._reflection_axis

    def _shape(self):
        shape = self._reflection_axis.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self):
        d = array_ops.shape(self._reflection_axis)
        return array_ops.concat([d, d[-1:]], 0)

    def _normalized(self) -> _T:
        v = self._reflection_axis
        norm_sq = math_ops.reduce_sum(math_ops.conj(v) * v, axis=-1, keepdims=True)
        return v / math_ops.sqrt(norm_sq)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = adjoint_if(x, adjoint_arg)
        u = array_ops.expand_dims(self._normalized(), -1)  # [..., N, 1]
        return x - 2 * u * math_ops.matmul(u, x, adjoint_a=True)

    def _determinant(self):
        return -array_ops.ones(array_ops.shape(self._reflection_axis)[:-1], self.dtype)

    def _log_abs_determinant(self):
        return array_ops.zeros(array_ops.shape(self._reflection_axis)[:-1],
                               self.dtype.real_dtype)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint, adjoint_arg)

    def _to_dense(self):
        u = self._normalized()
        n = array_ops.shape(u)[-1]
        eye = linalg_ops.eye(n, dtype=self.dtype)
        return eye - 2 * u[..., :, None] * math_ops.conj(u)[..., None, :]

    def _diag_part(self):
        u = self._normalized()
        return 1 - 2 * u * math_ops.conj(u)

    def _trace(self):
        n = array_ops.shape(self._reflection_axis)[-1]
        return math_ops.cast(n - 2, self.dtype) * array_ops.ones(
            array_ops.shape(self._reflection_axis)[:-1], self.dtype)

    def _eigvals(self):
        ones = array_ops.ones_like(self._reflection_axis)
        minus = array_ops.concat([-ones[..., :1], ones[..., 1:]], -1)
        return minus

    def _linop_inverse(self):
        return self


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix P with P[i, perm[i]] = 1: ``(P x)[i] = x[perm[i]]``."""

    def __init__(self, perm: Any, dtype: Any = dtypes_lib.float32,
                 is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorPermutation"):
        parameters = dict(perm=perm, dtype=dtype, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        with ops_lib.name_scope(name, values=[perm]):
            self._perm = convert_to_tensor(perm, name="perm")
            if not self._perm.dtype.is_integer:
                raise TypeError(f"Argument perm must have integer dtype; found "
                                f"{self._perm.dtype}.")
        if is_non_singular is False:
            raise ValueError("A Permutation operator is always non-singular.")
        if is_square is False:
            raise ValueError("A Permutation operator is always square.")
        super().__init__(dtype, [self._perm], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, parameters)

    @property
    def perm(self) -> _T:
        return self._perm

    def _shape(self):
        shape = self._perm.shape
        return shape.concatenate(shape[-1:])

    def _shape_tensor(self):
        d = array_ops.shape(self._perm)
        return array_ops.concat([d, d[-1:]], 0)

    def _inverse_perm(self) -> _T:
        return _argsort(self._perm)

    def _permute_rows(self, x: _T, perm: _T) -> _T:
        batch = array_ops.shape(x)[:-2]
        perm = perm + array_ops.zeros(array_ops.concat([batch, array_ops.shape(perm)[-1:]],
                                                       0), perm.dtype)
        return array_ops.gather(x, perm, axis=-2, batch_dims=perm.shape.ndims - 1)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = adjoint_if(x, adjoint_arg)
        x = x + array_ops.zeros(array_ops.concat([self.batch_shape_tensor(), [1, 1]], 0),
                                x.dtype)
        return self._permute_rows(x, self._inverse_perm() if adjoint else self._perm)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._matmul(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _to_dense(self):
        return math_ops.cast(array_ops.one_hot(self._perm, array_ops.shape(self._perm)[-1]),
                             self.dtype)

    def _determinant(self):
        return linalg_ops.matrix_determinant(self.to_dense())

    def _log_abs_determinant(self):
        return array_ops.zeros(array_ops.shape(self._perm)[:-1], self.dtype)

    def _diag_part(self):
        n = array_ops.shape(self._perm)[-1]
        return math_ops.cast(math_ops.equal(self._perm,
                                            math_ops.cast(math_ops.range(n), self._perm.dtype)),
                             self.dtype)

    def _linop_inverse(self):
        return LinearOperatorPermutation(self._inverse_perm(), dtype=self.dtype,
                                         is_self_adjoint=self.is_self_adjoint)

    def _linop_adjoint(self):
        return self._linop_inverse()


def _argsort(perm: _T) -> _T:
    """The inverse of a batch of permutations (scatter of positions)."""
    n = array_ops.shape(perm)[-1]
    one_hot = array_ops.one_hot(perm, n, dtype=perm.dtype)  # [..., i, perm[i]]
    positions = math_ops.cast(math_ops.range(n), perm.dtype)
    return math_ops.reduce_sum(one_hot * positions[:, None], axis=-2)
