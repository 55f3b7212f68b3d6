"""tf.keras.layers (graph mode): Keras' constructors over graphcore's tf.layers
implementations (Dense, BatchNormalization, Dropout, Flatten share their build/call; the
convolutions and poolings are in keras/convolutional.py, the RNNs in keras/recurrent.py),
plus the Keras-only layers: Activation, LeakyReLU, ReLU, Softmax, Reshape, Permute,
RepeatVector, Embedding, Lambda and the merges (Concatenate, Add, Subtract, Multiply,
Average, Maximum, Minimum)."""

from __future__ import annotations

import codecs
import inspect
import marshal
import sys
import types
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.keras import activations, initializers, regularizers
from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.keras.advanced_activations import (
    ELU,
    LeakyReLU,
    PReLU,
    ReLU,
    Softmax,
    ThresholdedReLU,
)
from graphcore.keras.attention import AdditiveAttention, Attention
from graphcore.keras.convolutional import (
    AveragePooling1D,
    AveragePooling2D,
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Cropping1D,
    Cropping2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
    SeparableConv2D,
    UpSampling1D,
    UpSampling2D,
    ZeroPadding1D,
    ZeroPadding2D,
)
from graphcore.keras.engine import Input, InputLayer, InputSpec, Layer, set_mask
from graphcore.keras.layer_normalization import LayerNormalization
from graphcore.keras.noise import (
    ActivityRegularization,
    AlphaDropout,
    GaussianDropout,
    GaussianNoise,
    SpatialDropout1D,
    SpatialDropout2D,
)
from graphcore.keras.recurrent import (
    GRU,
    LSTM,
    RNN,
    Bidirectional,
    GRUCell,
    LSTMCell,
    SimpleRNN,
    SimpleRNNCell,
    TimeDistributed,
)
from graphcore.layers import core, normalization
from graphcore.ops import array_ops, embedding_ops, math_ops, nn_ops

__all__ = [
    "ActivityRegularization", "AdditiveAttention", "AlphaDropout", "Attention", "Cropping1D",
    "Cropping2D", "Dot", "ELU", "GaussianDropout", "GaussianNoise", "LayerNormalization",
    "PReLU", "SpatialDropout1D", "SpatialDropout2D", "ThresholdedReLU", "dot",
    "Activation", "Add", "AveragePooling1D", "AveragePooling2D", "AvgPool1D", "AvgPool2D",
    "Average", "BatchNormalization", "Concatenate", "Conv1D", "Conv2D", "Conv2DTranspose",
    "Convolution1D", "Convolution2D", "Convolution2DTranspose", "Dense", "Dropout",
    "Embedding", "Flatten", "GlobalAveragePooling1D", "GlobalAveragePooling2D",
    "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D",
    "GlobalMaxPooling1D", "GlobalMaxPooling2D", "LeakyReLU", "MaxPool1D", "MaxPooling1D",
    "Permute", "ReLU", "RepeatVector", "SeparableConv2D", "SeparableConvolution2D", "Softmax",
    "UpSampling1D", "UpSampling2D", "ZeroPadding1D", "ZeroPadding2D",
    "Bidirectional", "TimeDistributed", "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "SimpleRNN", "SimpleRNNCell",
    "Input", "InputLayer", "InputSpec", "Lambda", "Layer", "Masking", "MaxPool2D",
    "MaxPooling2D",
    "Maximum", "Minimum", "Multiply", "Reshape", "Subtract", "add", "average", "concatenate",
    "maximum", "minimum", "multiply", "subtract",
]


def _kernel_bias_kwargs(activation: Any, kernel_initializer: Any, bias_initializer: Any,
                        kernel_regularizer: Any, bias_regularizer: Any,
                        activity_regularizer: Any) -> dict:
    return dict(activation=activations.get(activation),
                kernel_initializer=initializers.get(kernel_initializer),
                bias_initializer=initializers.get(bias_initializer),
                kernel_regularizer=regularizers.get(kernel_regularizer),
                bias_regularizer=regularizers.get(bias_regularizer),
                activity_regularizer=regularizers.get(activity_regularizer))


