"""Reference tier: the image codecs of tf.image / tf.io against TensorFlow's compat.v1.

PNG, BMP, GIF and WebP decode exactly as TF's; PNG and JPEG encode to TF's very bytes.
JPEG decodes through Pillow's libjpeg-turbo here, whose DCT is TF's INTEGER_ACCURATE one,
not TF's default INTEGER_FAST: decoded JPEG pixels are compared within a few units
(JPEG_ATOL, JPEG_FAST_ATOL). Skipped without TensorFlow."""

import io
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
Image = pytest.importorskip("PIL.Image")
tf1 = tf_ref.compat.v1

JPEG_ATOL = 4
# TF's default DCT ("" = INTEGER_FAST) against libjpeg-turbo's accurate one in Pillow.
JPEG_FAST_ATOL = 12
RNG = np.random.default_rng(11)
SMOOTH = np.clip(np.add.outer(np.arange(12) * 18, np.arange(16) * 12)[..., None] +
                 np.array([0, 40, 80]), 0, 255).astype(np.uint8)


def _image(channels, dtype=np.uint8, shape=(7, 9)):
    high = 65536 if dtype == np.uint16 else 256
    return RNG.integers(0, high, size=shape + (channels,)).astype(dtype)


def _run(lib, build, feed_value=None):
    with lib.Graph().as_default():
        out = build(lib)
        with lib.Session() as sess:
            return sess.run(out)


def _pil_bytes(array, fmt, **options):
    buffer = io.BytesIO()
    Image.fromarray(array).save(buffer, fmt, **options)
    return buffer.getvalue()


PNG_IMAGES = {
    "u8_gray": _image(1), "u8_gray_alpha": _image(2), "u8_rgb": _image(3),
    "u8_rgba": _image(4), "u16_gray": _image(1, np.uint16), "u16_rgb": _image(3, np.uint16),
    "u16_rgba": _image(4, np.uint16, (3, 5)),
}


@pytest.mark.parametrize("key", sorted(PNG_IMAGES))
@pytest.mark.parametrize("compression", [-1, 0, 9])
def test_png_round_trips_with_tf(key, compression):
    image = PNG_IMAGES[key]
    dtype = "uint16" if image.dtype == np.uint16 else "uint8"
    ours = _run(tf, lambda t: t.image.encode_png(image, compression=compression))
    theirs = _run(tf1, lambda t: t.image.encode_png(image, compression=compression))
    assert isinstance(ours, bytes) and ours == theirs
    for data in (ours, theirs):
        for lib in (tf, tf1):
            decoded = _run(lib, lambda t, d=data: t.io.decode_png(d, dtype=getattr(t, dtype)))
            assert decoded.dtype == image.dtype
            np.testing.assert_array_equal(decoded, image)


def _png_sources():
    gray = _image(1)
    sources = {f"tf_{k}": _run(tf1, lambda t, v=v: t.image.encode_png(v))
               for k, v in PNG_IMAGES.items()}
    palette = Image.fromarray(_image(3)).quantize(7)
    buffer = io.BytesIO()
    palette.save(buffer, "PNG", transparency=2)
    sources["pil_palette_trns"] = buffer.getvalue()
    sources["pil_palette"] = _pil_bytes(np.asarray(palette.convert("RGB")), "PNG")
    sources["pil_1bit"] = _pil_bytes((gray[..., 0] > 128), "PNG")
    buffer = io.BytesIO()
    Image.fromarray(gray[..., 0]).convert("P").save(buffer, "PNG", bits=4)
    sources["pil_4bit_palette"] = buffer.getvalue()
    return sources


PNG_SOURCES = _png_sources()


@pytest.mark.parametrize("key", sorted(PNG_SOURCES))
@pytest.mark.parametrize("channels", [0, 1, 3, 4])
@pytest.mark.parametrize("dtype", ["uint8", "uint16"])
def test_decode_png_matches_tf(key, channels, dtype):
    data = PNG_SOURCES[key]

    def build(t):
        out = t.image.decode_png(data, channels=channels, dtype=getattr(t, dtype))
        return out, t.io.decode_image(data, channels=channels, dtype=getattr(t, dtype))

    ours, theirs = _run(tf, build), _run(tf1, build)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        # libpng's rgb-to-gray rounds through its gamma tables: one unit apart at most.
        atol = 257 if dtype == "uint16" and channels == 1 else int(channels == 1)
        np.testing.assert_allclose(a.astype(np.int64), b.astype(np.int64), atol=atol)


