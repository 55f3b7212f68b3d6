"""``tf.contrib.layers`` layer functions (TF 1.15's ``layers.py``): fully_connected,
convolution (1-3-D), conv2d_transpose, max/avg pooling, flatten, dropout, one_hot_encoding,
embed_sequence, repeat and stack. Each opens its variable scope (``fully_connected``,
``Conv``, ``Conv2d_transpose``...) and, where TF did, builds the core tf.layers layer there
with a getter that makes its variables model variables named ``weights`` and ``biases``;
all are ``add_arg_scope``-decorated."""

from __future__ import annotations

import functools
import numbers
from typing import Any

from graphcore.contrib.framework import add_arg_scope, model_variable
from graphcore.contrib.layers.initializers import xavier_initializer
from graphcore.contrib.layers.utils import (
    add_variable_to_collections,
    build_variable_getter,
    collect_named_outputs,
    layer_bias_renames,
    model_variable_getter,
)
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers import convolutional, core
from graphcore.layers.base import normalize_tuple
from graphcore.ops import (
    array_ops,
    embedding_ops,
    init_ops,
    manip_ops,
    math_ops,
    nn_ops,
    nn_pool_ops,
)
from graphcore.ops import variable_scope as vs

__all__ = ["avg_pool2d", "conv1d", "conv2d", "conv2d_transpose", "conv3d", "convolution",
           "convolution1d", "convolution2d", "convolution2d_transpose", "convolution3d",
           "dropout", "embed_sequence", "flatten", "fully_connected", "linear",
           "max_pool2d", "one_hot_encoding", "relu", "relu6", "repeat", "stack"]

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"
# The default initializers (one instance each, as in TF's signatures).
_XAVIER = xavier_initializer()
_ZEROS = init_ops.zeros_initializer()


def _finish(layer: Any, outputs: Any, variables_collections: Any, normalizer_fn: Any,
            normalizer_params: Any, activation_fn: Any, outputs_collections: Any,
            alias: str) -> Any:
    """What fully_connected and the convolutions do after the core layer: collections,
    then normalizer, then activation."""
    add_variable_to_collections(layer.kernel, variables_collections, "weights")
    if layer.bias is not None:
        add_variable_to_collections(layer.bias, variables_collections, "biases")
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return collect_named_outputs(outputs_collections, alias, outputs)


@add_arg_scope
def fully_connected(inputs: Any, num_outputs: int, activation_fn: Any = nn_ops.relu,
                    normalizer_fn: Any = None, normalizer_params: Any = None,
                    weights_initializer: Any = _XAVIER,
                    weights_regularizer: Any = None,
                    biases_initializer: Any = _ZEROS,
                    biases_regularizer: Any = None, reuse: Any = None,
                    variables_collections: Any = None, outputs_collections: Any = None,
                    trainable: bool = True, scope: Any = None) -> Any:
    """``activation_fn(normalizer_fn(inputs @ weights + biases))``; no biases when a
    normalizer_fn is given or biases_initializer is None."""
    if not isinstance(num_outputs, numbers.Integral) or isinstance(num_outputs, bool):
        raise ValueError(f"num_outputs type should be one of [<class 'int'>], got "
                         f"{type(num_outputs)}.")
    getter = build_variable_getter(layer_bias_renames())
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse,
                           custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core.Dense(
            units=num_outputs, activation=None,
            use_bias=bool(not normalizer_fn and biases_initializer),
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, variables_collections, normalizer_fn,
                       normalizer_params, activation_fn, outputs_collections, sc.name)


_CONV_CLASSES = {3: convolutional.Convolution1D, 4: convolutional.Convolution2D,
                 5: convolutional.Convolution3D}


