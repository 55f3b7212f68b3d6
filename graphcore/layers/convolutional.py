"""tf.layers convolution layers (TF1's ``tf.compat.v1.layers``): Conv2D and conv2d.

Variables are ``<scope>/kernel`` ([*kernel_size, in_channels, filters]) and
``<scope>/bias``; the op is named after the class (``conv2d/Conv2D``) as TF's
``nn.convolution(name=...)`` names it.

Not here yet: Conv1D/Conv3D, Conv2DTranspose/Conv3DTranspose and SeparableConv1D/2D, whose
tf.nn ops (conv1d, conv3d, conv2d_transpose, separable_conv2d) graphcore does not have.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.layers.base import (
    InputSpec,
    Layer,
    add_kernel_and_bias,
    conv_output_length,
    normalize_data_format,
    normalize_tuple,
    set_kernel_bias_args,
)
from graphcore.ops import nn_conv_ops, nn_ops

__all__ = ["Conv2D", "Convolution2D", "conv2d"]

# The tf.nn convolution of each spatial rank.
_CONV_FNS = {2: nn_conv_ops.conv2d}


def _tf_data_format(data_format: str, ndim: int) -> str:
    spatial = {3: "W", 4: "HW", 5: "DHW"}[ndim]
    return f"NC{spatial}" if data_format == "channels_first" else f"N{spatial}C"


class Conv(Layer):
    """N-D convolution layer (the base of Conv1D/2D/3D)."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        self.rank = rank
        self.filters = int(filters)
        if self.filters <= 0:
            raise ValueError("Invalid value for argument `filters`. Expected a strictly "
                             f"positive value. Received filters={filters}.")
        self.kernel_size = normalize_tuple(kernel_size, rank, "kernel_size")
        self.strides = normalize_tuple(strides, rank, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same", "causal"):
            raise ValueError("The `padding` argument must be a list/tuple or one of "
                             f'"valid", "same" (or "causal", only for `Conv1D). Received: '
                             f"{padding}")
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        set_kernel_bias_args(self, activation, use_bias, kernel_initializer, bias_initializer,
                             kernel_regularizer, bias_regularizer, kernel_constraint,
                             bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        input_channel = shape_lib.dimension_value(input_shape[self._channel_axis()])
        if input_channel is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}, where axis "
                             f"{self._channel_axis()} (0-based) is the channel dimension, "
                             "which found to be `None`.")
        add_kernel_and_bias(self, self.kernel_size + (input_channel, self.filters),
                            (self.filters,))
        self.input_spec = InputSpec(min_ndim=self.rank + 2,
                                    axes={self._channel_axis(): input_channel})
        self.built = True

    def call(self, inputs: Any) -> Any:
        ndim = self.rank + 2
        data_format = _tf_data_format(self.data_format, ndim)
        outputs = _CONV_FNS[self.rank](
            inputs, self.kernel, strides=list(self.strides), padding=self.padding.upper(),
            dilations=list(self.dilation_rate), data_format=data_format,
            name=type(self).__name__)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        if inputs.shape.ndims:
            outputs.set_shape(self.compute_output_shape(inputs.shape))
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        dims = shape_lib.TensorShape(input_shape).as_list()
        spatial_axes = range(2, self.rank + 2) if self.data_format == "channels_first" \
            else range(1, self.rank + 1)
        spatial = [conv_output_length(dims[axis], self.kernel_size[i], self.padding,
                                      self.strides[i], self.dilation_rate[i])
                   for i, axis in enumerate(spatial_axes)]
        if self.data_format == "channels_first":
            return shape_lib.TensorShape([dims[0], self.filters] + spatial)
        return shape_lib.TensorShape([dims[0]] + spatial + [self.filters])


class Conv2D(Conv):
    """2-D convolution layer (spatial convolution over images)."""

    def __init__(self, filters: int, kernel_size: Any, strides: Any = (1, 1),
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(2, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         kernel_initializer=kernel_initializer,
                         bias_initializer=bias_initializer,
                         kernel_regularizer=kernel_regularizer,
                         bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                         trainable=trainable, name=name, **kwargs)


Convolution2D = Conv2D


def conv2d(inputs: Any, filters: int, kernel_size: Any, strides: Any = (1, 1),
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = (1, 1), activation: Any = None, use_bias: bool = True,
           kernel_initializer: Any = None, bias_initializer: Any = None,
           kernel_regularizer: Any = None, bias_regularizer: Any = None,
           activity_regularizer: Any = None, kernel_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> ops_lib.Tensor:
    """Functional interface of ``Conv2D``."""
    layer = Conv2D(filters=filters, kernel_size=kernel_size, strides=strides, padding=padding,
                   data_format=data_format, dilation_rate=dilation_rate,
                   activation=activation, use_bias=use_bias,
                   kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
                   kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
                   activity_regularizer=activity_regularizer,
                   kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                   trainable=trainable, name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs)
