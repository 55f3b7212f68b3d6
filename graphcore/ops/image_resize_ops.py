"""The resize ops of tf.image (TF1): ResizeBilinear, ResizeNearestNeighbor, ResizeBicubic,
ResizeArea and their gradient ops, with ``resize_images`` (``tf.image.resize`` in TF1),
``ResizeMethod`` and ``resize_image_with_pad``."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import constant_value_as_shape
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops
from graphcore.ops.image_ops import (
    assert_,
    check_at_least_3d,
    image_dimensions,
    is_tensor,
    pad_to_bounding_box,
)

__all__ = [
    "ResizeMethod", "resize", "resize_area", "resize_bicubic", "resize_bilinear",
    "resize_image_with_pad", "resize_images", "resize_nearest_neighbor",
]

_RESIZE_TYPES = "{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}"


def _resize_shape(op: ops_lib.Operation) -> list:
    images = op.inputs[0].shape.with_rank(4).as_list()
    size = op.inputs[1].shape.with_rank(1)
    if size.as_list()[0] not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {size.as_list()[0]}")
    hw = constant_value_as_shape(op.inputs[1])
    dims = hw.as_list() if hw.ndims == 2 else [None, None]
    return [shape_lib.TensorShape([images[0], dims[0], dims[1], images[3]])]


def _resize_grad_shape(op: ops_lib.Operation) -> list:
    grads = op.inputs[0].shape.with_rank(4)
    return [op.inputs[1].shape.with_rank(4).merge_with(
        shape_lib.TensorShape([grads.as_list()[0], None, None, grads.as_list()[3]]))]


def _resize_op(op_type: str, out: str, half_pixel: bool = True,
               types: str = _RESIZE_TYPES) -> None:
    builder = op_registry.register_op(op_type).input("images: T").input("size: int32") \
        .output(f"resized_images: {out}").attr(f"T: {types}") \
        .attr("align_corners: bool = false")
    if half_pixel:
        builder.attr("half_pixel_centers: bool = false")
    builder.shape_fn(_resize_shape)


_resize_op("ResizeBilinear", "float")
_resize_op("ResizeNearestNeighbor", "T",
           types="{int8, uint8, int16, uint16, int32, int64, half, float, double, bfloat16}")
_resize_op("ResizeBicubic", "float")
_resize_op("ResizeArea", "float", half_pixel=False)

op_registry.register_op("ResizeBilinearGrad").input("grads: float") \
    .input("original_image: T").output("output: T").attr("T: {float, bfloat16, half, double}") \
    .attr("align_corners: bool = false").attr("half_pixel_centers: bool = false") \
    .shape_fn(_resize_grad_shape)
op_registry.register_op("ResizeBicubicGrad").input("grads: float") \
    .input("original_image: T").output("output: T").attr("T: {float, double}") \
    .attr("align_corners: bool = false").attr("half_pixel_centers: bool = false") \
    .shape_fn(_resize_grad_shape)
op_registry.register_op("ResizeNearestNeighborGrad").input("grads: T").input("size: int32") \
    .output("output: T").attr("T: {uint8, int8, int32, half, float, double, bfloat16}") \
    .attr("align_corners: bool = false").attr("half_pixel_centers: bool = false") \
    .shape_fn(_resize_shape)


def _resize(op_type: str, images: Any, size: Any, name: str | None,
            **attrs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, name=name, images=images, size=size, **attrs).outputs[0]


def resize_bilinear(images: Any, size: Any, align_corners: bool = False,
                    name: str | None = None, half_pixel_centers: bool = False) -> ops_lib.Tensor:
    """ResizeBilinear: ``images`` [batch, h, w, c] to ``size``, as float32."""
    return _resize("ResizeBilinear", images, size, name, align_corners=align_corners,
                   half_pixel_centers=half_pixel_centers)


def resize_nearest_neighbor(images: Any, size: Any, align_corners: bool = False,
                            name: str | None = None,
                            half_pixel_centers: bool = False) -> ops_lib.Tensor:
    """ResizeNearestNeighbor: ``images`` [batch, h, w, c] to ``size``, same dtype."""
    return _resize("ResizeNearestNeighbor", images, size, name, align_corners=align_corners,
                   half_pixel_centers=half_pixel_centers)


def resize_bicubic(images: Any, size: Any, align_corners: bool = False,
                   name: str | None = None, half_pixel_centers: bool = False) -> ops_lib.Tensor:
    """ResizeBicubic: ``images`` [batch, h, w, c] to ``size``, as float32."""
    return _resize("ResizeBicubic", images, size, name, align_corners=align_corners,
                   half_pixel_centers=half_pixel_centers)


def resize_area(images: Any, size: Any, align_corners: bool = False,
                name: str | None = None) -> ops_lib.Tensor:
    """ResizeArea: ``images`` [batch, h, w, c] to ``size`` by area averaging, as float32."""
    return _resize("ResizeArea", images, size, name, align_corners=align_corners)


class ResizeMethod:
    """TF1's resize methods (``tf.compat.v1.image.ResizeMethod``)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


# TF2's string names are accepted too, as TF1's resize_images does.
_METHODS = {
    ResizeMethod.BILINEAR: resize_bilinear, "bilinear": resize_bilinear,
    ResizeMethod.NEAREST_NEIGHBOR: resize_nearest_neighbor, "nearest": resize_nearest_neighbor,
    ResizeMethod.BICUBIC: resize_bicubic, "bicubic": resize_bicubic,
    ResizeMethod.AREA: resize_area, "area": resize_area,
}


