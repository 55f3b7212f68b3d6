"""Fused batch normalization (FusedBatchNormV3, FusedBatchNorm,
BatchNormWithGlobalNormalization and their grad ops) and local response
normalization (LRN, LRNGrad) of tf.nn, with TF's shape functions; fused_batch_norm and
lrn / local_response_normalization. Gradients in :mod:`graphcore.ops.nn_norm_grad`,
kernels in :mod:`graphcore.kernels.nn_norm_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops

__all__ = ["fused_batch_norm", "local_response_normalization", "lrn"]

_CHANNEL_AXIS = {b"NHWC": 3, b"NCHW": 1, b"NDHWC": 4, b"NCDHW": 1}


def _vector(shape: shape_lib.TensorShape) -> int | None:
    if shape.ndims is not None and shape.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
    return None if shape.ndims is None else shape.as_list()[0]


def _merge(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _x_and_channels(op: ops_lib.Operation, x: shape_lib.TensorShape,
                    vectors: list) -> tuple:
    data_format = op.get_attr("data_format")
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    if x.ndims is not None and x.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {x.ndims}")
    dims = [None] * rank if x.ndims is None else x.as_list()
    axis = _CHANNEL_AXIS[data_format]
    channels = dims[axis]
    for v in vectors:
        channels = _merge(channels, _vector(v.shape))
    dims[axis] = channels
    return shape_lib.TensorShape(dims), shape_lib.TensorShape([channels])


def _fused_batch_norm_shape(op: ops_lib.Operation) -> list:
    vectors = list(op.inputs[1:3])
    if not op.get_attr("is_training") or op.get_attr("exponential_avg_factor") != 1.0:
        vectors += list(op.inputs[3:5])
    else:
        for t in op.inputs[3:5]:
            _vector(t.shape)
    y, c = _x_and_channels(op, op.inputs[0].shape, vectors)
    return [y, c, c, c, c, shape_lib.unknown_shape()]


def _fused_batch_norm_grad_shape(op: ops_lib.Operation) -> list:
    dy, x = op.inputs[0].shape, op.inputs[1].shape
    try:
        merged = dy.merge_with(x)
    except ValueError:
        raise ValueError(f"Shapes must be equal rank, but are {dy.ndims} and "
                         f"{x.ndims}") from None
    y, c = _x_and_channels(op, merged, list(op.inputs[2:5]))
    empty = shape_lib.TensorShape([0])
    return [y, c, c, empty, empty]


def _rank4(shape: shape_lib.TensorShape) -> shape_lib.TensorShape:
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {shape.ndims}")
    return shape if shape.ndims is not None else shape_lib.unknown_shape(rank=4)


def _lrn_grad_shape(op: ops_lib.Operation) -> list:
    shape = _rank4(op.inputs[0].shape)
    for t in op.inputs[1:]:
        shape = shape.merge_with(_rank4(t.shape))
    return [shape]


op_registry.register_op("FusedBatchNormV3").input("x: T").input("scale: U") \
    .input("offset: U").input("mean: U").input("variance: U").output("y: T") \
    .output("batch_mean: U").output("batch_variance: U").output("reserve_space_1: U") \
    .output("reserve_space_2: U").output("reserve_space_3: U") \
    .attr("T: {half, bfloat16, float}").attr("U: {bfloat16, float}") \
    .attr("epsilon: float = 0.0001").attr("exponential_avg_factor: float = 1") \
    .attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'") \
    .attr("is_training: bool = true").shape_fn(_fused_batch_norm_shape)
# FusedBatchNorm (V1, all in T): what optimize_for_inference fuses decomposed batch norms
# into; same computation as V3, without reserve_space_3.
op_registry.register_op("FusedBatchNorm").input("x: T").input("scale: T") \
    .input("offset: T").input("mean: T").input("variance: T").output("y: T") \
    .output("batch_mean: T").output("batch_variance: T").output("reserve_space_1: T") \
    .output("reserve_space_2: T").attr("T: {float}").attr("epsilon: float = 0.0001") \
    .attr("exponential_avg_factor: float = 1") \
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'").attr("is_training: bool = true") \
    .shape_fn(lambda op: _fused_batch_norm_shape(op)[:5])


def _global_norm_shape(op: ops_lib.Operation) -> list:
    """BatchNormWithGlobalNormalization: t is 4-D, the four vectors its last dimension."""
    t = op.inputs[0].shape
    if t.ndims is not None and t.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {t.ndims}")
    dims = [None] * 4 if t.ndims is None else t.as_list()
    for v in op.inputs[1:]:
        dims[3] = _merge(dims[3], _vector(v.shape))
    return [shape_lib.TensorShape(dims)]


op_registry.register_op("FusedBatchNormGrad").input("y_backprop: T").input("x: T") \
    .input("scale: T").input("reserve_space_1: T").input("reserve_space_2: T") \
    .output("x_backprop: T").output("scale_backprop: T").output("offset_backprop: T") \
    .output("reserve_space_3: T").output("reserve_space_4: T").attr("T: {float}") \
    .attr("epsilon: float = 0.0001").attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .attr("is_training: bool = true").shape_fn(_fused_batch_norm_grad_shape)


def _global_norm_grad_shape(op: ops_lib.Operation) -> list:
    """BatchNormWithGlobalNormalizationGrad: dx as t (and backprop), the rest [depth]."""
    t = op.inputs[0].shape.merge_with(op.inputs[4].shape)
    if t.ndims is not None and t.ndims != 4:
        raise ValueError(f"Shape must be rank 4 but is rank {t.ndims}")
    dims = [None] * 4 if t.ndims is None else t.as_list()
    for v in op.inputs[1:4]:
        dims[3] = _merge(dims[3], _vector(v.shape))
    depth = shape_lib.TensorShape([dims[3]])
    return [shape_lib.TensorShape(dims), depth, depth, depth, depth]


# TF's batch norm op of GraphDef versions before 9 (graphs of that age still hold it);
# tf.nn.batch_norm_with_global_normalization builds tf.nn.batch_normalization's ops.
op_registry.register_op("BatchNormWithGlobalNormalization").input("t: T").input("m: T") \
    .input("v: T").input("beta: T").input("gamma: T").output("result: T") \
    .attr("T: numbertype").attr("variance_epsilon: float") \
    .attr("scale_after_normalization: bool").shape_fn(_global_norm_shape)
op_registry.register_op("BatchNormWithGlobalNormalizationGrad").input("t: T").input("m: T") \
    .input("v: T").input("gamma: T").input("backprop: T").output("dx: T").output("dm: T") \
    .output("dv: T").output("db: T").output("dg: T").attr("T: numbertype") \
    .attr("variance_epsilon: float").attr("scale_after_normalization: bool") \
    .shape_fn(_global_norm_grad_shape)
op_registry.register_op("FusedBatchNormGradV3").input("y_backprop: T").input("x: T") \
    .input("scale: float").input("reserve_space_1: U").input("reserve_space_2: U") \
    .input("reserve_space_3: U").output("x_backprop: T").output("scale_backprop: U") \
    .output("offset_backprop: U").output("reserve_space_4: U") \
    .output("reserve_space_5: U").attr("T: {half, bfloat16, float}").attr("U: {float}") \
    .attr("epsilon: float = 0.0001") \
    .attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'") \
    .attr("is_training: bool = true").shape_fn(_fused_batch_norm_grad_shape)


def _lrn_attrs(builder: op_registry.OpBuilder) -> op_registry.OpBuilder:
    return builder.attr("depth_radius: int = 5").attr("bias: float = 1") \
        .attr("alpha: float = 1").attr("beta: float = 0.5") \
        .attr("T: {half, bfloat16, float} = DT_FLOAT")


_lrn_attrs(op_registry.register_op("LRN").input("input: T").output("output: T")) \
    .shape_fn(lambda op: [_rank4(op.inputs[0].shape)])
_lrn_attrs(op_registry.register_op("LRNGrad").input("input_grads: T")
           .input("input_image: T").input("output_image: T").output("output: T")) \
    .shape_fn(_lrn_grad_shape)


def fused_batch_norm(x: Any, scale: Any, offset: Any, mean: Any = None, variance: Any = None,
                     epsilon: float = 0.001, data_format: str = "NHWC",
                     is_training: bool = True, name: str | None = None,
                     exponential_avg_factor: float = 1.0) -> tuple:
    """(y, running_mean, running_variance) of the fused batch norm of a 4-D/5-D ``x``."""
    if (not is_training or exponential_avg_factor != 1.0) and (
            mean is None or variance is None):
        raise ValueError("Both `mean` and `variance` must be a 1D tensor when `is_training` "
                         "is False or `exponential_avg_factor` != 1.0. Received: `mean` "
                         f"{mean!r} and `variance` {variance!r}")
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = array_ops.constant([])
    if variance is None:
        variance = array_ops.constant([])
    outputs = apply_op("FusedBatchNormV3", name=name, x=x, scale=scale, offset=offset,
                       mean=mean, variance=variance, epsilon=epsilon,
                       exponential_avg_factor=exponential_avg_factor,
                       data_format=data_format, is_training=is_training).outputs
    return outputs[0], outputs[1], outputs[2]


def local_response_normalization(input: Any, depth_radius: int = 5,  # noqa: A002
                                 bias: float = 1, alpha: float = 1, beta: float = 0.5,
                                 name: str | None = None) -> ops_lib.Tensor:
    """input / (bias + alpha * sum(input ** 2 over a depth window)) ** beta."""
    return apply_op("LRN", name=name, input=input, depth_radius=depth_radius, bias=bias,
                    alpha=alpha, beta=beta).outputs[0]


lrn = local_response_normalization
