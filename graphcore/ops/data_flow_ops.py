"""Stacks (TF's StackV2 / StackPushV2 / StackPopV2 / StackCloseV2): the per-iteration
history a while loop's gradient reads back in reverse order."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__: list[str] = []


def _scalar(op: Any) -> list:
    del op
    return [shape_lib.TensorShape([])]


def _unknown(op: Any) -> list:
    del op
    return [shape_lib.unknown_shape()]


op_registry.register_op("StackV2").input("max_size: int32").output("handle: resource") \
    .attr("elem_type: type").attr("stack_name: string = ''").stateful().shape_fn(_scalar)

op_registry.register_op("StackPushV2").input("handle: resource").input("elem: T") \
    .output("output: T").attr("T: type").attr("swap_memory: bool = false").stateful() \
    .shape_fn(lambda op: [op._inputs[1].shape])

op_registry.register_op("StackPopV2").input("handle: resource").output("elem: elem_type") \
    .attr("elem_type: type").stateful().shape_fn(_unknown)

op_registry.register_op("StackCloseV2").input("handle: resource").stateful() \
    .shape_fn(common_shapes.no_outputs)


def stack_v2(max_size: Any, elem_type: Any, stack_name: str = "",
             name: str | None = None) -> Any:
    return apply_op("StackV2", name=name or "StackV2", max_size=max_size,
                    elem_type=elem_type, stack_name=stack_name).outputs[0]


def stack_push_v2(handle: Any, elem: Any, swap_memory: bool = False,
                  name: str | None = None) -> Any:
    return apply_op("StackPushV2", name=name or "StackPushV2", handle=handle, elem=elem,
                    swap_memory=swap_memory).outputs[0]


def stack_pop_v2(handle: Any, elem_type: Any, name: str | None = None) -> Any:
    return apply_op("StackPopV2", name=name or "StackPopV2", handle=handle,
                    elem_type=elem_type).outputs[0]


def stack_close_v2(handle: Any, name: str | None = None) -> Any:
    return apply_op("StackCloseV2", name=name or "StackCloseV2", handle=handle)