@add_arg_scope
def convolution(inputs: Any, num_outputs: int, kernel_size: Any, stride: Any = 1,
                padding: str = "SAME", data_format: str | None = None, rate: Any = 1,
                activation_fn: Any = nn_ops.relu, normalizer_fn: Any = None,
                normalizer_params: Any = None, weights_initializer: Any = _XAVIER,
                weights_regularizer: Any = None,
                biases_initializer: Any = _ZEROS,
                biases_regularizer: Any = None, reuse: Any = None,
                variables_collections: Any = None, outputs_collections: Any = None,
                trainable: bool = True, scope: Any = None, conv_dims: int | None = None) -> Any:
    """An N-D convolution (N from the rank of ``inputs``: 1, 2 or 3), variables
    ``Conv/weights`` and ``Conv/biases``, then normalizer and activation."""
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    getter = build_variable_getter(layer_bias_renames())
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse, custom_getter=getter) as sc:
        inputs = convert_to_tensor(inputs)
        input_rank = inputs.get_shape().ndims
        if conv_dims is not None and conv_dims + 2 != input_rank:
            raise ValueError(f"Convolution expects input with rank {conv_dims + 2}, got "
                             f"{input_rank}")
        if input_rank not in _CONV_CLASSES:
            raise ValueError(f"Convolution not supported for input with rank {input_rank}")
        layer = _CONV_CLASSES[input_rank](
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format="channels_first" if data_format and data_format.startswith("NC")
            else "channels_last",
            dilation_rate=rate, activation=None,
            use_bias=bool(not normalizer_fn and biases_initializer),
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, variables_collections, normalizer_fn,
                       normalizer_params, activation_fn, outputs_collections, sc.name)


def _fixed_rank(conv_dims: int, name: str) -> Any:
    @add_arg_scope
    def conv(inputs: Any, num_outputs: int, kernel_size: Any, stride: Any = 1,
             padding: str = "SAME", data_format: str | None = None, rate: Any = 1,
             activation_fn: Any = nn_ops.relu, normalizer_fn: Any = None,
             normalizer_params: Any = None, weights_initializer: Any = _XAVIER,
             weights_regularizer: Any = None,
             biases_initializer: Any = _ZEROS,
             biases_regularizer: Any = None, reuse: Any = None,
             variables_collections: Any = None, outputs_collections: Any = None,
             trainable: bool = True, scope: Any = None) -> Any:
        return convolution(inputs, num_outputs, kernel_size, stride, padding, data_format,
                           rate, activation_fn, normalizer_fn, normalizer_params,
                           weights_initializer, weights_regularizer, biases_initializer,
                           biases_regularizer, reuse, variables_collections,
                           outputs_collections, trainable, scope, conv_dims=conv_dims)

    conv.__name__ = conv.__qualname__ = name
    conv.__doc__ = f"``convolution`` of {conv_dims}-D inputs (rank {conv_dims + 2})."
    return conv


convolution1d = _fixed_rank(1, "convolution1d")
convolution2d = _fixed_rank(2, "convolution2d")
convolution3d = _fixed_rank(3, "convolution3d")
conv1d, conv2d, conv3d = convolution1d, convolution2d, convolution3d


