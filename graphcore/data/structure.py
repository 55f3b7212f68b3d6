"""Element structures of tf.data: TensorSpec (a component's dtype and shape) nested in
tuples, namedtuples and dicts; lists are tensors, as tf.data's nest has them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor import Tensor

__all__ = ["HasStructure", "TensorSpec", "flatten", "map_structure", "pack"]


class TensorSpec:
    """The dtype and shape of one component of a dataset's elements."""

    def __init__(self, shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None):
        self.shape = shape_lib.as_shape(shape)
        self.dtype = dtypes_lib.as_dtype(dtype)
        self.name = name

    def _key(self) -> tuple:
        dims = None if self.shape.dims is None else tuple(self.shape.as_list())
        return self.dtype, dims

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, TensorSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self.dtype)

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"


def flatten(structure: Any) -> list:
    if isinstance(structure, dict):
        return [v for k in sorted(structure) for v in flatten(structure[k])]
    if isinstance(structure, tuple):
        return [v for item in structure for v in flatten(item)]
    return [structure]


def pack(structure: Any, flat: list) -> Any:
    it = iter(flat)

    def build(s: Any) -> Any:
        if isinstance(s, dict):
            return {k: build(s[k]) for k in sorted(s)}
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*[build(v) for v in s])
        if isinstance(s, tuple):
            return tuple(build(v) for v in s)
        return next(it)

    return build(structure)


def map_structure(fn: Callable[[Any], Any], structure: Any) -> Any:
    return pack(structure, [fn(x) for x in flatten(structure)])


class HasStructure:
    """``element_spec`` and TF1's ``output_types/shapes/classes`` of a ``_structure``."""

    _structure: Any

    @property
    def element_spec(self) -> Any:
        return self._structure

    @property
    def output_types(self) -> Any:
        return map_structure(lambda s: s.dtype, self._structure)

    @property
    def output_shapes(self) -> Any:
        return map_structure(lambda s: s.shape, self._structure)

    @property
    def output_classes(self) -> Any:
        return map_structure(lambda s: Tensor, self._structure)
