"""Summary ops (ScalarSummary, HistogramSummary, ImageSummary, AudioSummaryV2, MergeSummary,
TensorSummaryV2) and TF1's ``tf.summary`` wrappers around them.

Tags follow TF1's ``summary_scope``: the name is cleaned (characters outside
``[-/\\w.]`` become '_', leading '/' dropped), the op gets a name scope of that name
(made unique), and the tag is that scope without its trailing '/' (with ``family``:
``family/<scope>``).  Summaries go to ``GraphKeys.SUMMARIES`` unless ``collections``
names others.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.protobuf import summary_pb2, tensor_pb2, tensor_shape_pb2

__all__ = ["scalar", "histogram", "image", "audio", "merge", "merge_all", "tensor_summary",
           "text"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

_NUMBERS = "realnumbertype"

op_registry.register_op("ScalarSummary").input("tags: string").input("values: T") \
    .output("summary: string").attr(f"T: {_NUMBERS}") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("HistogramSummary").input("tag: string").input("values: T") \
    .output("summary: string").attr(f"T: {_NUMBERS} = DT_FLOAT") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("MergeSummary").input("inputs: N * string") \
    .output("summary: string").attr("N: int >= 1") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("TensorSummaryV2").input("tag: string").input("tensor: T") \
    .input("serialized_summary_metadata: string").output("summary: string") \
    .attr("T: type").shape_fn(common_shapes.scalar_shape)

op_registry.register_op("ImageSummary").input("tag: string").input("tensor: T") \
    .output("summary: string").attr("max_images: int >= 1 = 3") \
    .attr("T: {uint8, float, half, double} = DT_FLOAT") \
    .attr("bad_color: tensor", default=tensor_pb2.TensorProto(
        dtype=dtypes_lib.uint8.as_datatype_enum, int_val=[255, 0, 0, 255],
        tensor_shape=tensor_shape_pb2.TensorShapeProto(
            dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=4)]))) \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("AudioSummaryV2").input("tag: string").input("tensor: float") \
    .input("sample_rate: float").output("summary: string") \
    .attr("max_outputs: int >= 1 = 3").shape_fn(common_shapes.scalar_shape)

for _op_type in ("ScalarSummary", "HistogramSummary", "MergeSummary", "TensorSummaryV2",
                 "ImageSummary", "AudioSummaryV2"):
    NotDifferentiable(_op_type)


# -- TF1's summary_op_util -----------------------------------------------------------------

_INVALID_TAG_CHARACTERS = re.compile(r"[^-/\w\.]")


def clean_tag(name: str | None) -> str | None:
    """``name`` with illegal tag characters replaced by '_' and leading '/' removed."""
    if name is not None:
        new_name = _INVALID_TAG_CHARACTERS.sub("_", name).lstrip("/")
        if new_name != name:
            _log.info("Summary name %s is illegal; using %s instead.", name, new_name)
            name = new_name
    return name


@contextlib.contextmanager
def summary_scope(name: str | None, family: str | None = None,
                  default_name: str | None = None,
                  values: Any = None) -> Iterator[tuple[str, str]]:
    """TF1's ``summary_scope``: yields ``(tag, scope)`` inside the name scope."""
    name = clean_tag(name)
    family = clean_tag(family)
    # The family goes into the scope too, so that scope and tag stay unique.
    base = name if family is None else f"{family}/{name}"
    with ops_lib.name_scope(base, default_name, values) as scope:
        if family is None:
            tag = scope.rstrip("/")
        else:
            # Prefixed with the family again, so TensorBoard shows it in that tab.
            tag = f"{family}/{scope.rstrip('/')}"
        yield tag, scope


def _collect(val: Any, collections: Any, default_collections: list[str]) -> None:
    if collections is None:
        collections = default_collections
    for key in collections:
        ops_lib.add_to_collection(key, val)


# -- wrappers ------------------------------------------------------------------------------

