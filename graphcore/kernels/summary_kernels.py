"""CPU kernels of the summary ops: each returns a serialized ``Summary`` (bytes scalar).

HistogramSummary follows TF's ``histogram::Histogram``: default bucket limits growing
by 10% from 1e-12 to 1e20 (mirrored for negatives, 0 between, +-DBL_MAX at the ends),
each value counted in the first bucket whose limit exceeds it, sums accumulated in
double in order, and runs of empty buckets collapsed into their last limit.
"""

from __future__ import annotations

import struct
import sys
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, tensor_util
from graphcore.kernels import intra_op
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.protobuf import summary_pb2, tensor_pb2

_DBL_MAX = sys.float_info.max


def _default_bucket_limits() -> np.ndarray:
    pos: list[float] = []
    v = 1.0e-12
    while v < 1.0e20:
        pos.append(v)
        v *= 1.1
    pos.append(_DBL_MAX)
    neg = [-x for x in reversed(pos)]
    return np.array(neg + [0.0] + pos, dtype=np.float64)


DEFAULT_BUCKET_LIMITS = _default_bucket_limits()
DEFAULT_BUCKET_LIMITS.flags.writeable = False


def _strings(value: object) -> np.ndarray:
    """A string tensor as an object array of bytes (scalars as 0-d arrays)."""
    arr = np.asarray(value, dtype=object) if not isinstance(value, np.ndarray) else value
    if arr.dtype != object:
        arr = arr.astype(object)
    return arr


def _as_bytes(s: object) -> bytes:
    if isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8")
    return bytes(s)


def _shape_str(shape: tuple[int, ...]) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _float32_cell_table() -> tuple[np.ndarray, np.ndarray]:
    """For each of the 2^16 cells of float32 values sharing their top 16 bits (sign,
    exponent, 7 mantissa bits: under 1% wide, narrower than a 10% bucket), the default
    bucket of its values, and whether a bucket limit splits the cell (then each of its
    values is looked up on its own)."""
    cells = np.arange(1 << 16, dtype=np.uint32)
    ends = []
    for low in (0, 0xFFFF):
        with np.errstate(invalid="ignore"):
            v = ((cells << 16) | low).view(np.float32).astype(np.float64)
        idx = np.searchsorted(DEFAULT_BUCKET_LIMITS, v, side="right")
        ends.append(np.minimum(idx, DEFAULT_BUCKET_LIMITS.size - 1))
    # Cells of inf and NaN (exponent 255) never occur: values are checked finite first.
    split = ends[0] != ends[1]
    return ends[0].astype(np.int64), split


_TABLE_MIN = 1 << 13
_CELL_BUCKET: np.ndarray | None = None
_CELL_SPLIT: np.ndarray | None = None


def _default_bucket_counts_f32(vals: np.ndarray) -> np.ndarray:
    """``bincount`` of the default buckets of finite float32 ``vals``: counted per cell
    of the top 16 bits, and value by value only in the cells a limit splits."""
    global _CELL_BUCKET, _CELL_SPLIT
    if _CELL_BUCKET is None:
        _CELL_BUCKET, _CELL_SPLIT = _float32_cell_table()
    size = DEFAULT_BUCKET_LIMITS.size
    vals = np.ascontiguousarray(vals)
    high = vals.view(np.uint16)[1::2] if sys.byteorder == "little" else \
        vals.view(np.uint16)[0::2]
    per_cell = np.bincount(high, minlength=1 << 16)
    cells = np.flatnonzero(per_cell)
    split = _CELL_SPLIT[cells]
    whole = cells[~split]
    counts = np.bincount(_CELL_BUCKET[whole], weights=per_cell[whole], minlength=size)
    if split.any():
        mask = _CELL_SPLIT[high]
        idx = np.searchsorted(DEFAULT_BUCKET_LIMITS, vals[mask].astype(np.float64),
                              side="right")
        np.minimum(idx, size - 1, out=idx)
        counts += np.bincount(idx, minlength=size)
    return counts


_SUM_CHUNK = 1 << 16


