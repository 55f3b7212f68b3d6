"""tf.image's geometry and pixel-value functions (TF's ``image_ops_impl.py``, first part):
flips, rot90, transpose, crops and pads, central_crop, resize_with_crop_or_pad,
convert_image_dtype, per_image_standardization, total_variation, image_gradients,
sobel_edges, psnr, ssim; plus the shape checks every image function shares."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops, random_ops

__all__ = [
    "central_crop", "convert_image_dtype", "crop_to_bounding_box", "flip_left_right",
    "flip_up_down", "image_gradients", "pad_to_bounding_box", "per_image_standardization",
    "psnr", "random_flip_left_right", "random_flip_up_down", "resize_image_with_crop_or_pad",
    "resize_with_crop_or_pad", "rot90", "sobel_edges", "ssim", "ssim_multiscale",
    "total_variation", "transpose", "transpose_image",
]

# -- shape checks shared by the image functions --------------------------------------------


def is_tensor(x: Any) -> bool:
    return tensor_util.is_tensor(x)


def assert_(cond: Any, ex_type: type, msg: str) -> list:
    """An Assert op when ``cond`` is a tensor, else raise ``ex_type`` now (TF's _assert)."""
    if is_tensor(cond):
        return [control_flow_ops.Assert(cond, [msg])]
    if not cond:
        raise ex_type(msg)
    return []


def image_dimensions(image: ops_lib.Tensor, rank: int) -> list:
    """Static dims where known, scalar tensors of the dynamic shape elsewhere."""
    if image.shape.is_fully_defined():
        return image.shape.as_list()
    static = image.shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def check_at_least_3d(image: ops_lib.Tensor, require_static: bool = True) -> list:
    try:
        if image.shape.ndims is None:
            image_shape = image.shape.with_rank(3)
        else:
            image_shape = image.shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError(f"'image' (shape {image.shape}) must be at least "
                         "three-dimensional.") from None
    if require_static and not image_shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(x == 0 for x in image_shape.as_list()[-3:]):
        raise ValueError(f"inner 3 dims of 'image.shape' must be > 0: {image_shape}")
    if not image_shape[-3:].is_fully_defined():
        return [
            check_ops.assert_positive(array_ops.shape(image)[-3:],
                                      ["inner 3 dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least "
                                                   "three-dimensional."),
        ]
    return []


def assert_at_least_3d(image: ops_lib.Tensor) -> ops_lib.Tensor:
    return control_flow_ops.with_dependencies(check_at_least_3d(image, require_static=False),
                                              image)


def check_grayscale(image: ops_lib.Tensor) -> list:
    try:
        if image.shape.ndims is None:
            image_shape = image.shape.with_rank(2)
        else:
            image_shape = image.shape.with_rank_at_least(2)
    except ValueError:
        raise ValueError(f"A grayscale image (shape {image.shape}) must be at least "
                         "two-dimensional.") from None
    if image_shape.is_fully_defined():
        if image_shape.as_list()[-1] != 1:
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        return []
    return [
        check_ops.assert_equal(array_ops.shape(image)[-1], 1,
                               message="Last dimension of a grayscale image should be size 1."),
        check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                       message="A grayscale image must be at least "
                                               "two-dimensional."),
    ]


def _by_rank(image: ops_lib.Tensor, f_rank3: Any, f_rank4: Any, what: str) -> Any:
    ndims = image.shape.ndims
    if ndims is None:
        return control_flow_ops.cond(math_ops.equal(array_ops.rank(image), 3), f_rank3, f_rank4)
    if ndims == 3:
        return f_rank3()
    if ndims == 4:
        return f_rank4()
    raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")


def _as_batch(image: ops_lib.Tensor) -> tuple[ops_lib.Tensor, bool]:
    """``image`` as a 4-D batch, and whether it was one."""
    ndims = image.shape.ndims
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if ndims != 4:
        raise ValueError(f"'image' (shape {image.shape}) must have either 3 or 4 dimensions.")
    return image, True


def _unbatch(image: ops_lib.Tensor, is_batch: bool) -> ops_lib.Tensor:
    return image if is_batch else array_ops.squeeze(image, axis=[0])


def _fix_flip_shape(image: ops_lib.Tensor, result: ops_lib.Tensor) -> ops_lib.Tensor:
    if image.shape.ndims is None:
        result.set_shape([None, None, None])
    else:
        result.set_shape(image.shape)
    return result


# -- flips, rotations, transposes ------------------------------------------------------------


def _flip(image: Any, flip_index: int, scope_name: str) -> ops_lib.Tensor:
    with ops_lib.name_scope(None, scope_name, [image]):
        image = assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(
            image,
            lambda: _fix_flip_shape(image, array_ops.reverse(image, [flip_index])),
            lambda: array_ops.reverse(image, [flip_index + 1]), scope_name)


def flip_left_right(image: Any) -> ops_lib.Tensor:
    """Flips an image (or a batch) horizontally."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image: Any) -> ops_lib.Tensor:
    """Flips an image (or a batch) vertically."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image: Any, flip_index: int, seed: Any, scope_name: str) -> ops_lib.Tensor:
    with ops_lib.name_scope(None, scope_name, [image]) as scope:
        image = assert_at_least_3d(convert_to_tensor(image, name="image"))

        def f_rank3():
            uniform_random = random_ops.random_uniform([], 0, 1.0, seed=seed)
            mirror_cond = math_ops.less(uniform_random, .5)
            result = control_flow_ops.cond(mirror_cond,
                                           lambda: array_ops.reverse(image, [flip_index]),
                                           lambda: image, name=scope)
            return _fix_flip_shape(image, result)

        def f_rank4():
            batch_size = array_ops.shape(image)[0]
            uniform_random = random_ops.random_uniform([batch_size], 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(uniform_random, [batch_size, 1, 1, 1]))
            flips = math_ops.cast(flips, image.dtype)
            flipped_input = array_ops.reverse(image, [flip_index + 1])
            return flips * flipped_input + (1 - flips) * image

        return _by_rank(image, f_rank3, f_rank4, scope_name)


def random_flip_up_down(image: Any, seed: int | None = None) -> ops_lib.Tensor:
    """Flips an image vertically with probability 1/2 (each image of a batch alone)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def random_flip_left_right(image: Any, seed: int | None = None) -> ops_lib.Tensor:
    """Flips an image horizontally with probability 1/2 (each image of a batch alone)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def _rot90(image: ops_lib.Tensor, k: ops_lib.Tensor, scope: str, batch: bool) -> ops_lib.Tensor:
    h, w = (1, 2) if batch else (0, 1)
    perm = [0, 2, 1, 3] if batch else [1, 0, 2]
    cases = [
        (math_ops.equal(k, 1),
         lambda: array_ops.transpose(array_ops.reverse(image, [w]), perm)),
        (math_ops.equal(k, 2), lambda: array_ops.reverse(image, [h, w])),
        (math_ops.equal(k, 3),
         lambda: array_ops.reverse(array_ops.transpose(image, perm), [w])),
    ]
    result = control_flow_ops.case(cases, default=lambda: image, exclusive=True, name=scope)
    if batch:
        shape = result.shape
        result.set_shape([shape[0], None, None, shape[3]])
    else:
        result.set_shape([None, None, image.shape[2]])
    return result


def rot90(image: Any, k: Any = 1, name: str | None = None) -> ops_lib.Tensor:
    """Rotates an image (or a batch) counter-clockwise by ``k`` times 90 degrees."""
    with ops_lib.name_scope(name, "rot90", [image, k]) as scope:
        image = assert_at_least_3d(convert_to_tensor(image, name="image"))
        k = convert_to_tensor(k, dtype=dtypes_lib.int32, name="k")
        k.shape.assert_has_rank(0)
        k = math_ops.floormod(k, 4)
        return _by_rank(image, lambda: _rot90(image, k, scope, False),
                        lambda: _rot90(image, k, scope, True), "rot90")


def transpose(image: Any, name: str | None = None) -> ops_lib.Tensor:
    """Swaps the height and width of an image (or a batch)."""
    with ops_lib.name_scope(name, "transpose", [image]):
        image = assert_at_least_3d(convert_to_tensor(image, name="image"))
        return _by_rank(image, lambda: array_ops.transpose(image, [1, 0, 2], name=name),
                        lambda: array_ops.transpose(image, [0, 2, 1, 3], name=name),
                        "transpose")


transpose_image = transpose

# -- crops and pads -------------------------------------------------------------------------


def central_crop(image: Any, central_fraction: Any) -> ops_lib.Tensor:
    """The central ``central_fraction`` of an image (or a batch), along height and width."""
    with ops_lib.name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        fraction_static = (tensor_util.constant_value(central_fraction)
                           if is_tensor(central_fraction) else central_fraction)
        if fraction_static is not None:
            if fraction_static <= 0.0 or fraction_static > 1.0:
                raise ValueError("central_fraction must be within (0, 1]")
            if fraction_static == 1.0:
                return image
        else:
            asserts = assert_(math_ops.logical_or(central_fraction > 0.0,
                                                  central_fraction <= 1.0),
                              ValueError, "central_fraction must be within (0, 1]")
            image = control_flow_ops.with_dependencies(asserts, image)
        assert_at_least_3d(image)
        rank = image.shape.ndims
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {rank}.")

        def get_dim(idx: int) -> tuple[Any, bool]:
            static = image.shape.as_list()[idx]
            if static is not None:
                return static, False
            return array_ops.shape(image)[idx], True

        off = 0 if rank == 3 else 1
        img_h, dynamic_h = get_dim(off)
        img_w, dynamic_w = get_dim(off + 1)
        img_d = image.shape[off + 2]

        def start(size: Any, dynamic: bool) -> Any:
            if dynamic or fraction_static is None:
                size_d = math_ops.cast(size, dtypes_lib.float64)
                return math_ops.cast(
                    (size_d - size_d * math_ops.cast(central_fraction, dtypes_lib.float64)) / 2,
                    dtypes_lib.int32)
            size_d = float(size)
            return int((size_d - size_d * fraction_static) / 2)

        dynamic_h = dynamic_h or fraction_static is None
        dynamic_w = dynamic_w or fraction_static is None
        h_start, w_start = start(img_h, dynamic_h), start(img_w, dynamic_w)
        h_size, w_size = img_h - h_start * 2, img_w - w_start * 2
        if rank == 3:
            begin = array_ops.stack([h_start, w_start, 0])
            size = array_ops.stack([h_size, w_size, -1])
        else:
            begin = array_ops.stack([0, h_start, w_start, 0])
            size = array_ops.stack([-1, h_size, w_size, -1])
        image = array_ops.slice(image, begin, size)
        dims = [None if dynamic_h else h_size, None if dynamic_w else w_size, img_d]
        image.set_shape(dims if rank == 3 else [image.shape[0]] + dims)
        return image


def pad_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                        target_height: Any, target_width: Any) -> ops_lib.Tensor:
    """Pads an image with zeros to ``target_height`` x ``target_width``, the image at
    (``offset_height``, ``offset_width``)."""
    with ops_lib.name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        batch, height, width, depth = image_dimensions(image, rank=4)
        after_padding_width = target_width - offset_width - width
        after_padding_height = target_height - offset_height - height
        asserts = check_at_least_3d(image, require_static=False)
        asserts += assert_(offset_height >= 0, ValueError, "offset_height must be >= 0")
        asserts += assert_(offset_width >= 0, ValueError, "offset_width must be >= 0")
        asserts += assert_(after_padding_width >= 0, ValueError,
                           "width must be <= target - offset")
        asserts += assert_(after_padding_height >= 0, ValueError,
                           "height must be <= target - offset")
        image = control_flow_ops.with_dependencies(asserts, image)
        paddings = array_ops.reshape(
            array_ops.stack([0, 0, offset_height, after_padding_height, offset_width,
                             after_padding_width, 0, 0]), [4, 2])
        padded = array_ops.pad(image, paddings)
        padded.set_shape([None if is_tensor(i) else i
                          for i in (batch, target_height, target_width, depth)])
        return _unbatch(padded, is_batch)


