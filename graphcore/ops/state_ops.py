"""Ref-variable ops: VariableV2, Assign, AssignAdd, AssignSub, IsVariableInitialized."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__ = [
    "assign",
    "assign_add",
    "assign_sub",
    "is_variable_initialized",
]


def _variable_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape(op._attrs["shape"].shape)]


def _assign_shape(op: ops_lib.Operation) -> list:
    ref, value = op._inputs[0].shape, op._inputs[1].shape
    if op._attrs["validate_shape"].b:
        return [ref.merge_with(value)]
    return [value]


def _assign_update_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape.merge_with(op._inputs[1].shape)]


op_registry.register_op("VariableV2").output("ref: Ref(dtype)").attr("shape: shape") \
    .attr("dtype: type").attr("container: string = ''").attr("shared_name: string = ''") \
    .stateful().shape_fn(_variable_shape)

op_registry.register_op("Assign").input("ref: Ref(T)").input("value: T") \
    .output("output_ref: Ref(T)").attr("T: type").attr("validate_shape: bool = true") \
    .attr("use_locking: bool = true").allows_uninitialized_input().shape_fn(_assign_shape)

for _op_type in ("AssignAdd", "AssignSub"):
    op_registry.register_op(_op_type).input("ref: Ref(T)").input("value: T") \
        .output("output_ref: Ref(T)").attr("T: numbertype").attr("use_locking: bool = false") \
        .shape_fn(_assign_update_shape)

op_registry.register_op("IsVariableInitialized").input("ref: Ref(dtype)") \
    .output("is_initialized: bool").attr("dtype: type").allows_uninitialized_input() \
    .shape_fn(common_shapes.scalar_shape)


def variable_op_v2(shape: Any, dtype: Any, name: str = "Variable", container: str = "",
                   shared_name: str = "") -> ops_lib.Tensor:
    """A VariableV2 op's ref output."""
    return apply_op("VariableV2", name=name, shape=shape, dtype=dtype, container=container,
                    shared_name=shared_name).outputs[0]


def assign(ref: Any, value: Any, validate_shape: bool | None = None,
           use_locking: bool | None = None, name: str | None = None) -> ops_lib.Tensor:
    """Stores ``value`` in the variable ``ref``; returns the ref after the assignment."""
    if not ref.dtype._is_ref_dtype and hasattr(ref, "assign"):
        return ref.assign(value, name=name)
    return apply_op("Assign", name=name, ref=ref, value=value, validate_shape=validate_shape,
                    use_locking=use_locking).outputs[0]


def assign_add(ref: Any, value: Any, use_locking: bool | None = None,
               name: str | None = None) -> ops_lib.Tensor:
    """ref += value; returns the ref after the update."""
    if not ref.dtype._is_ref_dtype and hasattr(ref, "assign_add"):
        return ref.assign_add(value, name=name)
    return apply_op("AssignAdd", name=name, ref=ref, value=value,
                    use_locking=use_locking).outputs[0]


def assign_sub(ref: Any, value: Any, use_locking: bool | None = None,
               name: str | None = None) -> ops_lib.Tensor:
    """ref -= value; returns the ref after the update."""
    if not ref.dtype._is_ref_dtype and hasattr(ref, "assign_sub"):
        return ref.assign_sub(value, name=name)
    return apply_op("AssignSub", name=name, ref=ref, value=value,
                    use_locking=use_locking).outputs[0]


def is_variable_initialized(ref: Any, name: str | None = None) -> ops_lib.Tensor:
    """A bool scalar: whether the variable has been assigned a value."""
    if hasattr(ref, "is_initialized"):  # a resource variable: VarIsInitializedOp
        return ref.is_initialized(name=name)
    return apply_op("IsVariableInitialized", name=name, ref=ref,
                    dtype=ref.dtype.base_dtype).outputs[0]
