"""String ops (TF's string_ops): join, substr, as_string, to_number, regex replace and
full match, reduce_join, length, lower/upper, strip, base64 and the fast hash buckets
(TF's Fingerprint64, so ids equal TF's), with TF's OpDefs and shape functions.
Kernels: :mod:`graphcore.kernels.string_kernels`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

__all__ = ["as_string", "decode_base64", "encode_base64", "reduce_join", "regex_replace",
           "string_join", "string_strip", "string_to_hash_bucket_fast", "string_to_number",
           "substr"]

_unchanged = common_shapes.unchanged_shape
_reg = op_registry.register_op
def _join_shape(op: ops_lib.Operation) -> list:
    """Scalars broadcast; the other inputs share one shape (TF's StringJoin)."""
    out = shape_lib.TensorShape([])
    for t in op._inputs:
        if t.shape.ndims != 0:
            out = t.shape if out.ndims == 0 else out.merge_with(t.shape)
    return [out]


_reg("StringJoin").input("inputs: N * string").output("output: string").attr("N: int >= 0") \
    .attr("separator: string = ''").shape_fn(_join_shape)
_reg("Substr").input("input: string").input("pos: T").input("len: T") \
    .output("output: string").attr("T: {int32, int64}") \
    .attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'").shape_fn(_unchanged)
_reg("AsString").input("input: T").output("output: string") \
    .attr("T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, "
          "uint32, uint64, complex64, complex128, bool, variant, string}") \
    .attr("precision: int = -1").attr("scientific: bool = false") \
    .attr("shortest: bool = false").attr("width: int = -1").attr("fill: string = ''") \
    .shape_fn(_unchanged)
_reg("StringToNumber").input("string_tensor: string").output("output: out_type") \
    .attr("out_type: {float, double, int32, int64, uint32, uint64} = DT_FLOAT") \
    .shape_fn(_unchanged)
_reg("RegexReplace").input("input: string").input("pattern: string").input("rewrite: string") \
    .output("output: string").attr("replace_global: bool = true").shape_fn(_unchanged)
_reg("StaticRegexReplace").input("input: string").output("output: string") \
    .attr("pattern: string").attr("rewrite: string").attr("replace_global: bool = true") \
    .shape_fn(_unchanged)
_reg("RegexFullMatch").input("input: string").input("pattern: string").output("output: bool") \
    .shape_fn(_unchanged)
_reg("StaticRegexFullMatch").input("input: string").output("output: bool") \
    .attr("pattern: string").shape_fn(_unchanged)
_reg("ReduceJoin").input("inputs: string").input("reduction_indices: int32") \
    .output("output: string").attr("keep_dims: bool = false") \
    .attr("separator: string = ''").shape_fn(common_shapes.unknown_shapes)
_reg("StringLength").input("input: string").output("output: int32") \
    .attr("unit: {'BYTE', 'UTF8_CHAR'} = 'BYTE'").shape_fn(_unchanged)
for _op_type in ("StringLower", "StringUpper"):
    _reg(_op_type).input("input: string").output("output: string") \
        .attr("encoding: string = ''").shape_fn(_unchanged)
_reg("StringStrip").input("input: string").output("output: string").shape_fn(_unchanged)
_reg("EncodeBase64").input("input: string").output("output: string") \
    .attr("pad: bool = false").shape_fn(_unchanged)
_reg("DecodeBase64").input("input: string").output("output: string").shape_fn(_unchanged)
_reg("StringToHashBucketFast").input("input: string").output("output: int64") \
    .attr("num_buckets: int >= 1").shape_fn(_unchanged)
for _op_type in ("StringJoin", "Substr", "AsString", "StringToNumber", "RegexReplace",
                 "StaticRegexReplace", "RegexFullMatch", "StaticRegexFullMatch", "ReduceJoin",
                 "StringLength", "StringLower", "StringUpper", "StringStrip", "EncodeBase64",
                 "DecodeBase64", "StringToHashBucketFast"):
    NotDifferentiable(_op_type)


def string_join(inputs: list, separator: str = "", name: str | None = None) -> ops_lib.Tensor:
    """The strings of ``inputs`` (broadcast) joined elementwise with ``separator``."""
    return apply_op("StringJoin", name=name, inputs=list(inputs),
                    separator=separator).outputs[0]


def substr(input: Any, pos: Any, len: Any, name: str | None = None,  # noqa: A002
           unit: str = "BYTE") -> ops_lib.Tensor:
    """``len`` bytes (or UTF-8 characters) of each string from ``pos``."""
    return apply_op("Substr", name=name, input=input, pos=pos, len=len, unit=unit).outputs[0]


def as_string(input: Any, precision: int = -1, scientific: bool = False,  # noqa: A002
              shortest: bool = False, width: int = -1, fill: str = "",
              name: str | None = None) -> ops_lib.Tensor:
    """Each element as a string (printf-style options as TF's)."""
    return apply_op("AsString", name=name, input=input, precision=precision,
                    scientific=scientific, shortest=shortest, width=width,
                    fill=fill).outputs[0]


def string_to_number(string_tensor: Any, out_type: Any = dtypes_lib.float32,
                     name: str | None = None) -> ops_lib.Tensor:
    """Each string parsed as a number of ``out_type`` (InvalidArgumentError if not)."""
    return apply_op("StringToNumber", name=name, string_tensor=string_tensor,
                    out_type=out_type).outputs[0]


def regex_replace(input: Any, pattern: Any, rewrite: Any, replace_global: bool = True,  # noqa: A002
                  name: str | None = None) -> ops_lib.Tensor:
    """``pattern`` (RE2 syntax) replaced by ``rewrite`` (``\\1`` groups) in each string;
    Python-string patterns make the Static op, as TF's."""
    if isinstance(pattern, (str, bytes)) and isinstance(rewrite, (str, bytes)):
        return apply_op("StaticRegexReplace", name=name, input=input, pattern=pattern,
                        rewrite=rewrite, replace_global=replace_global).outputs[0]
    return apply_op("RegexReplace", name=name, input=input, pattern=pattern, rewrite=rewrite,
                    replace_global=replace_global).outputs[0]


def regex_full_match(input: Any, pattern: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """Whether each string matches ``pattern`` entirely."""
    if isinstance(pattern, (str, bytes)):
        return apply_op("StaticRegexFullMatch", name=name, input=input,
                        pattern=pattern).outputs[0]
    return apply_op("RegexFullMatch", name=name, input=input, pattern=pattern).outputs[0]


def reduce_join(inputs: Any, axis: Any = None, keep_dims: bool = False,
                separator: str = "", name: str | None = None,
                reduction_indices: Any = None, keepdims: Any = None) -> ops_lib.Tensor:
    """The strings joined along ``axis`` (all axes when None), in order."""
    axis = axis if axis is not None else reduction_indices
    keep = keep_dims if keepdims is None else keepdims
    with ops_lib.name_scope(name, "ReduceJoin", [inputs]) as scope:
        inputs = convert_to_tensor(inputs, name="inputs")
        if axis is None:  # every axis, last first
            if inputs.shape.ndims is not None:
                axis = array_ops.constant(np.arange(inputs.shape.ndims - 1, -1, -1,
                                                    dtype=np.int32))
            else:
                axis = math_ops.range(array_ops.rank(inputs) - 1, -1, -1)
        return apply_op("ReduceJoin", name=scope, inputs=inputs, reduction_indices=axis,
                        keep_dims=keep, separator=separator).outputs[0]


def length(input: Any, name: str | None = None, unit: str = "BYTE") -> ops_lib.Tensor:  # noqa: A002
    """The length of each string in bytes (or UTF-8 characters)."""
    return apply_op("StringLength", name=name, input=input, unit=unit).outputs[0]


def lower(input: Any, encoding: str = "", name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    return apply_op("StringLower", name=name, input=input, encoding=encoding).outputs[0]


def upper(input: Any, encoding: str = "", name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    return apply_op("StringUpper", name=name, input=input, encoding=encoding).outputs[0]


def string_strip(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """Each string without leading and trailing whitespace."""
    return apply_op("StringStrip", name=name, input=input).outputs[0]


def encode_base64(input: Any, pad: bool = False, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """Web-safe base64 of each string (``=`` padding when ``pad``)."""
    return apply_op("EncodeBase64", name=name, input=input, pad=pad).outputs[0]


def decode_base64(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    return apply_op("DecodeBase64", name=name, input=input).outputs[0]


def string_to_hash_bucket_fast(input: Any, num_buckets: int,  # noqa: A002
                               name: str | None = None) -> ops_lib.Tensor:
    """Fingerprint64(string) % num_buckets, TF's ids for the same strings."""
    return apply_op("StringToHashBucketFast", name=name, input=input,
                    num_buckets=num_buckets).outputs[0]
