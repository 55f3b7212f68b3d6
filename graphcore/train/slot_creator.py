"""Slot variables: per-variable optimizer state (TF's ``slot_creator``).

A slot of primary ``w`` made by optimizer ``Momentum`` is a non-trainable variable named
``w/Momentum`` (``w/Momentum_1`` for the next one: the names come from
``variable_scope(None, default_name="w/Momentum")``), colocated with ``w``, in
GLOBAL_VARIABLES. The slot of a shard of a partitioned variable is the same slice of the
full variable's slot, so checkpoints hold ``emb/Adagrad`` in slices as TF's do.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import resource_variable_ops, variable_scope
from graphcore.ops.variables import SaveSliceInfo, Variable

__all__: list[str] = []


def _create_slot_var(primary: Any, val: Any, scope: str, validate_shape: bool, shape: Any,
                     dtype: Any) -> Variable:
    current_scope = variable_scope.get_variable_scope()
    current_partitioner = current_scope.partitioner
    current_scope.set_partitioner(None)
    try:
        shape = shape if callable(val) else None
        slot = variable_scope.get_variable(scope, initializer=val, trainable=False,
                                           use_resource=resource_variable_ops
                                           .is_resource_variable(primary),
                                           shape=shape, dtype=dtype,
                                           validate_shape=validate_shape)
    finally:
        current_scope.set_partitioner(current_partitioner)
    slice_info = primary._get_save_slice_info() if isinstance(primary, Variable) else None
    if slice_info is not None:
        # The slot of a shard is the same slice of the full variable's slot: "emb/Adagrad"
        # for the shard emb/part_1's slot emb/part_1/Adagrad (a scalar slot is not sliced).
        n = slot.shape.ndims
        if n is None or n > 0:
            real_slot_name = slot.name[len(primary.op.name + "/"):-2]
            slot._set_save_slice_info(SaveSliceInfo(
                slice_info.full_name + "/" + real_slot_name, slice_info.full_shape[:n],
                slice_info.var_offset[:n], slice_info.var_shape[:n]))
    return slot


def _prefix(primary: Any) -> str:
    return primary.op.name


def create_slot(primary: Any, val: Any, name: str, colocate_with_primary: bool = True
                ) -> Variable:
    """A slot for ``primary`` initialized to the tensor ``val``."""
    validate_shape = val.get_shape().is_fully_defined()
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name):
        if colocate_with_primary:
            with ops_lib.colocate_with(primary):
                return _create_slot_var(primary, val, "", validate_shape, None, None)
        return _create_slot_var(primary, val, "", validate_shape, None, None)


def create_slot_with_initializer(primary: Any, initializer: Any, shape: Any, dtype: Any,
                                 name: str, colocate_with_primary: bool = True) -> Variable:
    """A slot for ``primary`` of ``shape`` and ``dtype`` made by ``initializer``."""
    shape = shape_lib.as_shape(shape)
    validate_shape = shape.is_fully_defined()
    with variable_scope.variable_scope(None, _prefix(primary) + "/" + name):
        if colocate_with_primary:
            with ops_lib.colocate_with(primary):
                return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)
        return _create_slot_var(primary, initializer, "", validate_shape, shape, dtype)


def create_zeros_slot(primary: Any, name: str, dtype: Any = None,
                      colocate_with_primary: bool = True) -> Variable:
    """A slot of zeros shaped (and typed, by default) like ``primary``."""
    from graphcore.ops import array_ops, init_ops

    if dtype is None:
        dtype = primary.dtype.base_dtype
    slot_shape = primary.get_shape()
    if slot_shape.is_fully_defined():
        return create_slot_with_initializer(primary, init_ops.zeros_initializer(), slot_shape,
                                            dtype, name,
                                            colocate_with_primary=colocate_with_primary)
    if isinstance(primary, Variable):
        from graphcore.ops import control_flow_ops, state_ops

        value = control_flow_ops.cond(state_ops.is_variable_initialized(primary),
                                      primary.read_value, lambda: primary.initial_value)
        slot_shape = array_ops.shape(value)
    else:
        slot_shape = array_ops.shape(primary)
    val = array_ops.zeros(slot_shape, dtype=dtype)
    return create_slot(primary, val, name, colocate_with_primary=colocate_with_primary)
