"""``tf.raw_ops``: every registered op type as a function of keyword arguments named as
its OpDef's inputs and attrs (``tf.raw_ops.MatMul(a=x, b=y, transpose_a=True)``; the
few that TF's API renames, e.g. ``Sum(axis=)``, as TF), with ``name``. Its result is the Operation (no outputs), the output Tensor (one), a list (one
list output) or a namedtuple of the outputs by their OpDef names, as TF's raw ops return."""

from __future__ import annotations

import functools
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework.op_def_library import apply_op, op_outputs

# Arguments TF's raw ops name differently from the OpDef (TF's api_def renames).
_REDUCTION = {"axis": "reduction_indices"}
_RENAMED: dict[str, dict[str, str]] = {
    **{op: _REDUCTION for op in ("All", "Any", "EuclideanNorm", "Max", "Mean", "Min", "Prod",
                                 "Sum")},
    "ExpandDims": {"axis": "dim"},
    "Select": {"x": "t", "y": "e"},
    "Split": {"axis": "split_dim"},
    "SplitV": {"axis": "split_dim"},
    "Squeeze": {"axis": "squeeze_dims"},
    "Where": {"condition": "input"},
}


def _raw_op(op_type: str):
    op_def = op_registry.get(op_type).op_def

    def call(*args: Any, **kwargs: Any) -> Any:
        if args:
            raise TypeError(f"raw_ops.{op_type} only takes keyword args "
                            f"(possible keys: {sorted(a.name for a in op_def.input_arg)})")
        name = kwargs.pop("name", None)
        renamed = _RENAMED.get(op_type, {})
        kwargs = {renamed.get(k, k): v for k, v in kwargs.items()}
        op = apply_op(op_type, name=name, **kwargs)
        return op_outputs(op)

    call.__name__ = op_type
    call.__qualname__ = op_type
    call.__doc__ = f"Adds a {op_type} op (keyword arguments as its OpDef)."
    return call


def _public_ops() -> list[str]:
    return sorted(n for n in op_registry.registered_ops() if not n.startswith("_"))


@functools.cache
def _function(op_type: str):
    return _raw_op(op_type)


def __getattr__(name: str) -> Any:
    if name.startswith("_") or name not in op_registry.registered_ops():
        raise AttributeError(f"module 'graphcore.raw_ops' has no attribute {name!r}")
    return _function(name)


def __dir__() -> list[str]:
    return _public_ops()
