"""tf.layers pooling layers (TF1's ``tf.compat.v1.layers``): Max/AveragePooling1D/2D/3D and
their functions. The 1-D layers pool a [N, W, 1, C] view with the 2-D ops, as Keras does;
the 3-D ones run channels_first inputs as NDHWC between two transposes (Keras on CPU).
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.layers.base import (
    InputSpec,
    Layer,
    conv_output_length,
    normalize_data_format,
    normalize_tuple,
)
from graphcore.ops import array_ops, nn_pool_ops

__all__ = [
    "AveragePooling1D", "AveragePooling2D", "MaxPooling1D", "MaxPooling2D", "AvgPool1D",
    "AvgPool2D", "MaxPool1D", "MaxPool2D", "average_pooling1d", "average_pooling2d",
    "max_pooling1d", "max_pooling2d", "AveragePooling3D", "MaxPooling3D", "average_pooling3d",
    "max_pooling3d",
]


class _Pooling(Layer):
    """Pooling over ``rank`` spatial dimensions with ``pool_function`` (a tf.nn pool)."""

    rank = 2

    def __init__(self, pool_function: Any, pool_size: Any, strides: Any,
                 padding: str = "valid", data_format: str = "channels_last",
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, **kwargs)
        if data_format is None:
            data_format = "channels_last"
        if strides is None:
            strides = pool_size
        self.pool_function = pool_function
        self.pool_size = normalize_tuple(pool_size, self.rank, "pool_size")
        self.strides = normalize_tuple(strides, self.rank, "strides")
        self.padding = padding.lower()
        if self.padding not in ("valid", "same"):
            raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                             f'"same". Received: {padding}')
        self.data_format = normalize_data_format(data_format)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        dims = shape_lib.TensorShape(input_shape).as_list()
        first = 2 if self.data_format == "channels_first" else 1
        for i in range(self.rank):
            dims[first + i] = conv_output_length(dims[first + i], self.pool_size[i],
                                                 self.padding, self.strides[i])
        return shape_lib.TensorShape(dims)


class _Pooling2D(_Pooling):
    rank = 2

    def call(self, inputs: Any) -> Any:
        if self.data_format == "channels_last":
            pool_shape = (1,) + self.pool_size + (1,)
            strides = (1,) + self.strides + (1,)
            data_format = "NHWC"
        else:
            pool_shape = (1, 1) + self.pool_size
            strides = (1, 1) + self.strides
            data_format = "NCHW"
        return self.pool_function(inputs, ksize=pool_shape, strides=strides,
                                  padding=self.padding.upper(), data_format=data_format)


class _Pooling1D(_Pooling):
    rank = 1

    def call(self, inputs: Any) -> Any:
        pad_axis = 2 if self.data_format == "channels_last" else 3
        inputs = array_ops.expand_dims(inputs, pad_axis)
        if self.data_format == "channels_first":
            # Keras's pool2d runs NHWC on CPU: NCW1 -> NW1C and back.
            inputs = array_ops.transpose(inputs, (0, 2, 3, 1))
        outputs = self.pool_function(inputs, ksize=(1,) + self.pool_size + (1, 1),
                                     strides=(1,) + self.strides + (1, 1),
                                     padding=self.padding.upper(), data_format="NHWC")
        if self.data_format == "channels_first":
            outputs = array_ops.transpose(outputs, (0, 3, 1, 2))
        return array_ops.squeeze(outputs, [pad_axis])


class _Pooling3D(_Pooling):
    rank = 3

    def call(self, inputs: Any) -> Any:
        if self.data_format == "channels_first":
            inputs = array_ops.transpose(inputs, (0, 2, 3, 4, 1))
        outputs = self.pool_function(inputs, ksize=(1,) + self.pool_size + (1,),
                                     strides=(1,) + self.strides + (1,),
                                     padding=self.padding.upper())
        if self.data_format == "channels_first":
            outputs = array_ops.transpose(outputs, (0, 4, 1, 2, 3))
        return outputs


def _pooling_class(base: type, class_name: str, pool_function: Any, doc: str) -> type:
    def __init__(self: Any, pool_size: Any, strides: Any, padding: str = "valid",
                 data_format: str = "channels_last", name: str | None = None,
                 **kwargs: Any) -> None:
        base.__init__(self, pool_function, pool_size, strides, padding=padding,
                      data_format=data_format, name=name, **kwargs)

    return type(class_name, (base,), {"__init__": __init__, "__doc__": doc,
                                      "__module__": __name__})


MaxPooling1D = _pooling_class(_Pooling1D, "MaxPooling1D", nn_pool_ops.max_pool,
                              "Max pooling over 1-D inputs [N, W, C].")
AveragePooling1D = _pooling_class(_Pooling1D, "AveragePooling1D", nn_pool_ops.avg_pool,
                                  "Average pooling over 1-D inputs [N, W, C].")
MaxPooling2D = _pooling_class(_Pooling2D, "MaxPooling2D", nn_pool_ops.max_pool,
                              "Max pooling over 2-D inputs [N, H, W, C].")
AveragePooling2D = _pooling_class(_Pooling2D, "AveragePooling2D", nn_pool_ops.avg_pool,
                                  "Average pooling over 2-D inputs [N, H, W, C].")
MaxPooling3D = _pooling_class(_Pooling3D, "MaxPooling3D", nn_pool_ops.max_pool3d,
                              "Max pooling over 3-D inputs [N, D, H, W, C].")
AveragePooling3D = _pooling_class(_Pooling3D, "AveragePooling3D", nn_pool_ops.avg_pool3d,
                                  "Average pooling over 3-D inputs [N, D, H, W, C].")
MaxPool1D, AvgPool1D, MaxPool2D, AvgPool2D = (MaxPooling1D, AveragePooling1D, MaxPooling2D,
                                              AveragePooling2D)


def _pooling_fn(layer_class: type, fn_name: str):
    def fn(inputs: Any, pool_size: Any, strides: Any, padding: str = "valid",
           data_format: str = "channels_last", name: str | None = None) -> ops_lib.Tensor:
        layer = layer_class(pool_size=pool_size, strides=strides, padding=padding,
                            data_format=data_format, name=name)
        return layer.apply(inputs)

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = f"Functional interface of ``{layer_class.__name__}``."
    return fn


max_pooling1d = _pooling_fn(MaxPooling1D, "max_pooling1d")
average_pooling1d = _pooling_fn(AveragePooling1D, "average_pooling1d")
max_pooling2d = _pooling_fn(MaxPooling2D, "max_pooling2d")
average_pooling2d = _pooling_fn(AveragePooling2D, "average_pooling2d")
max_pooling3d = _pooling_fn(MaxPooling3D, "max_pooling3d")
average_pooling3d = _pooling_fn(AveragePooling3D, "average_pooling3d")
