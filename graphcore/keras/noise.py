"""tf.keras regularization layers active only in the training phase: SpatialDropout1D/2D
(whole feature maps dropped), GaussianNoise, GaussianDropout, AlphaDropout; and
ActivityRegularization (an L1/L2 loss on its input, identity otherwise)."""

from __future__ import annotations

import math
from typing import Any

from graphcore.keras import backend as K
from graphcore.keras import regularizers
from graphcore.keras.engine import InputSpec, Layer
from graphcore.layers import core
from graphcore.layers.base import smart_cond
from graphcore.ops import array_ops, math_ops, random_ops

__all__ = ["ActivityRegularization", "AlphaDropout", "GaussianDropout", "GaussianNoise",
           "SpatialDropout1D", "SpatialDropout2D"]


class _SpatialDropout(Layer, core.Dropout):
    _supports_masking = True
    _config_keys = ("rate", "noise_shape", "seed")


class SpatialDropout1D(_SpatialDropout):
    """Drops whole channels of [batch, steps, channels] inputs."""

    def __init__(self, rate: float, **kwargs: Any) -> None:
        super().__init__(rate, **kwargs)
        self.input_spec = InputSpec(ndim=3)

    def _get_noise_shape(self, inputs: Any) -> Any:
        shape = array_ops.shape(inputs)
        return [shape[0], 1, shape[2]]


class SpatialDropout2D(_SpatialDropout):
    """Drops whole feature maps of [batch, rows, cols, channels] (or channels-first)
    inputs."""

    def __init__(self, rate: float, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(rate, **kwargs)
        self.data_format = data_format or K.image_data_format()
        if self.data_format not in ("channels_last", "channels_first"):
            raise ValueError('`data_format` must be "channels_last" or "channels_first". '
                             f"Received: data_format={data_format}.")
        self.input_spec = InputSpec(ndim=4)

    def _get_noise_shape(self, inputs: Any) -> Any:
        shape = array_ops.shape(inputs)
        if self.data_format == "channels_first":
            return [shape[0], shape[1], 1, 1]
        return [shape[0], 1, 1, shape[3]]


class GaussianNoise(Layer):
    """Adds zero-mean normal noise of ``stddev`` while training."""

    _supports_masking = True
    _config_keys = ("stddev", "seed")

    def __init__(self, stddev: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.stddev, self.seed = stddev, seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        return smart_cond(training, lambda: inputs + random_ops.random_normal(
            array_ops.shape(inputs), mean=0.0, stddev=self.stddev, dtype=inputs.dtype,
            seed=self.seed), lambda: inputs)


class GaussianDropout(Layer):
    """Multiplies by normal noise of mean 1 and stddev ``sqrt(rate / (1 - rate))`` while
    training."""

    _supports_masking = True
    _config_keys = ("rate", "seed")

    def __init__(self, rate: float, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate, self.seed = rate, seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0 < self.rate < 1:
            return inputs
        stddev = math.sqrt(self.rate / (1.0 - self.rate))
        return smart_cond(training, lambda: inputs * random_ops.random_normal(
            array_ops.shape(inputs), mean=1.0, stddev=stddev, dtype=inputs.dtype,
            seed=self.seed), lambda: inputs)


class AlphaDropout(Layer):
    """Dropout that keeps the mean and variance of self-normalizing (selu) inputs: dropped
    values are set to selu's negative saturation, then an affine correction."""

    _supports_masking = True
    _config_keys = ("rate", "seed")

    def __init__(self, rate: float, noise_shape: Any = None, seed: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed

    def call(self, inputs: Any, training: Any = None) -> Any:
        if not 0 < self.rate < 1:
            return inputs
        alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
        alpha_p = -alpha * scale
        rate = self.rate

        def dropped() -> Any:
            shape = self.noise_shape if self.noise_shape is not None else \
                array_ops.shape(inputs)
            kept = math_ops.cast(math_ops.greater_equal(
                random_ops.random_uniform(shape, seed=self.seed), rate), inputs.dtype)
            a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
            b = -a * alpha_p * rate
            return a * (inputs * kept + alpha_p * (1 - kept)) + b

        return smart_cond(training, dropped, lambda: inputs)


class ActivityRegularization(Layer):
    """Identity whose input adds ``l1 * sum(|x|) + l2 * sum(x**2)`` (per sample of the
    batch) to the model's losses."""

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("l1", "l2")

    def __init__(self, l1: float = 0.0, l2: float = 0.0, **kwargs: Any) -> None:
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def call(self, inputs: Any) -> Any:
        return inputs
