"""More ``tf.contrib.layers`` functions (TF 1.15): ``separable_conv2d`` (the core
SeparableConv2D layer with variables ``depthwise_weights`` / ``pointwise_weights`` /
``biases``, or a depthwise convolution alone when ``num_outputs`` is None), ``bias_add``,
``instance_norm``, ``softmax`` over the last axis and ``unit_norm``."""

from __future__ import annotations

from typing import Any

from graphcore.contrib.framework import add_arg_scope, model_variable
from graphcore.contrib.layers.initializers import xavier_initializer
from graphcore.contrib.layers.utils import (
    add_variable_to_collections,
    build_variable_getter,
    collect_named_outputs,
    get_variable_collections,
)
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers import convolutional
from graphcore.layers.base import normalize_tuple
from graphcore.ops import (
    array_ops,
    init_ops,
    math_ops,
    nn_convolution_ops,
    nn_impl,
    nn_ops,
)
from graphcore.ops import variable_scope as vs

__all__ = ["bias_add", "instance_norm", "separable_conv2d", "separable_convolution2d",
           "softmax", "unit_norm"]

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"
_XAVIER = xavier_initializer()
_ZEROS = init_ops.zeros_initializer()


def _check_data_format(data_format: str) -> None:
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")


@add_arg_scope
def separable_convolution2d(inputs: Any, num_outputs: int | None, kernel_size: Any,
                            depth_multiplier: int = 1, stride: Any = 1,
                            padding: str = "SAME", data_format: str = DATA_FORMAT_NHWC,
                            rate: Any = 1, activation_fn: Any = nn_ops.relu,
                            normalizer_fn: Any = None, normalizer_params: Any = None,
                            weights_initializer: Any = _XAVIER,
                            pointwise_initializer: Any = None,
                            weights_regularizer: Any = None,
                            biases_initializer: Any = _ZEROS,
                            biases_regularizer: Any = None, reuse: Any = None,
                            variables_collections: Any = None,
                            outputs_collections: Any = None, trainable: bool = True,
                            scope: Any = None) -> Any:
    """Depthwise (``depth_multiplier`` per channel) then pointwise (``num_outputs``)
    convolution in scope ``SeparableConv2d``; only the depthwise one when num_outputs is
    None; then normalizer (else biases) and activation."""
    _check_data_format(data_format)
    getter = build_variable_getter({"bias": "biases", "depthwise_kernel": "depthwise_weights",
                                    "pointwise_kernel": "pointwise_weights"})
    with vs.variable_scope(scope, "SeparableConv2d", [inputs], reuse=reuse,
                           custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        pointwise_initializer = pointwise_initializer or weights_initializer
        channels_first = data_format.startswith("NC")
        rate = normalize_tuple(rate, 2, "rate")
        if num_outputs is not None:
            layer = convolutional.SeparableConvolution2D(
                filters=num_outputs, kernel_size=kernel_size, strides=stride,
                padding=padding,
                data_format="channels_first" if channels_first else "channels_last",
                dilation_rate=rate, activation=None, depth_multiplier=depth_multiplier,
                use_bias=bool(not normalizer_fn and biases_initializer),
                depthwise_initializer=weights_initializer,
                pointwise_initializer=pointwise_initializer,
                bias_initializer=biases_initializer,
                depthwise_regularizer=weights_regularizer,
                pointwise_regularizer=weights_regularizer,
                bias_regularizer=biases_regularizer, trainable=trainable, name=sc.name,
                dtype=inputs.dtype.base_dtype, _scope=sc, _reuse=reuse)
            outputs = layer.apply(inputs)
            add_variable_to_collections(layer.depthwise_kernel, variables_collections,
                                        "weights")
            add_variable_to_collections(layer.pointwise_kernel, variables_collections,
                                        "weights")
            if layer.bias is not None:
                add_variable_to_collections(layer.bias, variables_collections, "biases")
            if normalizer_fn is not None:
                outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        else:
            dtype = inputs.dtype.base_dtype
            kernel_h, kernel_w = normalize_tuple(kernel_size, 2, "kernel_size")
            stride_h, stride_w = normalize_tuple(stride, 2, "stride")
            num_filters_in = shape_lib.dimension_value(
                inputs.get_shape()[1 if channels_first else -1])
            if num_filters_in is None:
                raise ValueError("Number of in filters must be defined.")
            depthwise_weights = model_variable(
                "depthwise_weights",
                shape=[kernel_h, kernel_w, num_filters_in, depth_multiplier], dtype=dtype,
                initializer=weights_initializer, regularizer=weights_regularizer,
                trainable=trainable,
                collections=get_variable_collections(variables_collections, "weights"))
            strides = [1, 1, stride_h, stride_w] if channels_first else \
                [1, stride_h, stride_w, 1]
            outputs = nn_convolution_ops.depthwise_conv2d(
                inputs, depthwise_weights, strides, padding, rate=rate,
                data_format=data_format)
            num_outputs = depth_multiplier * num_filters_in
            if normalizer_fn is not None:
                outputs = normalizer_fn(outputs, **(normalizer_params or {}))
            elif biases_initializer is not None:
                biases = model_variable(
                    "biases", shape=[num_outputs], dtype=dtype, initializer=biases_initializer,
                    regularizer=biases_regularizer, trainable=trainable,
                    collections=get_variable_collections(variables_collections, "biases"))
                outputs = nn_ops.bias_add(outputs, biases, data_format=data_format)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


separable_conv2d = separable_convolution2d


@add_arg_scope
def bias_add(inputs: Any, activation_fn: Any = None, initializer: Any = _ZEROS,
             regularizer: Any = None, reuse: Any = None, variables_collections: Any = None,
             outputs_collections: Any = None, trainable: bool = True,
             data_format: str = DATA_FORMAT_NHWC, scope: Any = None) -> Any:
    """``inputs`` plus the model variable ``BiasAdd/biases`` over the channel axis."""
    _check_data_format(data_format)
    with vs.variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank is None:
            raise ValueError("Dims of shape must be known but is None")
        if rank != 4 and data_format == DATA_FORMAT_NCHW:
            raise ValueError("Data format NCHW only supports 4D Tensor")
        num_features = shape_lib.dimension_value(
            inputs.get_shape()[1 if data_format == DATA_FORMAT_NCHW else -1])
        if num_features is None:
            raise ValueError("`C` dimension must be known but is None")
        biases = model_variable(
            "biases", shape=[num_features], dtype=inputs.dtype.base_dtype,
            initializer=initializer, regularizer=regularizer, trainable=trainable,
            collections=get_variable_collections(variables_collections, "biases"))
        outputs = nn_ops.bias_add(inputs, biases, data_format=data_format)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def instance_norm(inputs: Any, center: bool = True, scale: bool = True,
                  epsilon: float = 1e-6, activation_fn: Any = None,
                  param_initializers: dict | None = None, reuse: Any = None,
                  variables_collections: Any = None, outputs_collections: Any = None,
                  trainable: bool = True, data_format: str = DATA_FORMAT_NHWC,
                  scope: Any = None) -> Any:
    """Instance normalization (Ulyanov et al.): moments per example and channel over the
    spatial axes, model variables ``InstanceNorm/beta`` and ``InstanceNorm/gamma``."""
    inputs = convert_to_tensor(inputs)
    inputs_shape = inputs.shape
    rank = inputs_shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    _check_data_format(data_format)
    with vs.variable_scope(scope, "InstanceNorm", [inputs], reuse=reuse) as sc:
        if data_format == DATA_FORMAT_NCHW:
            channel_axis = 1
            broadcast = [1, shape_lib.dimension_value(inputs_shape[1])] + [1] * (rank - 2)
        else:
            channel_axis = rank - 1
            broadcast = None
        moments_axes = [a for a in range(1, rank) if a != channel_axis]
        params_shape = inputs_shape[channel_axis:channel_axis + 1]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name} has undefined channels dimension "
                             f"{params_shape}.")
        param_initializers = param_initializers or {}
        dtype = inputs.dtype.base_dtype

        def param(name: str, default: Any) -> Any:
            var = model_variable(
                name, shape=params_shape, dtype=dtype,
                initializer=param_initializers.get(name, default), trainable=trainable,
                collections=get_variable_collections(variables_collections, name))
            return array_ops.reshape(var, broadcast) if broadcast else var

        beta = param("beta", init_ops.zeros_initializer()) if center else None
        gamma = param("gamma", init_ops.ones_initializer()) if scale else None
        mean, variance = nn_ops.moments(inputs, moments_axes, keep_dims=True)
        outputs = nn_impl.batch_normalization(inputs, mean, variance, beta, gamma, epsilon,
                                              name="instancenorm")
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