def scalar(name: str, tensor: Any, collections: list | None = None,
           family: str | None = None) -> ops_lib.Tensor:
    """A ``ScalarSummary`` of ``tensor`` tagged with the name scope + ``name``."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ScalarSummary", name=scope, tags=tag, values=tensor).outputs[0]
        _collect(val, collections, [ops_lib.GraphKeys.SUMMARIES])
    return val


def histogram(name: str, values: Any, collections: list | None = None,
              family: str | None = None) -> ops_lib.Tensor:
    """A ``HistogramSummary`` of ``values`` (TF's exponential buckets)."""
    with summary_scope(name, family, values=[values],
                       default_name="HistogramSummary") as (tag, scope):
        val = apply_op("HistogramSummary", name=scope, tag=tag, values=values).outputs[0]
        _collect(val, collections, [ops_lib.GraphKeys.SUMMARIES])
    return val


def image(name: str, tensor: Any, max_outputs: int = 3, collections: list | None = None,
          family: str | None = None) -> ops_lib.Tensor:
    """An ``ImageSummary`` of up to ``max_outputs`` images of ``tensor`` [batch, h, w, c]
    (PNG-encoded; floats scaled into [0, 255] per image)."""
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("ImageSummary", name=scope, tag=tag, tensor=tensor,
                       max_images=max_outputs).outputs[0]
        _collect(val, collections, [ops_lib.GraphKeys.SUMMARIES])
    return val


def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3,
          collections: list | None = None, family: str | None = None) -> ops_lib.Tensor:
    """An ``AudioSummaryV2`` of up to ``max_outputs`` clips of ``tensor`` [batch, frames(,
    channels)] in [-1, 1], as 16-bit WAV at ``sample_rate``."""
    from graphcore.framework.tensor_conversion import convert_to_tensor

    with summary_scope(name, family=family, values=[tensor]) as (tag, scope):
        sample_rate = convert_to_tensor(sample_rate, dtype=dtypes_lib.float32,
                                        name="sample_rate")
        val = apply_op("AudioSummaryV2", name=scope, tag=tag, tensor=tensor,
                       max_outputs=max_outputs, sample_rate=sample_rate).outputs[0]
        _collect(val, collections, [ops_lib.GraphKeys.SUMMARIES])
    return val


def tensor_summary(name: str, tensor: Any, summary_description: str | None = None,
                   collections: list | None = None, summary_metadata: Any = None,
                   family: str | None = None, display_name: str | None = None
                   ) -> ops_lib.Tensor:
    """A ``TensorSummaryV2`` holding the whole of ``tensor`` as a TensorProto."""
    if summary_metadata is None:
        summary_metadata = summary_pb2.SummaryMetadata()
    if summary_description is not None:
        summary_metadata.summary_description = summary_description
    if display_name is not None:
        summary_metadata.display_name = display_name
    serialized = summary_metadata.SerializeToString()
    with summary_scope(name, family, values=[tensor]) as (tag, scope):
        val = apply_op("TensorSummaryV2", name=scope, tag=tag, tensor=tensor,
                       serialized_summary_metadata=serialized).outputs[0]
        _collect(val, collections, [ops_lib.GraphKeys.SUMMARIES])
    return val


def text(name: str, tensor: Any, collections: list | None = None) -> ops_lib.Tensor:
    """A text summary (a string tensor, for TensorBoard's text plugin)."""
    if getattr(tensor, "dtype", None) != dtypes_lib.string:
        raise ValueError(f"Expected tensor {getattr(tensor, 'name', tensor)} to have dtype "
                         f"string, got {getattr(tensor, 'dtype', type(tensor).__name__)}")
    metadata = summary_pb2.SummaryMetadata(
        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text"))
    return tensor_summary(name=name, tensor=tensor, summary_metadata=metadata,
                          collections=collections)


def merge(inputs: list, collections: list | None = None,
          name: str | None = None) -> ops_lib.Tensor:
    """One Summary holding every value of ``inputs`` (serialized Summary tensors)."""
    with ops_lib.name_scope(name, "Merge", inputs):
        val = apply_op("MergeSummary", name=name, inputs=list(inputs)).outputs[0]
        _collect(val, collections, [])
    return val


def merge_all(key: str = ops_lib.GraphKeys.SUMMARIES, scope: str | None = None,
              name: str | None = None) -> ops_lib.Tensor | None:
    """``merge`` of the collection ``key`` (filtered by ``scope``); None when empty."""
    summary_ops = ops_lib.get_collection(key, scope=scope)
    if not summary_ops:
        return None
    return merge(summary_ops, name=name)
