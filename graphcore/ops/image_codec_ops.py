"""The image codecs of tf.image / tf.io: DecodePng/EncodePng, DecodeJpeg/EncodeJpeg/
EncodeJpegVariableQuality/DecodeAndCropJpeg/ExtractJpegShape, DecodeGif, DecodeWebP,
DecodeBmp, DecodeImage; with is_jpeg, decode_image, adjust_jpeg_quality and random_jpeg_quality."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import math_ops, random_ops, string_ops
from graphcore.ops.image_ops import convert_image_dtype, is_tensor

__all__ = [
    "adjust_jpeg_quality", "decode_and_crop_jpeg", "decode_bmp", "decode_gif", "decode_image",
    "decode_jpeg", "decode_png", "decode_webp", "encode_jpeg", "encode_png", "extract_jpeg_shape", "is_jpeg",
    "random_jpeg_quality",
]

_S = shape_lib.TensorShape


def _scalar_contents(op: ops_lib.Operation) -> None:
    op.inputs[0].shape.with_rank(0)


def _channels_dim(op: ops_lib.Operation) -> int | None:
    channels = op.get_attr("channels")
    if channels not in (0, 1, 2, 3, 4):
        raise ValueError(f"channels must be 0, 1, 2, 3 or 4, got {channels}")
    return channels or None


def _decode_shape(op: ops_lib.Operation) -> list:
    _scalar_contents(op)
    return [_S([None, None, _channels_dim(op)])]


_JPEG_ATTRS = ("channels: int = 0", "ratio: int = 1", "fancy_upscaling: bool = true",
               "try_recover_truncated: bool = false", "acceptable_fraction: float = 1",
               "dct_method: string = ''")


def _jpeg_op(op_type: str) -> op_registry.OpBuilder:
    builder = op_registry.register_op(op_type).input("contents: string")
    if op_type == "DecodeAndCropJpeg":
        builder.input("crop_window: int32")
    builder.output("image: uint8")
    for attr in _JPEG_ATTRS:
        builder.attr(attr)
    return builder.shape_fn(_decode_shape)


_jpeg_op("DecodeJpeg")
_jpeg_op("DecodeAndCropJpeg")
op_registry.register_op("DecodePng").input("contents: string").output("image: dtype") \
    .attr("channels: int = 0").attr("dtype: {uint8, uint16} = DT_UINT8") \
    .shape_fn(_decode_shape)
op_registry.register_op("DecodeWebP").input("contents: string").output("image: dtype") \
    .attr("channels: int = 0").attr("dtype: {uint8} = DT_UINT8") \
    .shape_fn(lambda op: (_scalar_contents(op),
                          [_S([None, None, None, op.get_attr("channels") or None])])[1])
op_registry.register_op("DecodeBmp").input("contents: string").output("image: uint8") \
    .attr("channels: int = 0").shape_fn(_decode_shape)
op_registry.register_op("DecodeGif").input("contents: string").output("image: uint8") \
    .shape_fn(lambda op: (_scalar_contents(op), [_S([None, None, None, 3])])[1])


def _decode_image_shape(op: ops_lib.Operation) -> list:
    _scalar_contents(op)
    channels = _channels_dim(op)
    if op.get_attr("expand_animations"):
        return [shape_lib.unknown_shape()]
    return [_S([None, None, channels])]


op_registry.register_op("DecodeImage").input("contents: string").output("image: dtype") \
    .attr("channels: int = 0").attr("dtype: {uint8, uint16, float} = DT_UINT8") \
    .attr("expand_animations: bool = true").shape_fn(_decode_image_shape)


def _encode_shape(op: ops_lib.Operation) -> list:
    shape = op.inputs[0].shape
    if shape.ndims is None:
        return [shape_lib.unknown_shape()]
    if shape.ndims < 3:
        raise ValueError(f"Shape must be at least rank 3 but is rank {shape.ndims}")
    return [_S(shape.as_list()[:-3])]


def _encode_jpeg_shape(op: ops_lib.Operation) -> list:
    op.inputs[0].shape.with_rank(3)
    return [_S([])]


op_registry.register_op("EncodePng").input("image: T").output("contents: string") \
    .attr("compression: int = -1").attr("T: {uint8, uint16} = DT_UINT8") \
    .shape_fn(_encode_shape)
_encode_jpeg = op_registry.register_op("EncodeJpeg").input("image: uint8") \
    .output("contents: string")
for _attr in ("format: {'', 'grayscale', 'rgb'} = ''", "quality: int = 95",
              "progressive: bool = false", "optimize_size: bool = false",
              "chroma_downsampling: bool = true", "density_unit: {'in', 'cm'} = 'in'",
              "x_density: int = 300", "y_density: int = 300", "xmp_metadata: string = ''"):
    _encode_jpeg.attr(_attr)
_encode_jpeg.shape_fn(_encode_jpeg_shape)
op_registry.register_op("EncodeJpegVariableQuality").input("images: uint8") \
    .input("quality: int32").output("contents: string").shape_fn(_encode_jpeg_shape)
op_registry.register_op("ExtractJpegShape").input("contents: string") \
    .output("image_shape: output_type").attr("output_type: {int32, int64} = DT_INT32") \
    .shape_fn(lambda op: (_scalar_contents(op), [_S([3])])[1])


def _op(op_type: str, name: str | None, **kwargs: Any) -> ops_lib.Tensor:
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def decode_png(contents: Any, channels: int = 0, dtype: Any = dtypes_lib.uint8,
               name: str | None = None) -> ops_lib.Tensor:
    """Decodes a PNG image to [height, width, channels] uint8 or uint16."""
    return _op("DecodePng", name, contents=contents, channels=channels, dtype=dtype)


def encode_png(image: Any, compression: int = -1, name: str | None = None) -> ops_lib.Tensor:
    """PNG-encodes a uint8 or uint16 [..., height, width, channels] image."""
    return _op("EncodePng", name, image=convert_to_tensor(image), compression=compression)


def decode_jpeg(contents: Any, channels: int = 0, ratio: int = 1, fancy_upscaling: bool = True,
                try_recover_truncated: bool = False, acceptable_fraction: float = 1,
                dct_method: str = "", name: str | None = None) -> ops_lib.Tensor:
    """Decodes a JPEG image to [height, width, channels] uint8."""
    return _op("DecodeJpeg", name, contents=contents, channels=channels, ratio=ratio,
               fancy_upscaling=fancy_upscaling, try_recover_truncated=try_recover_truncated,
               acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def decode_and_crop_jpeg(contents: Any, crop_window: Any, channels: int = 0, ratio: int = 1,
                         fancy_upscaling: bool = True, try_recover_truncated: bool = False,
                         acceptable_fraction: float = 1, dct_method: str = "",
                         name: str | None = None) -> ops_lib.Tensor:
    """Decodes the [y, x, height, width] ``crop_window`` of a JPEG image."""
    return _op("DecodeAndCropJpeg", name, contents=contents, crop_window=crop_window,
               channels=channels, ratio=ratio, fancy_upscaling=fancy_upscaling,
               try_recover_truncated=try_recover_truncated,
               acceptable_fraction=acceptable_fraction, dct_method=dct_method)


def encode_jpeg(image: Any, format: str = "", quality: int = 95,  # noqa: A002
                progressive: bool = False, optimize_size: bool = False,
                chroma_downsampling: bool = True, density_unit: str = "in",
                x_density: int = 300, y_density: int = 300, xmp_metadata: str = "",
                name: str | None = None) -> ops_lib.Tensor:
    """JPEG-encodes a uint8 [height, width, 1 or 3] image."""
    return _op("EncodeJpeg", name, image=image, format=format, quality=quality,
               progressive=progressive, optimize_size=optimize_size,
               chroma_downsampling=chroma_downsampling, density_unit=density_unit,
               x_density=x_density, y_density=y_density, xmp_metadata=xmp_metadata)


def extract_jpeg_shape(contents: Any, output_type: Any = dtypes_lib.int32,
                       name: str | None = None) -> ops_lib.Tensor:
    """[height, width, channels] of a JPEG image, read from its header."""
    return _op("ExtractJpegShape", name, contents=contents, output_type=output_type)


def decode_gif(contents: Any, name: str | None = None) -> ops_lib.Tensor:
    """Decodes the frames of a GIF to [num_frames, height, width, 3] uint8."""
    return _op("DecodeGif", name, contents=contents)


def decode_webp(contents: Any, channels: int = 0, dtype: Any = dtypes_lib.uint8,
                name: str | None = None) -> ops_lib.Tensor:
    """Decodes the frames of a WebP image to [num_frames, height, width, 3 or 4] uint8."""
    return _op("DecodeWebP", name, contents=contents, channels=channels, dtype=dtype)


def decode_bmp(contents: Any, channels: int = 0, name: str | None = None) -> ops_lib.Tensor:
    """Decodes a BMP image to [height, width, channels] uint8."""
    return _op("DecodeBmp", name, contents=contents, channels=channels)


def is_jpeg(contents: Any, name: str | None = None) -> ops_lib.Tensor:
    """Whether ``contents`` starts with JPEG's magic bytes."""
    with ops_lib.name_scope(name, "is_jpeg"):
        substr = string_ops.substr(contents, 0, 3)
        return math_ops.equal(substr, b"\xff\xd8\xff", name=name)