class Dense(Layer, core.Dense):
    """``activation(dot(inputs, kernel) + bias)``; weights ``<name>/kernel``, ``/bias``."""

    _supports_masking = True

    _config_keys = ("units", "activation", "use_bias", "kernel_initializer",
                    "bias_initializer", "kernel_regularizer", "bias_regularizer",
                    "activity_regularizer", "kernel_constraint", "bias_constraint")


    def __init__(self, units: int, activation: Any = None, use_bias: bool = True,
                 kernel_initializer: Any = "glorot_uniform", bias_initializer: Any = "zeros",
                 kernel_regularizer: Any = None, bias_regularizer: Any = None,
                 activity_regularizer: Any = None, kernel_constraint: Any = None,
                 bias_constraint: Any = None, **kwargs: Any) -> None:
        super().__init__(units, use_bias=use_bias, kernel_constraint=kernel_constraint,
                         bias_constraint=bias_constraint,
                         **_kernel_bias_kwargs(activation, kernel_initializer,
                                               bias_initializer, kernel_regularizer,
                                               bias_regularizer, activity_regularizer),
                         **kwargs)


class BatchNormalization(Layer, normalization.BatchNormalization):
    """Batch normalization; in training (the learning phase) its moving averages are
    updated by ``layer.updates``, which ``fit`` runs."""

    _supports_masking = True

    _config_keys = ("axis", "momentum", "epsilon", "center", "scale", "beta_initializer",
                    "gamma_initializer", "moving_mean_initializer",
                    "moving_variance_initializer", "beta_regularizer", "gamma_regularizer",
                    "beta_constraint", "gamma_constraint")

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = "zeros",
                 gamma_initializer: Any = "ones", moving_mean_initializer: Any = "zeros",
                 moving_variance_initializer: Any = "ones", beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, **kwargs: Any) -> None:
        kwargs.pop("fused", None)
        super().__init__(axis=axis, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, beta_initializer=initializers.get(beta_initializer),
                         gamma_initializer=initializers.get(gamma_initializer),
                         moving_mean_initializer=initializers.get(moving_mean_initializer),
                         moving_variance_initializer=initializers.get(
                             moving_variance_initializer),
                         beta_regularizer=regularizers.get(beta_regularizer),
                         gamma_regularizer=regularizers.get(gamma_regularizer),
                         beta_constraint=beta_constraint, gamma_constraint=gamma_constraint,
                         **kwargs)


Convolution1D, Convolution2D, Convolution2DTranspose = Conv1D, Conv2D, Conv2DTranspose
SeparableConvolution2D = SeparableConv2D
MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = (MaxPooling1D, MaxPooling2D, AveragePooling1D,
                                              AveragePooling2D)
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D


class Dropout(Layer, core.Dropout):
    """Drops a fraction ``rate`` of the inputs in the training phase."""

    _supports_masking = True

    _config_keys = ("rate", "noise_shape", "seed")


class Flatten(Layer, core.Flatten):
    """[N, ...] -> [N, prod(...)]."""
    _has_build_config = False

    _config_keys = ("data_format",)


class Activation(Layer):

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("activation",)

    def __init__(self, activation: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs: Any) -> Any:
        return self.activation(inputs)


class Permute(Layer):
    """Permutes the non-batch dimensions (``dims`` counts from 1)."""
    _has_build_config = False

    _config_keys = ("dims",)

    def __init__(self, dims: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set "
                             "of indices in `dims` must be consecutive and start from 1. "
                             f"Received dims={dims}")

    def call(self, inputs: Any) -> Any:
        return array_ops.transpose(inputs, (0,) + self.dims)


class RepeatVector(Layer):
    """[N, F] -> [N, n, F]."""
    _has_build_config = False

    _config_keys = ("n",)

    def __init__(self, n: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.n = int(n)
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs: Any) -> Any:
        return array_ops.tile(array_ops.expand_dims(inputs, 1), [1, self.n, 1])


