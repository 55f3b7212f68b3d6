"""Gradients of :mod:`graphcore.ops.nn_norm_ops` (TF's ``nn_grad.py``), and the second-order
one of FusedBatchNormGradV3 (TF's ``nn_fused_batch_norm_grad.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import (
    array_ops,
    gradients_impl,
    math_ops,
    nn_norm_ops,  # noqa: F401 - registers the ops
)


def _base_fused_batch_norm_grad(op: ops_lib.Operation, grad_op: str, *grad: Any) -> tuple:
    """TF's _BaseFusedBatchNormGrad: FusedBatchNormGrad(V3) over the batch statistics
    (training) or the population ones (inference, in NHWC/NDHWC)."""
    v3 = grad_op == "FusedBatchNormGradV3"
    x, grad_y, scale = op.inputs[0], grad[0], op.inputs[1]
    epsilon = op.get_attr("epsilon")
    data_format = op.get_attr("data_format")
    is_training = op.get_attr("is_training")
    if is_training:
        args = {"y_backprop": grad_y, "x": x, "scale": scale,
                "reserve_space_1": op.outputs[3], "reserve_space_2": op.outputs[4],
                "epsilon": epsilon, "data_format": data_format, "is_training": is_training}
        if v3:
            args["reserve_space_3"] = op.outputs[5]
        dx, dscale, doffset, _, _ = apply_op(grad_op, **args).outputs
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
                "reserve_space_2": pop_var, "epsilon": epsilon, "data_format": target,
                "is_training": is_training}
        if v3:
            args["reserve_space_3"] = op.outputs[5]
        dx, dscale, doffset, _, _ = apply_op(grad_op, **args).outputs
        if data_format == b"NCHW":
            dx = array_ops.transpose(dx, [0, 3, 1, 2])
        elif data_format == b"NCDHW":
            dx = array_ops.transpose(dx, [0, 4, 1, 2, 3])
    return dx, dscale, doffset, None, None


@RegisterGradient("FusedBatchNormV3")
def _fused_batch_norm_v3_grad(op: ops_lib.Operation, *grad: Any) -> tuple:
    return _base_fused_batch_norm_grad(op, "FusedBatchNormGradV3", *grad)


@RegisterGradient("FusedBatchNorm")
def _fused_batch_norm_grad(op: ops_lib.Operation, *grad: Any) -> tuple:
    return _base_fused_batch_norm_grad(op, "FusedBatchNormGrad", *grad)


@RegisterGradient("BatchNormWithGlobalNormalization")
def _batch_norm_with_global_normalization_grad(op: ops_lib.Operation,
                                               grad: ops_lib.Tensor) -> tuple:
    return tuple(apply_op("BatchNormWithGlobalNormalizationGrad", t=op.inputs[0],
                          m=op.inputs[1], v=op.inputs[2], gamma=op.inputs[4], backprop=grad,
                          variance_epsilon=op.get_attr("variance_epsilon"),
                          scale_after_normalization=op.get_attr(
                              "scale_after_normalization")).outputs)


@RegisterGradient("LRN")
def _lrn_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [apply_op("LRNGrad", input_grads=grad, input_image=op.inputs[0],
                     output_image=op.outputs[0], depth_radius=op.get_attr("depth_radius"),
                     bias=op.get_attr("bias"), alpha=op.get_attr("alpha"),
                     beta=op.get_attr("beta")).outputs[0]]


def _batch_norm_grad(grad_y: Any, x: Any, scale: Any, pop_mean: Any, pop_var: Any,
                     epsilon: float, data_format: bytes, is_training: bool) -> tuple:
    """FusedBatchNormGradV3's outputs as differentiable graph ops (TF's
    ``nn_fused_batch_norm_grad._BatchNormGrad``)."""
    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
        x = math_ops.cast(x, dtypes_lib.float32)
        grad_y = math_ops.cast(grad_y, dtypes_lib.float32)
    channels_first = data_format in (b"NCHW", b"NCDHW")
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    reduce_axis = [0] + list(range(2, rank)) if channels_first else list(range(rank - 1))
    shape = [1, -1] + [1] * (rank - 2)
    if is_training:
        keepdims = channels_first
        if channels_first:
            scale = array_ops.reshape(scale, shape)
        mean_grad_y = math_ops.reduce_mean(grad_y, reduce_axis, keepdims=keepdims)
        mean_x = math_ops.reduce_mean(x, reduce_axis, keepdims=keepdims)
        var_x = math_ops.reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)), reduce_axis,
            keepdims=keepdims)
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        mean = math_ops.reduce_mean(grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        grad_x = scale * math_ops.rsqrt(var_x + epsilon) * (
            grad_y_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        grad_scale = math_ops.rsqrt(var_x + epsilon) * math_ops.reduce_sum(
            grad_y * x_offset, axis=reduce_axis, keepdims=keepdims)
        if channels_first:
            grad_scale = array_ops.squeeze(grad_scale)
    else:
        if channels_first:
            pop_mean = array_ops.reshape(pop_mean, shape)
            pop_var = array_ops.reshape(pop_var, shape)
            scale = array_ops.reshape(scale, shape)
        var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
        grad_scale = math_ops.reduce_sum(grad_y * (x - pop_mean) * var_rsqrt,
                                         axis=reduce_axis)
        grad_x = grad_y * scale * var_rsqrt
    grad_offset = math_ops.reduce_sum(grad_y, axis=reduce_axis)
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


@RegisterGradient("FusedBatchNormGrad")
def _fused_batch_norm_grad_v1_grad(op: ops_lib.Operation, *grad: Any) -> tuple:
    return _fused_batch_norm_grad_grad(op, *grad)[:5]


@RegisterGradient("FusedBatchNormGradV3")
def _fused_batch_norm_grad_grad(op: ops_lib.Operation, *grad: Any) -> tuple:
    # Fresh identities stand for the inputs, so the gradients below are partial ones, as
    # TF's GradientTape over _BatchNormGrad gives: grad_y itself depends on x.
    grad_y, x, scale = (array_ops.identity(t) for t in op.inputs[:3])
    pop_mean, pop_var = op.inputs[3:5]
    outputs = _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, op.get_attr("epsilon"),
                               op.get_attr("data_format"), op.get_attr("is_training"))
    grad_initial = [array_ops.zeros_like(o) if g is None else g
                    for o, g in zip(outputs, grad[:3])]
    grad_grad_y, grad_x, grad_scale = gradients_impl.gradients(
        list(outputs), [grad_y, x, scale], grad_ys=grad_initial)
    return grad_grad_y, grad_x, grad_scale, None, None, None