def decode_image(contents: Any, channels: int | None = None, dtype: Any = dtypes_lib.uint8,
                 name: str | None = None, expand_animations: bool = True) -> ops_lib.Tensor:
    """Decodes a BMP, GIF, JPEG or PNG image, whichever ``contents`` holds."""
    with ops_lib.name_scope(name, "decode_image"):
        channels = 0 if channels is None else channels
        dtype = dtypes_lib.as_dtype(dtype)
        decode_dtype = dtype if dtype in (dtypes_lib.float32, dtypes_lib.uint8,
                                          dtypes_lib.uint16) else dtypes_lib.uint16
        image = _op("DecodeImage", None, contents=contents, channels=channels,
                    expand_animations=expand_animations, dtype=decode_dtype)
        if decode_dtype != dtype:
            image = convert_image_dtype(image, dtype)
        if not expand_animations:
            image.set_shape([None, None, channels or None])
        return image


def adjust_jpeg_quality(image: Any, jpeg_quality: Any, dct_method: str = "",
                        name: str | None = None) -> ops_lib.Tensor:
    """The image after a JPEG round trip at ``jpeg_quality``."""
    with ops_lib.name_scope(name, "adjust_jpeg_quality", [image]):
        image = convert_to_tensor(image, name="image")
        channels = image.shape.as_list()[-1]
        orig_dtype = image.dtype
        image = convert_image_dtype(image, dtypes_lib.uint8, saturate=True)
        if not is_tensor(jpeg_quality):
            jpeg_quality = convert_to_tensor(jpeg_quality, dtype=dtypes_lib.int32)
        image = _op("EncodeJpegVariableQuality", None, images=image, quality=jpeg_quality)
        image = decode_jpeg(image, channels=channels or 0, dct_method=dct_method)
        return convert_image_dtype(image, orig_dtype, saturate=True)


def random_jpeg_quality(image: Any, min_jpeg_quality: int, max_jpeg_quality: int,
                        seed: int | None = None) -> ops_lib.Tensor:
    """adjust_jpeg_quality at a quality drawn from [min_jpeg_quality, max_jpeg_quality)."""
    if (min_jpeg_quality < 0 or max_jpeg_quality < 0 or min_jpeg_quality > 100 or
            max_jpeg_quality > 100):
        raise ValueError("jpeg encoding range must be between 0 and 100.")
    if min_jpeg_quality >= max_jpeg_quality:
        raise ValueError("`min_jpeg_quality` must be less than `max_jpeg_quality`.")
    jpeg_quality = random_ops.random_uniform([], min_jpeg_quality, max_jpeg_quality, seed=seed,
                                             dtype=dtypes_lib.int32)
    return adjust_jpeg_quality(image, jpeg_quality)
