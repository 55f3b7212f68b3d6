"""The activations of tf.nn beyond relu/elu/softplus (TF's ``nn_ops.py`` / ``nn_impl.py``):
leaky_relu, selu, softsign (ops with their grad-helper ops), and the composites crelu,
swish/silu, relu_layer, xw_plus_b. Gradients in :mod:`graphcore.ops.nn_activation_grad`,
kernels in :mod:`graphcore.kernels.nn_activation_kernels`."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, custom_gradient, math_ops, nn_ops

__all__ = ["crelu", "leaky_relu", "relu_layer", "selu", "silu", "softsign", "swish",
           "xw_plus_b"]

_FLOATS = "{half, bfloat16, float, double}"

op_registry.register_op("LeakyRelu").input("features: T").output("activations: T") \
    .attr("alpha: float = 0.2").attr(f"T: {_FLOATS} = DT_FLOAT") \
    .shape_fn(common_shapes.unchanged_shape)
op_registry.register_op("LeakyReluGrad").input("gradients: T").input("features: T") \
    .output("backprops: T").attr("alpha: float = 0.2").attr(f"T: {_FLOATS} = DT_FLOAT") \
    .shape_fn(common_shapes.merge_all_inputs)
for _op_type, _second in (("Selu", None), ("SeluGrad", "outputs"), ("Softsign", None),
                          ("SoftsignGrad", "features")):
    _builder = op_registry.register_op(_op_type)
    if _second is None:
        _builder.input("features: T").output("activations: T")
    else:
        _builder.input("gradients: T").input(f"{_second}: T").output("backprops: T")
    _builder.attr(f"T: {_FLOATS}").shape_fn(
        common_shapes.unchanged_shape if _second is None else common_shapes.merge_all_inputs)


def leaky_relu(features: Any, alpha: Any = 0.2, name: str | None = None) -> ops_lib.Tensor:
    """max(features, alpha * features) (integer features are cast to float32)."""
    with ops_lib.name_scope(name, "LeakyRelu", [features, alpha]) as name:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = math_ops.cast(features, dtypes_lib.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", name=name, features=features, alpha=alpha).outputs[0]


def selu(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """scale * (alpha * (exp(features) - 1) if < 0 else features)."""
    return apply_op("Selu", name=name, features=features).outputs[0]


def softsign(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """features / (abs(features) + 1)."""
    return apply_op("Softsign", name=name, features=features).outputs[0]


def crelu(features: Any, name: str | None = None, axis: int = -1) -> ops_lib.Tensor:
    """relu(concat([features, -features], axis))."""
    with ops_lib.name_scope(name, "CRelu", [features]) as name:
        features = convert_to_tensor(features, name="features")
        c = array_ops.concat([features, -features], axis, name=name)
        return apply_op("Relu", features=c).outputs[0]


def relu_layer(x: Any, weights: Any, biases: Any, name: str | None = None) -> ops_lib.Tensor:
    """relu(matmul(x, weights) + biases)."""
    with ops_lib.name_scope(name, "relu_layer", [x, weights, biases]) as name:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        xw_plus_b_ = nn_ops.bias_add(math_ops.matmul(x, weights), biases)
        return nn_ops.relu(xw_plus_b_, name=name)


def xw_plus_b(x: Any, weights: Any, biases: Any, name: str | None = None) -> ops_lib.Tensor:
    """matmul(x, weights) + biases."""
    with ops_lib.name_scope(name, "xw_plus_b", [x, weights, biases]) as name:
        x = convert_to_tensor(x, name="x")
        weights = convert_to_tensor(weights, name="weights")
        biases = convert_to_tensor(biases, name="biases")
        return nn_ops.bias_add(math_ops.matmul(x, weights), biases, name=name)


def swish(features: Any, beta: Any = 1.0) -> ops_lib.Tensor:
    """features * sigmoid(beta * features), with TF's custom gradient (which recomputes
    the sigmoid instead of keeping it)."""
    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, name="beta")
    beta = math_ops.cast(beta, features.dtype)

    @custom_gradient.custom_gradient
    def swish_impl(features: Any, beta: Any) -> Any:
        def grad(dy: Any) -> Any:
            with ops_lib.control_dependencies([dy]):
                sigmoid_features = math_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (
                1.0 + (beta * features) * (1.0 - sigmoid_features))
            beta_grad = math_ops.reduce_sum(
                dy * math_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features))
            return dy * activation_grad, beta_grad

        return features * math_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


silu = swish
