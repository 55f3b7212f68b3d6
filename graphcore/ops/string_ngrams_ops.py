"""String n-grams (TF's StringNGrams) with ``tf.strings.ngrams``: the n-grams of each
row of tokens joined by ``separator``, optionally padded at both ends. Dense input gives
dense output (TF reshapes back), RaggedTensor input a RaggedTensor. Kernel:
:mod:`graphcore.kernels.string_split_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops
from graphcore.ops.ragged_tensor import RaggedTensor

__all__ = ["ngrams"]

op_registry.register_op("StringNGrams").input("data: string").input("data_splits: Tsplits") \
    .output("ngrams: string").output("ngrams_splits: Tsplits").attr("separator: string") \
    .attr("ngram_widths: list(int) >= 0").attr("left_pad: string").attr("right_pad: string") \
    .attr("pad_width: int").attr("preserve_short_sequences: bool") \
    .attr("Tsplits: {int32, int64} = DT_INT64") \
    .shape_fn(lambda op: [shape_lib.TensorShape([None]), op._inputs[1].shape.with_rank(1)])
NotDifferentiable("StringNGrams")


def ngrams(data: Any, ngram_width: Any, separator: str = " ", pad_values: Any = None,
           padding_width: int | None = None, preserve_short_sequences: bool = False,
           name: str | None = None) -> Any:
    """The ``ngram_width``-grams (an int or a list of widths) of each innermost row."""
    with ops_lib.name_scope(name, "StringNGrams", [data]):
        if pad_values is None:
            left_pad = right_pad = ""
        elif isinstance(pad_values, (list, tuple)):
            if len(pad_values) != 2 or not all(isinstance(p, str) for p in pad_values):
                raise ValueError("pad_values must be a string, tuple of strings, or None.")
            left_pad, right_pad = pad_values
        else:
            if not isinstance(pad_values, str):
                raise ValueError("pad_values must be a string, tuple of strings, or None.")
            left_pad = right_pad = pad_values
        if padding_width is not None and padding_width < 1:
            raise ValueError("padding_width must be greater than 0.")
        if padding_width is not None and pad_values is None:
            raise ValueError("pad_values must be provided if padding_width is set.")
        widths = list(ngram_width) if isinstance(ngram_width, (list, tuple)) else [ngram_width]
        for width in widths:
            if width < 1:
                raise ValueError(f"All ngram_widths must be greater than 0. Got {ngram_width}")
        pad_width = 0 if pad_values is None else (-1 if padding_width is None
                                                  else padding_width)

        def grams(flat: Any, splits: Any) -> tuple:
            return tuple(apply_op("StringNGrams", data=flat, data_splits=splits,
                                  separator=separator, ngram_widths=widths, left_pad=left_pad,
                                  right_pad=right_pad, pad_width=pad_width,
                                  preserve_short_sequences=preserve_short_sequences).outputs)

        if isinstance(data, RaggedTensor):
            if data.ragged_rank > 1:
                inner = data.values
                while isinstance(inner.values, RaggedTensor):
                    inner = inner.values
                values, splits = grams(inner.values, inner.row_splits)
                return _replace_innermost(
                    data, RaggedTensor.from_row_splits(values, splits, validate=False))
            values, splits = grams(data.values, data.row_splits)
            return RaggedTensor.from_row_splits(values, splits, validate=False)
        data = convert_to_tensor(data, name="data", dtype=dtypes_lib.string)
        ndims = data.shape.ndims
        if ndims is None:
            raise ValueError("Rank of data must be known.")
        if ndims == 0:
            raise ValueError("Data must have rank>0")
        if ndims == 1:
            splits = array_ops.stack([0, array_ops.size(data, out_type=dtypes_lib.int64)])
            return grams(data, splits)[0]
        dense_shape = array_ops.concat([array_ops.shape(data)[:-1], [-1]], axis=0)
        rt = RaggedTensor.from_tensor(data, ragged_rank=ndims - 1)
        innermost = rt
        while isinstance(innermost.values, RaggedTensor):
            innermost = innermost.values
        values, _ = grams(innermost.values, innermost.row_splits)
        return array_ops.reshape(values, dense_shape)


def _replace_innermost(rt: RaggedTensor, innermost: RaggedTensor) -> RaggedTensor:
    """``rt`` with its innermost ragged level (the one over flat values) replaced."""
    if isinstance(rt.values, RaggedTensor):
        return rt.with_values(_replace_innermost(rt.values, innermost))
    return innermost
