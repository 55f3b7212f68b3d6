"""tf.keras convolution, padding, upsampling and pooling layers: Keras' constructors over
graphcore's tf.layers convolutions and poolings (string initializers, regularizers and
activations; ``data_format`` None meaning ``K.image_data_format()``), plus ZeroPadding,
UpSampling and the global poolings, which only Keras has."""

from __future__ import annotations

from typing import Any

from graphcore.framework import tensor_shape as shape_lib
from graphcore.keras import activations, initializers, regularizers
from graphcore.keras import backend as K
from graphcore.keras.engine import InputSpec, Layer
from graphcore.layers import convolutional, pooling
from graphcore.layers.base import normalize_tuple
from graphcore.ops import array_ops, image_resize_ops, manip_ops, math_ops

__all__ = [
    "Cropping1D", "Cropping2D",
    "AveragePooling1D", "AveragePooling2D", "Conv1D", "Conv2D", "Conv2DTranspose",
    "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
    "GlobalMaxPooling2D", "MaxPooling1D", "MaxPooling2D", "SeparableConv2D", "UpSampling1D",
    "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D",
]


def _keras_args(kwargs: dict, defaults: dict) -> dict:
    """Keras' string/None arguments (and Keras' defaults) as tf.layers takes them."""
    out = dict(defaults, **kwargs)
    for key, value in list(out.items()):
        if key.endswith("_initializer"):
            out[key] = initializers.get(value)
        elif key.endswith("_regularizer"):
            out[key] = regularizers.get(value)
        elif key == "activation":
            out[key] = activations.get(value)
    if out.get("data_format") is None:
        out["data_format"] = K.image_data_format()
    return out


_CONV_KEYS = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate",
              "groups", "activation", "use_bias", "kernel_initializer", "bias_initializer",
              "kernel_regularizer", "bias_regularizer", "activity_regularizer",
              "kernel_constraint", "bias_constraint")