def _sequential_sums(vals: np.ndarray) -> tuple[float, float]:
    """(sum, sum of squares) accumulated in double in order, as the C++ loop does, in
    cache-sized pieces."""
    total, squares = 0.0, 0.0
    buf = np.empty(min(vals.size, _SUM_CHUNK) + 1, dtype=np.float64)
    with np.errstate(over="ignore"):  # overflows to inf, as in C++
        for lo in range(0, vals.size, _SUM_CHUNK):
            chunk = vals[lo:lo + _SUM_CHUNK]
            b = buf[:chunk.size + 1]
            b[0] = total
            b[1:] = chunk
            total = float(np.add.accumulate(b, out=b)[-1])
            b[0] = squares
            np.square(chunk, out=b[1:], dtype=np.float64)
            squares = float(np.add.accumulate(b, out=b)[-1])
    return total, squares


def _as_float(values: object) -> np.ndarray:
    """The values, flat, as float32 (float16 and bfloat16 exactly) or float64 (the
    rest, as TF's ``static_cast<double>``)."""
    vals = np.asarray(values).reshape(-1)
    if vals.dtype in (np.float32, np.float64):
        return vals
    if vals.dtype.kind == "f" or vals.dtype == dtypes_lib.bfloat16.as_numpy_dtype:
        return vals.astype(np.float32)
    return vals.astype(np.float64)


def histogram_proto(values: np.ndarray,
                    limits: np.ndarray = DEFAULT_BUCKET_LIMITS) -> summary_pb2.HistogramProto:
    """The HistogramProto TF's ``Histogram::EncodeToProto`` gives for ``values``
    (finite doubles), empty buckets collapsed."""
    vals = _as_float(values)
    proto = summary_pb2.HistogramProto()
    n = vals.size
    if n:
        found: dict[str, Any] = {}

        def bucket_counts() -> None:
            # The table has a fixed cost (two passes over 2^16 cells): large tensors only.
            if limits is DEFAULT_BUCKET_LIMITS and vals.dtype == np.float32 and \
                    n >= _TABLE_MIN:
                found["counts"] = _default_bucket_counts_f32(vals)
            else:
                idx = np.searchsorted(limits, vals.astype(np.float64), side="right")
                np.minimum(idx, limits.size - 1, out=idx)
                found["counts"] = np.bincount(idx, minlength=limits.size).astype(np.float64)

        def sums() -> None:
            found["sums"] = _sequential_sums(vals)

        # The in-order sums are one long dependency chain: they run beside the counting.
        if n >= intra_op.MIN_ELEMENTS:
            intra_op.side_by_side(bucket_counts, sums)
        else:
            bucket_counts()
            sums()
        counts = found["counts"]
        proto.min = min(float(vals.min()), float(limits[-1]))
        proto.max = max(float(vals.max()), -_DBL_MAX)
        proto.sum, proto.sum_squares = found["sums"]
    else:
        counts = np.zeros(limits.size, dtype=np.float64)
        proto.min = float(limits[-1])
        proto.max = -_DBL_MAX
        proto.sum = 0.0
        proto.sum_squares = 0.0
    proto.num = float(n)
    nonzero = counts > 0
    # A run of empty buckets is written once, with the limit of its last bucket.
    run_end = ~nonzero & np.append(nonzero[1:], True)
    keep = np.flatnonzero(nonzero | run_end)
    proto.bucket_limit.extend(limits[keep].tolist())
    proto.bucket.extend(counts[keep].tolist())
    return proto


@register_kernel("ScalarSummary")
def _scalar_summary(ctx: KernelContext):
    def compute(tags, values):
        tags = _strings(tags)
        vals = np.asarray(values)
        if tags.shape != vals.shape:
            single = f" (tag '{_as_bytes(tags.reshape(-1)[0]).decode('utf-8', 'replace')}')" \
                if tags.size == 1 else ""
            raise errors.InvalidArgumentError(
                None, None, f"tags and values are not the same shape: {_shape_str(tags.shape)} "
                            f"!= {_shape_str(vals.shape)}{single}")
        s = summary_pb2.Summary()
        floats = vals.reshape(-1).astype(np.float32).tolist()
        for tag, v in zip(tags.reshape(-1).tolist(), floats):
            s.value.add(tag=_as_bytes(tag).decode("utf-8", "replace"),
                        simple_value=v)
        return (s.SerializeToString(),)

    return compute


