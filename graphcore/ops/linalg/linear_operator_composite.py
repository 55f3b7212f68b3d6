"""LinearOperators built from other operators: Composition, Kronecker, BlockDiag,
BlockLowerTriangular, Inversion, Adjoint and LowRankUpdate (TF's rules for each: products
of determinants, Woodbury solves, block substitution)."""

from __future__ import annotations

import functools
import operator
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, linalg_ops, manip_ops, math_ops
from graphcore.ops.linalg.linear_operator import (
    DERIVED,
    LinearOperator,
    adjoint_if,
    broadcast_batch,
    check_dtype,
)
from graphcore.ops.linalg.linear_operator_basic import (
    LinearOperatorDiag,
    LinearOperatorIdentity,
)

__all__ = ["LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular", "LinearOperatorComposition",
           "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorLowRankUpdate"]

_T = ops_lib.Tensor


def _check_operators(operators: Any) -> list:
    operators = list(operators)
    if not operators:
        raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
    dtype = operators[0].dtype
    for op in operators:
        if op.dtype != dtype:
            names = [(o.name, o.dtype.name) for o in operators]
            raise TypeError(f"Expected all operators to have the same dtype.  Found {names}")
    return operators


def _batch_shape(operators: list) -> shape_lib.TensorShape:
    return functools.reduce(manip_ops.broadcast_static_shape,
                            [op.batch_shape for op in operators])


def _batch_shape_tensor(operators: list) -> _T:
    return functools.reduce(manip_ops.broadcast_dynamic_shape,
                            [op.batch_shape_tensor() for op in operators])


def _all(operators: list, attr: str) -> bool:
    return all(getattr(op, attr) for op in operators)


def _implied(hint: Any, implied: bool, message: str) -> Any:
    if implied:
        if hint is False:
            raise ValueError(message)
        return True
    return hint


def _product_of_determinants(operators: list) -> _T:
    return functools.reduce(math_ops.multiply, [op.determinant() for op in operators])


def _sum_of_log_abs_determinants(operators: list) -> _T:
    return functools.reduce(math_ops.add, [op.log_abs_determinant() for op in operators])


def _reduce_dimension_tensors(operators: list, combine: Any) -> _T:
    """The batch shape of ``operators`` then ``combine`` over their range and domain sizes."""
    rows = functools.reduce(combine, [op.range_dimension_tensor() for op in operators])
    cols = functools.reduce(combine, [op.domain_dimension_tensor() for op in operators])
    return array_ops.concat([_batch_shape_tensor(operators), [rows, cols]], 0)


class _OperatorList(LinearOperator):
    """An operator made of a flat list of operators of one dtype; the hints every operator
    has imply the combination's (TF raises when the caller's hint says otherwise)."""

    def _init_operators(self, operators: Any, is_non_singular: Any, is_self_adjoint: Any,
                        is_positive_definite: Any, is_square: Any, name: str | None,
                        joiner: str, implied: dict) -> None:
        hints = dict(is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                     is_positive_definite=is_positive_definite, is_square=is_square)
        parameters = dict(operators=operators, **hints, name=name)
        self._operators = _check_operators(operators)
        for attr, message in implied.items():
            hints[attr] = _implied(hints[attr], _all(self._operators, attr), message)
        LinearOperator.__init__(self, self._operators[0].dtype, None,
                                hints["is_non_singular"], hints["is_self_adjoint"],
                                hints["is_positive_definite"], hints["is_square"],
                                name or joiner.join(op.name for op in self._operators),
                                parameters)

    @property
    def operators(self) -> list:
        return self._operators