def _keras_conv(base: type, doc: str, extra_keys: tuple = ()) -> type:
    defaults = {key: "glorot_uniform" for key in ("kernel_initializer",) + tuple(
        k for k in extra_keys if k.endswith("_initializer"))}
    defaults.update(bias_initializer="zeros", activation=None)

    def __init__(self: Any, filters: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        if kwargs.pop("groups", 1) != 1:
            raise NotImplementedError("grouped Keras convolutions (groups > 1) are not "
                                      "implemented in graphcore")
        if kwargs.get("output_padding", None) is None:
            kwargs.pop("output_padding", None)
        # Keras' Layer.__init__ first: it takes input_shape & co., then goes on to base's.
        Layer.__init__(self, filters, kernel_size, *args, **_keras_args(kwargs, defaults))

    return type(base.__name__, (Layer, base), {
        "__init__": __init__, "__doc__": doc, "__module__": __name__,
        "_config_keys": _CONV_KEYS + extra_keys,
        "_config_defaults": {"groups": 1, "output_padding": None}})


Conv1D = _keras_conv(convolutional.Conv1D, "1-D convolution (temporal).")
Conv2D = _keras_conv(convolutional.Conv2D, "2-D convolution (spatial, over images).")
Conv2DTranspose = _keras_conv(convolutional.Conv2DTranspose,
                              "Transposed 2-D convolution (deconvolution).",
                              ("output_padding",))
SeparableConv2D = _keras_conv(convolutional.SeparableConv2D,
                              "Depthwise then pointwise 2-D convolution.",
                              ("depth_multiplier", "depthwise_initializer",
                               "pointwise_initializer", "depthwise_regularizer",
                               "pointwise_regularizer", "depthwise_constraint",
                               "pointwise_constraint"))


def _keras_pool(base: type, rank: int, doc: str) -> type:
    def __init__(self: Any, pool_size: Any = (2,) * rank if rank > 1 else 2,
                 strides: Any = None, padding: str = "valid", data_format: str | None = None,
                 **kwargs: Any) -> None:
        Layer.__init__(self, pool_size, strides, padding=padding,
                       data_format=data_format or K.image_data_format(), **kwargs)

    return type(base.__name__, (Layer, base), {
        "__init__": __init__, "__doc__": doc, "__module__": __name__,
        "_config_keys": ("pool_size", "padding", "strides", "data_format"),
        "_has_build_config": False})


MaxPooling1D = _keras_pool(pooling.MaxPooling1D, 1, "Max pooling over [N, W, C].")
MaxPooling2D = _keras_pool(pooling.MaxPooling2D, 2, "Max pooling over [N, H, W, C].")
AveragePooling1D = _keras_pool(pooling.AveragePooling1D, 1, "Average pooling over [N, W, C].")
AveragePooling2D = _keras_pool(pooling.AveragePooling2D, 2,
                               "Average pooling over [N, H, W, C].")


class _GlobalPooling(Layer):
    """Reduces the spatial axes (mean or max)."""

    rank = 2
    _config_keys = ("data_format", "keepdims")

    def __init__(self, data_format: str | None = None, keepdims: bool = False,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()
        self.keepdims = keepdims
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _reduce(self, inputs: Any, axes: list) -> Any:
        raise NotImplementedError

    def call(self, inputs: Any) -> Any:
        first = 2 if self.data_format == "channels_first" else 1
        return self._reduce(inputs, list(range(first, first + self.rank)))


class GlobalAveragePooling2D(_GlobalPooling):
    def _reduce(self, inputs: Any, axes: list) -> Any:
        return math_ops.reduce_mean(inputs, axes, keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    def _reduce(self, inputs: Any, axes: list) -> Any:
        return math_ops.reduce_max(inputs, axes, keepdims=self.keepdims)


class GlobalAveragePooling1D(GlobalAveragePooling2D):
    """The mean over time, of the unmasked steps only when the input has a mask."""

    rank = 1
    _supports_masking = True

    def call(self, inputs: Any, mask: Any = None) -> Any:
        if mask is None:
            return super().call(inputs)
        steps_axis = 1 if self.data_format == "channels_last" else 2
        mask = array_ops.expand_dims(math_ops.cast(mask, inputs.dtype),
                                     2 if self.data_format == "channels_last" else 1)
        return math_ops.reduce_sum(inputs * mask, steps_axis, keepdims=self.keepdims) / \
            math_ops.reduce_sum(mask, steps_axis, keepdims=self.keepdims)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None


class GlobalMaxPooling1D(GlobalMaxPooling2D):
    rank = 1


def _spatial_axes(data_format: str, rank: int) -> list:
    first = 2 if data_format == "channels_first" else 1
    return list(range(first, first + rank))


class ZeroPadding2D(Layer):
    """Pads rows and columns with zeros: an int, (rows, cols) or ((top, bottom), (left,
    right))."""
    _has_build_config = False

    rank = 2
    _config_keys = ("padding", "data_format")

    def __init__(self, padding: Any = (1, 1), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format() if self.rank > 1 \
            else "channels_last"
        if isinstance(padding, int):
            padding = ((padding, padding),) * self.rank
        padding = [normalize_tuple(p, 2, "padding") if not isinstance(p, int) else (p, p)
                   for p in (padding if self.rank > 1 else [padding])]
        self.padding = tuple(padding)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs: Any) -> Any:
        pads = [[0, 0] for _ in range(self.rank + 2)]
        for axis, (before, after) in zip(_spatial_axes(self.data_format, self.rank),
                                         self.padding):
            pads[axis] = [before, after]
        return array_ops.pad(inputs, pads)


class ZeroPadding1D(ZeroPadding2D):
    rank = 1
    _config_keys = ("padding",)

    def __init__(self, padding: Any = 1, **kwargs: Any) -> None:
        super().__init__(padding=padding if not isinstance(padding, int) else (padding,
                                                                               padding),
                         **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["padding"] = self.padding[0]
        return config


class UpSampling2D(Layer):
    """Repeats rows and columns ``size`` times (nearest) or resizes bilinearly."""
    _has_build_config = False

    _config_keys = ("size", "data_format", "interpolation")

    def __init__(self, size: Any = (2, 2), data_format: str | None = None,
                 interpolation: str = "nearest", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format()
        self.size = normalize_tuple(size, 2, "size")
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError("`interpolation` argument should be one of `\"nearest\"` or "
                             f"`\"bilinear\"`. Received: \"{interpolation}\".")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs: Any) -> Any:
        x = inputs if self.data_format == "channels_last" else \
            array_ops.transpose(inputs, [0, 2, 3, 1])
        height, width = x.shape.as_list()[1:3]
        if height is None or width is None:
            new_size = array_ops.shape(x)[1:3] * self.size
        else:
            new_size = [height * self.size[0], width * self.size[1]]
        if self.interpolation == "nearest":
            x = image_resize_ops.resize_nearest_neighbor(x, new_size)
        else:
            x = image_resize_ops.resize_bilinear(x, new_size, half_pixel_centers=True)
        if self.data_format == "channels_first":
            x = array_ops.transpose(x, [0, 3, 1, 2])
        return x


class UpSampling1D(Layer):
    """Repeats each time step ``size`` times."""
    _has_build_config = False

    _config_keys = ("size",)

    def __init__(self, size: int = 2, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.size = int(size)
        self.input_spec = InputSpec(ndim=3)

    def call(self, inputs: Any) -> Any:
        steps = shape_lib.dimension_value(inputs.shape[1])
        x = manip_ops.repeat(inputs, self.size, axis=1)
        if steps is not None:
            x.set_shape([inputs.shape[0], steps * self.size, inputs.shape[2]])
        return x


class Cropping2D(Layer):
    """Crops rows and columns: an int, (rows, cols) or ((top, bottom), (left, right))."""

    rank = 2
    _has_build_config = False
    _config_keys = ("cropping", "data_format")

    def __init__(self, cropping: Any = ((0, 0), (0, 0)), data_format: str | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.data_format = data_format or K.image_data_format() if self.rank > 1 \
            else "channels_last"
        if isinstance(cropping, int):
            cropping = ((cropping, cropping),) * self.rank
        cropping = [normalize_tuple(c, 2, "cropping") if not isinstance(c, int) else (c, c)
                    for c in (cropping if self.rank > 1 else [cropping])]
        self.cropping = tuple(cropping)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def call(self, inputs: Any) -> Any:
        slices = [slice(None)] * (self.rank + 2)
        for axis, (before, after) in zip(_spatial_axes(self.data_format, self.rank),
                                         self.cropping):
            slices[axis] = slice(before, -after if after else None)
        return inputs[tuple(slices)]


class Cropping1D(Cropping2D):
    """Crops time steps: an int or (start, end)."""

    rank = 1
    _config_keys = ("cropping",)

    def __init__(self, cropping: Any = (1, 1), **kwargs: Any) -> None:
        super().__init__(cropping=normalize_tuple(cropping, 2, "cropping"), **kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["cropping"] = self.cropping[0]
        return config