@add_arg_scope
def convolution2d_transpose(inputs: Any, num_outputs: int, kernel_size: Any, stride: Any = 1,
                            padding: str = "SAME", data_format: str = DATA_FORMAT_NHWC,
                            activation_fn: Any = nn_ops.relu, normalizer_fn: Any = None,
                            normalizer_params: Any = None,
                            weights_initializer: Any = _XAVIER,
                            weights_regularizer: Any = None,
                            biases_initializer: Any = _ZEROS,
                            biases_regularizer: Any = None, reuse: Any = None,
                            variables_collections: Any = None,
                            outputs_collections: Any = None, trainable: bool = True,
                            scope: Any = None) -> Any:
    """A 2-D transposed convolution, variables ``Conv2d_transpose/weights`` and
    ``.../biases``."""
    getter = build_variable_getter(layer_bias_renames())
    with vs.variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse,
                           custom_getter=getter) as sc:
        if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
            raise ValueError("data_format has to be either NCHW or NHWC.")
        inputs = convert_to_tensor(inputs)
        layer = convolutional.Convolution2DTranspose(
            filters=num_outputs, kernel_size=kernel_size, strides=stride, padding=padding,
            data_format="channels_first" if data_format == DATA_FORMAT_NCHW
            else "channels_last",
            activation=None, use_bias=bool(not normalizer_fn and biases_initializer),
            kernel_initializer=weights_initializer, bias_initializer=biases_initializer,
            kernel_regularizer=weights_regularizer, bias_regularizer=biases_regularizer,
            trainable=trainable, name=sc.name, dtype=inputs.dtype.base_dtype, _scope=sc,
            _reuse=reuse)
        outputs = layer.apply(inputs)
        return _finish(layer, outputs, variables_collections, normalizer_fn,
                       normalizer_params, activation_fn, outputs_collections, sc.name)


conv2d_transpose = convolution2d_transpose


