"""CPU kernels of the image codecs: PNG and BMP in numpy (png_codec), JPEG, GIF and WebP
through Pillow (libjpeg-turbo / Pillow's GIF reader: JPEG pixels may differ from TF's libjpeg build
by a few units), and DecodeImage dispatching on the magic bytes as TF does."""

from __future__ import annotations

import io
import struct

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import png_codec
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _contents(value) -> bytes:
    value = np.asarray(value, dtype=object)
    if value.ndim != 0:
        raise _invalid(f"contents must be scalar, got shape {list(value.shape)}")
    item = value.item()
    return item if isinstance(item, bytes) else str(item).encode()


def _check_channels(channels: int, allowed: tuple) -> None:
    if channels not in allowed:
        raise _invalid(f"channels must be {', '.join(map(str, allowed[:-1]))} or "
                       f"{allowed[-1]}, got {channels}")


def decode_png(data: bytes, channels: int, bits: int) -> np.ndarray:
    try:
        return png_codec.decode(data, channels, bits)
    except (png_codec.PngError, KeyError, ValueError) as e:
        raise _invalid(str(e) if str(e) else "Invalid PNG data") from None


def _pil():
    from PIL import Image

    return Image


def decode_jpeg(data: bytes, channels: int, ratio: int = 1, fancy_upscaling: bool = True,
                crop: tuple | None = None) -> np.ndarray:
    image_mod = _pil()
    try:
        image = image_mod.open(io.BytesIO(data))
        if image.format != "JPEG":
            raise OSError("not a JPEG")
        mode = "L" if channels == 1 or (channels == 0 and image.mode == "L") else "RGB"
        if ratio != 1:
            image.draft(mode, (image.size[0] // ratio, image.size[1] // ratio))
        elif mode == "L":
            image.draft("L", image.size)
        image = image.convert(mode)
        array = np.asarray(image, np.uint8)
    except (OSError, SyntaxError, ValueError) as e:
        raise _invalid(f"Invalid JPEG data or crop window, data size {len(data)}: {e}") \
            from None
    if array.ndim == 2:
        array = array[..., None]
    if crop is not None:
        y, x, h, w = crop
        if y < 0 or x < 0 or h <= 0 or w <= 0 or y + h > array.shape[0] or \
                x + w > array.shape[1]:
            raise _invalid("Invalid JPEG data or crop window.")
        array = array[y:y + h, x:x + w]
    return np.ascontiguousarray(array)


def _jpeg_factory(with_crop: bool):
    def factory(ctx: KernelContext):
        channels = int(ctx.attr("channels"))
        ratio = int(ctx.attr("ratio"))
        _check_channels(channels, (0, 1, 3))
        if ratio not in (1, 2, 4, 8):
            raise _invalid(f"ratio must be 1, 2, 4, or 8, got {ratio}")

        def compute(contents, crop_window=None):
            crop = None
            if with_crop:
                window = np.asarray(crop_window).reshape(-1)
                if window.shape != (4,):
                    raise _invalid("crop_window must be shape [4]")
                crop = tuple(int(v) for v in window)
            return (decode_jpeg(_contents(contents), channels, ratio, crop=crop),)

        return compute

    return factory


register_kernel("DecodeJpeg")(_jpeg_factory(False))
register_kernel("DecodeAndCropJpeg")(_jpeg_factory(True))


@register_kernel("DecodePng")
def _decode_png(ctx: KernelContext):
    channels = int(ctx.attr("channels"))
    if channels not in (0, 1, 3, 4):
        raise _invalid(f"`channels` must be 0, 1, 3 or 4 but got {channels}")
    bits = 16 if ctx.attr("dtype").name == "uint16" else 8

    def compute(contents):
        return (decode_png(_contents(contents), channels, bits),)

    return compute


def decode_bmp(data: bytes, channels: int) -> np.ndarray:
    if len(data) < 54 or data[:2] != b"BM":
        raise _invalid("Incomplete bmp content, requires at least 14 + 40 bytes")
    offset = struct.unpack("<I", data[10:14])[0]
    width, height, _, bpp = struct.unpack("<iiHH", data[18:30])
    if bpp not in (8, 24, 32):
        raise _invalid(f"Only 8, 24 and 32 bit BMP images are supported, got {bpp}")
    depth = bpp // 8
    top_down = height < 0
    height = abs(height)
    stride = (width * depth + 3) // 4 * 4
    if offset + stride * height > len(data):
        raise _invalid("Invalid bmp content, data size is too small")
    rows = np.frombuffer(data, np.uint8, stride * height, offset).reshape(height, stride)
    pixels = rows[:, :width * depth].reshape(height, width, depth)
    if not top_down:
        pixels = pixels[::-1]
    if depth >= 3:
        pixels = np.concatenate([pixels[..., 2::-1], pixels[..., 3:]], axis=-1)
    want = channels or depth
    if want == depth:
        return np.ascontiguousarray(pixels)
    if depth == 1:
        return np.repeat(pixels, want, axis=-1) if want == 3 else np.concatenate(
            [np.repeat(pixels, 3, axis=-1), np.full(pixels.shape, 255, np.uint8)], axis=-1)
    if want == 1:
        raise _invalid("Grayscale output of a colour BMP is not supported")
    if want == 3:
        return np.ascontiguousarray(pixels[..., :3])
    return np.concatenate([pixels, np.full(pixels.shape[:2] + (1,), 255, np.uint8)], axis=-1)


@register_kernel("DecodeBmp")
def _decode_bmp(ctx: KernelContext):
    channels = int(ctx.attr("channels"))
    _check_channels(channels, (0, 1, 3, 4))

    def compute(contents):
        return (decode_bmp(_contents(contents), channels),)

    return compute


def decode_gif(data: bytes) -> np.ndarray:
    image_mod = _pil()
    try:
        image = image_mod.open(io.BytesIO(data))
        if image.format != "GIF":
            raise OSError("not a GIF")
        frames = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            frames.append(np.asarray(image.convert("RGB"), np.uint8))
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise _invalid(f"Invalid GIF data (size {len(data)}), {e}") from None
    return np.stack(frames)


@register_kernel("DecodeGif")
def _decode_gif(ctx: KernelContext):
    def compute(contents):
        return (decode_gif(_contents(contents)),)

    return compute


def decode_webp(data: bytes, channels: int) -> np.ndarray:
    image_mod = _pil()
    try:
        image = image_mod.open(io.BytesIO(data))
        if image.format != "WEBP":
            raise OSError("not a WebP image")
        mode = "RGBA" if image.mode == "RGBA" or image.info.get("transparency") is not None \
            else "RGB"
        frames = []
        for index in range(getattr(image, "n_frames", 1)):
            image.seek(index)
            frames.append(np.asarray(image.convert(mode), np.uint8))
    except (OSError, SyntaxError, ValueError, EOFError) as e:
        raise _invalid(f"Error decoding WebP image: {e}") from None
    stacked = np.stack(frames)
    if channels not in (0, stacked.shape[-1]):
        raise _invalid("Number of channels requested does not match input")
    return stacked


@register_kernel("DecodeWebP", constraints={"dtype": ["uint8"]})
def _decode_webp(ctx: KernelContext):
    channels = int(ctx.attr("channels"))

    def compute(contents):
        return (decode_webp(_contents(contents), channels),)

    return compute


@register_kernel("DecodeImage")
def _decode_image(ctx: KernelContext):
    channels = int(ctx.attr("channels"))
    _check_channels(channels, (0, 1, 3, 4))
    dtype = ctx.attr("dtype").name
    expand = bool(ctx.attr("expand_animations"))

    def compute(contents):
        data = _contents(contents)
        bits = 16 if dtype == "uint16" else 8
        if data[:3] == b"\xff\xd8\xff":
            if channels == 4:
                raise _invalid("channels must be 0, 1, or 3 for JPEG, got 4")
            image = decode_jpeg(data, channels)
        elif data[:4] == b"\x89PNG":
            image = decode_png(data, channels, 16 if dtype != "uint8" else 8)
            bits = 16 if dtype != "uint8" else 8
        elif data[:3] == b"GIF":
            if channels not in (0, 3):
                raise _invalid(f"channels must be 0 or 3 for GIF, got {channels}")
            image = decode_gif(data)
            if not expand:
                image = image[0]
        elif data[:2] == b"BM":
            image = decode_bmp(data, channels)
        elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            if dtype != "uint8":
                raise _invalid("WebP only supports uint8 for dtype")
            image = decode_webp(data, channels)
            if not expand:
                image = image[0]
        else:
            raise _invalid("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP "
                           "required.")
        if dtype == "uint16" and image.dtype == np.uint8:
            # TF widens JPEG, GIF and BMP pixels by a shift (libpng's PNG expansion is *257).
            image = image.astype(np.uint16) << 8
        elif dtype == "float32":
            image = image.astype(np.float32) * np.float32(1.0 / ((1 << bits) - 1))
        return (image,)

    return compute


@register_kernel("EncodePng")
def _encode_png(ctx: KernelContext):
    compression = int(ctx.attr("compression"))
    if not -1 <= compression <= 9:
        raise _invalid(f"compression should be in [-1,9], got {compression}")

    def compute(image):
        image = np.asarray(image)
        if image.ndim < 3:
            raise _invalid(f"image must be at least 3-dimensional{list(image.shape)}")
        if image.shape[-1] not in (1, 2, 3, 4):
            raise _invalid(f"image must have 1, 2, 3, or 4 channels, got {image.shape[-1]}")
        flat = image.reshape((-1,) + image.shape[-3:])
        out = np.array([png_codec.encode(x, compression) for x in flat], dtype=object)
        return (out.reshape(image.shape[:-3]),)

    return compute


def encode_jpeg(image: np.ndarray, quality: int = 95, fmt: str = "", progressive: bool = False,
                optimize: bool = False, chroma_downsampling: bool = True,
                density_unit: str = "in", x_density: int = 300, y_density: int = 300,
                xmp: bytes = b"") -> bytes:
    image_mod = _pil()
    if image.ndim != 3:
        raise _invalid(f"image must be 3-dimensional{list(image.shape)}")
    channels = image.shape[-1]
    if fmt == "grayscale" and channels != 1 or fmt == "rgb" and channels != 3 or \
            channels not in (1, 3):
        raise _invalid(f"image must have 1 or 3 channels, got {list(image.shape)}")
    if not 0 <= quality <= 100:
        raise _invalid(f"quality must be in [0,100], got {quality}")
    pil = image_mod.fromarray(image[..., 0] if channels == 1 else image,
                              "L" if channels == 1 else "RGB")
    buffer = io.BytesIO()
    # A single component is written 1x1 (libjpeg's grayscale default): no subsampling.
    subsampling = 2 if chroma_downsampling and channels == 3 else 0
    options = {"quality": quality, "progressive": progressive, "optimize": optimize,
               "subsampling": subsampling, "dpi": (x_density, y_density)}
    if xmp:
        options["xmp"] = xmp
    pil.save(buffer, "JPEG", **options)
    data = bytearray(buffer.getvalue())
    if density_unit == "cm":
        # Pillow writes dots per inch; the JFIF header's unit byte says which (2: per cm).
        data[13] = 2
    return bytes(data)


@register_kernel("EncodeJpeg")
def _encode_jpeg(ctx: KernelContext):
    options = {"quality": int(ctx.attr("quality")), "fmt": ctx.attr("format").decode(),
               "progressive": bool(ctx.attr("progressive")),
               "optimize": bool(ctx.attr("optimize_size")),
               "chroma_downsampling": bool(ctx.attr("chroma_downsampling")),
               "density_unit": ctx.attr("density_unit").decode(),
               "x_density": int(ctx.attr("x_density")), "y_density": int(ctx.attr("y_density")),
               "xmp": ctx.attr("xmp_metadata")}

    def compute(image):
        return (np.array(encode_jpeg(np.asarray(image, np.uint8), **options), dtype=object),)

    return compute


@register_kernel("EncodeJpegVariableQuality")
def _encode_jpeg_variable_quality(ctx: KernelContext):
    def compute(images, quality):
        quality = np.asarray(quality)
        if quality.ndim != 0:
            raise _invalid(f"quality must be scalar: {list(quality.shape)}")
        return (np.array(encode_jpeg(np.asarray(images, np.uint8), int(quality)),
                         dtype=object),)

    return compute


@register_kernel("ExtractJpegShape")
def _extract_jpeg_shape(ctx: KernelContext):
    out_dtype = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(contents):
        data = _contents(contents)
        image_mod = _pil()
        try:
            image = image_mod.open(io.BytesIO(data))
            if image.format != "JPEG":
                raise OSError("not a JPEG")
        except (OSError, SyntaxError, ValueError) as e:
            raise _invalid(f"Invalid JPEG data, size {len(data)}: {e}") from None
        channels = {"L": 1, "RGB": 3, "CMYK": 4}.get(image.mode, 3)
        return (np.array([image.size[1], image.size[0], channels], out_dtype),)

    return compute
