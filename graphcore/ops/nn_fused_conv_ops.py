"""The fused image-transform convolutions that optimize_for_inference makes (TF's
conv_ops_fused_image_transform): FusedPadConv2D (MirrorPad, then Conv2D) and
FusedResizeAndPadConv2D (legacy-centered ResizeBilinear, MirrorPad, then Conv2D); NHWC,
no dilations. Only graph rewrites create them: there is no Python wrapper in TF either."""

from __future__ import annotations

from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import constant_value_as_shape
from graphcore.ops.window_shapes import window_output_shape, with_rank

__all__: list[str] = []


def _fused_conv_shape(resize: bool):
    """Conv2D's output shape over the resized (to the constant ``size``) and padded (by
    the constant ``paddings``) input."""
    def fn(op: ops_lib.Operation) -> list:
        dims = with_rank(op.inputs[0].shape, 4).as_list()
        if resize:
            size = with_rank(constant_value_as_shape(op.inputs[1]), 2).as_list()
            dims[1:3] = size
        paddings_input = op.inputs[2 if resize else 1]
        with_rank(paddings_input.shape, 2)
        paddings = tensor_util.constant_value(paddings_input)
        if paddings is None:
            dims = [None] * 4
        else:
            if paddings.shape != (4, 2):
                raise ValueError(f"paddings must be a matrix of shape [4, 2], got "
                                 f"{list(paddings.shape)}")
            dims = [d if d is None else d + int(a) + int(b)
                    for d, (a, b) in zip(dims, paddings)]
        w = with_rank(op.inputs[-1].shape, 4).as_list()
        return [window_output_shape(op, shape_lib.TensorShape(dims), 2, w[:2], w[3])]
    return fn


def _conv_attrs(builder: op_registry.OpBuilder) -> op_registry.OpBuilder:
    return builder.attr("mode: {'REFLECT', 'SYMMETRIC'}").attr("strides: list(int)") \
        .attr("padding: {'SAME', 'VALID'}")


_conv_attrs(op_registry.register_op("FusedResizeAndPadConv2D").input("input: T")
            .input("size: int32").input("paddings: int32").input("filter: T")
            .output("output: T").attr("T: {half, float, double}")
            .attr("resize_align_corners: bool = false")).shape_fn(_fused_conv_shape(True))
_conv_attrs(op_registry.register_op("FusedPadConv2D").input("input: T")
            .input("paddings: int32").input("filter: T").output("output: T")
            .attr("T: {half, bfloat16, float, double}")).shape_fn(_fused_conv_shape(False))
