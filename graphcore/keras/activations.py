"""tf.keras.activations: the activation functions layers take by name (``"relu"``,
``"softmax"``...) and ``get``/``serialize``."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.keras import custom_objects
from graphcore.ops import math_ops, nn_activation_ops, nn_ops

__all__ = ["elu", "exponential", "get", "hard_sigmoid", "linear", "relu", "selu", "serialize",
           "sigmoid", "softmax", "softplus", "softsign", "swish", "tanh"]


def softmax(x: Any, axis: int = -1) -> Any:
    rank = x.shape.ndims
    if rank is not None and rank < 2:
        raise ValueError(f"Cannot apply softmax to a tensor that is 1D. Received input: {x}")
    return nn_ops.softmax(x, axis=axis)


def relu(x: Any, alpha: float = 0.0, max_value: Any = None, threshold: float = 0.0) -> Any:
    if alpha or threshold:
        negative = nn_ops.relu(-x + threshold)
        x = x * math_ops.cast(math_ops.greater(x, threshold), x.dtype) if threshold \
            else nn_ops.relu(x)
    else:
        negative = None
        x = nn_ops.relu(x)
    if max_value is not None:
        x = math_ops.minimum(x, math_ops.cast(max_value, x.dtype))
    if alpha and negative is not None:
        x = x - alpha * negative
    return x


def elu(x: Any, alpha: float = 1.0) -> Any:
    out = nn_ops.elu(x)
    if alpha == 1:
        return out
    return math_ops.select(math_ops.greater(x, 0.0), out, alpha * out)


def selu(x: Any) -> Any:
    return nn_activation_ops.selu(x)


def softplus(x: Any) -> Any:
    return nn_ops.softplus(x)


def softsign(x: Any) -> Any:
    return nn_activation_ops.softsign(x)


def swish(x: Any) -> Any:
    return x * math_ops.sigmoid(x)


def tanh(x: Any) -> Any:
    return math_ops.tanh(x)


def sigmoid(x: Any) -> Any:
    return math_ops.sigmoid(x)


def exponential(x: Any) -> Any:
    return math_ops.exp(x)


def hard_sigmoid(x: Any) -> Any:
    with ops_lib.name_scope("hard_sigmoid"):
        x = 0.2 * x + 0.5
        return math_ops.minimum(math_ops.maximum(x, 0.0), 1.0)


def linear(x: Any) -> Any:
    return x


_BY_NAME = {f.__name__: f for f in (elu, exponential, hard_sigmoid, linear, relu, selu,
                                    sigmoid, softmax, softplus, softsign, swish, tanh)}


def get(identifier: Any) -> Any:
    """The function for a name (None gives ``linear``) or the callable itself."""
    if identifier is None:
        return linear
    if isinstance(identifier, str):
        custom = custom_objects.lookup(identifier)
        if custom is not None:
            return custom
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown activation function: '{identifier}'. Please ensure you "
                             "are using a `keras.utils.custom_object_scope` and that this "
                             "object is included in the scope.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise TypeError(f"Could not interpret activation function identifier: {identifier}")


def serialize(activation: Any) -> str:
    return getattr(activation, "__name__", str(activation))
