"""tf.image's colour functions: RGBToHSV/HSVToRGB, AdjustContrastv2, AdjustHue,
AdjustSaturation ops; adjust_brightness/contrast/gamma/hue/saturation, their random_*
forms, grayscale and YIQ/YUV conversions (TF's ``image_ops_impl.py``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, linalg_ops, math_ops, random_ops
from graphcore.ops.image_ops import assert_, check_grayscale, convert_image_dtype

__all__ = [
    "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
    "grayscale_to_rgb", "hsv_to_rgb", "random_brightness", "random_contrast", "random_hue",
    "random_saturation", "rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv",
    "yiq_to_rgb", "yuv_to_rgb",
]


def _rgb_shape(op: ops_lib.Operation) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is not None:
        if shape.ndims < 1:
            raise ValueError(f"Shape must be at least rank 1 but is rank {shape.ndims}")
        last = shape.as_list()[-1]
        if last not in (None, 3):
            raise ValueError(f"Dimension must be 3 but is {last}")
        return [shape_lib.TensorShape(shape.as_list()[:-1] + [3])]
    return [shape]


def _at_least_3d(op: ops_lib.Operation) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is not None and shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.ndims}")
    for i in range(1, len(op.inputs)):
        scalar = op.inputs[i].shape
        if scalar.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {scalar.ndims}")
    return [shape]


for _name in ("RGBToHSV", "HSVToRGB"):
    op_registry.register_op(_name).input("images: T").output("output: T") \
        .attr("T: {half, bfloat16, float, double} = DT_FLOAT").shape_fn(_rgb_shape)
for _name, _arg in (("AdjustContrastv2", "contrast_factor"), ("AdjustHue", "delta"),
                    ("AdjustSaturation", "scale")):
    op_registry.register_op(_name).input("images: T").input(f"{_arg}: float") \
        .output("output: T").attr("T: {half, float} = DT_FLOAT").shape_fn(_at_least_3d)


def rgb_to_hsv(images: Any, name: str | None = None) -> ops_lib.Tensor:
    """RGBToHSV: RGB in [0, 1] (last axis) to hue, saturation, value in [0, 1]."""
    return apply_op("RGBToHSV", name=name, images=images).outputs[0]


def hsv_to_rgb(images: Any, name: str | None = None) -> ops_lib.Tensor:
    """HSVToRGB: the inverse of rgb_to_hsv."""
    return apply_op("HSVToRGB", name=name, images=images).outputs[0]


def _float_image(image: ops_lib.Tensor) -> ops_lib.Tensor:
    if image.dtype in (dtypes_lib.float16, dtypes_lib.float32):
        return image
    return convert_image_dtype(image, dtypes_lib.float32)


def adjust_brightness(image: Any, delta: Any) -> ops_lib.Tensor:
    """Adds ``delta`` to every pixel (in the image's float scale)."""
    with ops_lib.name_scope(None, "adjust_brightness", [image, delta]) as name:
        image = convert_to_tensor(image, name="image")
        flt_image = _float_image(image)
        adjusted = math_ops.add(flt_image, math_ops.cast(delta, flt_image.dtype), name=name)
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_contrast(images: Any, contrast_factor: Any) -> ops_lib.Tensor:
    """(x - mean) * contrast_factor + mean, per image and channel (AdjustContrastv2)."""
    with ops_lib.name_scope(None, "adjust_contrast", [images, contrast_factor]) as name:
        images = convert_to_tensor(images, name="images")
        adjusted = apply_op("AdjustContrastv2", name=name, images=_float_image(images),
                            contrast_factor=contrast_factor).outputs[0]
        return convert_image_dtype(adjusted, images.dtype, saturate=True)


def adjust_gamma(image: Any, gamma: Any = 1, gain: Any = 1) -> ops_lib.Tensor:
    """gain * image ** gamma (in the image's float scale)."""
    with ops_lib.name_scope(None, "adjust_gamma", [image, gamma, gain]):
        image = convert_to_tensor(image, name="image")
        flt_image = _float_image(image)
        assert_op = assert_(gamma >= 0, ValueError,
                            "Gamma should be a non-negative real number.")
        if assert_op:
            gamma = control_flow_ops.with_dependencies(assert_op, gamma)
        adjusted = gain * flt_image ** gamma
        return convert_image_dtype(adjusted, image.dtype, saturate=True)


def adjust_hue(image: Any, delta: Any, name: str | None = None) -> ops_lib.Tensor:
    """Rotates the hue of RGB images by ``delta`` (a fraction of the colour circle)."""
    with ops_lib.name_scope(name, "adjust_hue", [image]):
        image = convert_to_tensor(image, name="image")
        adjusted = apply_op("AdjustHue", images=_float_image(image), delta=delta).outputs[0]
        return convert_image_dtype(adjusted, image.dtype)


def adjust_saturation(image: Any, saturation_factor: Any,
                      name: str | None = None) -> ops_lib.Tensor:
    """Multiplies the saturation of RGB images by ``saturation_factor`` (clipped to 1)."""
    with ops_lib.name_scope(name, "adjust_saturation", [image]):
        image = convert_to_tensor(image, name="image")
        adjusted = apply_op("AdjustSaturation", images=_float_image(image),
                            scale=saturation_factor).outputs[0]
        return convert_image_dtype(adjusted, image.dtype)


def _check_range(lower: Any, upper: Any) -> None:
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")


def random_brightness(image: Any, max_delta: Any, seed: int | None = None) -> ops_lib.Tensor:
    """adjust_brightness by a delta drawn from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_brightness(image, delta)


def random_contrast(image: Any, lower: Any, upper: Any,
                    seed: int | None = None) -> ops_lib.Tensor:
    """adjust_contrast by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    contrast_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_contrast(image, contrast_factor)


def random_hue(image: Any, max_delta: Any, seed: int | None = None) -> ops_lib.Tensor:
    """adjust_hue by a delta drawn from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = random_ops.random_uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, delta)


def random_saturation(image: Any, lower: Any, upper: Any,
                      seed: int | None = None) -> ops_lib.Tensor:
    """adjust_saturation by a factor drawn from [lower, upper)."""
    _check_range(lower, upper)
    saturation_factor = random_ops.random_uniform([], lower, upper, seed=seed)
    return adjust_saturation(image, saturation_factor)


def rgb_to_grayscale(images: Any, name: str | None = None) -> ops_lib.Tensor:
    """Luma (0.2989 R + 0.5870 G + 0.1140 B) on a last axis of size 1."""
    with ops_lib.name_scope(name, "rgb_to_grayscale", [images]) as name:
        images = convert_to_tensor(images, name="images")
        flt_image = convert_image_dtype(images, dtypes_lib.float32)
        gray = linalg_ops.tensordot(flt_image, [0.2989, 0.5870, 0.1140], [-1, -1])
        gray = array_ops.expand_dims(gray, -1)
        return convert_image_dtype(gray, images.dtype, name=name)


def grayscale_to_rgb(images: Any, name: str | None = None) -> ops_lib.Tensor:
    """Repeats the single channel of grayscale images three times."""
    with ops_lib.name_scope(name, "grayscale_to_rgb", [images]) as name:
        images = convert_to_tensor(images, name="images")
        images = control_flow_ops.with_dependencies(check_grayscale(images), images)
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        multiples = array_ops.concat([array_ops.ones(rank_1, dtype=dtypes_lib.int32),
                                      array_ops.expand_dims(3, 0)], 0)
        rgb = array_ops.tile(images, multiples, name=name)
        rgb.set_shape(images.shape[:-1].concatenate([3]))
        return rgb


_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _color_matrix(images: Any, matrix: list) -> ops_lib.Tensor:
    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    ndims = images.shape.ndims
    return linalg_ops.tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images: Any) -> ops_lib.Tensor:
    """RGB to YIQ (last axis)."""
    return _color_matrix(images, _RGB_TO_YIQ)


def yiq_to_rgb(images: Any) -> ops_lib.Tensor:
    """YIQ to RGB (last axis)."""
    return _color_matrix(images, _YIQ_TO_RGB)


def rgb_to_yuv(images: Any) -> ops_lib.Tensor:
    """RGB to YUV (last axis)."""
    return _color_matrix(images, _RGB_TO_YUV)


def yuv_to_rgb(images: Any) -> ops_lib.Tensor:
    """YUV to RGB (last axis)."""
    return _color_matrix(images, _YUV_TO_RGB)
