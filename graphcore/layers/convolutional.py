"""tf.layers convolution layers (TF1's ``tf.compat.v1.layers``): Conv1D/2D/3D,
Conv2DTranspose/Conv3DTranspose, SeparableConv1D/2D and their functional forms.

Variables are ``<scope>/kernel`` ([*kernel_size, in_channels, filters]; the transposes'
[*kernel_size, filters, in_channels]), ``<scope>/depthwise_kernel`` and
``<scope>/pointwise_kernel`` for the separable ones, and ``<scope>/bias``. The ops are built
as Keras builds them: ``tf.nn.convolution(name=<class name>)`` for Conv*D (so
``conv2d/Conv2D``), ``tf.nn.conv2d_transpose`` / ``conv3d_transpose`` over an output shape
from ``tf.shape(inputs)``, ``tf.nn.separable_conv2d`` (over an ExpandDims view in 1-D).
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
from graphcore.ops import array_ops, nn_conv_ops, nn_convolution_ops, nn_ops

__all__ = [
    "Conv1D", "Conv2D", "Conv3D", "Convolution1D", "Convolution2D", "Convolution3D",
    "Conv2DTranspose", "Conv3DTranspose", "Convolution2DTranspose", "Convolution3DTranspose",
    "SeparableConv1D", "SeparableConv2D", "SeparableConvolution1D", "SeparableConvolution2D",
    "conv1d", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "separable_conv1d",
    "separable_conv2d",
]


def _tf_data_format(data_format: str, ndim: int) -> str:
    spatial = {3: "W", 4: "HW", 5: "DHW"}[ndim]
    return f"NC{spatial}" if data_format == "channels_first" else f"N{spatial}C"


def deconv_output_length(input_length: Any, filter_size: int, padding: str,
                         stride: int) -> Any:
    """The length of a transposed convolution's output along one dimension (Keras's
    conv_utils.deconv_output_length, no output padding); None stays None."""
    if input_length is None:
        return None
    if padding == "valid":
        return input_length * stride + max(filter_size - stride, 0)
    return input_length * stride


class Conv(Layer):
    """N-D convolution layer (the base of Conv1D/2D/3D and the separable ones)."""

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
        if self.padding == "causal" and not isinstance(self, (Conv1D, SeparableConv1D)):
            raise ValueError("Causal padding is only supported for `Conv1D`and "
                             "`SeparableConv1D`.")
        self.data_format = normalize_data_format(data_format)
        self.dilation_rate = normalize_tuple(dilation_rate, rank, "dilation_rate")
        set_kernel_bias_args(self, activation, use_bias, kernel_initializer, bias_initializer,
                             kernel_regularizer, bias_regularizer, kernel_constraint,
                             bias_constraint)
        self.input_spec = InputSpec(min_ndim=rank + 2)

    def _channel_axis(self) -> int:
        return 1 if self.data_format == "channels_first" else -1

    def _input_channel(self, input_shape: Any) -> int:
        input_shape = shape_lib.TensorShape(input_shape)
        input_channel = shape_lib.dimension_value(input_shape[self._channel_axis()])
        if input_channel is None:
            raise ValueError("The channel dimension of the inputs should be defined. The "
                             f"input_shape received is {input_shape}, where axis "
                             f"{self._channel_axis()} (0-based) is the channel dimension, "
                             "which found to be `None`.")
        return int(input_channel)

    def build(self, input_shape: Any) -> None:
        input_channel = self._input_channel(input_shape)
        add_kernel_and_bias(self, self.kernel_size + (input_channel, self.filters),
                            (self.filters,))
        self.input_spec = InputSpec(min_ndim=self.rank + 2,
                                    axes={self._channel_axis(): input_channel})
        self.built = True

    def _causal_padding(self, inputs: Any) -> list:
        left_pad = self.dilation_rate[0] * (self.kernel_size[0] - 1)
        batch_rank = 1 if inputs.shape.ndims is None else inputs.shape.ndims - 2
        if self.data_format == "channels_last":
            return [[0, 0]] * batch_rank + [[left_pad, 0], [0, 0]]
        return [[0, 0]] * batch_rank + [[0, 0], [left_pad, 0]]

    def _add_bias(self, outputs: Any, data_format: str) -> Any:
        if self.rank == 1 and self.data_format == "channels_first":
            return outputs + array_ops.reshape(self.bias, (1, self.filters, 1))
        return nn_ops.bias_add(outputs, self.bias, data_format=data_format)

    def call(self, inputs: Any) -> Any:
        input_shape = inputs.shape
        if self.padding == "causal":
            inputs = array_ops.pad(inputs, self._causal_padding(inputs))
        data_format = _tf_data_format(self.data_format, self.rank + 2)
        outputs = nn_convolution_ops.convolution_internal(
            inputs, self.kernel, strides=list(self.strides),
            padding="VALID" if self.padding == "causal" else self.padding.upper(),
            dilations=list(self.dilation_rate), data_format=data_format,
            name=type(self).__name__)
        if self.use_bias:
            outputs = self._add_bias(outputs, data_format)
        if input_shape.ndims:
            outputs.set_shape(self.compute_output_shape(input_shape))
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _spatial_axes(self) -> range:
        return range(2, self.rank + 2) if self.data_format == "channels_first" \
            else range(1, self.rank + 1)

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        dims = shape_lib.TensorShape(input_shape).as_list()
        spatial = [conv_output_length(dims[axis], self.kernel_size[i], self.padding,
                                      self.strides[i], self.dilation_rate[i])
                   for i, axis in enumerate(self._spatial_axes())]
        if self.data_format == "channels_first":
            return shape_lib.TensorShape([dims[0], self.filters] + spatial)
        return shape_lib.TensorShape([dims[0]] + spatial + [self.filters])


def _conv_class(rank: int, class_name: str, doc: str) -> type:
    """A Conv subclass of fixed ``rank`` with TF1's constructor signature."""
    def __init__(self: Any, filters: int, kernel_size: Any, strides: Any = (1,) * rank,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1,) * rank, activation: Any = None,
                 use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = None, kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        Conv.__init__(self, rank, filters, kernel_size, strides=strides, padding=padding,
                      data_format=data_format, dilation_rate=dilation_rate,
                      activation=activation, use_bias=use_bias,
                      kernel_initializer=kernel_initializer,
                      bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
                      bias_regularizer=bias_regularizer,
                      activity_regularizer=activity_regularizer,
                      kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                      trainable=trainable, name=name, **kwargs)

    return type(class_name, (Conv,), {"__init__": __init__, "__doc__": doc,
                                      "__module__": __name__})