class Reshape(Layer):
    """Reshapes all but the batch dimension to ``target_shape`` (one -1 allowed)."""
    _has_build_config = False

    _config_keys = ("target_shape",)

    def __init__(self, target_shape: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def _fix_unknown_dimension(self, input_shape: list) -> list:
        output_shape = list(self.target_shape)
        unknown = [i for i, d in enumerate(output_shape) if d < 0]
        if len(unknown) > 1:
            raise ValueError("There must be at most one unknown dimension in output_shape. "
                             f"Received: output_shape={self.target_shape}.")
        original = int(np.prod(input_shape))
        known = int(np.prod([d for d in output_shape if d >= 0]))
        if unknown:
            if known == 0 or original % known:
                raise ValueError(f"total size of new array must be unchanged, "
                                 f"input_shape = {input_shape}, output_shape = "
                                 f"{self.target_shape}")
            output_shape[unknown[0]] = original // known
        elif original != known:
            raise ValueError(f"total size of new array must be unchanged, input_shape = "
                             f"{input_shape}, output_shape = {self.target_shape}")
        return output_shape

    def call(self, inputs: Any) -> Any:
        outputs = array_ops.reshape(
            inputs, [array_ops.shape(inputs)[0]] + list(self.target_shape))
        rest = inputs.shape.as_list()[1:] if inputs.shape.ndims is not None else [None]
        if None not in rest:
            outputs.set_shape([inputs.shape.as_list()[0]] + self._fix_unknown_dimension(rest))
        return outputs


class Embedding(Layer):
    """Rows of ``embeddings`` [input_dim, output_dim] looked up by integer inputs."""

    _config_keys = ("input_dim", "output_dim", "embeddings_initializer",
                    "embeddings_regularizer", "activity_regularizer", "embeddings_constraint",
                    "mask_zero", "input_length")

    def __init__(self, input_dim: int, output_dim: int,
                 embeddings_initializer: Any = "uniform", embeddings_regularizer: Any = None,
                 activity_regularizer: Any = None, embeddings_constraint: Any = None,
                 mask_zero: bool = False, input_length: Any = None, **kwargs: Any) -> None:
        if "input_shape" not in kwargs and "batch_input_shape" not in kwargs:
            # As Keras: an Embedding always knows its input's rank.
            kwargs["input_shape"] = (None,) if input_length is None else \
                (input_length,) if isinstance(input_length, int) else tuple(input_length)
        self.mask_zero = mask_zero
        super().__init__(activity_regularizer=regularizers.get(activity_regularizer), **kwargs)
        self.input_dim = int(input_dim)
        self.output_dim = int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = embeddings_constraint
        self.input_length = input_length

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings", shape=(self.input_dim, self.output_dim),
            initializer=self.embeddings_initializer, regularizer=self.embeddings_regularizer,
            constraint=self.embeddings_constraint, dtype=K.floatx())
        self.built = True

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """``inputs != 0`` with ``mask_zero``."""
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def call(self, inputs: Any) -> Any:
        if inputs.dtype.base_dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            inputs = math_ops.cast(inputs, dtypes_lib.int32)
        return embedding_ops.embedding_lookup(self.embeddings, inputs)


class Masking(Layer):
    """Masks the time steps whose features all equal ``mask_value`` (zeroing them) for
    the layers after it."""

    _supports_masking = True
    _has_build_config = False
    _config_keys = ("mask_value",)

    def __init__(self, mask_value: float = 0.0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.mask_value = mask_value

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1)

    def call(self, inputs: Any) -> Any:
        keep = math_ops.reduce_any(math_ops.not_equal(inputs, self.mask_value), axis=-1,
                                   keepdims=True)
        outputs = inputs * math_ops.cast(keep, inputs.dtype)
        set_mask(outputs, array_ops.squeeze(keep, axis=-1))
        return outputs