@register_kernel("HistogramSummary")
def _histogram_summary(ctx: KernelContext):
    name = ctx.name

    def compute(tag, values):
        tags = _strings(tag)
        if tags.ndim != 0:
            raise errors.InvalidArgumentError(None, None, "tags must be scalar")
        vals = _as_float(values)
        finite = np.isfinite(vals)
        if not finite.all():
            bad = vals[np.argmin(finite)]
            what = "Nan in summary histogram" if np.isnan(bad) else "Infinity in Histogram"
            raise errors.InvalidArgumentError(None, None, f"{what} for: {name}")
        s = summary_pb2.Summary()
        v = s.value.add(tag=_as_bytes(tags.item()).decode("utf-8", "replace"))
        v.histo.CopyFrom(histogram_proto(vals))
        return (s.SerializeToString(),)

    return compute


def _image_tag(tag: str, max_images: int, i: int) -> str:
    return f"{tag}/image/{i}" if max_images > 1 else f"{tag}/image"


def _to_uint8(image: np.ndarray, bad_color: np.ndarray) -> np.ndarray:
    """TF's NormalizeAndAddImages: an affine map of the finite pixels into uint8 (0-based
    when all are >= 0, else centred on 128); non-finite pixels become ``bad_color``. The
    scale is worked out in float32, the map in the image's own dtype, as TF's kernel."""
    f32 = np.float32
    finite = np.isfinite(image).all(axis=-1)
    good = image[finite].astype(f32)
    lo = good.min() if good.size else f32(np.inf)
    hi = good.max() if good.size else f32(-np.inf)
    if lo < 0:
        max_val = max(abs(lo), abs(hi))
        scale, offset = (f32(0.0) if max_val < 1e-6 else f32(127.0) / max_val), f32(128.0)
    else:
        scale, offset = (f32(0.0) if hi < 1e-6 else f32(255.0) / hi), f32(0.0)
    dtype = image.dtype.type
    scaled = image * dtype(scale) + dtype(offset)
    out = np.where(finite[..., None], scaled, 0).astype(np.uint8)
    out[~finite] = bad_color[:image.shape[-1]]
    return out


@register_kernel("ImageSummary")
def _image_summary(ctx: KernelContext):
    from graphcore.kernels import png_codec

    max_images = int(ctx.attr("max_images"))
    bad_color = np.asarray(tensor_util.MakeNdarray(ctx.attr("bad_color")), np.uint8).reshape(-1)

    def compute(tag, tensor):
        tags = _strings(tag)
        if tags.ndim != 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Tags must be a scalar{_shape_str(tags.shape)}")
        images = np.asarray(tensor)
        if images.ndim != 4 or images.shape[-1] not in (1, 3, 4):
            raise errors.InvalidArgumentError(
                None, None, f"Tensor must be 4-D with last dim 1, 3, or 4, not "
                            f"{_shape_str(images.shape)}")
        if images.dtype != np.uint8 and bad_color.size < images.shape[-1]:
            raise errors.InvalidArgumentError(
                None, None, f"bad_color must have at least {images.shape[-1]} channels")
        base = _as_bytes(tags.item()).decode("utf-8", "replace")
        s = summary_pb2.Summary()
        for i in range(min(max_images, images.shape[0])):
            image = images[i] if images.dtype == np.uint8 else _to_uint8(images[i], bad_color)
            v = s.value.add(tag=_image_tag(base, max_images, i))
            v.image.height, v.image.width, v.image.colorspace = image.shape
            v.image.encoded_image_string = png_codec.encode(image)
        return (s.SerializeToString(),)

    return compute


def wav_bytes(samples: np.ndarray, sample_rate: int) -> bytes:
    """16-bit little-endian PCM WAV of float ``samples`` [frames, channels] (TF's
    EncodeAudioAsS16LEWav: round(x * 32768) clamped to int16)."""
    frames, channels = samples.shape
    pcm = np.clip(np.round(samples.astype(np.float32) * np.float32(32768.0)), -32768, 32767)
    data = pcm.astype("<i2").tobytes()
    header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(data), b"WAVE", b"fmt ", 16,
                         1, channels, sample_rate, sample_rate * channels * 2, channels * 2, 16,
                         b"data", len(data))
    return header + data


