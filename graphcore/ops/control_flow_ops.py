"""Grouping and ordering: NoOp, ``group``, ``tuple``."""

from __future__ import annotations

import builtins
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops

__all__ = [
    "no_op",
    "group",
    "tuple",
]

op_registry.register_op("NoOp").shape_fn(common_shapes.no_outputs)


def no_op(name: str | None = None) -> ops_lib.Operation:
    """An op that does nothing; useful as a control-dependency anchor."""
    return apply_op("NoOp", name=name)


def _group_on_device(dev: str | None, deps: list, name: str | None) -> ops_lib.Operation:
    with ops_lib.control_dependencies(deps):
        if dev is None:
            return no_op(name=name)
        with ops_lib.device(dev):
            return no_op(name=name)


def group(*inputs: Any, name: str | None = None) -> ops_lib.Operation:
    """A NoOp that runs after all ``inputs``; one NoOp per device when they span
    several devices, under a final NoOp (TF's two-level tree)."""
    flat = _flatten(inputs)
    values = [x for x in flat if x is not None]
    graph = ops_lib._get_graph_from_inputs(values)
    with graph.as_default(), graph.name_scope(name or "group_deps") as scope:
        if not values:
            return no_op(name=scope)
        by_device: dict[str, list] = {}
        for inp in values:
            if not hasattr(inp, "device"):
                raise TypeError(f"'{inp}' is not an Operation or Tensor")
            by_device.setdefault(inp.device, []).append(inp)
        if len(by_device) == 1:
            ((dev, deps),) = by_device.items()
            return _group_on_device(dev, deps, scope)
        per_device = [_group_on_device(dev, by_device[dev], None)
                      for dev in sorted(by_device, key=lambda d: d or "")]
        with ops_lib.control_dependencies(per_device):
            return no_op(name=scope)


def tuple(tensors: list, name: str | None = None, control_inputs: list | None = None) -> list:  # noqa: A001
    """Each tensor passed through an Identity that waits for all of them."""
    values = [t for t in tensors if t is not None]
    graph = ops_lib._get_graph_from_inputs(values)
    with graph.as_default(), graph.name_scope(name or "tuple") as scope:
        gate = group(*(values + list(control_inputs or [])), name=None)
        del scope
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
                continue
            with ops_lib.control_dependencies([gate]):
                out.append(array_ops.identity(t))
        return out


def _flatten(items: Any) -> list:
    out: list = []
    for x in items:
        if isinstance(x, (list, builtins.tuple)):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out
