"""Quantized convolution, pooling and ReLU-X (tf.nn.quantized_conv2d, quantized_max_pool,
quantized_avg_pool, quantized_relu_x): ops over quantized tensors whose real range travels
beside them as (min, max) float scalars."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.ops.window_shapes import conv_shape, pool_shape, with_rank

__all__ = ["quantized_avg_pool", "quantized_conv2d", "quantized_max_pool", "quantized_relu_x"]

_QTYPES = "{qint8, quint8, qint32, qint16, quint16}"


def _with_range(shape_fn: Any):
    """``shape_fn``'s output and two scalar (min, max) outputs; the min/max inputs must be
    scalars."""
    def fn(op: ops_lib.Operation) -> list:
        for t in op.inputs[{"QuantizedConv2D": 2, "QuantizedReluX": 1}.get(op.type, 1):]:
            with_rank(t.shape, 0)
        return shape_fn(op) + [shape_lib.TensorShape([]), shape_lib.TensorShape([])]
    return fn


for _op_type in ("QuantizedAvgPool", "QuantizedMaxPool"):
    op_registry.register_op(_op_type).input("input: T").input("min_input: float") \
        .input("max_input: float").output("output: T").output("min_output: float") \
        .output("max_output: float").attr(f"T: {_QTYPES}").attr("ksize: list(int)") \
        .attr("strides: list(int)").attr("padding: {'SAME', 'VALID'}") \
        .shape_fn(_with_range(pool_shape(2)))
    NotDifferentiable(_op_type)

op_registry.register_op("QuantizedConv2D").input("input: Tinput").input("filter: Tfilter") \
    .input("min_input: float").input("max_input: float").input("min_filter: float") \
    .input("max_filter: float").output("output: out_type").output("min_output: float") \
    .output("max_output: float").attr(f"Tinput: {_QTYPES}").attr(f"Tfilter: {_QTYPES}") \
    .attr(f"out_type: {_QTYPES} = DT_QINT32").attr("strides: list(int)") \
    .attr("padding: {'SAME', 'VALID'}").attr("dilations: list(int) = [1, 1, 1, 1]") \
    .shape_fn(_with_range(conv_shape(2)))
NotDifferentiable("QuantizedConv2D")

op_registry.register_op("QuantizedReluX").input("features: Tinput").input("max_value: float") \
    .input("min_features: float").input("max_features: float").output("activations: out_type") \
    .output("min_activations: float").output("max_activations: float") \
    .attr(f"Tinput: {_QTYPES}").attr(f"out_type: {_QTYPES} = DT_QUINT8") \
    .shape_fn(_with_range(lambda op: [op.inputs[0].shape]))
NotDifferentiable("QuantizedReluX")

_QuantizedAvgPoolOutput = collections.namedtuple(
    "QuantizedAvgPool", ["output", "min_output", "max_output"])
_QuantizedMaxPoolOutput = collections.namedtuple(
    "QuantizedMaxPool", ["output", "min_output", "max_output"])
_QuantizedConv2DOutput = collections.namedtuple(
    "QuantizedConv2D", ["output", "min_output", "max_output"])


def quantized_avg_pool(input: Any, min_input: Any, max_input: Any,  # noqa: A002
                       ksize: Any, strides: Any, padding: str,
                       name: str | None = None) -> tuple:
    """Average pooling of a quantized NHWC tensor; (output, min_output, max_output)."""
    op = apply_op("QuantizedAvgPool", name=name, input=input, min_input=min_input,
                  max_input=max_input, ksize=ksize, strides=strides, padding=padding)
    return _QuantizedAvgPoolOutput(*op.outputs)


def quantized_max_pool(input: Any, min_input: Any, max_input: Any,  # noqa: A002
                       ksize: Any, strides: Any, padding: str,
                       name: str | None = None) -> tuple:
    """Max pooling of a quantized NHWC tensor; (output, min_output, max_output)."""
    op = apply_op("QuantizedMaxPool", name=name, input=input, min_input=min_input,
                  max_input=max_input, ksize=ksize, strides=strides, padding=padding)
    return _QuantizedMaxPoolOutput(*op.outputs)


def quantized_conv2d(input: Any, filter: Any, min_input: Any,  # noqa: A002
                     max_input: Any, min_filter: Any, max_filter: Any, strides: Any,
                     padding: str, out_type: Any = dtypes_lib.qint32,
                     dilations: Any = (1, 1, 1, 1), name: str | None = None) -> tuple:
    """2-D convolution of quantized tensors into a qint32 accumulator; (output, min_output,
    max_output)."""
    op = apply_op("QuantizedConv2D", name=name, input=input, filter=filter,
                  min_input=min_input, max_input=max_input, min_filter=min_filter,
                  max_filter=max_filter, strides=strides, padding=padding,
                  out_type=out_type, dilations=list(dilations))
    return _QuantizedConv2DOutput(*op.outputs)


_QuantizedReluXOutput = collections.namedtuple(
    "QuantizedReluX", ["activations", "min_activations", "max_activations"])


def quantized_relu_x(features: Any, max_value: Any, min_features: Any, max_features: Any,
                     out_type: Any = dtypes_lib.quint8, name: str | None = None) -> tuple:
    """min(max(features, 0), max_value) on quantized ``features``; (activations,
    min_activations, max_activations)."""
    op = apply_op("QuantizedReluX", name=name, features=features, max_value=max_value,
                  min_features=min_features, max_features=max_features, out_type=out_type)
    return _QuantizedReluXOutput(*op.outputs)
