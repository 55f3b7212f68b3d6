"""Gradients of the TensorArray ops (TF1's tensor_array_grad): a read's gradient is a
write to the gradient TensorArray of the same ``tf.gradients`` call (its ``source``),
a write's gradient a read from it; gather/scatter and concat/split pair the same way.
The flow tensors carry the order between them."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import array_ops
from graphcore.ops.tensor_array_ops import TensorArray

for _op in ("TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape",
            "TensorArraySizeV3", "TensorArrayCloseV3"):
    NotDifferentiable(_op)


def _get_grad_source(op_or_tensor: Any) -> str:
    """The name prefix of the ``tf.gradients`` call that made this gradient tensor, so
    each call gets its own gradient TensorArrays."""
    name_tokens = op_or_tensor.name.split("/")
    grad_pos = [i for i, x in enumerate(name_tokens) if x.startswith("gradients")]
    if not grad_pos:
        raise ValueError(
            "Expected op/tensor name to start with gradients (excluding scope), got: "
            f"{op_or_tensor.name}. This means that a tf.gradients op with this op in its "
            "dependency path has a custom name that does not start with 'gradients'. Please "
            "make sure all calls to tf.gradients that have non-empty `name` arguments use "
            "names that start with 'gradients'.")
    return "/".join(name_tokens[:grad_pos[-1] + 1])


def _grad_array(handle: Any, flow: Any, dtype: Any, source: str) -> TensorArray:
    return TensorArray(dtype=dtype, handle=handle, flow=flow,
                       colocate_with_first_write_call=False).grad(source=source, flow=flow)


def _barrier_flow(op: ops_lib.Operation, flow: Any) -> Any:
    """The incoming gradient flow, ordered after the forward write itself ran."""
    flow_out = array_ops.identity(op.outputs[0], "flow_out")
    with ops_lib.control_dependencies([flow_out]):
        return array_ops.identity(flow, "write_barrier")


@RegisterGradient("TensorArrayReadV3")
def _tensor_array_read_grad(op: ops_lib.Operation, grad: Any) -> list:
    handle, index, flow = op.inputs[0], op.inputs[1], op.inputs[2]
    g = _grad_array(handle, flow, op.get_attr("dtype"), _get_grad_source(grad))
    return [None, None, g.write(index, grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _tensor_array_write_grad(op: ops_lib.Operation, flow: Any) -> list:
    handle, index = op.inputs[0], op.inputs[1]
    source = _get_grad_source(flow)
    flow = _barrier_flow(op, flow)
    g = _grad_array(handle, flow, op.get_attr("T"), source)
    return [None, None, g.read(index), flow]


@RegisterGradient("TensorArrayGatherV3")
def _tensor_array_gather_grad(op: ops_lib.Operation, grad: Any) -> list:
    handle, indices, flow = op.inputs[0], op.inputs[1], op.inputs[2]
    g = _grad_array(handle, flow, op.get_attr("dtype"), _get_grad_source(grad))
    return [None, None, g.scatter(indices, grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _tensor_array_scatter_grad(op: ops_lib.Operation, flow: Any) -> list:
    handle, indices = op.inputs[0], op.inputs[1]
    source = _get_grad_source(flow)
    flow = _barrier_flow(op, flow)
    g = _grad_array(handle, flow, op.get_attr("T"), source)
    return [None, None, g.gather(indices), flow]


@RegisterGradient("TensorArrayConcatV3")
def _tensor_array_concat_grad(op: ops_lib.Operation, grad: Any, _lengths_grad: Any) -> list:
    handle, flow, lengths = op.inputs[0], op.inputs[1], op.outputs[1]
    g = _grad_array(handle, flow, op.get_attr("dtype"), _get_grad_source(grad))
    return [None, g.split(grad, lengths=lengths).flow]


@RegisterGradient("TensorArraySplitV3")
def _tensor_array_split_grad(op: ops_lib.Operation, flow: Any) -> list:
    handle = op.inputs[0]
    source = _get_grad_source(flow)
    flow = _barrier_flow(op, flow)
    g = _grad_array(handle, flow, op.get_attr("T"), source)
    return [None, g.concat(), None, flow]
