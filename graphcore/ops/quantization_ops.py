"""Quantization ops (TF's array_ops quantization family): fake quantization with
min/max args, vars or per-channel vars (and their Gradient ops), QuantizeV2 / Dequantize
between float and the quantized dtypes, QuantizeAndDequantizeV2/V3/V4 (+V4Grad) and
QuantizedConcat; with TF's OpDefs, shape functions and Python wrappers. Gradients are in
:mod:`graphcore.ops.quantization_grad`, kernels in
:mod:`graphcore.kernels.quantization_kernels`."""

from __future__ import annotations

import collections
import types
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import gen_array_ops

__all__ = [
    "dequantize", "fake_quant_with_min_max_args", "fake_quant_with_min_max_args_gradient",
    "fake_quant_with_min_max_vars", "fake_quant_with_min_max_vars_gradient",
    "fake_quant_with_min_max_vars_per_channel",
    "fake_quant_with_min_max_vars_per_channel_gradient", "quantize", "quantize_v2",
    "quantized_concat",
]

_QTYPES = "{qint8, quint8, qint32, qint16, quint16}"
_QDQ_TYPES = "{bfloat16, half, float, double}"
_MODES = "{'MIN_COMBINED', 'MIN_FIRST', 'SCALED'}"


def _unchanged(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape]


def _check_min_max(op: ops_lib.Operation, first: int = 1, input_index: int = 0) -> None:
    """TF's checks on per-tensor (scalar) or per-``axis`` (vector) min/max inputs."""
    axis = op.get_attr("axis")
    if axis < -1:
        raise ValueError(f"axis should be at least -1, got {axis}")
    minmax = [op._inputs[first].shape.with_rank(0 if axis == -1 else 1),
              op._inputs[first + 1].shape.with_rank(0 if axis == -1 else 1)]
    if axis != -1:
        depth = op._inputs[input_index].shape.with_rank_at_least(axis + 1)[axis]
        for shape in minmax:
            shape_lib.Dimension(shape[0]).merge_with(depth)


def _minmax_checked(shape_fn: Any, first: int = 1, input_index: int = 0) -> Any:
    def fn(op: ops_lib.Operation) -> list:
        _check_min_max(op, first, input_index)
        return shape_fn(op)

    return fn


def _scalar_range(op: ops_lib.Operation) -> shape_lib.TensorShape:
    """The shape of QuantizeV2/QuantizedConcat's min/max outputs: scalars, or one per
    slice along ``axis``."""
    axis = op.get_attr("axis") if "axis" in op.node_def.attr else -1
    if axis < 0:
        return shape_lib.TensorShape([])
    return shape_lib.TensorShape([op._inputs[0].shape.with_rank_at_least(axis + 1)[axis]])


def _fake_quant_vars_grad_shape(op: ops_lib.Operation) -> list:
    grads = op._inputs[0].shape.merge_with(op._inputs[1].shape)
    return [grads, op._inputs[2].shape, op._inputs[3].shape]


def _quantize_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape, _scalar_range(op), _scalar_range(op)]


def _qdq_v4_grad_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[1].shape, op._inputs[2].shape, op._inputs[3].shape]


def _quantized_concat_shape(op: ops_lib.Operation) -> list:
    # ConcatV2's shape function, over (values..., concat_dim) as ConcatV2 orders them.
    n = op.get_attr("N")
    as_concat = types.SimpleNamespace(_inputs=[*op._inputs[1:1 + n], op._inputs[0]])
    out = gen_array_ops._concat_shape(as_concat)[0]
    return [out, shape_lib.TensorShape([]), shape_lib.TensorShape([])]


_reg = op_registry.register_op
_FAKE_QUANT_ATTRS = ("num_bits: int = 8", "narrow_range: bool = false")
_args = _reg("FakeQuantWithMinMaxArgs").input("inputs: float").output("outputs: float") \
    .attr("min: float = -6").attr("max: float = 6")
_args_grad = _reg("FakeQuantWithMinMaxArgsGradient").input("gradients: float") \
    .input("inputs: float").output("backprops: float").attr("min: float = -6") \
    .attr("max: float = 6")