@register_kernel("AudioSummaryV2")
def _audio_summary(ctx: KernelContext):
    max_outputs = int(ctx.attr("max_outputs"))

    def compute(tag, tensor, sample_rate):
        tags = _strings(tag)
        if tags.ndim != 0:
            raise errors.InvalidArgumentError(None, None,
                                              f"Tags must be a scalar{_shape_str(tags.shape)}")
        rate = np.asarray(sample_rate)
        if rate.ndim != 0:
            raise errors.InvalidArgumentError(None, None, "sample_rate must be a scalar")
        rate = float(rate)
        if rate <= 0:
            raise errors.InvalidArgumentError(None, None, "sample_rate must be > 0")
        clips = np.asarray(tensor, np.float32)
        if clips.ndim not in (2, 3):
            raise errors.InvalidArgumentError(
                None, None, f"Tensor must be 3-D or 2-D, got: {_shape_str(clips.shape)}")
        if clips.ndim == 2:
            clips = clips[..., None]
        base = _as_bytes(tags.item()).decode("utf-8", "replace")
        wav_rate = max(int(np.rint(np.float32(rate))), 1)
        s = summary_pb2.Summary()
        for i in range(min(max_outputs, clips.shape[0])):
            v = s.value.add(tag=f"{base}/audio/{i}" if max_outputs > 1 else f"{base}/audio")
            v.audio.sample_rate = rate
            v.audio.num_channels = clips.shape[2]
            v.audio.length_frames = clips.shape[1]
            v.audio.content_type = "audio/wav"
            v.audio.encoded_audio_string = wav_bytes(clips[i], wav_rate)
        return (s.SerializeToString(),)

    return compute


@register_kernel("MergeSummary")
def _merge_summary(ctx: KernelContext):
    def compute(*inputs):
        out = summary_pb2.Summary()
        seen: set[str] = set()
        for inp in inputs:
            for data in _strings(inp).reshape(-1).tolist():
                part = summary_pb2.Summary()
                try:
                    part.ParseFromString(_as_bytes(data))
                except Exception:  # noqa: BLE001 - protobuf's DecodeError and friends
                    raise errors.InvalidArgumentError(
                        None, None, "Could not parse one of the summary inputs") from None
                for value in part.value:
                    tag = value.tag
                    # TensorSummary values may have no tag; those never clash.
                    if tag:
                        if tag in seen:
                            raise errors.InvalidArgumentError(
                                None, None, f"Duplicate tag {tag} found in summary inputs ")
                        seen.add(tag)
                    out.value.add().CopyFrom(value)
        return (out.SerializeToString(),)

    return compute


def _tensor_proto(value: object, dtype: dtypes_lib.DType) -> tensor_pb2.TensorProto:
    """TF's ``AsProtoField`` for strings, ``AsProtoTensorContent`` otherwise."""
    proto = tensor_pb2.TensorProto(dtype=dtype.as_datatype_enum)
    if dtype == dtypes_lib.string:
        arr = _strings(value)
        proto.string_val.extend(_as_bytes(x) for x in arr.reshape(-1).tolist())
    else:
        arr = np.asarray(value, dtype=dtype.as_numpy_dtype)
        proto.tensor_content = np.ascontiguousarray(arr).tobytes()
    proto.tensor_shape.SetInParent()
    for d in arr.shape:
        proto.tensor_shape.dim.add(size=int(d))
    return proto


@register_kernel("TensorSummaryV2")
def _tensor_summary_v2(ctx: KernelContext):
    dtype = ctx.attr("T")

    def compute(tag, tensor, serialized_summary_metadata):
        s = summary_pb2.Summary()
        v = s.value.add(tag=_as_bytes(_strings(tag).reshape(-1)[0]).decode(
            "utf-8", "replace"))
        v.tensor.CopyFrom(_tensor_proto(tensor, dtype))
        v.metadata.SetInParent()
        v.metadata.MergeFromString(_as_bytes(_strings(serialized_summary_metadata).item()))
        return (s.SerializeToString(),)

    return compute