JPEG_SOURCES = {
    "tf_rgb_q90": lambda: _run(tf1, lambda t: t.image.encode_jpeg(SMOOTH, quality=90)),
    "tf_gray": lambda: _run(tf1, lambda t: t.image.encode_jpeg(SMOOTH[..., :1])),
    "pil_rgb_444": lambda: _pil_bytes(SMOOTH, "JPEG", quality=85, subsampling=0),
    "pil_progressive": lambda: _pil_bytes(SMOOTH, "JPEG", progressive=True),
}


@pytest.mark.parametrize("key", sorted(JPEG_SOURCES))
def test_decode_jpeg_matches_tf_within_tolerance(key):
    data = JPEG_SOURCES[key]()

    accurate = "INTEGER_ACCURATE"

    def build(t):
        return [t.image.decode_jpeg(data, dct_method=accurate),
                t.image.decode_jpeg(data, channels=3, dct_method=accurate),
                t.io.decode_jpeg(data, channels=1, dct_method=accurate),
                t.image.decode_and_crop_jpeg(data, [2, 3, 6, 8], dct_method=accurate),
                t.image.extract_jpeg_shape(data), t.io.extract_jpeg_shape(data, t.int64),
                t.image.is_jpeg(data), t.io.is_jpeg(b"\x89PNG..."),
                t.image.decode_jpeg(data, ratio=2, dct_method=accurate),
                t.image.decode_jpeg(data, channels=1, ratio=8, dct_method=accurate),
                t.image.decode_jpeg(data), t.image.decode_image(data, dtype=t.float32) * 255.0,
                t.cast(t.image.decode_image(data, dtype=t.uint16) // 256, t.int32)]

    ours, theirs = _run(tf, build), _run(tf1, build)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64),
                                   atol=JPEG_ATOL if i < 10 else JPEG_FAST_ATOL)


@pytest.mark.parametrize("options", [
    {}, {"quality": 40}, {"format": "rgb", "chroma_downsampling": False},
    {"progressive": True, "optimize_size": True}, {"quality": 100},
    {"density_unit": "cm", "x_density": 72, "y_density": 100},
    {"xmp_metadata": "<x:xmpmeta>graphcore</x:xmpmeta>"}, {"gray": True},
    {"gray": True, "format": "grayscale", "progressive": True, "quality": 50}])
def test_encode_jpeg_writes_tfs_bytes(options):
    options = dict(options)
    image = SMOOTH[..., :1] if options.pop("gray", False) else SMOOTH
    ours = _run(tf, lambda t: t.image.encode_jpeg(image, **options))
    theirs = _run(tf1, lambda t: t.image.encode_jpeg(image, **options))
    # Both are libjpeg-turbo with the same settings: the very same bytes.
    assert ours == theirs


def test_adjust_jpeg_quality_matches_tf_within_tolerance():
    image = SMOOTH.astype(np.float32) / 255.0

    def build(t):
        return [t.image.adjust_jpeg_quality(image, 60, dct_method="INTEGER_ACCURATE"),
                t.image.adjust_jpeg_quality(SMOOTH, t.constant(95),
                                            dct_method="INTEGER_ACCURATE")]

    for a, b in zip(_run(tf, build), _run(tf1, build)):
        assert a.dtype == b.dtype and a.shape == b.shape
        scale = 255.0 if a.dtype == np.float32 else 1.0
        np.testing.assert_allclose(a * scale, b * scale, atol=JPEG_ATOL)


def _gif_bytes():
    frames = [Image.fromarray(_image(3, shape=(6, 8))).quantize(16) for _ in range(3)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=10)
    return buffer.getvalue()


GIF = _gif_bytes()


def test_decode_gif_matches_tf():
    def build(t):
        return [t.image.decode_gif(GIF), t.io.decode_image(GIF),
                t.image.decode_image(GIF, expand_animations=False),
                t.image.decode_image(GIF, dtype=t.float16)]

    for a, b in zip(_run(tf, build), _run(tf1, build)):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b)


