"""Gradients of :mod:`graphcore.ops.quantization_ops` (TF's array_grad / array_ops
registrations): fake quantization passes gradients inside the nudged range through its
Gradient ops; QuantizeAndDequantizeV2/V3 are straight-through, V4 is zero outside
[input_min, input_max]. QuantizeV2, Dequantize and QuantizedConcat have none, as in TF."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import quantization_ops

for _op_type in ("FakeQuantWithMinMaxArgsGradient", "FakeQuantWithMinMaxVarsGradient",
                 "FakeQuantWithMinMaxVarsPerChannelGradient"):
    NotDifferentiable(_op_type)


@RegisterGradient("FakeQuantWithMinMaxArgs")
def _fake_quant_args_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return quantization_ops.fake_quant_with_min_max_args_gradient(
        grad, op.inputs[0], min=op.get_attr("min"), max=op.get_attr("max"),
        num_bits=op.get_attr("num_bits"), narrow_range=op.get_attr("narrow_range"))


@RegisterGradient("FakeQuantWithMinMaxVars")
def _fake_quant_vars_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return quantization_ops.fake_quant_with_min_max_vars_gradient(
        grad, op.inputs[0], op.inputs[1], op.inputs[2], num_bits=op.get_attr("num_bits"),
        narrow_range=op.get_attr("narrow_range"))


@RegisterGradient("FakeQuantWithMinMaxVarsPerChannel")
def _fake_quant_per_channel_grad(op: ops_lib.Operation, grad: Any) -> Any:
    return quantization_ops.fake_quant_with_min_max_vars_per_channel_gradient(
        grad, op.inputs[0], op.inputs[1], op.inputs[2], num_bits=op.get_attr("num_bits"),
        narrow_range=op.get_attr("narrow_range"))


@RegisterGradient("QuantizeAndDequantizeV2")
def _quantize_and_dequantize_v2_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [grad, None, None]


@RegisterGradient("QuantizeAndDequantizeV3")
def _quantize_and_dequantize_v3_grad(op: ops_lib.Operation, grad: Any) -> list:
    return [grad, None, None, None]


@RegisterGradient("QuantizeAndDequantizeV4")
def _quantize_and_dequantize_v4_grad(op: ops_lib.Operation, grad: Any) -> list:
    return apply_op("QuantizeAndDequantizeV4Grad", gradients=grad, input=op.inputs[0],
                    input_min=op.inputs[1], input_max=op.inputs[2],
                    axis=op.get_attr("axis")).outputs