Conv1D = _conv_class(1, "Conv1D", "1-D convolution layer (temporal convolution).")
Conv2D = _conv_class(2, "Conv2D", "2-D convolution layer (spatial convolution over images).")
Conv3D = _conv_class(3, "Conv3D", "3-D convolution layer (spatial convolution over volumes).")
Convolution1D, Convolution3D = Conv1D, Conv3D
Convolution2D = Conv2D


class _ConvTranspose(Conv):
    """Transposed convolution (Conv2DTranspose/Conv3DTranspose): the gradient of a
    convolution, its kernel [*kernel_size, filters, in_channels]."""

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        if input_shape.ndims != self.rank + 2:
            raise ValueError(f"Inputs should have rank {self.rank + 2}. Received "
                             f"input_shape={input_shape}.")
        input_channel = self._input_channel(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2,
                                    axes={self._channel_axis(): input_channel})
        add_kernel_and_bias(self, self.kernel_size + (self.filters, input_channel),
                            (self.filters,))
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        dims = list(shape_lib.TensorShape(input_shape).as_list())
        dims[self._channel_axis()] = self.filters
        for i, axis in enumerate(self._spatial_axes()):
            dims[axis] = deconv_output_length(dims[axis], self.kernel_size[i], self.padding,
                                              self.strides[i])
        return shape_lib.TensorShape(dims)

    def call(self, inputs: Any) -> Any:
        outputs = self._call_2d(inputs) if self.rank == 2 else self._call_3d(inputs)
        return self._finish(inputs, outputs)

    def _call_2d(self, inputs: Any) -> Any:
        inputs_shape = array_ops.shape(inputs)
        batch_size = inputs_shape[0]
        h_axis, w_axis = (2, 3) if self.data_format == "channels_first" else (1, 2)
        height = width = None
        if inputs.shape.ndims is not None:
            dims = inputs.shape.as_list()
            height, width = dims[h_axis], dims[w_axis]
        height = height if height is not None else inputs_shape[h_axis]
        width = width if width is not None else inputs_shape[w_axis]
        out_height = deconv_output_length(height, self.kernel_size[0], self.padding,
                                          self.strides[0])
        out_width = deconv_output_length(width, self.kernel_size[1], self.padding,
                                         self.strides[1])
        if self.data_format == "channels_first":
            output_shape = (batch_size, self.filters, out_height, out_width)
        else:
            output_shape = (batch_size, out_height, out_width, self.filters)
        output_shape = array_ops.stack(output_shape)
        # Keras's backend.conv2d_transpose on CPU: channels_first runs as NHWC in between.
        x = inputs
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, (0, 2, 3, 1))
            output_shape = (output_shape[0], output_shape[2], output_shape[3],
                            output_shape[1])
        # Keras tests ``output_shape[0] is None``: on a tensor that slices (unused) in TF.
        output_shape[0]  # noqa: B018
        if isinstance(output_shape, tuple):
            output_shape = array_ops.stack(list(output_shape))
        outputs = nn_conv_ops.conv2d_transpose(
            x, self.kernel, output_shape, (1,) + self.strides + (1,),
            padding=self.padding.upper(), data_format="NHWC")
        if self.data_format == "channels_first":
            outputs = array_ops.transpose(outputs, (0, 3, 1, 2))
        return outputs

    def _call_3d(self, inputs: Any) -> Any:
        inputs_shape = array_ops.shape(inputs)
        batch_size = inputs_shape[0]
        first = self.data_format == "channels_first"
        axes = (2, 3, 4) if first else (1, 2, 3)
        sizes = [inputs_shape[a] for a in axes]
        out = [deconv_output_length(size, k, self.padding, s)
               for size, k, s in zip(sizes, self.kernel_size, self.strides)]
        if first:
            output_shape = (batch_size, self.filters, *out)
            strides = (1, 1) + self.strides
        else:
            output_shape = (batch_size, *out, self.filters)
            strides = (1,) + self.strides + (1,)
        outputs = nn_conv_ops.conv3d_transpose_v2(
            inputs, self.kernel, array_ops.stack(output_shape), strides,
            data_format=_tf_data_format(self.data_format, 5), padding=self.padding.upper())
        return outputs

    def _finish(self, inputs: Any, outputs: Any) -> Any:
        if inputs.shape.ndims:
            outputs.set_shape(self.compute_output_shape(inputs.shape))
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias,
                                      data_format=_tf_data_format(self.data_format, 4))
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _transpose_class(rank: int, class_name: str, doc: str) -> type:
    """A _ConvTranspose of fixed ``rank`` with TF1's constructor signature."""
    def __init__(self: Any, filters: int, kernel_size: Any, strides: Any = (1,) * rank,
                 padding: str = "valid", data_format: str = "channels_last",
                 activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
                 bias_initializer: Any = None, kernel_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 kernel_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        _ConvTranspose.__init__(
            self, rank, filters, kernel_size, strides=strides, padding=padding,
            data_format=data_format, activation=activation, use_bias=use_bias,
            kernel_initializer=kernel_initializer, bias_initializer=bias_initializer,
            kernel_regularizer=kernel_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer, kernel_constraint=kernel_constraint,
            bias_constraint=bias_constraint, trainable=trainable, name=name, **kwargs)

    return type(class_name, (_ConvTranspose,), {"__init__": __init__, "__doc__": doc,
                                                "__module__": __name__})


Conv2DTranspose = _transpose_class(2, "Conv2DTranspose",
                                   "Transposed 2-D convolution layer (deconvolution).")
Conv3DTranspose = _transpose_class(3, "Conv3DTranspose",
                                   "Transposed 3-D convolution layer (deconvolution).")
Convolution2DTranspose, Convolution3DTranspose = Conv2DTranspose, Conv3DTranspose


class _SeparableConv(Conv):
    """Depthwise then pointwise convolution (SeparableConv1D/2D)."""

    def __init__(self, rank: int, filters: int, kernel_size: Any, strides: Any = 1,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = 1, depth_multiplier: int = 1, activation: Any = None,
                 use_bias: bool = True, depthwise_initializer: Any = None,
                 pointwise_initializer: Any = None, bias_initializer: Any = None,
                 depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
                 bias_regularizer: Any = None, activity_regularizer: Any = None,
                 depthwise_constraint: Any = None, pointwise_constraint: Any = None,
                 bias_constraint: Any = None, trainable: bool = True,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(rank, filters, kernel_size, strides=strides, padding=padding,
                         data_format=data_format, dilation_rate=dilation_rate,
                         activation=activation, use_bias=use_bias,
                         bias_initializer=bias_initializer, bias_regularizer=bias_regularizer,
                         activity_regularizer=activity_regularizer,
                         bias_constraint=bias_constraint, trainable=trainable, name=name,
                         **kwargs)
        self.depth_multiplier = depth_multiplier
        self.depthwise_initializer = depthwise_initializer
        self.pointwise_initializer = pointwise_initializer
        self.depthwise_regularizer = depthwise_regularizer
        self.pointwise_regularizer = pointwise_regularizer
        self.depthwise_constraint = depthwise_constraint
        self.pointwise_constraint = pointwise_constraint

    def build(self, input_shape: Any) -> None:
        input_channel = self._input_channel(input_shape)
        self.input_spec = InputSpec(ndim=self.rank + 2,
                                    axes={self._channel_axis(): input_channel})
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel", shape=self.kernel_size + (input_channel, self.depth_multiplier),
            initializer=self.depthwise_initializer, regularizer=self.depthwise_regularizer,
            constraint=self.depthwise_constraint, dtype=self.dtype, trainable=True)
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            shape=(1,) * self.rank + (self.depth_multiplier * input_channel, self.filters),
            initializer=self.pointwise_initializer, regularizer=self.pointwise_regularizer,
            constraint=self.pointwise_constraint, dtype=self.dtype, trainable=True)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(
                "bias", shape=(self.filters,), initializer=self.bias_initializer,
                regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                dtype=self.dtype, trainable=True)
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self._call_1d(inputs) if self.rank == 1 else self._call_2d(inputs)

    def _call_1d(self, inputs: Any) -> Any:
        if self.padding == "causal":
            inputs = array_ops.pad(inputs, self._causal_padding(inputs))
        if self.data_format == "channels_last":
            strides, spatial_start_dim = (1,) + self.strides * 2 + (1,), 1
        else:
            strides, spatial_start_dim = (1, 1) + self.strides * 2, 2
        inputs = array_ops.expand_dims(inputs, spatial_start_dim)
        depthwise_kernel = array_ops.expand_dims(self.depthwise_kernel, 0)
        pointwise_kernel = array_ops.expand_dims(self.pointwise_kernel, 0)
        data_format = _tf_data_format(self.data_format, 4)
        outputs = nn_convolution_ops.separable_conv2d(
            inputs, depthwise_kernel, pointwise_kernel, strides=strides,
            padding="VALID" if self.padding == "causal" else self.padding.upper(),
            rate=(1,) + self.dilation_rate, data_format=data_format)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        outputs = array_ops.squeeze(outputs, [spatial_start_dim])
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def _call_2d(self, inputs: Any) -> Any:
        strides = (1,) + self.strides + (1,) if self.data_format == "channels_last" \
            else (1, 1) + self.strides
        data_format = _tf_data_format(self.data_format, 4)
        outputs = nn_convolution_ops.separable_conv2d(
            inputs, self.depthwise_kernel, self.pointwise_kernel, strides=strides,
            padding=self.padding.upper(), dilations=self.dilation_rate,
            data_format=data_format)
        if self.use_bias:
            outputs = nn_ops.bias_add(outputs, self.bias, data_format=data_format)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs


def _separable_class(rank: int, class_name: str, doc: str) -> type:
    """A _SeparableConv of fixed ``rank`` with TF1's constructor signature."""
    def __init__(self: Any, filters: int, kernel_size: Any, strides: Any = (1,) * rank,
                 padding: str = "valid", data_format: str = "channels_last",
                 dilation_rate: Any = (1,) * rank, depth_multiplier: int = 1,
                 activation: Any = None, use_bias: bool = True,
                 depthwise_initializer: Any = None, pointwise_initializer: Any = None,
                 bias_initializer: Any = None, depthwise_regularizer: Any = None,
                 pointwise_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, depthwise_constraint: Any = None,
                 pointwise_constraint: Any = None, bias_constraint: Any = None,
                 trainable: bool = True, name: str | None = None, **kwargs: Any) -> None:
        _SeparableConv.__init__(
            self, rank, filters, kernel_size, strides=strides, padding=padding,
            data_format=data_format, dilation_rate=dilation_rate,
            depth_multiplier=depth_multiplier, activation=activation, use_bias=use_bias,
            depthwise_initializer=depthwise_initializer,
            pointwise_initializer=pointwise_initializer, bias_initializer=bias_initializer,
            depthwise_regularizer=depthwise_regularizer,
            pointwise_regularizer=pointwise_regularizer, bias_regularizer=bias_regularizer,
            activity_regularizer=activity_regularizer,
            depthwise_constraint=depthwise_constraint,
            pointwise_constraint=pointwise_constraint, bias_constraint=bias_constraint,
            trainable=trainable, name=name, **kwargs)

    return type(class_name, (_SeparableConv,), {"__init__": __init__, "__doc__": doc,
                                                "__module__": __name__})


