"""Element structures of tf.data: TensorSpecs (:mod:`graphcore.framework.type_spec`: a
component's dtype and shape) nested in tuples, namedtuples and dicts; lists are tensors, as
tf.data's nest has them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.framework.tensor import Tensor
from graphcore.framework.type_spec import TensorSpec

__all__ = ["HasStructure", "TensorSpec", "flatten", "map_structure", "pack"]


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