_vars = [_reg(t).input("inputs: float").input("min: float").input("max: float")
         .output("outputs: float")
         for t in ("FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxVarsPerChannel")]
_vars_grad = [_reg(t).input("gradients: float").input("inputs: float").input("min: float")
              .input("max: float").output("backprops_wrt_input: float")
              .output("backprop_wrt_min: float").output("backprop_wrt_max: float")
              for t in ("FakeQuantWithMinMaxVarsGradient",
                        "FakeQuantWithMinMaxVarsPerChannelGradient")]
for _builder in [_args, _args_grad, *_vars, *_vars_grad]:
    for _attr in _FAKE_QUANT_ATTRS:
        _builder.attr(_attr)
for _builder in (_args, *_vars):
    _builder.shape_fn(_unchanged)
_args_grad.shape_fn(lambda op: [op._inputs[0].shape.merge_with(op._inputs[1].shape)])
for _builder in _vars_grad:
    _builder.shape_fn(_fake_quant_vars_grad_shape)

_reg("QuantizeV2").input("input: float").input("min_range: float").input("max_range: float") \
    .output("output: T").output("output_min: float").output("output_max: float") \
    .attr(f"T: {_QTYPES}").attr(f"mode: {_MODES} = 'MIN_COMBINED'") \
    .attr("round_mode: {'HALF_AWAY_FROM_ZERO', 'HALF_TO_EVEN'} = 'HALF_AWAY_FROM_ZERO'") \
    .attr("narrow_range: bool = false").attr("axis: int = -1") \
    .attr("ensure_minimum_range: float = 0.01").shape_fn(_minmax_checked(_quantize_shape))
_reg("Dequantize").input("input: T").input("min_range: float").input("max_range: float") \
    .output("output: dtype").attr(f"T: {_QTYPES}").attr(f"mode: {_MODES} = 'MIN_COMBINED'") \
    .attr("narrow_range: bool = false").attr("axis: int = -1") \
    .attr("dtype: {bfloat16, float} = DT_FLOAT").shape_fn(_minmax_checked(_unchanged))
for _op_type in ("QuantizeAndDequantizeV2", "QuantizeAndDequantizeV4"):
    _reg(_op_type).input("input: T").input("input_min: T").input("input_max: T") \
        .output("output: T").attr("signed_input: bool = true").attr("num_bits: int = 8") \
        .attr("range_given: bool = false").attr(f"T: {_QDQ_TYPES}") \
        .attr("round_mode: {'HALF_TO_EVEN', 'HALF_UP'} = 'HALF_TO_EVEN'") \
        .attr("narrow_range: bool = false").attr("axis: int = -1") \
        .shape_fn(_minmax_checked(_unchanged))
_reg("QuantizeAndDequantizeV3").input("input: T").input("input_min: T") \
    .input("input_max: T").input("num_bits: int32").output("output: T") \
    .attr("signed_input: bool = true").attr("range_given: bool = true") \
    .attr(f"T: {_QDQ_TYPES}").attr("narrow_range: bool = false").attr("axis: int = -1") \
    .shape_fn(_minmax_checked(_unchanged))
_reg("QuantizeAndDequantizeV4Grad").input("gradients: T").input("input: T") \
    .input("input_min: T").input("input_max: T").output("input_backprop: T") \
    .output("input_min_backprop: T").output("input_max_backprop: T") \
    .attr(f"T: {_QDQ_TYPES}").attr("axis: int = -1") \
    .shape_fn(_minmax_checked(_qdq_v4_grad_shape, first=2, input_index=1))
_reg("QuantizedConcat").input("concat_dim: int32").input("values: N * T") \
    .input("input_mins: N * float").input("input_maxes: N * float").output("output: T") \
    .output("output_min: float").output("output_max: float").attr("N: int >= 2") \
    .attr("T: type").shape_fn(_quantized_concat_shape)


def fake_quant_with_min_max_args(inputs: Any, min: float = -6, max: float = 6,  # noqa: A002
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: str | None = None) -> ops_lib.Tensor:
    """``inputs`` quantized to ``num_bits`` levels over the nudged [min, max] and back."""
    return apply_op("FakeQuantWithMinMaxArgs", name=name, inputs=inputs, min=float(min),
                    max=float(max), num_bits=num_bits, narrow_range=narrow_range).outputs[0]