class Lambda(Layer):
    """Wraps ``function(inputs, **arguments)`` as a layer."""
    _has_build_config = False
    _untracked = frozenset({"arguments"})

    def __init__(self, function: Any, output_shape: Any = None, mask: Any = None,
                 arguments: dict | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape
        self.mask = mask
        if mask is not None:
            self.supports_masking = True
        params = inspect.signature(function).parameters
        self._fn_takes = {"mask", "training"} & set(params)

    def call(self, inputs: Any, mask: Any = None, training: Any = None) -> Any:
        kwargs = dict(self.arguments)
        if "mask" in self._fn_takes:
            kwargs["mask"] = mask
        if "training" in self._fn_takes:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self) -> dict:
        """The function as Keras writes it: a lambda's marshalled code (base64), or a
        named function's name, with its module."""
        config = super().get_config()
        for key, value, allow_raw in (("function", self.function, False),
                                      ("output_shape", self._output_shape, True)):
            if isinstance(value, types.LambdaType) and value.__name__ == "<lambda>":
                config.update({key: _func_dump(value), f"{key}_type": "lambda"})
            elif callable(value):
                config.update({key: value.__name__, f"{key}_type": "function"})
            elif allow_raw:
                config.update({key: value, f"{key}_type": "raw"})
            else:
                raise ValueError(f"Invalid input for serialization, type: {type(value)} ")
            module_key = "module" if key == "function" else "output_shape_module"
            config[module_key] = getattr(value, "__module__", None) if callable(value) \
                else None
        config["arguments"] = self.arguments
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None) -> Lambda:
        config = dict(config)
        for key, module_key in (("function", "module"),
                                ("output_shape", "output_shape_module")):
            module = config.pop(module_key, None)
            kind = config.pop(f"{key}_type", "raw")
            scope = dict(sys.modules[module].__dict__) if module in sys.modules else {}
            scope.update(custom_objects or {})
            if kind == "lambda":
                config[key] = _func_load(config[key], scope)
            elif kind == "function":
                name = config[key]
                config[key] = custom_lib.lookup(name) or scope.get(name) or \
                    activations.get(name)
        config.pop("mask", None)
        config.pop("mask_type", None)
        config.pop("mask_module", None)
        return cls(**config)


def _func_dump(func: Any) -> tuple:
    """``(base64 of the marshalled code, defaults, closure values)``, Keras' func_dump."""
    code = codecs.encode(marshal.dumps(func.__code__), "base64").decode("ascii")
    closure = tuple(c.cell_contents for c in func.__closure__) if func.__closure__ else None
    return code, func.__defaults__, closure


def _func_load(dumped: Any, scope: dict) -> Any:
    code, defaults, closure = dumped
    raw = codecs.decode(code.encode("ascii"), "base64")
    code = marshal.loads(raw)
    cells = None
    if closure is not None:
        cells = tuple(types.CellType(value) for value in closure)
    return types.FunctionType(code, scope, code.co_name,
                              tuple(defaults) if defaults is not None else None, cells)


class _Merge(Layer):
    """Merges a list of tensors of the same shape elementwise."""

    _supports_masking = True

    def _merge_function(self, inputs: list) -> Any:
        raise NotImplementedError

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) < 2:
            raise ValueError("A merge layer should be called on a list of at least 2 "
                             f"inputs. Got {len(input_shape) if isinstance(input_shape, list) else 1} inputs.")  # noqa: E501
        self.built = True

    def call(self, inputs: Any) -> Any:
        return self._merge_function(list(inputs))

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """Where all the inputs' masks (those given) are set."""
        masks = [m for m in mask or [] if m is not None]
        if not masks:
            return None
        return math_ops.reduce_all(array_ops.stack(masks, 0), axis=0)


class Add(_Merge):
    def _merge_function(self, inputs: list) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output


class Subtract(_Merge):
    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        if len(input_shape) != 2:
            raise ValueError("A `Subtract` layer should be called on exactly 2 inputs")

    def _merge_function(self, inputs: list) -> Any:
        return inputs[0] - inputs[1]


class Multiply(_Merge):
    def _merge_function(self, inputs: list) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = output * x
        return output


class Average(_Merge):
    def _merge_function(self, inputs: list) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = output + x
        return output / len(inputs)


class Maximum(_Merge):
    def _merge_function(self, inputs: list) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = math_ops.maximum(output, x)
        return output


class Minimum(_Merge):
    def _merge_function(self, inputs: list) -> Any:
        output = inputs[0]
        for x in inputs[1:]:
            output = math_ops.minimum(output, x)
        return output


class Concatenate(_Merge):
    """Concatenates a list of tensors along ``axis``."""

    _config_keys = ("axis",)

    def __init__(self, axis: int = -1, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.axis = axis

    def build(self, input_shape: Any) -> None:
        super().build(input_shape)
        ranks = {shape_lib.TensorShape(s).ndims for s in input_shape}
        if len(ranks) > 1:
            raise ValueError("A `Concatenate` layer requires inputs with matching shapes "
                             "except for the concatenation axis. Received: input_shape="
                             f"{[tuple(shape_lib.TensorShape(s).as_list()) for s in input_shape]}")

    def _merge_function(self, inputs: list) -> Any:
        return array_ops.concat(inputs, axis=self.axis)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """The masks (all set for an input without one), expanded to the inputs' rank,
        concatenated along ``axis`` and reduced over the last axis."""
        if mask is None or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):
            if m is None:
                masks.append(array_ops.ones_like(x, dtype=dtypes_lib.bool))
            elif m.shape.ndims < x.shape.ndims:
                masks.append(array_ops.expand_dims(m, -1))
            else:
                masks.append(m)
        return math_ops.reduce_all(array_ops.concat(masks, self.axis), axis=-1)