class _FactorwiseOperator(_OperatorList):
    """A combination (Kronecker, direct sum) whose sizes combine its operators' sizes
    (``_combine_static`` on ints, ``_combine`` on size tensors: multiply, add), and whose
    inverse and Cholesky factor are the same combination of its operators' own."""

    _combine_static: Any
    _combine: Any

    def _combined_dimension(self, attr: str) -> int | None:
        dims = [getattr(op, attr) for op in self._operators]
        return None if None in dims else functools.reduce(self._combine_static, dims)

    def _shape(self):
        return _batch_shape(self._operators).concatenate(
            [self._combined_dimension("range_dimension"),
             self._combined_dimension("domain_dimension")])

    def _shape_tensor(self):
        return _reduce_dimension_tensors(self._operators, self._combine)

    def _rebuilt(self, method: str, is_square: Any) -> LinearOperator:
        """The same combination of each operator's ``method()``, with this one's hints."""
        return type(self)([getattr(op, method)() for op in self._operators],
                          is_non_singular=self.is_non_singular,
                          is_self_adjoint=self.is_self_adjoint,
                          is_positive_definite=self.is_positive_definite, is_square=is_square)

    def _linop_inverse(self):
        return self._rebuilt("inverse", True)

    def _linop_cholesky(self):
        return type(self)([op.cholesky() for op in self._operators], is_non_singular=True,
                          is_square=True)


