"""Float-op counts per op type, TF's ``RegisterStatistics(<type>, "flops")`` rules
(profiler/internal/flops_registry.py and nn_ops.py), from an op's static shapes.  A rule
raises ValueError when a shape it needs is not fully known, as TF's do."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

FLOPS: dict[str, Callable[[Any], int]] = {}


def register(*op_types: str):
    def wrap(fn):
        for t in op_types:
            FLOPS[t] = fn
        return fn

    return wrap


def _shape(tensor: Any) -> list[int]:
    shape = tensor.shape
    if not shape.is_fully_defined():
        raise ValueError(f"Shape {shape} is not fully defined")
    return shape.as_list()


def _count(tensor: Any) -> int:
    return int(np.prod(_shape(tensor), dtype=np.int64))


def _nhwc(op: Any) -> None:
    if op.get_attr("data_format") not in (b"NHWC", "NHWC"):
        raise ValueError("Only NHWC format is supported in flops computations")


def _unary(per_element: int):
    return lambda op: _count(op.inputs[0]) * per_element


def _binary(per_element: int):
    return lambda op: _count(op.outputs[0]) * per_element


for _t in ("Reciprocal", "Square", "Log", "Neg", "AssignSub", "AssignAdd"):
    register(_t)(_unary(1))
register("Rsqrt")(_unary(2))
register("Softmax")(_unary(5))
register("L2Loss")(lambda op: _count(op.inputs[0]) * 3 - 1)
for _t in ("Add", "AddV2", "Sub", "Mul", "RealDiv", "Maximum", "Minimum", "Pow",
           "GreaterEqual", "Greater", "LessEqual", "Less", "Equal", "NotEqual"):
    register(_t)(_binary(1))
register("RsqrtGrad")(_binary(4))
register("SquaredDifference")(_binary(2))


def _reduction(reduce_flops: int, finalize_flops: int):
    def rule(op: Any) -> int:
        return (_count(op.inputs[0]) * reduce_flops
                + _count(op.outputs[0]) * (finalize_flops - reduce_flops))

    return rule


register("Mean")(_reduction(1, 1))
register("Sum", "ArgMax", "ArgMin", "BiasAddGrad")(_reduction(1, 0))


@register("AvgPool", "MaxPool")
def _pool(op: Any) -> int:
    _nhwc(op)
    out = _count(op.outputs[0])
    return int(np.prod(op.get_attr("ksize"))) * out


@register("AvgPoolGrad")
def _avg_pool_grad(op: Any) -> int:
    _nhwc(op)
    return int(np.prod(op.get_attr("ksize"))) * _count(op.inputs[1]) * 2


@register("MaxPoolGrad")
def _max_pool_grad(op: Any) -> int:
    _nhwc(op)
    orig_out = _count(op.inputs[1])
    return int(np.prod(op.get_attr("ksize"))) * orig_out + orig_out


@register("Conv2DBackpropInput")
def _conv_backprop_input(op: Any) -> int:
    _nhwc(op)
    out = _shape(op.outputs[0])
    kernel = _count(op.inputs[1])
    strides = op.get_attr("strides")
    return int(2 * int(np.prod(out)) * kernel / (out[-1] * strides[1] * strides[2]))


@register("Conv2DBackpropFilter")
def _conv_backprop_filter(op: Any) -> int:
    _nhwc(op)
    image = _shape(op.inputs[0])
    kernel = _count(op.outputs[0])
    strides = op.get_attr("strides")
    return int(2 * int(np.prod(image)) * kernel / (image[-1] * strides[1] * strides[2]))


@register("AddN")
def _add_n(op: Any) -> int:
    if not op.inputs:
        return 0
    return _count(op.inputs[0]) * (len(op.inputs) - 1)


@register("MatMul")
def _mat_mul(op: Any) -> int:
    a = _shape(op.inputs[0])
    k = a[0] if op.get_attr("transpose_a") else a[1]
    return k * _count(op.outputs[0]) * 2


@register("BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def _batch_mat_mul(op: Any) -> int:
    # TF's rule reads a "transpose_a" attr these ops do not have: always the last dim.
    return _shape(op.inputs[0])[-1] * _count(op.outputs[0]) * 2


@register("Conv2D")
def _conv2d(op: Any) -> int:
    _shape(op.inputs[0])
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[2] * f[0] * f[1] * 2


@register("Conv3D")
def _conv3d(op: Any) -> int:
    _shape(op.inputs[0])
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[3] * f[0] * f[1] * f[2] * 2


@register("DepthwiseConv2dNative", "Dilation2D")
def _depthwise(op: Any) -> int:
    _shape(op.inputs[0])
    f = _shape(op.inputs[1])
    return _count(op.outputs[0]) * f[0] * f[1] * 2


@register("BiasAdd")
def _bias_add(op: Any) -> int:
    return _count(op.inputs[0])
