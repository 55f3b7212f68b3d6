"""Questions about control-flow ops and their contexts (TF's control_flow_util): is this
a loop exit, a loop switch, which while context holds this op or its outputs."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib


def get_while_context(op: ops_lib.Operation) -> Any:
    ctx = op._control_flow_context
    return ctx.GetWhileContext() if ctx is not None else None


def is_loop_constant_enter(op: ops_lib.Operation) -> bool:
    return op.type in ("Enter", "RefEnter") and op.get_attr("is_constant")


def is_loop_exit(op: ops_lib.Operation) -> bool:
    return op.type in ("Exit", "RefExit")


def is_switch(op: ops_lib.Operation) -> bool:
    return op.type in ("Switch", "RefSwitch")


def is_loop_switch(op: ops_lib.Operation) -> bool:
    if not is_switch(op):
        return False
    ctx = op._control_flow_context
    # A while context is its own while context; a cond context inside a loop is not.
    return ctx is not None and ctx.GetWhileContext() is ctx


def get_output_context(op: ops_lib.Operation) -> Any:
    """The context of ``op``'s outputs: the outer one for an Exit."""
    ctx = op._control_flow_context
    if ctx is not None and is_loop_exit(op):
        ctx = ctx.outer_context
    return ctx


def output_while_context(op: ops_lib.Operation) -> Any:
    ctx = get_output_context(op)
    return ctx.GetWhileContext() if ctx is not None else None