class Dot(_Merge):
    """The dot product of two samples' tensors along ``axes`` (one per input, or one for
    both; negative counts from the end), optionally of their L2-normalized vectors
    (cosine proximity)."""

    _config_keys = ("axes", "normalize")

    def __init__(self, axes: Any, normalize: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not isinstance(axes, (int, list, tuple)) or \
                isinstance(axes, (list, tuple)) and len(axes) != 2:
            raise ValueError("Invalid format for argument `axes`: expected an int or a "
                             f"list/tuple of 2 ints. Received: axes={axes}")
        self.axes, self.normalize = axes, normalize

    def build(self, input_shape: Any) -> None:
        if not isinstance(input_shape, (list, tuple)) or len(input_shape) != 2:
            raise ValueError("A `Dot` layer should be called on a list of 2 inputs. "
                             f"Received: input_shape={input_shape}")
        self.built = True

    def _merge_function(self, inputs: list) -> Any:
        x1, x2 = inputs
        axes = [self.axes] * 2 if isinstance(self.axes, int) else list(self.axes)
        axes = [a % t.shape.ndims if a < 0 else a for a, t in zip(axes, (x1, x2))]
        if self.normalize:
            x1 = nn_ops.l2_normalize(x1, axis=axes[0])
            x2 = nn_ops.l2_normalize(x2, axis=axes[1])
        return _batch_dot(x1, x2, axes)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        return None


def _batch_dot(x: Any, y: Any, axes: list) -> Any:
    """Keras' batch_dot of rank-2 or rank-3 tensors: per sample, ``x`` contracted with
    ``y`` along ``axes``; a rank-2 result gets a trailing axis of 1."""
    rx, ry = x.shape.ndims, y.shape.ndims
    if rx not in (2, 3) or ry not in (2, 3):
        raise NotImplementedError("Dot of inputs of rank other than 2 or 3 is not "
                                  "implemented in graphcore")
    if rx == 2:
        x = array_ops.expand_dims(x, 1)  # [b, 1, n]
        axes = [2, axes[1]]
    elif axes[0] == 1:
        x = array_ops.transpose(x, [0, 2, 1])
    if ry == 2:
        y = array_ops.expand_dims(y, 2)  # [b, n, 1]
        axes = [axes[0], 1]
    elif axes[1] == 2:
        y = array_ops.transpose(y, [0, 2, 1])
    out = math_ops.matmul(x, y)
    if rx == 2:
        out = array_ops.squeeze(out, [1])
    if ry == 2:
        out = array_ops.squeeze(out, [-1])
    if out.shape.ndims == 1:
        out = array_ops.expand_dims(out, 1)
    return out


def dot(inputs: list, axes: Any, normalize: bool = False, **kwargs: Any) -> Any:
    """Functional interface to the ``Dot`` layer."""
    return Dot(axes=axes, normalize=normalize, **kwargs)(inputs)


def _merge_fn(cls: type, name: str) -> Any:
    def merge(inputs: list, **kwargs: Any) -> Any:
        return cls(**kwargs)(inputs)
    merge.__name__ = name
    merge.__doc__ = f"Functional interface to the ``{cls.__name__}`` layer."
    return merge


add = _merge_fn(Add, "add")
subtract = _merge_fn(Subtract, "subtract")
multiply = _merge_fn(Multiply, "multiply")
average = _merge_fn(Average, "average")
maximum = _merge_fn(Maximum, "maximum")
minimum = _merge_fn(Minimum, "minimum")


def concatenate(inputs: list, axis: int = -1, **kwargs: Any) -> Any:
    """Functional interface to the ``Concatenate`` layer."""
    return Concatenate(axis=axis, **kwargs)(inputs)
