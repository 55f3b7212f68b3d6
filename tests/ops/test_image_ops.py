"""graphcore's tf.image (graphcore/ops/image_*_ops.py) without TensorFlow: resize weights and
gradients, crops and flips, dtype conversion, colour ops, boxes, codecs and image/audio
summaries — values against hand-computed ones, static shapes, op types."""

import io
import struct
import zlib

import numpy as np
import pytest

import graphcore as tf
from graphcore.kernels import png_codec
from graphcore.protobuf import summary_pb2

IMG = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)


def _run(fetch):
    with tf.Session() as sess:
        return sess.run(fetch)


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_resize_bilinear_legacy_and_half_pixel_values():
    x = np.array([[0.0, 10.0]], np.float32).reshape(1, 1, 2, 1)
    legacy = tf.image.resize_bilinear(x, [1, 4])
    half = tf.image.resize_bilinear(x, [1, 4], half_pixel_centers=True)
    aligned = tf.image.resize_bilinear(x, [1, 3], align_corners=True)
    assert legacy.op.type == "ResizeBilinear" and legacy.shape.as_list() == [1, 1, 4, 1]
    a, b, c = _run([legacy, half, aligned])
    np.testing.assert_allclose(a.reshape(-1), [0, 5, 10, 10])
    np.testing.assert_allclose(b.reshape(-1), [0, 2.5, 7.5, 10])
    np.testing.assert_allclose(c.reshape(-1), [0, 5, 10])


def test_resize_nearest_keeps_dtype_and_gradient_sums_back():
    x = tf.constant(IMG)
    y = tf.image.resize_images(x, [6, 8], tf.image.ResizeMethod.NEAREST_NEIGHBOR)
    u8 = tf.image.resize_nearest_neighbor(IMG.astype(np.uint8), [6, 8])
    grad = tf.gradients(tf.reduce_sum(y), x)[0]
    assert u8.dtype == tf.uint8 and grad.op.type == "ResizeNearestNeighborGrad"
    values, g = _run([y, grad])
    np.testing.assert_array_equal(values, IMG.repeat(2, 1).repeat(2, 2))
    np.testing.assert_array_equal(g, np.full(IMG.shape, 4.0, np.float32))


def test_resize_area_averages_blocks_and_skips_same_size():
    area = tf.image.resize_area(IMG[:, :2], [1, 2])
    np.testing.assert_allclose(_run(area).reshape(2, 2),
                               [[2.5, 4.5], [14.5, 16.5]])
    same = tf.image.resize_images(IMG, [3, 4])
    assert same.op.type == "Const"


def test_crops_pads_flips_and_rot90():
    x = tf.constant(IMG[0])
    crop = tf.image.crop_to_bounding_box(x, 1, 1, 2, 2)
    pad = tf.image.pad_to_bounding_box(x, 1, 0, 5, 5)
    flip = tf.image.flip_left_right(x)
    rot = tf.image.rot90(x)
    central = tf.image.central_crop(IMG, 0.5)
    assert crop.shape.as_list() == [2, 2, 1] and pad.shape.as_list() == [5, 5, 1]
    c, p, f, r, cc = _run([crop, pad, flip, rot, central])
    np.testing.assert_array_equal(c[..., 0], [[5, 6], [9, 10]])
    assert p[0].sum() == 0 and p[1:4, :4, 0].tolist() == IMG[0, ..., 0].tolist()
    np.testing.assert_array_equal(f, IMG[0][:, ::-1])
    np.testing.assert_array_equal(r[..., 0], np.rot90(IMG[0, ..., 0]))
    assert cc.shape == (2, 3, 2, 1)
    with pytest.raises(ValueError, match="width must be >= target"):
        tf.image.crop_to_bounding_box(x, 0, 3, 2, 2)


def test_convert_image_dtype_rules():
    u8 = np.array([0, 128, 255], np.uint8)
    f = np.array([0.0, 0.5, 1.2, -0.1], np.float32)
    out = _run([tf.image.convert_image_dtype(u8, tf.float32),
                tf.image.convert_image_dtype(u8, tf.int16),
                tf.image.convert_image_dtype(f, tf.uint8, saturate=True)])
    np.testing.assert_allclose(out[0], u8 / 255.0, rtol=1e-6)
    np.testing.assert_array_equal(out[1], u8.astype(np.int16) * 128)
    np.testing.assert_array_equal(out[2], [0, 127, 255, 0])


def test_colour_ops_round_trip_and_adjust():
    rgb = np.array([[[[0.2, 0.4, 0.6], [0.9, 0.1, 0.1]]]], np.float32)
    hsv = tf.image.rgb_to_hsv(rgb)
    back = tf.image.hsv_to_rgb(hsv)
    hue = tf.image.adjust_hue(rgb, 0.0)
    sat = tf.image.adjust_saturation(rgb, 0.0)
    gray = tf.image.rgb_to_grayscale(rgb)
    h, b, hu, s, g = _run([hsv, back, hue, sat, gray])
    np.testing.assert_allclose(h[0, 0, 0], [7 / 12, 2 / 3, 0.6], rtol=1e-5)
    np.testing.assert_allclose(b, rgb, atol=1e-6)
    np.testing.assert_allclose(hu, rgb, atol=1e-6)
    np.testing.assert_allclose(s[..., 0], s[..., 2], atol=1e-6)
    np.testing.assert_allclose(g[..., 0], rgb @ np.array([0.2989, 0.587, 0.114], np.float32),
                               rtol=1e-5)


