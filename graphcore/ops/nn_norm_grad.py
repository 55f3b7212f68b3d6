"""Gradients of :mod:`graphcore.ops.nn_norm_ops` (TF's ``nn_grad.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, nn_norm_ops  # noqa: F401 - registers the ops


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_v3_grad(op: ops_lib.Operation, *grad: Any) -> tuple:
    x, grad_y, scale = op.inputs[0], grad[0], op.inputs[1]
    epsilon = op.get_attr("epsilon")
    data_format = op.get_attr("data_format")
    is_training = op.get_attr("is_training")
    if is_training:
        args = {"y_backprop": grad_y, "x": x, "scale": scale,
                "reserve_space_1": op.outputs[3], "reserve_space_2": op.outputs[4],
                "reserve_space_3": op.outputs[5], "epsilon": epsilon,
                "data_format": data_format, "is_training": is_training}
        dx, dscale, doffset, _, _ = apply_op("FusedBatchNormGradV3", **args).outputs
    else:
        pop_mean, pop_var = op.inputs[3], op.inputs[4]
        if data_format == b"NCHW":
            x = array_ops.transpose(x, [0, 2, 3, 1])
            grad_y = array_ops.transpose(grad_y, [0, 2, 3, 1])
        elif data_format == b"NCDHW":
            x = array_ops.transpose(x, [0, 2, 3, 4, 1])
            grad_y = array_ops.transpose(grad_y, [0, 2, 3, 4, 1])
        target = "NHWC" if data_format in (b"NCHW", b"NHWC") else "NDHWC"
        args = {"y_backprop": grad_y, "x": x, "scale": scale, "reserve_space_1": pop_mean,
                "reserve_space_2": pop_var, "reserve_space_3": op.outputs[5],
                "epsilon": epsilon, "data_format": target, "is_training": is_training}
        dx, dscale, doffset, _, _ = apply_op("FusedBatchNormGradV3", **args).outputs
        if data_format == b"NCHW":
            dx = array_ops.transpose(dx, [0, 3, 1, 2])
        elif data_format == b"NCDHW":
            dx = array_ops.transpose(dx, [0, 4, 1, 2, 3])
    return dx, dscale, doffset, None, None


@RegisterGradient("LRN")
def _lrn_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [apply_op("LRNGrad", input_grads=grad, input_image=op.inputs[0],
                     output_image=op.outputs[0], depth_radius=op.get_attr("depth_radius"),
                     bias=op.get_attr("bias"), alpha=op.get_attr("alpha"),
                     beta=op.get_attr("beta")).outputs[0]]
