"""Gradients of the resource-variable ops (TF's resource_variable_ops gradients): a read
passes its gradient to the handle; a gather's gradient is summed into the variable's
shape."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import array_ops, resource_variable_ops

for _op_type in ("VarHandleOp", "AssignVariableOp", "AssignAddVariableOp",
                 "AssignSubVariableOp", "VarIsInitializedOp", "VariableShape",
                 "DestroyResourceOp"):
    NotDifferentiable(_op_type)


@RegisterGradient("ReadVariableOp")
def _read_grad(op: ops_lib.Operation, grad: Any) -> list:
    del op
    return [grad]


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op: ops_lib.Operation, grad: Any) -> list:
    """The gradient w.r.t. the handle: the rows of ``grad`` summed into the variable's
    shape (TF gives IndexedSlices of the same values)."""
    if op.get_attr("batch_dims") != 0:
        raise NotImplementedError("The gradient of ResourceGather with batch_dims != 0 is "
                                  "not supported yet")
    handle, indices = op.inputs
    with ops_lib.colocate_with(handle.op):
        params_shape = resource_variable_ops.variable_shape(handle)
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    values = array_ops.reshape(grad, array_ops.concat([indices_size, params_shape[1:]], 0))
    flat_indices = array_ops.reshape(indices, indices_size)
    return [array_ops.unsorted_segment_sum(values, flat_indices, params_shape[0]), None]
