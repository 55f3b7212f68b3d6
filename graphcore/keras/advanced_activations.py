"""tf.keras advanced activation layers: LeakyReLU, ReLU, Softmax (masked), ELU, PReLU (a
learned slope ``alpha`` per unit, shared along ``shared_axes``) and ThresholdedReLU."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.keras import activations, initializers, regularizers
from graphcore.keras.engine import InputSpec, Layer
from graphcore.ops import math_ops, nn_activation_ops, nn_ops

__all__ = ["ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "ThresholdedReLU"]


class LeakyReLU(Layer):
    """``max(x, alpha * x)``."""

    _supports_masking = True
    _has_build_config = False

    _config_keys = ("alpha",)

    def __init__(self, alpha: float = 0.3, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha = float(np.float32(alpha))

    def call(self, inputs: Any) -> Any:
        return nn_activation_ops.leaky_relu(inputs, alpha=self.alpha)


class ReLU(Layer):
    """Rectified linear unit with optional ``max_value``, ``negative_slope`` and
    ``threshold``."""

    _supports_masking = True
    _has_build_config = False

    _config_keys = ("max_value", "negative_slope", "threshold")

    def __init__(self, max_value: float | None = None, negative_slope: float = 0.0,
                 threshold: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_value = None if max_value is None else float(np.float32(max_value))
        self.negative_slope = float(np.float32(negative_slope))
        self.threshold = float(np.float32(threshold))

    def call(self, inputs: Any) -> Any:
        return activations.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)


class Softmax(Layer):

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("axis",)

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is not None:
            # As Keras: masked positions get a large negative logit.
            inputs = inputs + (1.0 - math_ops.cast(mask, inputs.dtype)) * -1e9
        return activations.softmax(inputs, axis=self.axis)


class ELU(Layer):
    """``x`` if ``x > 0``, else ``alpha * (exp(x) - 1)``."""

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("alpha",)

    def __init__(self, alpha: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if alpha is None:
            raise ValueError("Alpha of an ELU layer cannot be None, expecting a float. "
                             f"Received: {alpha}")
        self.alpha = float(np.float32(alpha))

    def call(self, inputs: Any) -> Any:
        return activations.elu(inputs, self.alpha)


class ThresholdedReLU(Layer):
    """``x`` if ``x > theta``, else 0."""

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("theta",)

    def __init__(self, theta: float = 1.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if theta is None or theta < 0:
            raise ValueError("Theta of a Thresholded ReLU layer cannot be None or negative, "
                             f"expecting a float. Received: {theta}")
        self.theta = float(np.float32(theta))

    def call(self, inputs: Any) -> Any:
        return inputs * math_ops.cast(math_ops.greater(inputs, self.theta), inputs.dtype)


class PReLU(Layer):
    """``max(x, 0) - alpha * max(-x, 0)`` with a learned ``alpha`` of the input's
    non-batch shape (1 along ``shared_axes``)."""

    _supports_masking = True
    _config_keys = ("alpha_initializer", "alpha_regularizer", "alpha_constraint",
                    "shared_axes")

    def __init__(self, alpha_initializer: Any = "zeros", alpha_regularizer: Any = None,
                 alpha_constraint: Any = None, shared_axes: Any = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = alpha_constraint
        self.shared_axes = None if shared_axes is None else \
            list(shared_axes) if isinstance(shared_axes, (list, tuple)) else [shared_axes]

    def build(self, input_shape: Any) -> None:
        shape = list(input_shape[1:].as_list() if hasattr(input_shape, "as_list")
                     else input_shape[1:])
        axes = {}
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        for i in range(1, len(shape) + 1):
            if i not in (self.shared_axes or []):
                axes[i] = shape[i - 1]
        self.alpha = self.add_weight("alpha", shape=shape, initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.input_spec = InputSpec(ndim=len(shape) + 1, axes=axes)
        self.built = True

    def call(self, inputs: Any) -> Any:
        pos = nn_ops.relu(inputs)
        neg = -self.alpha * nn_ops.relu(-inputs)
        return pos + neg
