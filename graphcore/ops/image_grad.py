"""Gradients of the image ops (TF's ``image_grad.py``): the resize ops, CropAndResize and
RGBToHSV."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import (
    array_ops,
    image_box_ops,  # noqa: F401 - registers the ops
    image_color_ops,  # noqa: F401 - registers the ops
    image_resize_ops,  # noqa: F401 - registers the ops
    math_ops,
)


def _op1(op_type: str, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, **kwargs).outputs[0]


def _resize_attrs(op: ops_lib.Operation) -> dict:
    return {"align_corners": op.get_attr("align_corners"),
            "half_pixel_centers": op.get_attr("half_pixel_centers")}


@RegisterGradient("ResizeNearestNeighbor")
def _resize_nearest_neighbor_grad(op: ops_lib.Operation, grad: Any) -> list:
    image = op.inputs[0]
    if image.shape[1:3].is_fully_defined():
        image_shape = image.shape.as_list()[1:3]
    else:
        image_shape = array_ops.shape(image)[1:3]
    return [_op1("ResizeNearestNeighborGrad", grads=grad, size=image_shape,
                 **_resize_attrs(op)), None]


@RegisterGradient("ResizeBilinear")
def _resize_bilinear_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [_op1("ResizeBilinearGrad", grads=grad, original_image=op.inputs[0],
                 **_resize_attrs(op)), None]


@RegisterGradient("ResizeBicubic")
def _resize_bicubic_grad(op: ops_lib.Operation, grad: Any) -> list:
    if op.inputs[0].dtype not in (dtypes_lib.float32, dtypes_lib.float64):
        return [None, None]
    return [_op1("ResizeBicubicGrad", grads=grad, original_image=op.inputs[0],
                 **_resize_attrs(op)), None]


NotDifferentiable("ResizeBilinearGrad")


@RegisterGradient("CropAndResize")
def _crop_and_resize_grad(op: ops_lib.Operation, grad: Any) -> list:
    image = op.inputs[0]
    if image.shape.is_fully_defined():
        image_shape = image.shape.as_list()
    else:
        image_shape = array_ops.shape(image)
    grad0 = None
    if image.dtype in (dtypes_lib.float16, dtypes_lib.float32, dtypes_lib.float64):
        grad0 = _op1("CropAndResizeGradImage", grads=grad, boxes=op.inputs[1],
                     box_ind=op.inputs[2], image_size=image_shape, T=image.dtype,
                     method=op.get_attr("method"))
    grad1 = _op1("CropAndResizeGradBoxes", grads=grad, image=op.inputs[0],
                 boxes=op.inputs[1], box_ind=op.inputs[2])
    return [grad0, grad1, None, None]


def _reciprocal(x: Any) -> Any:
    return math_ops.div_no_nan(math_ops.cast(1.0, x.dtype), x)


@RegisterGradient("RGBToHSV")
def _rgb_to_hsv_grad(op: ops_lib.Operation, grad: Any) -> Any:
    r = op.inputs[0][..., 0]
    g = op.inputs[0][..., 1]
    b = op.inputs[0][..., 2]
    saturation = op.outputs[0][..., 1]
    value = op.outputs[0][..., 2]
    dtype = op.inputs[0].dtype

    def f(x: Any) -> Any:
        return math_ops.cast(x, dtype)

    r_big, g_big, b_big = f((r >= b) & (r >= g)), f((g > r) & (g >= b)), f((b > r) & (b > g))
    r_small, g_small, b_small = (f((r < b) & (r < g)), f((g <= r) & (g < b)),
                                 f((b <= r) & (b <= g)))
    dv_dr, dv_dg, dv_db = r_big, g_big, b_big
    ds_dr = f(r > 0) * math_ops.add(
        r_big * math_ops.add(g_small * g, b_small * b) * _reciprocal(math_ops.square(r)),
        r_small * -1 * _reciprocal(g_big * g + b_big * b))
    ds_dg = f(g > 0) * math_ops.add(
        g_big * math_ops.add(r_small * r, b_small * b) * _reciprocal(math_ops.square(g)),
        g_small * -1 * _reciprocal(r_big * r + b_big * b))
    ds_db = f(b > 0) * math_ops.add(
        b_big * math_ops.add(g_small * g, r_small * r) * _reciprocal(math_ops.square(b)),
        b_small * -1 * _reciprocal(g_big * g + r_big * r))
    sv = _reciprocal(math_ops.square(saturation)) * _reciprocal(math_ops.square(value))
    dh_dr = (60 * (f(r > 0) * r_big * -1 * (g - b) * sv)
             + 60 * (f(g > 0) * g_big * r_small * (b - g) * _reciprocal(math_ops.square(r - g)))
             + 60 * (f(g > 0) * g_big * b_small * -1 * _reciprocal(g - b))
             + 60 * (f(b > 0) * b_big * r_small * (b - g) * _reciprocal(math_ops.square(b - r)))
             + 60 * (f(b > 0) * b_big * g_small * _reciprocal(b - g))) / 360
    dh_dg = (60 * (f(g > 0) * g_big * -1 * (b - r) * sv)
             + 60 * (f(r > 0) * r_big * g_small * (r - b) * _reciprocal(math_ops.square(r - g)))
             + 60 * (f(r > 0) * r_big * b_small * _reciprocal(r - b))
             + 60 * (f(b > 0) * b_big * g_small * (r - b) * _reciprocal(math_ops.square(b - g)))
             + 60 * (f(b > 0) * b_big * r_small * -1 * _reciprocal(b - r))) / 360
    dh_db = (60 * (f(b > 0) * b_big * -1 * (r - g) * sv)
             + 60 * (f(r > 0) * r_big * b_small * (g - r) * _reciprocal(math_ops.square(r - b)))
             + 60 * (f(r > 0) * r_big * g_small * -1 * _reciprocal(r - g))
             + 60 * (f(g > 0) * g_big * b_small * (g - r) * _reciprocal(math_ops.square(g - b)))
             + 60 * (f(g > 0) * g_big * r_small * _reciprocal(g - r))) / 360
    dv = array_ops.stack([grad[..., 2] * dv_dr, grad[..., 2] * dv_dg, grad[..., 2] * dv_db],
                         axis=-1)
    ds = array_ops.stack([grad[..., 1] * ds_dr, grad[..., 1] * ds_dg, grad[..., 1] * ds_db],
                         axis=-1)
    dh = array_ops.stack([grad[..., 0] * dh_dr, grad[..., 0] * dh_dg, grad[..., 0] * dh_db],
                         axis=-1)
    return math_ops.add(math_ops.add(dv, ds), dh)