def _static_aspect_size(size: ops_lib.Tensor, height: Any, width: Any) -> tuple | None:
    value = tensor_util.constant_value(size)
    if value is None or is_tensor(height) or is_tensor(width):
        return None
    f32 = np.float32
    scale = min(f32(value[0]) / f32(height), f32(value[1]) / f32(width))
    return int(np.round(scale * f32(height))), int(np.round(scale * f32(width)))


def _resize_images_common(images: Any, resizer_fn: Any, size: Any,
                          preserve_aspect_ratio: bool, name: str | None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "resize", [images, size]):
        images = convert_to_tensor(images, name="images")
        if images.shape.ndims is None:
            raise ValueError("'images' contains no shape.")
        is_batch = True
        if images.shape.ndims == 3:
            is_batch = False
            images = array_ops.expand_dims(images, 0)
        elif images.shape.ndims != 4:
            raise ValueError("'images' must have either 3 or 4 dimensions.")
        _, height, width, _ = images.shape.as_list()
        try:
            size = convert_to_tensor(size, dtypes_lib.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size.shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        if preserve_aspect_ratio:
            _, current_height, current_width, _ = image_dimensions(images, rank=4)
            f32 = dtypes_lib.float32
            scale_factor = math_ops.minimum(
                math_ops.cast(size[0], f32) / math_ops.cast(current_height, f32),
                math_ops.cast(size[1], f32) / math_ops.cast(current_width, f32))
            scaled_height = math_ops.cast(
                math_ops.round(scale_factor * math_ops.cast(current_height, f32)),
                dtypes_lib.int32)
            scaled_width = math_ops.cast(
                math_ops.round(scale_factor * math_ops.cast(current_width, f32)),
                dtypes_lib.int32)
            static_size = _static_aspect_size(size, current_height, current_width)
            size = convert_to_tensor([scaled_height, scaled_width], dtypes_lib.int32,
                                     name="size")
        hw = constant_value_as_shape(size)
        new_height, new_width = hw.as_list() if hw.ndims == 2 else (None, None)
        if preserve_aspect_ratio and static_size is not None:
            # TF folds the scaled size while building the graph; here it is worked out
            # in float32 the same way, for the static shape only.
            new_height, new_width = static_size
        if None not in (new_width, width, new_height, height) and \
                (width, height) == (new_width, new_height):
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        images = resizer_fn(images, size)
        images.set_shape([None, new_height, new_width, None])
        return images if is_batch else array_ops.squeeze(images, axis=[0])


def resize_images(images: Any, size: Any, method: Any = ResizeMethod.BILINEAR,
                  align_corners: bool = False, preserve_aspect_ratio: bool = False,
                  name: str | None = None) -> ops_lib.Tensor:
    """Resizes an image (or a batch) to ``size`` with ``method`` (TF1's tf.image.resize)."""

    def resize_fn(images_t: Any, new_size: Any) -> Any:
        if method not in _METHODS:
            raise ValueError(f"Resize method is not implemented: {method}")
        return _METHODS[method](images_t, new_size, align_corners=align_corners)

    return _resize_images_common(images, resize_fn, size, preserve_aspect_ratio, name)


resize = resize_images


def resize_image_with_pad(image: Any, target_height: Any, target_width: Any,
                          method: Any = ResizeMethod.BILINEAR,
                          align_corners: bool = False) -> ops_lib.Tensor:
    """Resizes an image keeping its aspect ratio, then zero-pads it to the target size."""
    with ops_lib.name_scope(None, "resize_image_with_pad", [image]):
        image = convert_to_tensor(image, name="image")
        is_batch = True
        if image.shape.ndims == 3:
            is_batch = False
            image = array_ops.expand_dims(image, 0)
        elif image.shape.ndims is None:
            is_batch = False
            image = array_ops.expand_dims(image, 0)
            image.set_shape([None] * 4)
        elif image.shape.ndims != 4:
            raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 "
                             "dimensions.")
        asserts = check_at_least_3d(image, require_static=False)
        asserts += assert_(target_width > 0, ValueError, "target_width must be > 0.")
        asserts += assert_(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(asserts, image)

        def max_(x: Any, y: Any) -> Any:
            return math_ops.maximum(x, y) if is_tensor(x) or is_tensor(y) else max(x, y)

        _, height, width, _ = image_dimensions(image, rank=4)
        f32 = dtypes_lib.float32
        f_height, f_width = math_ops.cast(height, f32), math_ops.cast(width, f32)
        f_target_height = math_ops.cast(target_height, f32)
        f_target_width = math_ops.cast(target_width, f32)
        ratio = max_(f_width / f_target_width, f_height / f_target_height)
        resized_height_float = f_height / ratio
        resized_width_float = f_width / ratio
        resized_height = math_ops.cast(math_ops.floor(resized_height_float), dtypes_lib.int32)
        resized_width = math_ops.cast(math_ops.floor(resized_width_float), dtypes_lib.int32)
        padding_height = (f_target_height - resized_height_float) / 2
        padding_width = (f_target_width - resized_width_float) / 2
        p_height = max_(0, math_ops.cast(math_ops.floor(padding_height), dtypes_lib.int32))
        p_width = max_(0, math_ops.cast(math_ops.floor(padding_width), dtypes_lib.int32))
        resized = resize_images(image, [resized_height, resized_width], method,
                                align_corners=align_corners)
        if not any(is_tensor(v) for v in (height, width, target_height, target_width)):
            # TF folds the resized size while building; worked out here in float32 alike.
            f = np.float32
            ratio = max(f(width) / f(target_width), f(height) / f(target_height))
            resized.set_shape([None, int(np.floor(f(height) / ratio)),
                               int(np.floor(f(width) / ratio)), None])
        padded = pad_to_bounding_box(resized, p_height, p_width, target_height, target_width)
        if padded.shape.ndims is None:
            raise ValueError("padded contains no shape.")
        image_dimensions(padded, rank=4)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])
