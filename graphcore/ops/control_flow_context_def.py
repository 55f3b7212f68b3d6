"""Control-flow contexts as protos and back (TF1's ``to_proto``/``from_proto`` of
CondContext and WhileContext): what a MetaGraphDef's ``cond_context`` and
``while_context`` collections hold, so that a graph exported with loops and conds keeps,
once imported (here or in TensorFlow), the contexts that gradients and new ops inside
those loops need."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.protobuf import control_flow_pb2


def strip_scope(name: str, scope: str | None) -> str:
    """``name`` without the leading ``scope/`` (TF's ``strip_name_scope``)."""
    if scope and name.startswith(scope + "/"):
        return name[len(scope) + 1:]
    return name


def prepend_scope(name: str, scope: str | None) -> str:
    """``scope/name`` (TF's ``prepend_name_scope``; ``name`` itself without a scope)."""
    return f"{scope}/{name}" if scope else name


def to_values_def(values: set[str], external: dict[str, Any],
                  scope: str | None) -> control_flow_pb2.ValuesDef:
    """A context's values (names, sorted as TF writes them) and its external values
    (outside name -> the name of the tensor that stands for it inside)."""
    out = control_flow_pb2.ValuesDef()
    out.values.extend(strip_scope(v, scope) for v in sorted(values))
    for name, tensor in external.items():
        out.external_values[strip_scope(name, scope)] = strip_scope(tensor.name, scope)
    return out


def restore_values(context: Any, values_def: control_flow_pb2.ValuesDef,
                   scope: str | None) -> tuple[set[str], dict[str, Any]]:
    """The values and external values of ``values_def`` in the default graph; every op
    with an output among the values (and not standing for an outside one) is put in
    ``context``."""
    graph = ops_lib.get_default_graph()
    values = {prepend_scope(v, scope) for v in values_def.values}
    external = {prepend_scope(k, scope): graph.as_graph_element(prepend_scope(v, scope))
                for k, v in values_def.external_values.items()}
    for op_name in sorted({v.split(":")[0] for v in values - set(external)}):
        graph.as_graph_element(op_name)._control_flow_context = context
    return values, external


def to_context_def(context: Any, out: control_flow_pb2.ControlFlowContextDef,
                   scope: str | None = None) -> None:
    """Fills ``out`` (a ControlFlowContextDef) with ``context``."""
    proto = context.to_proto(scope)
    if proto is None:
        return
    if isinstance(proto, control_flow_pb2.WhileContextDef):
        out.while_ctxt.CopyFrom(proto)
    else:
        out.cond_ctxt.CopyFrom(proto)


# ControlFlowContextDef field ("cond_ctxt", "while_ctxt") -> from_proto(def, scope): the
# context classes register themselves (their modules import this one, not the reverse).
_FROM_DEF: dict[str, Any] = {}


def register_context(field: str, from_proto: Any) -> None:
    """``from_proto(context_def, import_scope)`` restores ControlFlowContextDef.``field``."""
    _FROM_DEF[field] = from_proto


def from_context_def(context_def: control_flow_pb2.ControlFlowContextDef,
                     scope: str | None = None) -> Any:
    """The context a ControlFlowContextDef describes, restored in the default graph."""
    kind = context_def.WhichOneof("ctxt")
    if kind not in _FROM_DEF:
        raise ValueError(f"Unknown ControlFlowContextDef field: {kind}")
    return _FROM_DEF[kind](getattr(context_def, kind), scope)


def add_nested(context: Any, nested_defs: Any, scope: str | None) -> None:
    """Restores the contexts nested in ``context`` (each made with ``context`` entered)."""
    context.Enter()
    try:
        for nested in nested_defs:
            from_context_def(nested, scope)
    finally:
        context.Exit()


def while_context_from_proto(raw: bytes, import_scope: str | None = None) -> Any:
    """A WhileContext from its serialized WhileContextDef (the ``while_context``
    collection's items)."""
    return _FROM_DEF["while_ctxt"](control_flow_pb2.WhileContextDef.FromString(raw),
                                   import_scope)


def cond_context_from_proto(raw: bytes, import_scope: str | None = None) -> Any:
    """A CondContext from its serialized CondContextDef (``cond_context``'s items)."""
    return _FROM_DEF["cond_ctxt"](control_flow_pb2.CondContextDef.FromString(raw),
                                  import_scope)
