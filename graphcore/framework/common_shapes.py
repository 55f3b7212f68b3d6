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


def debug_string(dims: list | None) -> str:
    """TF's InferenceContext::DebugString of a shape as a dims list: ``[2,?]``, ``?``."""
    if dims is None:
        return "?"
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def merge_dims(a: list | None, b: list | None) -> list | None:
    """InferenceContext::Merge of two shapes as dims lists (None: unknown rank or dim),
    with TF's error messages."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ValueError(f"Shapes must be equal rank, but are {len(a)} and {len(b)}")
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x is not None and y is not None and x != y:
            raise ValueError(f"Dimension {i} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {debug_string(a)} and {debug_string(b)}.")
        out.append(x if x is not None else y)
    return out


def dims_of(shape: shape_lib.TensorShape) -> list | None:
    """A shape as a list of dims (None = unknown), or None for an unknown rank."""
    return None if shape.ndims is None else shape.as_list()


def with_rank(dims: list | None, rank: int) -> list:
    """InferenceContext::WithRank on a dims list: unknown dims of ``rank`` for an unknown
    rank, else ``dims`` when it has that rank (ValueError with TF's message otherwise)."""
    if dims is None:
        return [None] * rank
    if len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
    return dims