def test_crop_and_resize_and_its_gradients():
    image = tf.constant(IMG)
    boxes = tf.constant([[0.0, 0.0, 1.0, 1.0], [0.5, 0.0, 0.5, 1.0]])
    crops = tf.image.crop_and_resize(image, boxes, [1, 0], [3, 4])
    gi, gb = tf.gradients(tf.reduce_sum(crops), [image, boxes])
    assert crops.shape.as_list() == [2, 3, 4, 1]
    c, g_image, g_boxes = _run([crops, gi, gb])
    np.testing.assert_allclose(c[0], IMG[1])
    np.testing.assert_allclose(c[1, :, :, 0], np.tile(IMG[0, 1, :, 0], (3, 1)))
    assert g_image.sum() == pytest.approx(24.0)
    assert g_boxes.shape == (2, 4)


def test_non_max_suppression_variants():
    boxes = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6]], np.float32)
    scores = np.array([0.9, 0.8, 0.7], np.float32)
    v3 = tf.image.non_max_suppression(boxes, scores, 3, 0.5)
    idx, sc = tf.image.non_max_suppression_with_scores(boxes, scores, 3, 0.5)
    padded, valid = tf.image.non_max_suppression_padded(tf.constant(boxes), scores, 3,
                                                        pad_to_max_output_size=True)
    out = _run([v3, idx, sc, padded, valid])
    assert out[0].tolist() == [0, 2] and out[1].tolist() == [0, 2]
    np.testing.assert_allclose(out[2], [0.9, 0.7])
    assert out[3].tolist() == [0, 2, 0] and out[4] == 2


def test_png_codec_round_trips_every_layout():
    rng = np.random.default_rng(0)
    for channels in (1, 2, 3, 4):
        for dtype, high in ((np.uint8, 256), (np.uint16, 65536)):
            image = rng.integers(0, high, (5, 7, channels)).astype(dtype)
            data = png_codec.encode(image)
            assert data[:8] == png_codec.SIGNATURE
            np.testing.assert_array_equal(png_codec.decode(data, 0, 16 if dtype == np.uint16
                                                           else 8), image)


def _png(width, height, depth, color, raw_rows, extra=b""):
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(
            ">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    body = b"".join(b"\x00" + row for row in raw_rows)
    return (png_codec.SIGNATURE + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, depth,
                                                           color, 0, 0, 0))
            + extra + chunk(b"IDAT", zlib.compress(body)) + chunk(b"IEND", b""))


def test_png_decode_expands_low_bit_depths_and_palettes():
    one_bit = _png(4, 1, 1, 0, [bytes([0b10100000])])
    np.testing.assert_array_equal(png_codec.decode(one_bit)[..., 0], [[255, 0, 255, 0]])
    palette = struct.pack(">I", 6) + b"PLTE" + bytes([10, 20, 30, 40, 50, 60])
    palette += struct.pack(">I", zlib.crc32(b"PLTE" + bytes([10, 20, 30, 40, 50, 60])))
    indexed = _png(2, 1, 8, 3, [bytes([1, 0])], extra=palette)
    np.testing.assert_array_equal(png_codec.decode(indexed), [[[40, 50, 60], [10, 20, 30]]])


def test_decode_ops_and_is_jpeg():
    from PIL import Image

    image = (np.add.outer(np.arange(6) * 20, np.arange(5) * 10)[..., None] +
             np.array([0, 30, 60])).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(image).save(buffer, "JPEG", quality=95)
    jpeg = buffer.getvalue()
    png = _run(tf.image.encode_png(image))
    outs = _run([tf.image.decode_png(png), tf.io.decode_image(png), tf.image.decode_jpeg(jpeg),
                 tf.image.extract_jpeg_shape(jpeg), tf.image.is_jpeg(jpeg),
                 tf.image.is_jpeg(png)])
    np.testing.assert_array_equal(outs[0], image)
    np.testing.assert_array_equal(outs[1], image)
    assert np.abs(outs[2].astype(int) - image).max() < 8
    assert outs[3].tolist() == [6, 5, 3] and outs[4] and not outs[5]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Unknown image file format"):
        _run(tf.image.decode_image(b"not an image"))


def test_image_and_audio_summaries():
    images = tf.summary.image("pics", np.zeros((2, 3, 4, 1), np.uint8), max_outputs=5)
    audio = tf.summary.audio("snd", np.array([[0.5, -1.0, 2.0]], np.float32), 100.0)
    s_img, s_aud = (summary_pb2.Summary.FromString(v) for v in _run([images, audio]))
    assert [v.tag for v in s_img.value] == ["pics/image/0", "pics/image/1"]
    first = s_img.value[0].image
    assert (first.height, first.width, first.colorspace) == (3, 4, 1)
    np.testing.assert_array_equal(png_codec.decode(first.encoded_image_string), 0)
    clip = s_aud.value[0]
    assert clip.tag == "snd/audio/0" and clip.audio.content_type == "audio/wav"
    wav = clip.audio.encoded_audio_string
    assert wav[:4] == b"RIFF" and struct.unpack("<I", wav[24:28])[0] == 100
    assert np.frombuffer(wav[44:], "<i2").tolist() == [16384, -32768, 32767]
