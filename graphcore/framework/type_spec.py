"""Type specifications (TF's ``TypeSpec`` family): the dtype and shape of a value without
the value — ``TensorSpec`` for a Tensor, ``SparseTensorSpec``, ``IndexedSlicesSpec``,
``TensorArraySpec`` (in :mod:`graphcore.ops.tensor_array_ops`) — as ``tf.data`` element specs and signatures use them, with
``type_spec_from_value``."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib

__all__ = ["IndexedSlicesSpec", "NoneTensorSpec", "SparseTensorSpec", "TensorSpec", "TypeSpec",
           "type_spec_from_value"]


class TypeSpec:
    """The type of a value: compared by ``_serialize()``, the fields that define it."""

    value_type: type = object

    def _serialize(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: Any) -> bool:
        return type(self) is type(other) and self._serialize() == other._serialize()

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, repr(self._serialize())))

    def __repr__(self) -> str:
        fields = ", ".join(repr(f) for f in self._serialize())
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple:
        return type(self), self._serialize()

    def is_compatible_with(self, spec_or_value: Any) -> bool:
        """Whether ``spec_or_value`` (a spec, or a value of this type) could be a value of
        this type: the same kind, compatible shapes, equal dtypes."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) \
            else type_spec_from_value(spec_or_value)
        if type(self) is not type(other):
            return False
        return all(_compatible(a, b) for a, b in zip(self._serialize(), other._serialize()))

    def most_specific_compatible_type(self, other: TypeSpec) -> TypeSpec:
        """The most specific spec both ``self`` and ``other`` are compatible with."""
        if type(self) is not type(other):
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        fields = []
        for a, b in zip(self._serialize(), other._serialize()):
            if isinstance(a, shape_lib.TensorShape):
                fields.append(a.most_specific_compatible_shape(b))
            elif a != b:
                raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
            else:
                fields.append(a)
        return type(self)(*fields)


def _compatible(a: Any, b: Any) -> bool:
    if isinstance(a, shape_lib.TensorShape):
        return a.is_compatible_with(b)
    return a == b or a is None or b is None


class TensorSpec(TypeSpec):
    """A Tensor's shape, dtype and (optional) name."""

    def __init__(self, shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None):
        self._shape = shape_lib.as_shape(shape)
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._name = name

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)

    @property
    def value_type(self) -> type:
        from graphcore.framework.tensor import Tensor

        return Tensor

    def _serialize(self) -> tuple:
        return self._shape, self._dtype, self._name

    def __eq__(self, other: Any) -> bool:
        # TF compares TensorShapes by their dims here (unknown equals unknown).
        return (type(self) is type(other) and self._dtype == other._dtype
                and self._name == other._name and _dims(self._shape) == _dims(other._shape))

    def __hash__(self) -> int:
        return hash((_dims(self._shape), self._dtype, self._name))

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def is_compatible_with(self, spec_or_tensor: Any) -> bool:
        """Whether a TensorSpec or Tensor has the same dtype and a compatible shape (names
        are ignored; other values are not compatible)."""
        from graphcore.framework.tensor import Tensor

        return (isinstance(spec_or_tensor, (TensorSpec, Tensor))
                and self._dtype == spec_or_tensor.dtype.base_dtype
                and self._shape.is_compatible_with(spec_or_tensor.shape))

    def most_specific_compatible_type(self, other: TypeSpec) -> TensorSpec:
        if not isinstance(other, TensorSpec) or self._dtype != other.dtype:
            raise ValueError(f"No TypeSpec is compatible with both {self} and {other}")
        return TensorSpec(self._shape.most_specific_compatible_shape(other.shape), self._dtype,
                          self._name if self._name == other.name else None)

    @classmethod
    def from_spec(cls, spec: TensorSpec, name: str | None = None) -> TensorSpec:
        return cls(spec.shape, spec.dtype, name or spec.name)

    @classmethod
    def from_tensor(cls, tensor: Any, name: str | None = None) -> TensorSpec:
        """The spec of a Tensor (named after its op unless ``name`` is given)."""
        from graphcore.framework.tensor import Tensor

        if isinstance(tensor, Tensor):
            return TensorSpec(tensor.shape, tensor.dtype.base_dtype, name or tensor.op.name)
        raise ValueError(f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")


def _dims(shape: shape_lib.TensorShape) -> tuple | None:
    return None if shape.dims is None else tuple(shape.as_list())


class SparseTensorSpec(TypeSpec):
    """A SparseTensor's dense shape and values dtype."""

    def __init__(self, shape: Any = None, dtype: Any = dtypes_lib.float32):
        self._shape = shape_lib.as_shape(shape)
        self._dtype = dtypes_lib.as_dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self) -> type:
        from graphcore.framework.sparse_tensor import SparseTensor

        return SparseTensor

    def _serialize(self) -> tuple:
        return self._shape, self._dtype

    def __repr__(self) -> str:
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"

    @classmethod
    def from_value(cls, value: Any) -> SparseTensorSpec:
        shape = _static_shape(value.dense_shape) if hasattr(value.dense_shape, "op") \
            else shape_lib.TensorShape(list(value.dense_shape))
        return cls(shape, value.values.dtype)


class IndexedSlicesSpec(TypeSpec):
    """An IndexedSlices' dense shape and dtypes."""

    def __init__(self, shape: Any = None, dtype: Any = dtypes_lib.float32,
                 indices_dtype: Any = dtypes_lib.int64, dense_shape_dtype: Any = None,
                 indices_shape: Any = None):
        self._shape = shape_lib.as_shape(shape)
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._indices_dtype = dtypes_lib.as_dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None \
            else dtypes_lib.as_dtype(dense_shape_dtype)
        self._indices_shape = shape_lib.as_shape(indices_shape).with_rank(1)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self) -> type:
        from graphcore.framework.indexed_slices import IndexedSlices

        return IndexedSlices

    def _serialize(self) -> tuple:
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype,
                self._indices_shape)


class NoneTensorSpec(TypeSpec):
    """The type of ``None`` as a value (an absent optional component)."""

    value_type = type(None)

    def _serialize(self) -> tuple:
        return ()


def type_spec_from_value(value: Any) -> TypeSpec:
    """The TypeSpec of a Tensor, SparseTensor, IndexedSlices, TensorArray, None, or a
    value convertible to a Tensor (a constant's spec, without a name)."""
    from graphcore.framework.indexed_slices import IndexedSlices
    from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
    from graphcore.framework.tensor import Tensor

    if value is None:
        return NoneTensorSpec()
    if isinstance(value, Tensor):
        return TensorSpec(value.shape, value.dtype.base_dtype)
    if isinstance(value, (SparseTensor, SparseTensorValue)):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, IndexedSlices):
        return IndexedSlicesSpec(value.dense_shape and _static_shape(value.dense_shape),
                                 value.dtype, value.indices.dtype,
                                 value.dense_shape.dtype if value.dense_shape is not None
                                 else None, value.indices.shape)
    if isinstance(getattr(value, "_type_spec", None), TypeSpec):  # e.g. a TensorArray
        return value._type_spec
    from graphcore.framework import ops as ops_lib
    from graphcore.framework.tensor_conversion import convert_to_tensor

    try:
        with ops_lib.Graph().as_default():  # the dtype and shape TF's conversion gives
            tensor = convert_to_tensor(value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.") from e
    return TensorSpec(tensor.shape, tensor.dtype.base_dtype)


def _static_shape(dense_shape: Any) -> shape_lib.TensorShape:
    from graphcore.framework.indexed_slices import constant_value_as_shape

    return constant_value_as_shape(dense_shape)
