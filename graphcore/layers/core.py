"""tf.layers core layers: Dense, Dropout, Flatten and their functions (TF1's
``tf.compat.v1.layers``). Dense's variables are ``<scope>/kernel`` and ``<scope>/bias``."""

from __future__ import annotations

import numbers
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.layers.base import (
    InputSpec,
    Layer,
    add_kernel_and_bias,
    normalize_data_format,
    set_kernel_bias_args,
    smart_cond,
)
from graphcore.ops import array_ops, linalg_ops, math_ops, nn_ops

__all__ = ["Dense", "Dropout", "Flatten", "dense", "dropout", "flatten"]


class Dense(Layer):
    """``activation(inputs @ kernel + bias)``."""

    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)
        if self.units < 0:
            raise ValueError("Received an invalid value for `units`, expected a positive "
                             f"integer. Received: units={units}")
        set_kernel_bias_args(self, activation, use_bias, kernel_initializer, bias_initializer,
                             kernel_regularizer, bias_regularizer, kernel_constraint,
                             bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        last_dim = shape_lib.dimension_value(input_shape[-1])
        if last_dim is None:
            raise ValueError("The last dimension of the inputs to a Dense layer should be "
                             f"defined. Found None. Full input shape received: {input_shape}")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last_dim})
        add_kernel_and_bias(self, [last_dim, self.units], [self.units])
        self.built = True

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.ndims
        if rank == 2 or rank is None:
            outputs = math_ops.matmul(inputs, self.kernel)
        else:
            outputs = linalg_ops.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.shape.as_list()[:-1] + [self.units])
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias)
        if self.activation is not None:
            outputs = self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(input_shape)[:-1].concatenate([self.units])


def dense(inputs: Any, units: int, activation: Any = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
          reuse: Any = None) -> ops_lib.Tensor:
    """Functional interface of ``Dense``."""
    layer = Dense(units, activation=activation, use_bias=use_bias,
                  kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                  kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                  activity_regularizer=activity_regularizer,
                  kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                  trainable=trainable, name=name, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs while ``training``, scaling the rest."""

    def __init__(self, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if isinstance(rate, (int, float)) and not 0 <= rate <= 1:
            raise ValueError(f"Invalid value {rate} received for `rate`, expected a value "
                             "between 0 and 1.")
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed

    def _get_noise_shape(self, inputs: Any) -> Any:
        if self.noise_shape is None:
            return None
        concrete = array_ops.shape(inputs)
        return [concrete[i] if value is None else value
                for i, value in enumerate(self.noise_shape)]

    def call(self, inputs: Any, training: Any = False) -> Any:
        if isinstance(self.rate, numbers.Real) and self.rate == 0:
            return array_ops.identity(inputs)
        return smart_cond(
            training,
            lambda: nn_ops.dropout(inputs, noise_shape=self._get_noise_shape(inputs),
                                   seed=self.seed, rate=self.rate),
            lambda: array_ops.identity(inputs))

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(input_shape)


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
            training: Any = False, name: str | None = None) -> ops_lib.Tensor:
    """Functional interface of ``Dropout``."""
    layer = Dropout(rate, noise_shape=noise_shape, seed=seed, name=name)
    return layer.apply(inputs, training=training)


class Flatten(Layer):
    """Flattens every dimension but the batch one: [N, ...] -> [N, prod(...)]."""

    def __init__(self, data_format: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.ndims
        if self.data_format == "channels_first" and rank is not None and rank > 1:
            inputs = array_ops.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return array_ops.expand_dims(inputs, axis=1)
        batch_dim = shape_lib.dimension_value(inputs.shape[0])
        non_batch = inputs.shape[1:]
        if non_batch.is_fully_defined():
            flattened_shape = array_ops.constant([-1, non_batch.num_elements()])
        elif batch_dim is not None:
            flattened_shape = array_ops.constant([int(batch_dim), -1])
        else:
            flattened_shape = [array_ops.shape(inputs)[0], -1]
        return array_ops.reshape(inputs, flattened_shape)

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        input_shape = shape_lib.TensorShape(input_shape)
        rest = input_shape[1:].num_elements() if input_shape[1:].is_fully_defined() else None
        return shape_lib.TensorShape([input_shape[0], rest])


def flatten(inputs: Any, name: str | None = None,
            data_format: str = "channels_last") -> ops_lib.Tensor:
    """Functional interface of ``Flatten``."""
    return Flatten(name=name, data_format=data_format).apply(inputs)

