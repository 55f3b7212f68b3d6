"""Unicode transcoding (TF's string_ops over ICU): UnicodeTranscode, UnicodeEncode and
UnicodeScript with ``tf.strings.unicode_transcode``, ``tf.strings.unicode_encode`` (dense
code-point input) and ``tf.strings.unicode_script`` (ICU's script codes, -1 for an
invalid code point). Invalid input is replaced, dropped or
an error (``errors``) as TF's. Kernels: :mod:`graphcore.kernels.unicode_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

__all__ = ["unicode_encode", "unicode_script", "unicode_transcode"]

_ERRORS = "errors: {'strict', 'replace', 'ignore'} = 'replace'"
_OUT_ENCODINGS = "{'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}"


def _encode_shape(op: ops_lib.Operation) -> list:
    splits = op._inputs[1].shape.with_rank(1)
    n = splits.dims[0].value
    return [shape_lib.TensorShape([None if n is None else n - 1])]


op_registry.register_op("UnicodeTranscode").input("input: string").output("output: string") \
    .attr("input_encoding: string").attr(f"output_encoding: {_OUT_ENCODINGS}") \
    .attr(_ERRORS).attr("replacement_char: int = 65533") \
    .attr("replace_control_characters: bool = false") \
    .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("UnicodeEncode").input("input_values: int32") \
    .input("input_splits: Tsplits").output("output: string").attr(_ERRORS) \
    .attr(f"output_encoding: {_OUT_ENCODINGS}").attr("replacement_char: int = 65533") \
    .attr("Tsplits: {int32, int64} = DT_INT64").shape_fn(_encode_shape)
op_registry.register_op("UnicodeScript").input("input: int32").output("output: int32") \
    .shape_fn(common_shapes.unchanged_shape)
for _op_type in ("UnicodeTranscode", "UnicodeEncode", "UnicodeScript"):
    NotDifferentiable(_op_type)


def unicode_script(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The ICU script code (UScriptCode) of each code point (UnicodeScript)."""
    return apply_op("UnicodeScript", name=name, input=input).outputs[0]


def unicode_transcode(input: Any, input_encoding: str, output_encoding: str,  # noqa: A002
                      errors: str = "replace", replacement_char: int = 65533,
                      replace_control_characters: bool = False,
                      name: str | None = None) -> ops_lib.Tensor:
    """Each string re-encoded from ``input_encoding`` to ``output_encoding``."""
    return apply_op("UnicodeTranscode", name=name, input=input, input_encoding=input_encoding,
                    output_encoding=output_encoding, errors=errors,
                    replacement_char=replacement_char,
                    replace_control_characters=replace_control_characters).outputs[0]


def unicode_encode(input: Any, output_encoding: str, errors: str = "replace",  # noqa: A002
                   replacement_char: int = 65533, name: str | None = None) -> ops_lib.Tensor:
    """The code points along the last dimension of ``input`` encoded as one string each
    (UnicodeEncode): a rank-N int32 tensor gives rank N-1 strings."""
    with ops_lib.name_scope(name, "UnicodeEncode", [input]):
        input_tensor = convert_to_tensor(input)
        ndims = input_tensor.shape.ndims
        if ndims is None:
            raise ValueError("Rank of input_tensor must be statically known.")
        if ndims == 0:
            raise ValueError("input_tensor's rank must be at least 1.")
        if ndims == 1:
            splits = array_ops.stack([0, array_ops.shape(input_tensor,
                                                         out_type=dtypes_lib.int32)[0]])
            # TF encodes a one-row RaggedTensor by calling itself: a nested scope.
            with ops_lib.name_scope(None, "UnicodeEncode"):
                output = apply_op("UnicodeEncode", input_values=input_tensor,
                                  input_splits=splits, output_encoding=output_encoding,
                                  errors=errors, replacement_char=replacement_char).outputs[0]
            return array_ops.reshape(output, [])
        # Rows of the innermost dimension, all of one length: evenly spaced splits.
        shape = array_ops.shape(input_tensor, out_type=dtypes_lib.int64)
        rows = array_ops.reshape(input_tensor, [-1])
        nrows = math_ops.reduce_prod(shape[:-1])
        splits = math_ops.range(nrows + 1) * shape[-1]
        output = apply_op("UnicodeEncode", input_values=rows, input_splits=splits,
                          output_encoding=output_encoding, errors=errors,
                          replacement_char=replacement_char).outputs[0]
        return array_ops.reshape(output, shape[:-1])