SeparableConv1D = _separable_class(1, "SeparableConv1D",
                                   "Depthwise separable 1-D convolution layer.")
SeparableConv2D = _separable_class(2, "SeparableConv2D",
                                   "Depthwise separable 2-D convolution layer.")
SeparableConvolution1D, SeparableConvolution2D = SeparableConv1D, SeparableConv2D


# -- functional forms ----------------------------------------------------------------------

def _apply(layer_class: type, inputs: Any, name: str | None, reuse: Any,
           **kwargs: Any) -> ops_lib.Tensor:
    layer = layer_class(name=name, _reuse=reuse, _scope=name, **kwargs)
    return layer.apply(inputs)


def _conv_fn(layer_class: type, default_strides: Any):
    def fn(inputs: Any, filters: int, kernel_size: Any, strides: Any = default_strides,
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = default_strides, activation: Any = None,
           use_bias: bool = True, kernel_initializer: Any = None,
           bias_initializer: Any = None, kernel_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None,
           trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> ops_lib.Tensor:
        return _apply(layer_class, inputs, name, reuse, filters=filters,
                      kernel_size=kernel_size, strides=strides, padding=padding,
                      data_format=data_format, dilation_rate=dilation_rate,
                      activation=activation, use_bias=use_bias,
                      kernel_initializer=kernel_initializer,
                      bias_initializer=bias_initializer,
                      kernel_regularizer=kernel_regularizer,
                      bias_regularizer=bias_regularizer,
                      activity_regularizer=activity_regularizer,
                      kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                      trainable=trainable)

    fn.__name__ = fn.__qualname__ = layer_class.__name__.replace("Conv", "conv").lower()
    fn.__doc__ = f"Functional interface of ``{layer_class.__name__}``."
    return fn


conv1d = _conv_fn(Conv1D, 1)
conv2d = _conv_fn(Conv2D, (1, 1))
conv3d = _conv_fn(Conv3D, (1, 1, 1))


def _transpose_fn(layer_class: type, default_strides: tuple):
    def fn(inputs: Any, filters: int, kernel_size: Any, strides: Any = default_strides,
           padding: str = "valid", data_format: str = "channels_last",
           activation: Any = None, use_bias: bool = True, kernel_initializer: Any = None,
           bias_initializer: Any = None, kernel_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           kernel_constraint: Any = None, bias_constraint: Any = None,
           trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> ops_lib.Tensor:
        return _apply(layer_class, inputs, name, reuse, filters=filters,
                      kernel_size=kernel_size, strides=strides, padding=padding,
                      data_format=data_format, activation=activation, use_bias=use_bias,
                      kernel_initializer=kernel_initializer,
                      bias_initializer=bias_initializer,
                      kernel_regularizer=kernel_regularizer,
                      bias_regularizer=bias_regularizer,
                      activity_regularizer=activity_regularizer,
                      kernel_constraint=kernel_constraint, bias_constraint=bias_constraint,
                      trainable=trainable)

    fn.__name__ = fn.__qualname__ = layer_class.__name__.replace("DTranspose", "d_transpose") \
        .replace("Conv", "conv")
    fn.__doc__ = f"Functional interface of ``{layer_class.__name__}``."
    return fn


conv2d_transpose = _transpose_fn(Conv2DTranspose, (1, 1))
conv3d_transpose = _transpose_fn(Conv3DTranspose, (1, 1, 1))


def _separable_fn(layer_class: type, default_strides: Any, default_dilation: Any):
    def fn(inputs: Any, filters: int, kernel_size: Any, strides: Any = default_strides,
           padding: str = "valid", data_format: str = "channels_last",
           dilation_rate: Any = default_dilation, depth_multiplier: int = 1,
           activation: Any = None, use_bias: bool = True, depthwise_initializer: Any = None,
           pointwise_initializer: Any = None, bias_initializer: Any = None,
           depthwise_regularizer: Any = None, pointwise_regularizer: Any = None,
           bias_regularizer: Any = None, activity_regularizer: Any = None,
           depthwise_constraint: Any = None, pointwise_constraint: Any = None,
           bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
           reuse: Any = None) -> ops_lib.Tensor:
        return _apply(layer_class, inputs, name, reuse, filters=filters,
                      kernel_size=kernel_size, strides=strides, padding=padding,
                      data_format=data_format, dilation_rate=dilation_rate,
                      depth_multiplier=depth_multiplier, activation=activation,
                      use_bias=use_bias, depthwise_initializer=depthwise_initializer,
                      pointwise_initializer=pointwise_initializer,
                      bias_initializer=bias_initializer,
                      depthwise_regularizer=depthwise_regularizer,
                      pointwise_regularizer=pointwise_regularizer,
                      bias_regularizer=bias_regularizer,
                      activity_regularizer=activity_regularizer,
                      depthwise_constraint=depthwise_constraint,
                      pointwise_constraint=pointwise_constraint,
                      bias_constraint=bias_constraint, trainable=trainable)

    fn.__name__ = fn.__qualname__ = "separable_conv" + layer_class.__name__[-2:].lower()
    fn.__doc__ = f"Functional interface of ``{layer_class.__name__}``."
    return fn


separable_conv1d = _separable_fn(SeparableConv1D, 1, 1)
separable_conv2d = _separable_fn(SeparableConv2D, (1, 1), (1, 1))
