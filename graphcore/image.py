"""tf.image: image ops (TF1's ``tf.compat.v1.image``)."""

# ruff: noqa: F401
from graphcore.ops.image_box_ops import (
    combined_non_max_suppression,
    crop_and_resize,
    draw_bounding_boxes,
    extract_glimpse,
    extract_patches,
    non_max_suppression,
    non_max_suppression_overlaps,
    non_max_suppression_with_scores,
    sample_distorted_bounding_box,
)
from graphcore.ops.image_codec_ops import (
    adjust_jpeg_quality,
    decode_and_crop_jpeg,
    decode_bmp,
    decode_gif,
    decode_image,
    decode_jpeg,
    decode_png,
    encode_jpeg,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
    random_jpeg_quality,
)
from graphcore.ops.image_color_ops import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    grayscale_to_rgb,
    hsv_to_rgb,
    random_brightness,
    random_contrast,
    random_hue,
    random_saturation,
    rgb_to_grayscale,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    yiq_to_rgb,
    yuv_to_rgb,
)
from graphcore.ops.image_ops import (
    central_crop,
    convert_image_dtype,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    image_gradients,
    pad_to_bounding_box,
    per_image_standardization,
    psnr,
    random_flip_left_right,
    random_flip_up_down,
    resize_image_with_crop_or_pad,
    resize_with_crop_or_pad,
    rot90,
    total_variation,
    transpose,
    transpose_image,
)
from graphcore.ops.image_resize_ops import (
    ResizeMethod,
    resize,
    resize_area,
    resize_bicubic,
    resize_bilinear,
    resize_image_with_pad,
    resize_images,
    resize_nearest_neighbor,
)
from graphcore.ops.random_distribution_ops import random_crop
from graphcore.ops.space_ops import extract_image_patches