def _pool2d(pool_fn: Any, default_name: str, inputs: Any, kernel_size: Any, stride: Any,
            padding: str, data_format: str, outputs_collections: Any, scope: Any) -> Any:
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    with ops_lib.name_scope(scope, default_name, [inputs]) as sc:
        inputs = convert_to_tensor(inputs)
        kernel = list(normalize_tuple(kernel_size, 2, "pool_size"))
        strides = list(normalize_tuple(stride, 2, "strides"))
        if padding.lower() not in ("valid", "same"):
            raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                             f'"same". Received: {padding}')
        if data_format == DATA_FORMAT_NHWC:
            ksize, strides = [1] + kernel + [1], [1] + strides + [1]
        else:
            ksize, strides = [1, 1] + kernel, [1, 1] + strides
        outputs = pool_fn(inputs, ksize=ksize, strides=strides, padding=padding.upper(),
                          data_format=data_format)
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def max_pool2d(inputs: Any, kernel_size: Any, stride: Any = 2, padding: str = "VALID",
               data_format: str = DATA_FORMAT_NHWC, outputs_collections: Any = None,
               scope: Any = None) -> Any:
    """2-D max pooling (ops under ``MaxPool2D``)."""
    return _pool2d(nn_pool_ops.max_pool, "MaxPool2D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


@add_arg_scope
def avg_pool2d(inputs: Any, kernel_size: Any, stride: Any = 2, padding: str = "VALID",
               data_format: str = DATA_FORMAT_NHWC, outputs_collections: Any = None,
               scope: Any = None) -> Any:
    """2-D average pooling (ops under ``AvgPool2D``)."""
    return _pool2d(nn_pool_ops.avg_pool, "AvgPool2D", inputs, kernel_size, stride, padding,
                   data_format, outputs_collections, scope)


@add_arg_scope
def flatten(inputs: Any, outputs_collections: Any = None, scope: Any = None) -> Any:
    """[N, ...] -> [N, k] (``tf.layers.flatten`` under ``Flatten``)."""
    with ops_lib.name_scope(scope, "Flatten", [inputs]) as sc:
        outputs = core.flatten(convert_to_tensor(inputs))
        return collect_named_outputs(outputs_collections, sc, outputs)


@add_arg_scope
def dropout(inputs: Any, keep_prob: Any = 0.5, noise_shape: Any = None,
            is_training: Any = True, outputs_collections: Any = None, scope: Any = None,
            seed: int | None = None) -> Any:
    """``tf.layers.dropout`` with rate ``1 - keep_prob`` when ``is_training``, else the
    identity."""
    with vs.variable_scope(scope, "Dropout", [inputs],
                           custom_getter=model_variable_getter) as sc:
        inputs = convert_to_tensor(inputs)
        layer = core.Dropout(rate=1 - keep_prob, noise_shape=noise_shape, seed=seed,
                             name=sc.name, _scope=sc)
        outputs = layer.apply(inputs, training=is_training)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def one_hot_encoding(labels: Any, num_classes: Any, on_value: Any = 1.0,
                     off_value: Any = 0.0, outputs_collections: Any = None,
                     scope: Any = None) -> Any:
    """``tf.one_hot`` of ``labels`` (int32 labels widened to int64, as TF did)."""
    with ops_lib.name_scope(scope, "OneHotEncoding", [labels, num_classes]) as sc:
        labels = convert_to_tensor(labels)
        if labels.dtype == dtypes_lib.int32:
            labels = math_ops.to_int64(labels)
        outputs = array_ops.one_hot(labels, num_classes, on_value=on_value,
                                    off_value=off_value)
        return collect_named_outputs(outputs_collections, sc, outputs)


def _embedding_lookup_unique(params: Any, ids: Any) -> Any:
    """``embedding_lookup`` of each distinct id once, gathered back to ``ids``' shape."""
    with ops_lib.name_scope(None, "EmbeddingLookupUnique", [params, ids]):
        ids = convert_to_tensor(ids)
        shape = array_ops.shape(ids)
        flat_ids = array_ops.reshape(ids, [-1])
        unique_ids, idx = manip_ops.unique(flat_ids)
        unique_embeddings = embedding_ops.embedding_lookup(params, unique_ids)
        embeds = array_ops.gather(unique_embeddings, idx)
        embed_dim = array_ops.shape(embeds)[1:]
        return array_ops.reshape(embeds, array_ops.concat([shape, embed_dim], 0))


@add_arg_scope
def embed_sequence(ids: Any, vocab_size: int | None = None, embed_dim: int | None = None,
                   unique: bool = False, initializer: Any = None, regularizer: Any = None,
                   trainable: bool = True, scope: Any = None, reuse: Any = None) -> Any:
    """Embeddings of ``ids`` [batch, time] from the model variable
    ``EmbedSequence/embeddings`` of shape [vocab_size, embed_dim]."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. "
                         f"Got vocab_size={vocab_size} and embed_dim={embed_dim}")
    with vs.variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = None if vocab_size is None or embed_dim is None else [vocab_size, embed_dim]
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable)
        if unique:
            return _embedding_lookup_unique(embeddings, ids)
        return embedding_ops.embedding_lookup(embeddings, ids)


def repeat(inputs: Any, repetitions: int, layer: Any, *args: Any, **kwargs: Any) -> Any:
    """``layer`` applied ``repetitions`` times, the i-th in scope ``<scope>_<i>`` (scope
    defaults to the layer function's name) under ``Repeat``."""
    scope = kwargs.pop("scope", None)
    with vs.variable_scope(scope, "Repeat", [inputs]):
        outputs = convert_to_tensor(inputs)
        scope = scope or _layer_name(layer, "repeat")
        for i in range(repetitions):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs: Any, layer: Any, stack_args: Any, **kwargs: Any) -> Any:
    """``layer`` applied once per entry of ``stack_args`` (its extra positional arguments),
    the i-th in scope ``<scope>_<i>`` under ``Stack``."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")
    with vs.variable_scope(scope, "Stack", [inputs]):
        outputs = convert_to_tensor(inputs)
        scope = scope or _layer_name(layer, "stack")
        for i, layer_args in enumerate(stack_args):
            kwargs["scope"] = f"{scope}_{i + 1}"
            if not isinstance(layer_args, (list, tuple)):
                layer_args = [layer_args]
            outputs = layer(outputs, *layer_args, **kwargs)
        return outputs


def _layer_name(layer: Any, default: str) -> str:
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func") and hasattr(layer.func, "__name__"):
        return layer.func.__name__
    return default


linear = functools.partial(fully_connected, activation_fn=None)
relu = functools.partial(fully_connected, activation_fn=nn_ops.relu)
relu6 = functools.partial(fully_connected, activation_fn=nn_ops.relu6)
