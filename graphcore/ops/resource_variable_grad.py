"""Gradients of the resource-variable ops (TF's resource_variable_ops gradients): a read
passes its gradient to the handle; a gather's gradient is IndexedSlices of the
variable's shape."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.indexed_slices import IndexedSlices
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
    """The gradient w.r.t. the handle: IndexedSlices of ``grad``'s rows at ``indices``
    (TF's, which sparse optimizer updates consume)."""
    if op.get_attr("batch_dims") != 0:
        raise NotImplementedError("The gradient of ResourceGather with batch_dims != 0 is "
                                  "not supported yet")
    handle, indices = op.inputs
    params_shape = resource_variable_ops.variable_shape(handle)
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values = array_ops.reshape(grad, array_ops.concat([size, params_shape[1:]], 0))
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]
