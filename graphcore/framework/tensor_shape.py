"""Static tensor shapes: `Dimension` and `TensorShape` with TensorFlow 1.x semantics.

Behaviour follows TF1 (`tf.compat.v1` with V2 tensor shapes disabled): indexing or iterating
a `TensorShape` yields `Dimension` objects (so `shape[0].value` works), and `Dimension`
comparisons return `None` when a value is unknown.

One deliberate difference: `str(shape)` uses the TF2 spelling, `(2, None)` rather than TF1's
`(2, ?)`, and `<unknown>` for unknown rank; error messages therefore read e.g.
"Shapes (2, None) and (3,) are not compatible". `repr` keeps TF1's
`TensorShape([Dimension(2), Dimension(None)])`. `str(Dimension(None))` stays `?`.

Internally a shape keeps a tuple of `int | None` (or `None` for unknown rank), so creating
and comparing shapes is cheap.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator
from typing import Any

from graphcore.protobuf import tensor_shape_pb2

__all__ = [
    "Dimension",
    "TensorShape",
    "as_dimension",
    "as_shape",
    "dimension_at_index",
    "dimension_value",
    "matrix",
    "scalar",
    "unknown_shape",
    "vector",
]

_TensorShapeProto = tensor_shape_pb2.TensorShapeProto


def _dim_value(value: Any) -> int | None:
    """Validates a dimension value and returns it as `int` or `None`."""
    if value is None:
        return None
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"Dimension {value} must be >= 0")
        return value
    if isinstance(value, Dimension):
        return value._value
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(
            "Dimension value must be integer or None or have an __index__ method, "
            f"got value '{value!r}' with type '{type(value)!r}'"
        ) from None
    if v < 0:
        raise ValueError(f"Dimension {v} must be >= 0")
    return v


class Dimension:
    """The size of one dimension of a `TensorShape`; `value` may be `None` (unknown)."""

    __slots__ = ("_value",)

    def __init__(self, value: Any) -> None:
        self._value = _dim_value(value)

    @staticmethod
    def _from_value(value: int | None) -> Dimension:
        """Fast constructor for an already-validated value; no checks."""
        d = object.__new__(Dimension)
        d._value = value
        return d

    @property
    def value(self) -> int | None:
        """The dimension size as an `int`, or `None` if unknown."""
        return self._value

    def __repr__(self) -> str:
        return f"Dimension({self._value!r})"

    def __str__(self) -> str:
        return "?" if self._value is None else str(self._value)

    def __int__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __index__(self) -> int:
        return self._value  # type: ignore[return-value]

    def __float__(self) -> float:
        return float(self._value)  # type: ignore[arg-type]

    def __bool__(self) -> bool:
        return bool(self._value)

    def __hash__(self) -> int:
        return hash(self._value)

    def __reduce__(self) -> tuple[Any, tuple[int | None]]:
        return Dimension, (self._value,)

    # --- compatibility --------------------------------------------------------------------
    def is_compatible_with(self, other: Any) -> bool:
        """Whether `other` could describe the same dimension (unknown matches anything)."""
        other = as_dimension(other)
        return self._value is None or other._value is None or self._value == other._value

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ValueError if `other` is not compatible with this dimension."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Dimensions {self} and {other} are not compatible")

    def merge_with(self, other: Any) -> Dimension:
        """Returns the most specific dimension compatible with both; ValueError if none."""
        other = as_dimension(other)
        self.assert_is_compatible_with(other)
        return self if self._value is not None else Dimension(other._value)

    # --- comparison -------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool | None:  # type: ignore[override]
        try:
            o = as_dimension(other)._value
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o is None:
            return None
        return self._value == o

    def __ne__(self, other: object) -> bool | None:  # type: ignore[override]
        try:
            o = as_dimension(other)._value
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o is None:
            return None
        return self._value != o

    def _cmp(self, other: Any, op: Any) -> bool | None:
        o = as_dimension(other)._value
        if self._value is None or o is None:
            return None
        return op(self._value, o)

    def __lt__(self, other: Any) -> bool | None:
        return self._cmp(other, operator.lt)

    def __le__(self, other: Any) -> bool | None:
        return self._cmp(other, operator.le)

    def __gt__(self, other: Any) -> bool | None:
        return self._cmp(other, operator.gt)

    def __ge__(self, other: Any) -> bool | None:
        return self._cmp(other, operator.ge)

    # --- arithmetic -------------------------------------------------------------------------
    def _arith(self, other: Any, op: Any, reverse: bool = False) -> Dimension:
        try:
            o = as_dimension(other)._value
        except (TypeError, ValueError):
            return NotImplemented
        if self._value is None or o is None:
            return Dimension(None)
        return Dimension(op(o, self._value) if reverse else op(self._value, o))

    def __add__(self, other: Any) -> Dimension:
        return self._arith(other, operator.add)

    def __radd__(self, other: Any) -> Dimension:
        return self._arith(other, operator.add, True)

    def __sub__(self, other: Any) -> Dimension:
        return self._arith(other, operator.sub)

    def __rsub__(self, other: Any) -> Dimension:
        return self._arith(other, operator.sub, True)

    def __mul__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mul)

    def __rmul__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mul, True)

    def __floordiv__(self, other: Any) -> Dimension:
        return self._arith(other, operator.floordiv)

    def __rfloordiv__(self, other: Any) -> Dimension:
        return self._arith(other, operator.floordiv, True)

    def __mod__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mod)

    def __rmod__(self, other: Any) -> Dimension:
        return self._arith(other, operator.mod, True)

    def __truediv__(self, other: Any) -> Dimension:
        raise TypeError(
            "unsupported operand type(s) for /: 'Dimension' and "
            f"'{type(other).__name__}', please use // instead"
        )

    def __rtruediv__(self, other: Any) -> Dimension:
        raise TypeError(
            f"unsupported operand type(s) for /: '{type(other).__name__}' and "
            "'Dimension', please use // instead"
        )


def as_dimension(value: Any) -> Dimension:
    """Converts `value` (int, None, `Dimension`, ...) to a `Dimension`."""
    if isinstance(value, Dimension):
        return value
    return Dimension(value)


def dimension_value(dimension: Any) -> int | None:
    """Returns `dimension.value` for a `Dimension`, else `dimension` unchanged."""
    if isinstance(dimension, Dimension):
        return dimension._value
    return dimension


def dimension_at_index(shape: Any, index: int) -> Dimension:
    """Returns `shape[index]` as a `Dimension` (`Dimension(None)` for unknown rank)."""
    shape = as_shape(shape)
    if shape._dims is None:
        return Dimension(None)
    return Dimension(shape._dims[index])


def _convert_dims(dims: Iterable[Any]) -> tuple[int | None, ...]:
    out = []
    for d in dims:
        if type(d) is int and d >= 0:
            out.append(d)
        elif d is None:
            out.append(None)
        else:
            out.append(_dim_value(d))
    return tuple(out)


class TensorShape:
    """The (possibly partially known) static shape of a tensor.

    `TensorShape(None)` has unknown rank; otherwise each dimension is an int or `None`.
    """

    __slots__ = ("_dims",)

    _dims: tuple[int | None, ...] | None

    def __init__(self, dims: Any) -> None:
        if isinstance(dims, (tuple, list)):
            self._dims = _convert_dims(dims)
        elif dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, _TensorShapeProto):
            if dims.unknown_rank:
                self._dims = None
            else:
                self._dims = tuple(None if d.size == -1 else _dim_value(d.size) for d in dims.dim)
        else:
            try:
                it = iter(dims)
            except TypeError:
                self._dims = (_dim_value(dims),)
                return
            try:
                self._dims = _convert_dims(it)
            except TypeError:
                raise TypeError(
                    f"Failed to convert '{dims!r}' to a shape: '{dims!r}'"
                    "could not be converted to a dimension. A shape should either be "
                    "single dimension (e.g. 10), or an iterable of dimensions "
                    "(e.g. [1, 10, None])."
                ) from None

    @classmethod
    def _from_tuple(cls, dims: tuple[int | None, ...] | None) -> TensorShape:
        """Fast constructor from an already-validated tuple (or None); no checks."""
        s = object.__new__(cls)
        s._dims = dims
        return s

    # --- basic properties -----------------------------------------------------------------
    @property
    def dims(self) -> list[Dimension] | None:
        """The dimensions as a list of `Dimension`, or `None` for unknown rank."""
        if self._dims is None:
            return None
        return [Dimension._from_value(d) for d in self._dims]

    @property
    def rank(self) -> int | None:
        """The number of dimensions, or `None` for unknown rank."""
        return None if self._dims is None else len(self._dims)

    @property
    def ndims(self) -> int | None:
        """Alias of `rank`."""
        return None if self._dims is None else len(self._dims)

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self) -> bool:
        return self._dims is not None

    def __iter__(self) -> Iterator[Dimension]:
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return (Dimension._from_value(d) for d in self._dims)

    def __getitem__(self, key: Any) -> Any:
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape._from_tuple(self._dims[key])
            return Dimension._from_value(self._dims[key])
        if isinstance(key, slice):
            start = key.start if key.start is not None else 0
            stop = key.stop
            if key.step is not None:
                raise ValueError("Steps are not yet handled")
            if stop is None or start < 0 or stop < 0:
                return unknown_shape()
            return unknown_shape(rank=max(stop - start, 0))
        return Dimension(None)

    def num_elements(self) -> int | None:
        """The total number of elements, or `None` if not fully defined."""
        if self._dims is None:
            return None
        n = 1
        for d in self._dims:
            if d is None:
                return None
            n *= d
        return n

    def is_fully_defined(self) -> bool:
        """Whether the rank and all dimensions are known."""
        return self._dims is not None and None not in self._dims

    def assert_is_fully_defined(self) -> None:
        """Raises ValueError unless the shape is fully defined."""
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    def as_list(self) -> list[int | None]:
        """The dimensions as a list of `int | None`; ValueError for unknown rank."""
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def as_proto(self) -> Any:
        """Returns this shape as a `TensorShapeProto`."""
        if self._dims is None:
            return _TensorShapeProto(unknown_rank=True)
        return _TensorShapeProto(
            dim=[_TensorShapeProto.Dim(size=-1 if d is None else d) for d in self._dims]
        )

    # --- compatibility --------------------------------------------------------------------
    def merge_with(self, other: Any) -> TensorShape:
        """Returns the most specific shape compatible with both; ValueError if none."""
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None:
            return other
        if b is None:
            return self
        if len(a) != len(b):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        out = []
        for x, y in zip(a, b):
            if x is None:
                out.append(y)
            elif y is None or x == y:
                out.append(x)
            else:
                raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape._from_tuple(tuple(out))

    def is_compatible_with(self, other: Any) -> bool:
        """Whether `other` could describe the same shape (unknowns match anything)."""
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None or b is None:
            return True
        if len(a) != len(b):
            return False
        return all(x is None or y is None or x == y for x, y in zip(a, b))

    def assert_is_compatible_with(self, other: Any) -> None:
        """Raises ValueError if `other` is not compatible with this shape."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def most_specific_compatible_shape(self, other: Any) -> TensorShape:
        """The most specific shape compatible with both (unknown where they differ)."""
        other = as_shape(other)
        a, b = self._dims, other._dims
        if a is None or b is None or len(a) != len(b):
            return unknown_shape()
        return TensorShape._from_tuple(tuple(x if x == y else None for x, y in zip(a, b)))

    def assert_same_rank(self, other: Any) -> None:
        """Raises ValueError if both ranks are known and differ."""
        other = as_shape(other)
        if self._dims is not None and other._dims is not None:
            if len(self._dims) != len(other._dims):
                raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank: int) -> None:
        """Raises ValueError if the rank is known and is not `rank`."""
        if self._dims is not None and len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank: int) -> TensorShape:
        """Returns this shape with rank `rank` (ValueError if incompatible)."""
        if self._dims is None:
            return unknown_shape(rank=rank)
        if len(self._dims) != rank:
            raise ValueError(f"Shape {self} must have rank {rank}")
        return self

    def with_rank_at_least(self, rank: int) -> TensorShape:
        """Returns self if its rank is unknown or >= `rank`, else raises ValueError."""
        if self._dims is not None and len(self._dims) < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank: int) -> TensorShape:
        """Returns self if its rank is unknown or <= `rank`, else raises ValueError."""
        if self._dims is not None and len(self._dims) > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def concatenate(self, other: Any) -> TensorShape:
        """Concatenation of the dimensions (unknown if either rank is unknown)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return unknown_shape()
        return TensorShape._from_tuple(self._dims + other._dims)

    def __add__(self, other: Any) -> TensorShape:
        return self.concatenate(other)

    def __radd__(self, other: Any) -> TensorShape:
        if not isinstance(other, TensorShape):
            other = TensorShape(other)
        return other.concatenate(self)

    # --- dunder -----------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if isinstance(other, TensorShape):
            return self._dims == other._dims
        try:
            other = as_shape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(self._dims)

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return TensorShape, (None if self._dims is None else list(self._dims),)

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return "TensorShape([%s])" % ", ".join(f"Dimension({d!r})" for d in self._dims)

    def __str__(self) -> str:
        """TF1's spelling (``tensor_shape`` with V2 behaviour off): unknown dims as ``?``,
        ``(?, 784)``, as TF1 scripts print ``x.shape``."""
        dims = self._dims
        if dims is None:
            return "<unknown>"
        if len(dims) == 1:
            return "(%s,)" % ("?" if dims[0] is None else dims[0])
        return "(%s)" % ", ".join("?" if d is None else str(d) for d in dims)


def as_shape(shape: Any) -> TensorShape:
    """Converts `shape` (TensorShape, list/tuple, int, TensorShapeProto, None) to a shape."""
    if isinstance(shape, TensorShape):
        return shape
    return TensorShape(shape)


_UNKNOWN = TensorShape._from_tuple(None)
_SCALAR = TensorShape._from_tuple(())


def unknown_shape(rank: int | None = None, **kwargs: Any) -> TensorShape:
    """A shape of unknown rank, or of known `rank` with all dimensions unknown."""
    if rank is None and "ndims" in kwargs:
        rank = kwargs.pop("ndims")
    if kwargs:
        raise TypeError("Unknown argument: %s" % kwargs)
    if rank is None:
        return _UNKNOWN
    return TensorShape._from_tuple((None,) * rank)


def scalar() -> TensorShape:
    """The shape of a scalar, `()`."""
    return _SCALAR


def vector(length: Any) -> TensorShape:
    """The shape of a vector of `length` elements."""
    return TensorShape([length])


def matrix(rows: Any, cols: Any) -> TensorShape:
    """The shape of a `rows` x `cols` matrix."""
    return TensorShape([rows, cols])
