"""tf.keras.layers.LayerNormalization: each sample normalized over ``axis`` (its mean and
variance there), then scaled by ``gamma`` and shifted by ``beta`` of those axes' shape."""

from __future__ import annotations

from typing import Any

from graphcore.framework import tensor_shape as shape_lib
from graphcore.keras import initializers, regularizers
from graphcore.keras.engine import Layer
from graphcore.ops import array_ops, nn_impl, nn_ops

__all__ = ["LayerNormalization"]


class LayerNormalization(Layer):
    _supports_masking = True
    _config_keys = ("axis", "epsilon", "center", "scale", "beta_initializer",
                    "gamma_initializer", "beta_regularizer", "gamma_regularizer",
                    "beta_constraint", "gamma_constraint")

    def __init__(self, axis: Any = -1, epsilon: float = 1e-3, center: bool = True,
                 scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Expected an int or a list/tuple of ints for the argument "
                            f"'axis', but received: {axis}")
        self.epsilon, self.center, self.scale = epsilon, center, scale
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint, self.gamma_constraint = beta_constraint, gamma_constraint

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        rank = input_shape.ndims
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        axes = sorted(a + rank if a < 0 else a for a in axes)
        for a in axes:
            if a < 0 or a >= rank:
                raise ValueError(f"Invalid axis: {a}")
        if len(axes) != len(set(axes)):
            raise ValueError(f"Duplicate axis: {tuple(axes)}")
        # As Keras: the config holds the axes made positive once built.
        self.axis = axes
        param_shape = [input_shape.as_list()[a] for a in axes]
        self.gamma = self.add_weight(
            "gamma", shape=param_shape, initializer=self.gamma_initializer,
            regularizer=self.gamma_regularizer, constraint=self.gamma_constraint) \
            if self.scale else None
        self.beta = self.add_weight(
            "beta", shape=param_shape, initializer=self.beta_initializer,
            regularizer=self.beta_regularizer, constraint=self.beta_constraint) \
            if self.center else None
        self.built = True

    def call(self, inputs: Any) -> Any:
        rank = inputs.shape.ndims
        # gamma and beta broadcast along the axes not normalized.
        shape = [1] * rank
        for a in self.axis:
            shape[a] = inputs.shape.as_list()[a]

        def broadcast(v: Any) -> Any:
            if v is not None and len(self.axis) != rank and self.axis != [rank - 1]:
                return array_ops.reshape(v, shape)
            return v

        mean, variance = nn_ops.moments(inputs, self.axis, keep_dims=True)
        outputs = nn_impl.batch_normalization(inputs, mean, variance,
                                              offset=broadcast(self.beta),
                                              scale=broadcast(self.gamma),
                                              variance_epsilon=self.epsilon)
        outputs.set_shape(inputs.shape)
        return outputs
