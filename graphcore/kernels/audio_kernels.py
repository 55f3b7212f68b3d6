"""CPU kernels of DecodeWav / EncodeWav (:mod:`graphcore.ops.audio_ops`): TF's wav_io --
RIFF/WAVE, a 16- or 18-byte PCM 'fmt ' chunk (JUNK-like chunks before it skipped), 16-bit
little-endian samples scaled by 2^-15."""

from __future__ import annotations

import struct

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_SKIPPED = {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml"}
_INT32_MAX = 2**31 - 1


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.offset = data, 0

    def advance(self, n: int) -> int:
        if self.offset > len(self.data):
            raise _invalid(f"Initial offset is outside data range: {self.offset}")
        end = self.offset + n
        if end > len(self.data):
            raise _invalid("Data too short when trying to read string")
        start, self.offset = self.offset, end
        return start

    def string(self, n: int) -> bytes:
        start = self.advance(n)
        return self.data[start:self.offset]

    def value(self, fmt: str) -> int:
        start = self.advance(struct.calcsize(fmt))
        return struct.unpack_from(fmt, self.data, start)[0]

    def expect(self, text: bytes) -> None:
        found = self.string(len(text))
        if found != text:
            raise _invalid(f"Header mismatch: Expected {text.decode()} but found "
                           f"{found.decode('latin-1')}")


def decode_wav(data: bytes) -> tuple[np.ndarray, int, int, int]:
    """(samples [frames * channels] float32, frames, channels, sample_rate)."""
    r = _Reader(data)
    r.expect(b"RIFF")
    r.value("<I")
    r.expect(b"WAVE")
    found = r.string(4)
    while found != b"fmt ":
        if found not in _SKIPPED:
            raise _invalid(f"Unexpected field {found.decode('latin-1')}")
        r.advance(r.value("<I"))
        found = r.string(4)
    fmt_size = r.value("<I")
    if fmt_size not in (16, 18):
        raise _invalid(f"Bad format chunk size for WAV: Expected 16 or 18, but got{fmt_size}")
    audio_format = r.value("<H")
    if audio_format != 1:
        raise _invalid(f"Bad audio format for WAV: Expected 1 (PCM), but got{audio_format}")
    channels = r.value("<H")
    if channels < 1:
        raise _invalid(f"Bad number of channels for WAV: Expected at least 1, but got "
                       f"{channels}")
    sample_rate = r.value("<I")
    bytes_per_second = r.value("<I")
    bytes_per_sample = r.value("<H")
    bits = r.value("<H")
    if bits != 16:
        raise _invalid(f"Can only read 16-bit WAV files, but received {bits}")
    expected = (bits * channels + 7) // 8
    if bytes_per_sample != expected:
        raise _invalid(f"Bad bytes per sample in WAV header: Expected {expected} but got "
                       f"{bytes_per_sample}")
    if bytes_per_second != bytes_per_sample * sample_rate:
        raise _invalid(f"Bad bytes per second in WAV header: Expected "
                       f"{bytes_per_sample * sample_rate} but got {bytes_per_second} "
                       f"(sample_rate={sample_rate}, bytes_per_sample={bytes_per_sample})")
    if fmt_size == 18:
        r.offset += 2
    samples = None
    frames = 0
    while r.offset < len(data):
        chunk_id = r.string(4)
        size = r.value("<I")
        if size > _INT32_MAX:
            raise _invalid(f"WAV data chunk '{chunk_id.decode('latin-1')}' is too large: "
                           f"{size} bytes, but the limit is {_INT32_MAX}")
        if chunk_id == b"data":
            if samples is not None:
                raise _invalid("More than one data chunk found in WAV")
            frames = size // bytes_per_sample
            start = r.advance(2 * frames * channels)
            samples = np.frombuffer(data, "<i2", frames * channels, start)
        else:
            r.offset += size
    if samples is None:
        raise _invalid("No data chunk found in WAV")
    return samples.astype(np.float32) / np.float32(1 << 15), frames, channels, sample_rate


@register_kernel("DecodeWav")
def _decode_wav(ctx: KernelContext):
    desired_channels = int(ctx.attr("desired_channels"))
    desired_samples = int(ctx.attr("desired_samples"))

    def compute(contents):
        contents = np.asarray(contents, dtype=object)
        if contents.ndim != 0:
            raise _invalid(f"contents must be scalar, got shape {list(contents.shape)}")
        samples, frames, channels, rate = decode_wav(bytes(contents.item()))
        if desired_channels < -1:
            raise _invalid(f"desired_channels must be >= -1, got {desired_channels}")
        if desired_samples < -1:
            raise _invalid(f"desired_samples must be >= -1, got {desired_samples}")
        out_frames = frames if desired_samples == -1 else desired_samples
        out_channels = channels if desired_channels == -1 else desired_channels
        decoded = samples.reshape(frames, channels)
        audio = np.zeros((out_frames, out_channels), np.float32)
        source = np.minimum(np.arange(out_channels), channels - 1)
        n = min(frames, out_frames)
        audio[:n] = decoded[:n][:, source]
        return audio, np.int32(rate)

    return compute


@register_kernel("EncodeWav")
def _encode_wav(ctx: KernelContext):
    del ctx

    def compute(audio, sample_rate):
        audio = np.asarray(audio, np.float32)
        sample_rate = np.asarray(sample_rate)
        if audio.ndim != 2:
            raise _invalid(f"audio must be 2-dimensional {list(audio.shape)}")
        if sample_rate.ndim != 0:
            raise _invalid(f"Input sample_rate should be a scalar tensor, got "
                           f"{list(sample_rate.shape)} instead.")
        rate = int(sample_rate)
        frames, channels = audio.shape
        if rate <= 0 or rate > 0xFFFFFFFF:
            raise _invalid(f"sample_rate must be in (0, 2^32), got: {rate}")
        if channels == 0 or channels > 0xFFFF:
            raise _invalid(f"num_channels must be in (0, 2^16), got: {channels}")
        scaled = (audio.reshape(-1) * np.float32(1 << 15)).astype(np.float64)
        rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)  # roundf: half away from 0
        data = np.clip(rounded, -32768, 32767)
        payload = data.astype("<i2").tobytes()
        header = struct.pack("<4sI4s4sIHHIIHH4sI", b"RIFF", 36 + len(payload), b"WAVE",
                             b"fmt ", 16, 1, channels, rate, rate * 2 * channels,
                             2 * channels, 16, b"data", len(payload))
        return (np.array(header + payload, dtype=object),)

    return compute
