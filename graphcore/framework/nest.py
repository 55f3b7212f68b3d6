"""Nested structures (TF's ``nest``): lists, tuples, namedtuples and dicts of leaves, as
``tf.while_loop``, ``tf.cond`` and the functions built on them take them. Dicts flatten
in sorted key order, as TF's, and pack back in their own key order."""

from __future__ import annotations

from typing import Any


def is_namedtuple(x: Any) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def is_nested(x: Any) -> bool:
    return isinstance(x, (list, tuple, dict))


def flatten(x: Any) -> list:
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [v for item in x for v in flatten(item)]
    return [x]


def pack_sequence_as(structure: Any, flat: list) -> Any:
    it = iter(flat)

    def pack(s: Any) -> Any:
        if isinstance(s, dict):  # values taken in sorted key order, keys kept in theirs
            packed = {k: pack(s[k]) for k in sorted(s)}
            return type(s)((k, packed[k]) for k in s)
        if is_namedtuple(s):
            return type(s)(*[pack(v) for v in s])
        if isinstance(s, (list, tuple)):
            return type(s)(pack(v) for v in s)
        return next(it)

    return pack(structure)


def assert_same_structure(a: Any, b: Any) -> None:
    def shape(x: Any) -> Any:
        if isinstance(x, dict):
            return ("dict", tuple((k, shape(x[k])) for k in sorted(x)))
        if isinstance(x, (list, tuple)):
            return ("seq", tuple(shape(v) for v in x))
        return "leaf"

    if shape(a) != shape(b):
        raise ValueError(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {a}\n\nSecond structure: {b}")


def map_structure(func: Any, *structures: Any) -> Any:
    """``func`` applied leafwise to structures of the same shape."""
    for s in structures[1:]:
        assert_same_structure(structures[0], s)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*leaves) for leaves in zip(*flats)])
