"""``tf.audio``: 16-bit PCM WAV decoding and encoding (ops DecodeWav / EncodeWav, TF's
wav_io semantics). Kernels: :mod:`graphcore.kernels.audio_kernels`."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op

__all__ = ["decode_wav", "encode_wav"]

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])


def _decode_wav_shape(op: ops_lib.Operation) -> list:
    op.inputs[0].shape.with_rank(0)
    samples, channels = op.get_attr("desired_samples"), op.get_attr("desired_channels")
    return [shape_lib.TensorShape([None if samples == -1 else samples,
                                   None if channels == -1 else channels]),
            shape_lib.TensorShape([])]


def _encode_wav_shape(op: ops_lib.Operation) -> list:
    op.inputs[0].shape.with_rank(2)
    op.inputs[1].shape.with_rank(0)
    return [shape_lib.TensorShape([])]


op_registry.register_op("DecodeWav").input("contents: string").output("audio: float") \
    .output("sample_rate: int32").attr("desired_channels: int = -1") \
    .attr("desired_samples: int = -1").shape_fn(_decode_wav_shape)
op_registry.register_op("EncodeWav").input("audio: float").input("sample_rate: int32") \
    .output("contents: string").shape_fn(_encode_wav_shape)


def decode_wav(contents: Any, desired_channels: int = -1, desired_samples: int = -1,
               name: str | None = None) -> DecodeWav:
    """(audio [samples, channels] float32 in [-1, 1), sample_rate) of a 16-bit PCM WAV
    file; ``desired_channels`` / ``desired_samples`` repeat the last channel and pad with
    zeros or cut."""
    op = apply_op("DecodeWav", name=name, contents=contents,
                  desired_channels=desired_channels, desired_samples=desired_samples)
    return DecodeWav(*op.outputs)


def encode_wav(audio: Any, sample_rate: Any, name: str | None = None) -> ops_lib.Tensor:
    """A 16-bit PCM WAV file of ``audio`` ([frames, channels] in [-1, 1], clipped)."""
    return apply_op("EncodeWav", name=name, audio=audio, sample_rate=sample_rate).outputs[0]
