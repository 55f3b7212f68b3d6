"""Shape functions shared by many ops (each takes the Operation, returns output shapes)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import tensor_shape as shape_lib


def unknown_shapes(op: Any) -> list:
    """Every output of unknown shape."""
    return [shape_lib.unknown_shape() for _ in op._outputs]


def no_outputs(op: Any) -> list:
    return []


def scalar_shape(op: Any) -> list:
    return [shape_lib.TensorShape([])]


def unchanged_shape(op: Any) -> list:
    """Output 0 has the shape of input 0."""
    return [op._inputs[0].shape]


def broadcast_static_shapes(a: shape_lib.TensorShape,
                            b: shape_lib.TensorShape) -> shape_lib.TensorShape:
    """numpy/TF broadcasting of two static shapes; ValueError when they can't broadcast."""
    if a.ndims is None or b.ndims is None:
        return shape_lib.unknown_shape()
    da, db = a.as_list(), b.as_list()
    n = max(len(da), len(db))
    da = [1] * (n - len(da)) + da
    db = [1] * (n - len(db)) + db
    out: list[int | None] = []
    for x, y in zip(da, db):
        if x is None or y is None:
            known = x if y is None else y
            out.append(known if known is not None and known > 1 else None)
        elif x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ValueError(f"Incompatible shapes for broadcasting: {a} and {b}")
    return shape_lib.TensorShape(out)


def broadcast_binary(op: Any) -> list:
    """The broadcast shape of inputs 0 and 1."""
    return [broadcast_static_shapes(op._inputs[0].shape, op._inputs[1].shape)]


def merge_all_inputs(op: Any) -> list:
    """One output whose shape is every input's shape merged (AddN-style)."""
    shape = shape_lib.unknown_shape()
    for t in op._inputs:
        shape = shape.merge_with(t.shape)
    return [shape]
