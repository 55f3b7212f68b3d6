"""Decoding strings to code points (TF's string_ops over ICU): UnicodeDecode and
UnicodeDecodeWithOffsets with ``tf.strings.unicode_decode``, ``unicode_split`` and their
``_with_offsets`` forms. A scalar string gives a vector; a rank-N string tensor gives a
RaggedTensor of rank N+1 (:mod:`graphcore.ops.ragged_tensor`). Kernels:
:mod:`graphcore.kernels.unicode_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops
from graphcore.ops.ragged_tensor import RaggedTensor

__all__ = ["unicode_decode", "unicode_decode_with_offsets", "unicode_split",
           "unicode_split_with_offsets"]


def _decode_shape(op: ops_lib.Operation) -> list:
    op._inputs[0].shape.assert_has_rank(1)
    n = op._inputs[0].shape.dims[0].value
    return [shape_lib.TensorShape([None if n is None else n + 1])] + \
        [shape_lib.TensorShape([None])] * (len(op._outputs) - 1)


for _op_type, _extra in (("UnicodeDecode", ()),
                         ("UnicodeDecodeWithOffsets", ("char_to_byte_starts: int64",))):
    _b = op_registry.register_op(_op_type).input("input: string") \
        .output("row_splits: Tsplits").output("char_values: int32")
    for _spec in _extra:
        _b.output(_spec)
    _b.attr("input_encoding: string").attr("errors: {'strict', 'replace', 'ignore'} = 'replace'") \
        .attr("replacement_char: int = 65533").attr("replace_control_characters: bool = false") \
        .attr("Tsplits: {int32, int64} = DT_INT64").shape_fn(_decode_shape)
    NotDifferentiable(_op_type)


def _decode(input: Any, input_encoding: str, errors: str, replacement_char: int,  # noqa: A002
            replace_control_characters: bool, with_offsets: bool) -> tuple:
    """(code points, byte offsets or None) of ``input``: vectors for a scalar, else
    RaggedTensors one dimension deeper."""
    input = convert_to_tensor(input)  # noqa: A001
    ndims = input.shape.ndims
    if ndims is None:
        raise ValueError("Rank of `input` must be statically known.")
    if ndims > 1:
        input = RaggedTensor.from_tensor(input, ragged_rank=ndims - 1)  # noqa: A001
        flat_input = array_ops.reshape(input.flat_values, [-1])
    else:
        flat_input = array_ops.reshape(input, [-1])
    outs = apply_op("UnicodeDecodeWithOffsets" if with_offsets else "UnicodeDecode",
                    input=flat_input, input_encoding=input_encoding, errors=errors,
                    replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters).outputs
    row_splits, parts = outs[0], outs[1:]
    if ndims == 0:
        results = list(parts)
    else:
        results = [RaggedTensor.from_row_splits(p, row_splits, validate=False) for p in parts]
        if ndims > 1:
            results = [input.with_flat_values(r) for r in results]
    return results[0], (results[1] if with_offsets else None)


def unicode_decode(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, replace_control_characters: bool = False,
                   name: str | None = None) -> Any:
    """The code points of each string (UnicodeDecode)."""
    with ops_lib.name_scope(name, "UnicodeDecode", [input]):
        return _decode(input, input_encoding, errors, replacement_char,
                       replace_control_characters, False)[0]


def unicode_decode_with_offsets(input: Any, input_encoding: str,  # noqa: A002
                                errors: str = "replace", replacement_char: int = 65533,
                                replace_control_characters: bool = False,
                                name: str | None = None) -> tuple:
    """(code points, the byte offset where each starts) of each string."""
    with ops_lib.name_scope(name, "UnicodeDecodeWithOffsets", [input]):
        return _decode(input, input_encoding, errors, replacement_char,
                       replace_control_characters, True)


def _split(input: Any, input_encoding: str, errors: str, replacement_char: int,  # noqa: A002
           with_offsets: bool) -> tuple:
    codepoints, offsets = _decode(input, input_encoding, errors, replacement_char, False,
                                  with_offsets)
    flat = codepoints.flat_values if isinstance(codepoints, RaggedTensor) else codepoints
    # One string per code point, in the input's encoding.
    splits = math_ops.range(array_ops.size(flat, out_type=dtypes_lib.int64) + 1)
    chars = apply_op("UnicodeEncode", input_values=flat, input_splits=splits,
                     output_encoding=input_encoding, errors=errors,
                     replacement_char=replacement_char).outputs[0]
    chars = codepoints.with_flat_values(chars) if isinstance(codepoints, RaggedTensor) \
        else chars
    return chars, offsets


def unicode_split(input: Any, input_encoding: str, errors: str = "replace",  # noqa: A002
                  replacement_char: int = 65533, name: str | None = None) -> Any:
    """Each string split into its characters (as strings in ``input_encoding``)."""
    with ops_lib.name_scope(name, "UnicodeSplit", [input]):
        return _split(input, input_encoding, errors, replacement_char, False)[0]


def unicode_split_with_offsets(input: Any, input_encoding: str,  # noqa: A002
                               errors: str = "replace", replacement_char: int = 65533,
                               name: str | None = None) -> tuple:
    """(characters, the byte offset where each starts) of each string."""
    with ops_lib.name_scope(name, "UnicodeSplitWithOffsets", [input]):
        return _split(input, input_encoding, errors, replacement_char, True)