class LinearOperatorComposition(_OperatorList):
    """``operators[0] @ operators[1] @ ...`` without forming the product."""

    def __init__(self, operators: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str | None = None):
        self._init_operators(operators, is_non_singular, is_self_adjoint,
                             is_positive_definite, is_square, name, "_o_", {
                                 "is_non_singular": "The composition of non-singular "
                                                    "operators is always non-singular."})

    def _shape(self):
        return _batch_shape(self._operators).concatenate(
            [self._operators[0].range_dimension, self._operators[-1].domain_dimension])

    def _shape_tensor(self):
        return array_ops.concat([_batch_shape_tensor(self._operators),
                                 [self._operators[0].range_dimension_tensor(),
                                  self._operators[-1].domain_dimension_tensor()]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        ops = self._operators if adjoint else self._operators[::-1]
        result = ops[0].matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in ops[1:]:
            result = op.matmul(result, adjoint=adjoint)
        return result

    def _determinant(self):
        return _product_of_determinants(self._operators)

    def _log_abs_determinant(self):
        return _sum_of_log_abs_determinants(self._operators)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        ops = self._operators[::-1] if adjoint else self._operators
        solution = ops[0].solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        for op in ops[1:]:
            solution = op.solve(solution, adjoint=adjoint)
        return solution


def _kron_dense(a: _T, b: _T) -> _T:
    """The Kronecker product of (batches of) matrices."""
    m, n = array_ops.shape(a)[-2], array_ops.shape(a)[-1]
    p, q = array_ops.shape(b)[-2], array_ops.shape(b)[-1]
    outer = a[..., :, None, :, None] * b[..., None, :, None, :]
    batch = array_ops.shape(outer)[:-4]
    out = array_ops.reshape(outer, array_ops.concat([batch, [m * p, n * q]], 0))
    static = [None if x is None or y is None else x * y
              for x, y in zip(a.shape[-2:].as_list() if a.shape.ndims else [None, None],
                              b.shape[-2:].as_list() if b.shape.ndims else [None, None])]
    if outer.shape.ndims is not None:
        out.set_shape(outer.shape[:-4].concatenate(static))
    return out


def _kron_vector(a: _T, b: _T) -> _T:
    outer = a[..., :, None] * b[..., None, :]
    return array_ops.reshape(outer, array_ops.concat([array_ops.shape(outer)[:-2], [-1]], 0))


class LinearOperatorKronecker(_FactorwiseOperator):
    """The Kronecker product ``operators[0] (x) operators[1] (x) ...``."""

    def __init__(self, operators: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str | None = None):
        self._init_operators(operators, is_non_singular, is_self_adjoint,
                             is_positive_definite, is_square, name, "_x_", {
                                 "is_non_singular": "The Kronecker product of non-singular "
                                                    "operators is always non-singular.",
                                 "is_self_adjoint": "The Kronecker product of self-adjoint "
                                                    "operators is always self-adjoint.",
                                 "is_positive_definite": "The Kronecker product of "
                                                         "positive-definite operators is "
                                                         "always positive-definite."})

    _combine_static, _combine = operator.mul, staticmethod(math_ops.multiply)

    def _to_dense(self):
        return functools.reduce(_kron_dense, [op.to_dense() for op in self._operators])

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return math_ops.matmul(self.to_dense(), x, adjoint_a=adjoint, adjoint_b=adjoint_arg)

    def _exponents(self) -> list:
        """N / n_i for each factor (N the product of the factors' sizes)."""
        sizes = [math_ops.cast(op.domain_dimension_tensor(), self.dtype.real_dtype)
                 for op in self._operators]
        total = functools.reduce(math_ops.multiply, sizes)
        return [total / s for s in sizes]

    def _determinant(self):
        exps = self._exponents()
        return functools.reduce(math_ops.multiply, [
            op.determinant() ** math_ops.cast(e, self.dtype)
            for op, e in zip(self._operators, exps)])

    def _log_abs_determinant(self):
        exps = self._exponents()
        return functools.reduce(math_ops.add, [
            op.log_abs_determinant() * math_ops.cast(e, self.dtype.real_dtype)
            for op, e in zip(self._operators, exps)])

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._linop_inverse().matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _diag_part(self):
        return functools.reduce(_kron_vector, [op.diag_part() for op in self._operators])

    def _trace(self):
        return functools.reduce(math_ops.multiply, [op.trace() for op in self._operators])

    def _eigvals(self):
        return functools.reduce(_kron_vector, [op.eigvals() for op in self._operators])

    def _linop_adjoint(self):
        return self._rebuilt("adjoint", self.is_square)


def _split_rows(x: _T, sizes: list, axis: int) -> list:
    return array_ops.split(x, sizes, axis=axis)


def _static_sizes(operators: list, attr: str) -> list:
    sizes = [getattr(op, attr) for op in operators]
    if None in sizes:
        return [getattr(op, f"{attr}_tensor")() for op in operators]
    return sizes


def _dense_blocks(rows: list, shape_of: Any, dtype: Any) -> _T:
    """Assembles a block matrix from ``rows`` of dense blocks (None for zero blocks)."""
    batch = shape_of["batch"]
    out_rows = []
    for i, row in enumerate(rows):
        blocks = []
        for j, block in enumerate(row):
            if block is None:
                shape = array_ops.concat([batch, [shape_of["rows"][i], shape_of["cols"][j]]],
                                         0)
                block = array_ops.zeros(shape, dtype=dtype)
            else:
                block = block + array_ops.zeros(array_ops.concat([batch, [1, 1]], 0), dtype)
            blocks.append(block)
        out_rows.append(array_ops.concat(blocks, -1))
    return array_ops.concat(out_rows, -2)


def _concat_diag_parts(operators: list, batch: _T, dtype: Any) -> _T:
    """The diagonal blocks' diagonals, each broadcast to the full ``batch``, end to end."""
    return array_ops.concat([
        op.diag_part() + array_ops.zeros(array_ops.concat([batch, [1]], 0), dtype)
        for op in operators], -1)


class LinearOperatorBlockDiag(_FactorwiseOperator):
    """The block-diagonal operator with the square ``operators`` on its diagonal."""

    def __init__(self, operators: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = True,
                 name: str | None = None):
        self._init_operators(operators, is_non_singular, is_self_adjoint,
                             is_positive_definite, is_square, name, "_ds_", {
                                 "is_non_singular": "The direct sum of non-singular "
                                                    "operators is always non-singular.",
                                 "is_self_adjoint": "The direct sum of self-adjoint "
                                                    "operators is always self-adjoint.",
                                 "is_positive_definite": "The direct sum of positive definite "
                                                         "operators is always positive "
                                                         "definite."})

    _combine_static, _combine = operator.add, staticmethod(math_ops.add)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        x = adjoint_if(x, adjoint_arg)
        attr = "range_dimension" if adjoint else "domain_dimension"
        parts = _split_rows(x, _static_sizes(self._operators, attr), -2)
        return array_ops.concat([op.matmul(p, adjoint=adjoint)
                                 for op, p in zip(self._operators, parts)], -2)

    def _matvec(self, x, adjoint=False):
        attr = "range_dimension" if adjoint else "domain_dimension"
        parts = _split_rows(x, _static_sizes(self._operators, attr), -1)
        return array_ops.concat([op.matvec(p, adjoint=adjoint)
                                 for op, p in zip(self._operators, parts)], -1)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        rhs = adjoint_if(rhs, adjoint_arg)
        attr = "domain_dimension" if adjoint else "range_dimension"
        parts = _split_rows(rhs, _static_sizes(self._operators, attr), -2)
        return array_ops.concat([op.solve(p, adjoint=adjoint)
                                 for op, p in zip(self._operators, parts)], -2)

    def _solvevec(self, rhs, adjoint=False):
        attr = "domain_dimension" if adjoint else "range_dimension"
        parts = _split_rows(rhs, _static_sizes(self._operators, attr), -1)
        return array_ops.concat([op.solvevec(p, adjoint=adjoint)
                                 for op, p in zip(self._operators, parts)], -1)

    def _determinant(self):
        return _product_of_determinants(self._operators)

    def _log_abs_determinant(self):
        return _sum_of_log_abs_determinants(self._operators)

    def _block_shapes(self) -> dict:
        return {"batch": self.batch_shape_tensor(),
                "rows": _static_sizes(self._operators, "range_dimension"),
                "cols": _static_sizes(self._operators, "domain_dimension")}

    def _to_dense(self):
        n = len(self._operators)
        rows = [[op.to_dense() if i == j else None for j in range(n)]
                for i, op in enumerate(self._operators)]
        return _dense_blocks(rows, self._block_shapes(), self.dtype)

    def _diag_part(self):
        return _concat_diag_parts(self._operators, self.batch_shape_tensor(), self.dtype)

    def _trace(self):
        return functools.reduce(math_ops.add, [op.trace() for op in self._operators])

    def _eigvals(self):
        return array_ops.concat([op.eigvals() for op in self._operators], -1)

    def _linop_adjoint(self):
        return self._rebuilt("adjoint", True)


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """A square block-lower-triangular operator: ``operators[i][j]`` is block (i, j) for
    j <= i; the diagonal blocks are square."""

    def __init__(self, operators: Any, is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorBlockLowerTriangular"):
        parameters = dict(operators=operators, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operators = [list(row) for row in operators]
        if not self._operators:
            raise ValueError(f"Expected a non-empty list of operators. Found: {operators}")
        for i, row in enumerate(self._operators):
            if len(row) != i + 1:
                raise ValueError(f"The length of the {i}th row of `operators` must be {i + 1} "
                                 f"but was {len(row)}.")
        _check_operators([op for row in self._operators for op in row])
        if is_square is False:
            raise ValueError("LinearOperatorBlockLowerTriangular must be square.")
        diagonal = [row[-1] for row in self._operators]
        is_non_singular = _implied(
            is_non_singular, _all(diagonal, "is_non_singular"),
            "A blockwise lower-triangular operator with non-singular operators on the main "
            "diagonal is always non-singular.")
        super().__init__(diagonal[0].dtype, None, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, parameters)

    @property
    def operators(self) -> list:
        return self._operators

    def _diagonal(self) -> list:
        return [row[-1] for row in self._operators]

    def _all_operators(self) -> list:
        return [op for row in self._operators for op in row]

    def _shape(self):
        dims = [op.domain_dimension for op in self._diagonal()]
        n = None if None in dims else sum(dims)
        return _batch_shape(self._all_operators()).concatenate([n, n])

    def _shape_tensor(self):
        n = functools.reduce(math_ops.add,
                             [op.domain_dimension_tensor() for op in self._diagonal()])
        return array_ops.concat([_batch_shape_tensor(self._all_operators()), [n, n]], 0)

    def _sizes(self) -> list:
        return _static_sizes(self._diagonal(), "domain_dimension")

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        parts = _split_rows(adjoint_if(x, adjoint_arg), self._sizes(), -2)
        n = len(self._operators)
        out = []
        for i in range(n):
            if adjoint:  # row i of A^H: blocks (j, i)^H for j >= i
                terms = [self._operators[j][i].matmul(parts[j], adjoint=True)
                         for j in range(i, n)]
            else:
                terms = [self._operators[i][j].matmul(parts[j]) for j in range(i + 1)]
            out.append(functools.reduce(math_ops.add, terms))
        return array_ops.concat(out, -2)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        parts = _split_rows(adjoint_if(rhs, adjoint_arg), self._sizes(), -2)
        n = len(self._operators)
        solution: list = [None] * n
        order = range(n - 1, -1, -1) if adjoint else range(n)
        for i in order:
            acc = parts[i]
            others = range(i + 1, n) if adjoint else range(i)
            for j in others:
                block = self._operators[j][i] if adjoint else self._operators[i][j]
                acc = acc - block.matmul(solution[j], adjoint=adjoint)
            solution[i] = self._operators[i][i].solve(acc, adjoint=adjoint)
        return array_ops.concat(solution, -2)

    def _determinant(self):
        return _product_of_determinants(self._diagonal())

    def _log_abs_determinant(self):
        return _sum_of_log_abs_determinants(self._diagonal())

    def _to_dense(self):
        sizes = self._sizes()
        n = len(self._operators)
        rows = [[self._operators[i][j].to_dense() if j <= i else None for j in range(n)]
                for i in range(n)]
        return _dense_blocks(rows, {"batch": self.batch_shape_tensor(), "rows": sizes,
                                    "cols": sizes}, self.dtype)

    def _diag_part(self):
        return _concat_diag_parts(self._diagonal(), self.batch_shape_tensor(), self.dtype)

    def _trace(self):
        return functools.reduce(math_ops.add, [op.trace() for op in self._diagonal()])


class LinearOperatorInversion(LinearOperator):
    """``operator``^-1, acting through ``operator.solve``."""

    def __init__(self, operator: LinearOperator, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: Any = None, name: str | None = None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operator = operator
        if operator.is_non_singular is False or is_non_singular is False:
            raise ValueError(f"operator and supplied hints must have is_non_singular equal to "
                             f"True or None.  Found {operator.is_non_singular}, "
                             f"{is_non_singular}")
        if operator.is_square is False or is_square is False:
            raise ValueError(f"operator and supplied hints must have is_square equal to True "
                             f"or None.  Found {operator.is_square}, {is_square}")

        def pick(hint: Any, op_hint: Any, what: str) -> Any:
            if hint is not None and op_hint is not None and hint != op_hint:
                raise ValueError(f"Hints of {what} must match the operator's: {hint} vs "
                                 f"{op_hint}")
            return op_hint if hint is None else hint

        super().__init__(
            operator.dtype, None, pick(is_non_singular, operator.is_non_singular,
                                       "is_non_singular"),
            pick(is_self_adjoint, operator.is_self_adjoint, "is_self_adjoint"),
            pick(is_positive_definite, operator.is_positive_definite, "is_positive_definite"),
            pick(is_square, operator.is_square, "is_square"),
            name or operator.name + "_inv", parameters)

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _shape(self):
        return self._operator.shape

    def _shape_tensor(self):
        return self._operator.shape_tensor()

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.solve(x, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _determinant(self):
        return 1.0 / self._operator.determinant()

    def _log_abs_determinant(self):
        return -1.0 * self._operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)

    def _eigvals(self):
        return 1.0 / self._operator.eigvals()

    def _linop_inverse(self):
        return self._operator


class LinearOperatorAdjoint(LinearOperator):
    """``operator``^H, acting through ``operator``'s adjoint rules."""

    def __init__(self, operator: LinearOperator, is_non_singular: Any = None,
                 is_self_adjoint: Any = None, is_positive_definite: Any = None,
                 is_square: Any = None, name: str | None = None):
        parameters = dict(operator=operator, is_non_singular=is_non_singular,
                          is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        self._operator = operator
        for hint, op_hint, what in ((is_non_singular, operator.is_non_singular,
                                     "is_non_singular"),
                                    (is_self_adjoint, operator.is_self_adjoint,
                                     "is_self_adjoint"),
                                    (is_positive_definite, operator.is_positive_definite,
                                     "is_positive_definite"),
                                    (is_square, operator.is_square, "is_square")):
            if op_hint is False and hint:
                raise ValueError(f"An operator is {what} if and only if its adjoint is.")
        super().__init__(operator.dtype, None,
                         operator.is_non_singular if is_non_singular is None
                         else is_non_singular,
                         operator.is_self_adjoint if is_self_adjoint is None
                         else is_self_adjoint,
                         operator.is_positive_definite if is_positive_definite is None
                         else is_positive_definite,
                         operator.is_square if is_square is None else is_square,
                         name or operator.name + "_adjoint", parameters)

    @property
    def operator(self) -> LinearOperator:
        return self._operator

    def _shape(self):
        shape = self._operator.shape
        return shape[:-2].concatenate([shape[-1], shape[-2]])

    def _shape_tensor(self):
        shape = self._operator.shape_tensor()
        return array_ops.concat([shape[:-2], [shape[-1], shape[-2]]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        return self._operator.matmul(x, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _matvec(self, x, adjoint=False):
        return self._operator.matvec(x, adjoint=not adjoint)

    def _determinant(self):
        det = self._operator.determinant()
        return math_ops.conj(det) if det.dtype.is_complex else det

    def _log_abs_determinant(self):
        return self._operator.log_abs_determinant()

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        return self._operator.solve(rhs, adjoint=not adjoint, adjoint_arg=adjoint_arg)

    def _solvevec(self, rhs, adjoint=False):
        return self._operator.solvevec(rhs, adjoint=not adjoint)

    def _to_dense(self):
        return adjoint_if(self._operator.to_dense(), True)

    def _diag_part(self):
        d = self._operator.diag_part()
        return math_ops.conj(d) if d.dtype.is_complex else d

    def _trace(self):
        t = self._operator.trace()
        return math_ops.conj(t) if t.dtype.is_complex else t

    def _linop_adjoint(self):
        return self._operator


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + u @ diag(diag_update) @ v^H`` (``v = u``, ``diag_update`` ones by
    default), solved and its determinant taken through the capacitance matrix
    ``D^-1 + V^H L^-1 U`` (Woodbury, matrix determinant lemma)."""

    def __init__(self, base_operator: LinearOperator, u: Any, diag_update: Any = None,
                 v: Any = None, is_diag_update_positive: Any = None,
                 is_non_singular: Any = None, is_self_adjoint: Any = None,
                 is_positive_definite: Any = None, is_square: Any = None,
                 name: str = "LinearOperatorLowRankUpdate"):
        parameters = dict(base_operator=base_operator, u=u, diag_update=diag_update, v=v,
                          is_diag_update_positive=is_diag_update_positive,
                          is_non_singular=is_non_singular, is_self_adjoint=is_self_adjoint,
                          is_positive_definite=is_positive_definite, is_square=is_square,
                          name=name)
        dtype = base_operator.dtype
        if diag_update is not None and is_diag_update_positive and not \
                convert_to_tensor(diag_update).dtype.is_floating and \
                not convert_to_tensor(diag_update).dtype.is_complex:
            raise TypeError("diag_update must be floating or complex")
        self._use_v = v is not None
        if self._use_v is False and base_operator.is_self_adjoint and \
                (diag_update is None or not dtype.is_complex):
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint and D real diagonal. "
                                 "Since UDU^H is self-adjoint, this must be a self-adjoint "
                                 "operator.")
            is_self_adjoint = True
        if base_operator.is_positive_definite and is_diag_update_positive and not self._use_v:
            if is_positive_definite is False:
                raise ValueError("A = L + UDU^H, with L positive definite and D positive, is "
                                 "positive definite.")
            is_positive_definite = True
        with ops_lib.name_scope(name):
            self._u = convert_to_tensor(u, name="u", dtype=dtype)
            check_dtype(self._u, "u")
            self._v = self._u if v is None else convert_to_tensor(v, name="v", dtype=dtype)
            self._diag_update = None if diag_update is None else convert_to_tensor(
                diag_update, name="diag_update", dtype=dtype)
        self._base_operator = base_operator
        self._is_diag_update_positive = is_diag_update_positive
        if self._diag_update is None:
            self._diag_operator = LinearOperatorIdentity(
                array_ops.shape(self._u)[-1] if self._u.shape[-1] is None
                else self._u.shape[-1], dtype=dtype)
        else:
            self._diag_operator = LinearOperatorDiag(
                self._diag_update, is_positive_definite=is_diag_update_positive)
        super().__init__(dtype, None, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, parameters)

    @property
    def u(self) -> _T:
        return self._u

    @property
    def v(self) -> _T:
        return self._v

    @property
    def diag_update(self) -> _T | None:
        return self._diag_update

    @property
    def diag_operator(self) -> LinearOperator:
        return self._diag_operator

    @property
    def base_operator(self) -> LinearOperator:
        return self._base_operator

    @property
    def is_diag_update_positive(self) -> Any:
        return self._is_diag_update_positive

    def _shape(self):
        batch = manip_ops.broadcast_static_shape(self._base_operator.batch_shape,
                                                 self._u.shape[:-2])
        return batch.concatenate(self._base_operator.shape[-2:])

    def _shape_tensor(self):
        batch = manip_ops.broadcast_dynamic_shape(self._base_operator.batch_shape_tensor(),
                                                  array_ops.shape(self._u)[:-2])
        return array_ops.concat([batch, self._base_operator.shape_tensor()[-2:]], 0)

    def _matmul(self, x, adjoint=False, adjoint_arg=False):
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        l_x = self._base_operator.matmul(x, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_x = math_ops.matmul(v, x, adjoint_a=True, adjoint_b=adjoint_arg)
        d_vh_x = self._diag_operator.matmul(vh_x, adjoint=adjoint)
        return l_x + math_ops.matmul(u, d_vh_x)

    def _capacitance(self) -> _T:
        """C = D^-1 + V^H L^-1 U."""
        linv_u = self._base_operator.solve(self._u)
        vh_linv_u = math_ops.matmul(self._v, linv_u, adjoint_a=True)
        return self._diag_operator.inverse().add_to_tensor(vh_linv_u)

    def _determinant(self):
        return (self._base_operator.determinant() * self._diag_operator.determinant()
                * linalg_ops.matrix_determinant(self._capacitance()))

    def _log_abs_determinant(self):
        _, log_abs_det_c = linalg_ops.log_matrix_determinant(self._capacitance())
        return (self._base_operator.log_abs_determinant()
                + self._diag_operator.log_abs_determinant() + log_abs_det_c)

    def _solve(self, rhs, adjoint=False, adjoint_arg=False):
        if self._base_operator.is_non_singular is False:
            raise ValueError("Solve returns incorrect result when base operator is not "
                             "non-singular.")
        u, v = (self._v, self._u) if adjoint else (self._u, self._v)
        linv_rhs = self._base_operator.solve(rhs, adjoint=adjoint, adjoint_arg=adjoint_arg)
        vh_linv_rhs = math_ops.matmul(v, linv_rhs, adjoint_a=True)
        linv_u = self._base_operator.solve(u, adjoint=adjoint)
        vh_linv_u = math_ops.matmul(v, linv_u, adjoint_a=True)
        capacitance = self._diag_operator.inverse().add_to_tensor(
            adjoint_if(vh_linv_u, adjoint))
        capacitance = adjoint_if(capacitance, adjoint)
        c_inv = linalg_ops.matrix_solve(*broadcast_batch(capacitance, vh_linv_rhs))
        return linv_rhs - math_ops.matmul(linv_u, c_inv)

    def _to_dense(self):
        ud = self._u * (array_ops.expand_dims(self._diag_update, -2)
                        if self._diag_update is not None else 1)
        return self._base_operator.to_dense() + math_ops.matmul(ud, self._v, adjoint_b=True)


DERIVED.update(composition=LinearOperatorComposition, inversion=LinearOperatorInversion,
               adjoint=LinearOperatorAdjoint)