def crop_to_bounding_box(image: Any, offset_height: Any, offset_width: Any,
                         target_height: Any, target_width: Any) -> ops_lib.Tensor:
    """The ``target_height`` x ``target_width`` window of an image at
    (``offset_height``, ``offset_width``)."""
    with ops_lib.name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        asserts = check_at_least_3d(image, require_static=False)
        batch, height, width, depth = image_dimensions(image, rank=4)
        asserts += assert_(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        asserts += assert_(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        asserts += assert_(target_width > 0, ValueError, "target_width must be > 0.")
        asserts += assert_(target_height > 0, ValueError, "target_height must be > 0.")
        asserts += assert_(width >= (target_width + offset_width), ValueError,
                           "width must be >= target + offset.")
        asserts += assert_(height >= (target_height + offset_height), ValueError,
                           "height must be >= target + offset.")
        image = control_flow_ops.with_dependencies(asserts, image)
        cropped = array_ops.slice(
            image, array_ops.stack([0, offset_height, offset_width, 0]),
            array_ops.stack([array_ops.shape(image)[0], target_height, target_width,
                             array_ops.shape(image)[3]]))
        cropped.set_shape([None if is_tensor(i) else i
                           for i in (batch, target_height, target_width, depth)])
        return _unbatch(cropped, is_batch)


def _elementwise(py_fn: Any, tf_fn: Any) -> Any:
    def apply(x: Any, y: Any) -> Any:
        return tf_fn(x, y) if is_tensor(x) or is_tensor(y) else py_fn(x, y)
    return apply


_max = _elementwise(max, math_ops.maximum)
_min = _elementwise(min, math_ops.minimum)
_equal = _elementwise(lambda x, y: x == y, math_ops.equal)


def resize_image_with_crop_or_pad(image: Any, target_height: Any,
                                  target_width: Any) -> ops_lib.Tensor:
    """Crops or zero-pads an image (centrally) to ``target_height`` x ``target_width``."""
    with ops_lib.name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _as_batch(convert_to_tensor(image, name="image"))
        asserts = check_at_least_3d(image, require_static=False)
        asserts += assert_(target_width > 0, ValueError, "target_width must be > 0.")
        asserts += assert_(target_height > 0, ValueError, "target_height must be > 0.")
        image = control_flow_ops.with_dependencies(asserts, image)
        if is_tensor(target_height):
            target_height = control_flow_ops.with_dependencies(asserts, target_height)
        if is_tensor(target_width):
            target_width = control_flow_ops.with_dependencies(asserts, target_width)
        _, height, width, _ = image_dimensions(image, rank=4)
        width_diff = target_width - width
        offset_crop_width = _max(-width_diff // 2, 0)
        offset_pad_width = _max(width_diff // 2, 0)
        height_diff = target_height - height
        offset_crop_height = _max(-height_diff // 2, 0)
        offset_pad_height = _max(height_diff // 2, 0)
        cropped = crop_to_bounding_box(image, offset_crop_height, offset_crop_width,
                                       _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width,
                                      target_height, target_width)
        if resized.shape.ndims is None:
            raise ValueError("resized contains no shape.")
        _, resized_height, resized_width, _ = image_dimensions(resized, rank=4)
        asserts = assert_(_equal(resized_height, target_height), ValueError,
                          "resized height is not correct.")
        asserts += assert_(_equal(resized_width, target_width), ValueError,
                           "resized width is not correct.")
        resized = control_flow_ops.with_dependencies(asserts, resized)
        return _unbatch(resized, is_batch)


resize_with_crop_or_pad = resize_image_with_crop_or_pad

# -- pixel values ---------------------------------------------------------------------------


def convert_image_dtype(image: Any, dtype: Any, saturate: bool = False,
                        name: str | None = None) -> ops_lib.Tensor:
    """Converts pixel values between dtypes: floats in [0, 1), integers in [0, MAX]."""
    image = convert_to_tensor(image, name="image")
    dtype = dtypes_lib.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if not image.dtype.is_floating and not image.dtype.is_integer:
        raise AttributeError("image dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    with ops_lib.name_scope(name, "convert_image", [image]) as name:
        cast = math_ops.saturate_cast if saturate else math_ops.cast
        if image.dtype.is_integer and dtype.is_integer:
            scale_in, scale_out = image.dtype.max, dtype.max
            if scale_in > scale_out:
                scale = (scale_in + 1) // (scale_out + 1)
                return cast(math_ops.floordiv(image, scale), dtype, name=name)
            return math_ops.multiply(cast(image, dtype), (scale_out + 1) // (scale_in + 1),
                                     name=name)
        if image.dtype.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=name)
        if image.dtype.is_integer:
            return math_ops.multiply(math_ops.cast(image, dtype), 1. / image.dtype.max,
                                     name=name)
        # max + 0.5 so that the cast rounds (TF's rule).
        scaled = math_ops.multiply(image, dtype.max + 0.5)
        return cast(scaled, dtype, name=name)


def per_image_standardization(image: Any) -> ops_lib.Tensor:
    """(image - mean) / max(stddev, 1/sqrt(num_pixels)), per image, as float32."""
    from graphcore.ops import math_compat

    with ops_lib.name_scope(None, "per_image_standardization", [image]) as scope:
        image = assert_at_least_3d(convert_to_tensor(image, name="image"))
        image = math_ops.cast(image, dtype=dtypes_lib.float32)
        num_pixels = math_ops.reduce_prod(array_ops.shape(image)[-3:])
        image_mean = math_ops.reduce_mean(image, axis=[-1, -2, -3], keepdims=True)
        stddev = math_compat.reduce_std(image, axis=[-1, -2, -3], keepdims=True)
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes_lib.float32))
        adjusted_stddev = math_ops.maximum(stddev, min_stddev)
        image -= image_mean
        return math_ops.divide(image, adjusted_stddev, name=scope)


# -- image metrics --------------------------------------------------------------------------


def total_variation(images: Any, name: str | None = None) -> ops_lib.Tensor:
    """The sum of absolute differences of neighbouring pixels, per image."""
    with ops_lib.name_scope(name, "total_variation"):
        ndims = images.get_shape().ndims
        if ndims == 3:
            pixel_dif1 = images[1:, :, :] - images[:-1, :, :]
            pixel_dif2 = images[:, 1:, :] - images[:, :-1, :]
            sum_axis = None
        elif ndims == 4:
            pixel_dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            pixel_dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            sum_axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (math_ops.reduce_sum(math_ops.abs(pixel_dif1), axis=sum_axis) +
                math_ops.reduce_sum(math_ops.abs(pixel_dif2), axis=sum_axis))


def image_gradients(image: Any) -> tuple[ops_lib.Tensor, ops_lib.Tensor]:
    """(dy, dx): forward differences along height and width, zero in the last row/column."""
    if image.get_shape().ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{image.get_shape()}.")
    image_shape = array_ops.shape(image)
    batch_size, height, width, depth = array_ops.unstack(image_shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    shape = array_ops.stack([batch_size, 1, width, depth])
    dy = array_ops.concat([dy, array_ops.zeros(shape, image.dtype)], 1)
    dy = array_ops.reshape(dy, image_shape)
    shape = array_ops.stack([batch_size, height, 1, depth])
    dx = array_ops.concat([dx, array_ops.zeros(shape, image.dtype)], 2)
    dx = array_ops.reshape(dx, image_shape)
    return dy, dx


def _depthwise_conv2d(x: Any, kernel: Any) -> ops_lib.Tensor:
    from graphcore.ops import nn_convolution_ops

    return nn_convolution_ops.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")


def sobel_edges(image: Any) -> ops_lib.Tensor:
    """The Sobel (dy, dx) responses of each channel, stacked on a new last axis."""
    static_image_shape = image.get_shape()
    image_shape = array_ops.shape(image)
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                        [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)
    kernels_tf = array_ops.constant(kernels, dtype=image.dtype)
    kernels_tf = array_ops.tile(kernels_tf, [1, 1, image_shape[-1], 1], name="sobel_filters")
    padded = array_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    output = _depthwise_conv2d(padded, kernels_tf)
    shape = array_ops.concat([image_shape, [2]], 0)
    output = array_ops.reshape(output, shape=shape)
    output.set_shape(static_image_shape.concatenate([2]))
    return output


def _verify_compatible_image_shapes(img1: ops_lib.Tensor, img2: ops_lib.Tensor) -> tuple:
    shape1 = img1.get_shape().with_rank_at_least(3)
    shape2 = img2.get_shape().with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for dim1, dim2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (dim1 == 1 or dim2 == 1 or dim1.is_compatible_with(dim2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        control_flow_ops.Assert(math_ops.greater_equal(array_ops.size(shape1), 3),
                                [shape1, shape2], summarize=10),
        control_flow_ops.Assert(math_ops.reduce_all(math_ops.equal(shape1[-3:], shape2[-3:])),
                                [shape1, shape2], summarize=10),
    ]
    return shape1, shape2, checks


def psnr(a: Any, b: Any, max_val: Any, name: str | None = None) -> ops_lib.Tensor:
    """Peak signal-to-noise ratio between two images (or batches), in dB."""
    with ops_lib.name_scope(name, "PSNR", [a, b]):
        max_val = math_ops.cast(max_val, a.dtype)
        max_val = convert_image_dtype(max_val, dtypes_lib.float32)
        a = convert_image_dtype(a, dtypes_lib.float32)
        b = convert_image_dtype(b, dtypes_lib.float32)
        mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        psnr_val = math_ops.subtract(
            20 * math_ops.log(max_val) / math_ops.log(10.0),
            np.float32(10 / np.log(10)) * math_ops.log(mse), name="psnr")
        _, _, checks = _verify_compatible_image_shapes(a, b)
        with ops_lib.control_dependencies(checks):
            return array_ops.identity(psnr_val)


def _ssim_helper(x: Any, y: Any, reducer: Any, max_val: Any, compensation: float = 1.0,
                 k1: float = 0.01, k2: float = 0.03) -> tuple:
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean0 = reducer(x)
    mean1 = reducer(y)
    num0 = mean0 * mean1 * 2.0
    den0 = math_ops.square(mean0) + math_ops.square(mean1)
    luminance = (num0 + c1) / (den0 + c1)
    num1 = reducer(x * y) * 2.0
    den1 = reducer(math_ops.square(x) + math_ops.square(y))
    c2 *= compensation
    cs = (num1 - num0 + c2) / (den1 - den0 + c2)
    return luminance, cs


def _fspecial_gauss(size: Any, sigma: Any) -> ops_lib.Tensor:
    from graphcore.ops import nn_ops

    size = convert_to_tensor(size, dtypes_lib.int32)
    sigma = convert_to_tensor(sigma)
    coords = math_ops.cast(math_ops.range(size), sigma.dtype)
    coords -= math_ops.cast(size - 1, sigma.dtype) / 2.0
    g = math_ops.square(coords)
    g *= -0.5 / math_ops.square(sigma)
    g = array_ops.reshape(g, shape=[1, -1]) + array_ops.reshape(g, shape=[-1, 1])
    g = array_ops.reshape(g, shape=[1, -1])
    g = nn_ops.softmax(g)
    return array_ops.reshape(g, shape=[size, size, 1, 1])


def _ssim_per_channel(img1: Any, img2: Any, max_val: Any = 1.0, filter_size: int = 11,
                      filter_sigma: float = 1.5, k1: float = 0.01, k2: float = 0.03,
                      return_index_map: bool = False) -> tuple:
    filter_size = array_ops.constant(filter_size, dtype=dtypes_lib.int32)
    filter_sigma = array_ops.constant(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [
        control_flow_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape1[-3:-1], filter_size)),
            [shape1, filter_size], summarize=8),
        control_flow_ops.Assert(
            math_ops.reduce_all(math_ops.greater_equal(shape2[-3:-1], filter_size)),
            [shape2, filter_size], summarize=8),
    ]
    with ops_lib.control_dependencies(checks):
        img1 = array_ops.identity(img1)
    kernel = _fspecial_gauss(filter_size, filter_sigma)
    kernel = array_ops.tile(kernel, multiples=[1, 1, shape1[-1], 1])

    def reducer(x: Any) -> Any:
        shape = array_ops.shape(x)
        x = array_ops.reshape(x, shape=array_ops.concat([[-1], shape[-3:]], 0))
        y = _depthwise_conv2d(x, kernel)
        return array_ops.reshape(y, array_ops.concat([shape[:-3], array_ops.shape(y)[1:]], 0))

    luminance, cs = _ssim_helper(img1, img2, reducer, max_val, 1.0, k1, k2)
    if return_index_map:
        return luminance * cs, cs
    axes = array_ops.constant([-3, -2], dtype=dtypes_lib.int32)
    return math_ops.reduce_mean(luminance * cs, axes), math_ops.reduce_mean(cs, axes)


def _ssim_inputs(img1: Any, img2: Any, max_val: Any) -> tuple:
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    shape1, shape2, checks = _verify_compatible_image_shapes(img1, img2)
    with ops_lib.control_dependencies(checks):
        img1 = array_ops.identity(img1)
    max_val = math_ops.cast(max_val, img1.dtype)
    max_val = convert_image_dtype(max_val, dtypes_lib.float32)
    img1 = convert_image_dtype(img1, dtypes_lib.float32)
    img2 = convert_image_dtype(img2, dtypes_lib.float32)
    return img1, img2, max_val, shape1, shape2


def ssim(img1: Any, img2: Any, max_val: Any, filter_size: int = 11, filter_sigma: float = 1.5,
         k1: float = 0.01, k2: float = 0.03, return_index_map: bool = False) -> ops_lib.Tensor:
    """Structural similarity between two images (or batches), Gaussian-windowed."""
    with ops_lib.name_scope(None, "SSIM", [img1, img2]):
        img1, img2, max_val, _, _ = _ssim_inputs(img1, img2, max_val)
        ssim_per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size,
                                                filter_sigma, k1, k2, return_index_map)
        return math_ops.reduce_mean(ssim_per_channel, [-1])


_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1: Any, img2: Any, max_val: Any, power_factors: Any = _MSSSIM_WEIGHTS,
                    filter_size: int = 11, filter_sigma: float = 1.5, k1: float = 0.01,
                    k2: float = 0.03) -> ops_lib.Tensor:
    """Multi-scale SSIM: SSIM at ``len(power_factors)`` scales, each half the last."""
    from graphcore.ops import nn_ops, nn_pool_ops

    with ops_lib.name_scope(None, "MS-SSIM", [img1, img2]):
        img1, img2, max_val, shape1, shape2 = _ssim_inputs(img1, img2, max_val)
        imgs = [img1, img2]
        heads = [s[:-3] for s in (shape1, shape2)]
        tails = [s[-3:] for s in (shape1, shape2)]
        divisor = [1, 2, 2, 1]
        divisor_tensor = array_ops.constant(divisor[1:], dtype=dtypes_lib.int32)

        def do_pad(images: list, remainder: Any) -> list:
            padding = array_ops.expand_dims(remainder, -1)
            padding = array_ops.pad(padding, [[1, 0], [1, 0]])
            return [array_ops.pad(x, padding, mode="SYMMETRIC") for x in images]

        mcs = []
        for k in range(len(power_factors)):
            with ops_lib.name_scope(None, "Scale%d" % k, imgs):
                if k > 0:
                    flat_imgs = [array_ops.reshape(x, array_ops.concat([[-1], t], 0))
                                 for x, t in zip(imgs, tails)]
                    remainder = tails[0] % divisor_tensor
                    need_padding = math_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = control_flow_ops.cond(
                        need_padding, lambda f=flat_imgs, r=remainder: do_pad(f, r),
                        lambda f=flat_imgs: f)
                    downscaled = [nn_pool_ops.avg_pool(x, ksize=divisor, strides=divisor,
                                                       padding="VALID") for x in padded]
                    tails = [x[1:] for x in array_ops.shape_n(downscaled)]
                    imgs = [array_ops.reshape(x, array_ops.concat([h, t], 0))
                            for x, h, t in zip(downscaled, heads, tails)]
                ssim_per_channel, cs = _ssim_per_channel(
                    *imgs, max_val=max_val, filter_size=filter_size, filter_sigma=filter_sigma,
                    k1=k1, k2=k2)
                mcs.append(nn_ops.relu(cs))
        mcs.pop()
        mcs_and_ssim = array_ops.stack(mcs + [nn_ops.relu(ssim_per_channel)], axis=-1)
        ms_ssim = math_ops.reduce_prod(math_ops.pow(mcs_and_ssim, power_factors), [-1])
        return math_ops.reduce_mean(ms_ssim, [-1])