def _webp_sources():
    rgba = np.concatenate([SMOOTH, SMOOTH[..., :1]], axis=-1)
    frames = [Image.fromarray(SMOOTH), Image.fromarray(SMOOTH[::-1].copy())]
    buffer = io.BytesIO()
    frames[0].save(buffer, "WEBP", save_all=True, append_images=frames[1:], lossless=True)
    return {"rgb_lossless": _pil_bytes(SMOOTH, "WEBP", lossless=True),
            "rgb_lossy": _pil_bytes(SMOOTH, "WEBP", quality=70),
            "rgba_lossy": _pil_bytes(rgba, "WEBP", quality=80),
            "animated": buffer.getvalue()}


WEBP_SOURCES = _webp_sources()


@pytest.mark.parametrize("key", sorted(WEBP_SOURCES))
@pytest.mark.parametrize("channels", [0, 3, 4])
def test_decode_webp_matches_tf(key, channels):
    data = WEBP_SOURCES[key]
    builds = [lambda t: t.io.decode_webp(data, channels=channels),
              lambda t: t.image.decode_image(data, channels),
              lambda t: t.io.decode_image(data, channels, expand_animations=False),
              lambda t: t.io.decode_image(data, channels, t.float32)]
    for build in builds:
        results = []
        for lib in (tf, tf1):
            try:
                results.append(_run(lib, build))
            except lib.errors.InvalidArgumentError as e:
                results.append(type(e).__name__)
        if isinstance(results[1], str):
            assert results[0] == results[1]
        else:
            assert results[0].dtype == results[1].dtype
            np.testing.assert_array_equal(results[0], results[1])


BMP_SOURCES = {"rgb24": _pil_bytes(_image(3, shape=(5, 7)), "BMP"),
               "rgba32": _pil_bytes(_image(4, shape=(4, 3)), "BMP")}


@pytest.mark.parametrize("key", sorted(BMP_SOURCES))
@pytest.mark.parametrize("channels", [0, 3, 4])
def test_decode_bmp_matches_tf(key, channels):
    data = BMP_SOURCES[key]

    def build(t):
        return [t.image.decode_bmp(data, channels=channels),
                t.io.decode_image(data, channels=channels),
                t.io.decode_image(data, channels=channels, dtype=t.uint16)]

    for a, b in zip(_run(tf, build), _run(tf1, build)):
        np.testing.assert_array_equal(a, b)


def test_codec_graph_nodes_and_shapes_match_tf():
    def build(t):
        with t.Graph().as_default() as g:
            contents = t.placeholder(t.string, [])
            outs = [t.image.decode_png(contents, channels=3), t.image.decode_jpeg(contents),
                    t.image.decode_gif(contents), t.image.decode_bmp(contents, 4),
                    t.image.decode_image(contents), t.image.decode_image(contents, 1,
                                                                        t.float32, None, False),
                    t.image.extract_jpeg_shape(contents),
                    t.image.encode_png(t.zeros([2, 3, 4, 1], t.uint16)),
                    t.image.encode_jpeg(t.zeros([3, 4, 3], t.uint8))]
            shapes = [o.shape.as_list() if o.shape.ndims is not None else None for o in outs]
            return shapes, sorted((n.name, n.op) for n in g.as_graph_def().node)

    assert build(tf) == build(tf1)


ERRORS = {
    "png_garbage": lambda t: t.image.decode_png(b"not a png"),
    "image_unknown": lambda t: t.image.decode_image(b"\x00\x01\x02\x03 what"),
    "jpeg_crop_outside": lambda t: t.image.decode_and_crop_jpeg(
        JPEG_SOURCES["pil_rgb_444"](), [10, 10, 5, 5]),
    "png_bad_channels": lambda t: t.image.encode_png(np.zeros((2, 2, 5), np.uint8)),
    "png_decode_2_channels": lambda t: t.image.decode_png(PNG_SOURCES["tf_u8_rgb"], 2),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_codec_errors_are_invalid_argument(case):
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            out = ERRORS[case](lib)
            with lib.Session() as sess, pytest.raises(lib.errors.InvalidArgumentError):
                sess.run(out)