def fake_quant_with_min_max_args_gradient(gradients: Any, inputs: Any,
                                          min: float = -6, max: float = 6,  # noqa: A002
                                          num_bits: int = 8, narrow_range: bool = False,
                                          name: str | None = None) -> ops_lib.Tensor:
    """``gradients`` where ``inputs`` lies in the nudged range, 0 elsewhere."""
    return apply_op("FakeQuantWithMinMaxArgsGradient", name=name, gradients=gradients,
                    inputs=inputs, min=float(min), max=float(max), num_bits=num_bits,
                    narrow_range=narrow_range).outputs[0]


def fake_quant_with_min_max_vars(inputs: Any, min: Any, max: Any,  # noqa: A002
                                 num_bits: int = 8, narrow_range: bool = False,
                                 name: str | None = None) -> ops_lib.Tensor:
    """Fake quantization over the scalar tensors [min, max]."""
    return apply_op("FakeQuantWithMinMaxVars", name=name, inputs=inputs, min=min, max=max,
                    num_bits=num_bits, narrow_range=narrow_range).outputs[0]


_FakeQuantGrads = collections.namedtuple(
    "FakeQuantWithMinMaxVarsGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])


def fake_quant_with_min_max_vars_gradient(gradients: Any, inputs: Any, min: Any,  # noqa: A002
                                          max: Any, num_bits: int = 8,  # noqa: A002
                                          narrow_range: bool = False,
                                          name: str | None = None) -> tuple:
    """(backprops_wrt_input, backprop_wrt_min, backprop_wrt_max)."""
    outputs = apply_op("FakeQuantWithMinMaxVarsGradient", name=name, gradients=gradients,
                       inputs=inputs, min=min, max=max, num_bits=num_bits,
                       narrow_range=narrow_range).outputs
    return _FakeQuantGrads(*outputs)


def fake_quant_with_min_max_vars_per_channel(inputs: Any, min: Any, max: Any,  # noqa: A002
                                             num_bits: int = 8, narrow_range: bool = False,
                                             name: str | None = None) -> ops_lib.Tensor:
    """Fake quantization with a [min, max] per channel (the last dimension)."""
    return apply_op("FakeQuantWithMinMaxVarsPerChannel", name=name, inputs=inputs, min=min,
                    max=max, num_bits=num_bits, narrow_range=narrow_range).outputs[0]


_FakeQuantPerChannelGrads = collections.namedtuple(
    "FakeQuantWithMinMaxVarsPerChannelGradient",
    ["backprops_wrt_input", "backprop_wrt_min", "backprop_wrt_max"])


def fake_quant_with_min_max_vars_per_channel_gradient(
        gradients: Any, inputs: Any, min: Any, max: Any,  # noqa: A002
        num_bits: int = 8, narrow_range: bool = False, name: str | None = None) -> tuple:
    outputs = apply_op("FakeQuantWithMinMaxVarsPerChannelGradient", name=name,
                       gradients=gradients, inputs=inputs, min=min, max=max,
                       num_bits=num_bits, narrow_range=narrow_range).outputs
    return _FakeQuantPerChannelGrads(*outputs)


_QuantizeV2 = collections.namedtuple("QuantizeV2", ["output", "output_min", "output_max"])


def _positive_axis(input: Any, axis: int | None) -> int:  # noqa: A002
    if axis is None:
        return -1
    if axis < 0:
        ndims = convert_to_tensor(input).shape.ndims
        if ndims is None:
            raise ValueError("input should have known rank to use negative axis.")
        axis %= ndims
    return axis


def quantize_v2(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002, N803
                mode: str = "MIN_COMBINED", name: str | None = None,
                round_mode: str = "HALF_AWAY_FROM_ZERO", narrow_range: bool = False,
                axis: int | None = None, ensure_minimum_range: float = 0.01) -> tuple:
    """float ``input`` as quantized ``T`` over [min_range, max_range]: a QuantizeV2 op,
    returned as (output, output_min, output_max)."""
    axis = _positive_axis(input, axis)
    outputs = apply_op("QuantizeV2", name=name, input=input, min_range=min_range,
                       max_range=max_range, T=dtypes_lib.as_dtype(T), mode=mode,
                       round_mode=round_mode, narrow_range=narrow_range, axis=axis,
                       ensure_minimum_range=float(ensure_minimum_range)).outputs
    return _QuantizeV2(*outputs)


def quantize(input: Any, min_range: Any, max_range: Any, T: Any,  # noqa: A002, N803
             mode: str = "MIN_COMBINED", round_mode: str = "HALF_AWAY_FROM_ZERO",
             name: str | None = None, narrow_range: bool = False, axis: int | None = None,
             ensure_minimum_range: float = 0.01) -> tuple:
    """``tf.quantization.quantize``: :func:`quantize_v2` with its argument order."""
    return quantize_v2(input, min_range, max_range, T, mode=mode, round_mode=round_mode,
                       name=name, narrow_range=narrow_range, axis=axis,
                       ensure_minimum_range=ensure_minimum_range)


def dequantize(input: Any, min_range: Any, max_range: Any,  # noqa: A002
               mode: str = "MIN_COMBINED", name: str | None = None, axis: int | None = None,
               narrow_range: bool = False, dtype: Any = dtypes_lib.float32) -> ops_lib.Tensor:
    """Quantized ``input`` back to ``dtype`` over [min_range, max_range]."""
    axis = _positive_axis(input, axis)
    return apply_op("Dequantize", name=name, input=input, min_range=min_range,
                    max_range=max_range, mode=mode, narrow_range=narrow_range, axis=axis,
                    dtype=dtypes_lib.as_dtype(dtype)).outputs[0]


def _quantize_and_dequantize(op_type: str, input: Any, input_min: Any,  # noqa: A002
                             input_max: Any, signed_input: bool, num_bits: int,
                             range_given: bool, round_mode: str, name: str | None,
                             narrow_range: bool, axis: int | None) -> ops_lib.Tensor:
    axis = _positive_axis(input, axis)
    return apply_op(op_type, name=name, input=input, input_min=input_min,
                    input_max=input_max, signed_input=signed_input, num_bits=num_bits,
                    range_given=range_given, round_mode=round_mode,
                    narrow_range=narrow_range, axis=axis).outputs[0]


def quantize_and_dequantize(input: Any, input_min: Any, input_max: Any,  # noqa: A002
                            signed_input: bool = True, num_bits: int = 8,
                            range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                            name: str | None = None, narrow_range: bool = False,
                            axis: int | None = None) -> ops_lib.Tensor:
    """``input`` through ``num_bits`` quantization and back (QuantizeAndDequantizeV2,
    straight-through gradient)."""
    return _quantize_and_dequantize("QuantizeAndDequantizeV2", input, input_min, input_max,
                                    signed_input, num_bits, range_given, round_mode, name,
                                    narrow_range, axis)


def quantize_and_dequantize_v2(input: Any, input_min: Any, input_max: Any,  # noqa: A002
                               signed_input: bool = True, num_bits: int = 8,
                               range_given: bool = False, round_mode: str = "HALF_TO_EVEN",
                               name: str | None = None, narrow_range: bool = False,
                               axis: int | None = None) -> ops_lib.Tensor:
    """As :func:`quantize_and_dequantize` (a QuantizeAndDequantizeV4 op), whose gradient
    is zero outside [input_min, input_max]."""
    return _quantize_and_dequantize("QuantizeAndDequantizeV4", input, input_min, input_max,
                                    signed_input, num_bits, range_given, round_mode, name,
                                    narrow_range, axis)


_QuantizedConcat = collections.namedtuple("QuantizedConcat",
                                          ["output", "output_min", "output_max"])


def quantized_concat(concat_dim: Any, values: list, input_mins: list, input_maxes: list,
                     name: str | None = None) -> tuple:
    """Quantized ``values`` concatenated, requantized into one common range."""
    outputs = apply_op("QuantizedConcat", name=name, concat_dim=concat_dim,
                       values=list(values), input_mins=list(input_mins),
                       input_maxes=list(input_maxes)).outputs
    return _QuantizedConcat(*outputs)