def softmax(logits: Any, scope: Any = None) -> Any:
    """Softmax over the last axis of N-D ``logits`` (scope ``softmax``)."""
    with vs.variable_scope(scope, "softmax", [logits]):
        logits = convert_to_tensor(logits)
        shape = logits.get_shape()
        if shape.ndims is None or shape.ndims < 2:
            raise ValueError(f"rank of shape must be at least 2 not: {shape.ndims}")
        num_logits = shape_lib.dimension_value(shape[-1])
        if num_logits is None:
            raise ValueError(f"last dimension shape must be known but is None: {shape}")
        predictions = nn_ops.softmax(array_ops.reshape(logits, [-1, num_logits]))
        predictions = array_ops.reshape(predictions, array_ops.shape(logits))
        predictions.set_shape(shape)
        return predictions


def unit_norm(inputs: Any, dim: int, epsilon: float = 1e-7, scope: Any = None) -> Any:
    """``inputs`` divided by ``sqrt(epsilon + sum(inputs ** 2, dim))`` (scope
    ``UnitNorm``)."""
    with vs.variable_scope(scope, "UnitNorm", [inputs]):
        inputs = convert_to_tensor(inputs)
        if not inputs.get_shape():
            raise ValueError("The input rank must be known.")
        rank = inputs.get_shape().ndims
        if dim < 0 or dim >= rank:
            raise ValueError("dim must be positive but smaller than the input rank.")
        lengths = math_ops.sqrt(epsilon + math_ops.reduce_sum(math_ops.square(inputs), dim,
                                                              True))
        return math_ops.div(inputs, lengths)
