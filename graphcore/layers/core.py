"""tf.layers (TF1's functional layers): dense, flatten, dropout.

Variables are made by ``tf.get_variable`` inside ``variable_scope(name,
default_name=<layer>)``, so a layer's variables are ``dense/kernel`` and
``dense/bias`` (``dense_1/...`` for the next one) and its ops live under the same
name scope, as in TF1.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, init_ops, math_ops, nn_ops
from graphcore.ops import variable_scope as vs

__all__ = ["dense", "flatten", "dropout"]


def _add_regularizer(var: Any, regularizer: Any) -> None:
    if regularizer is None:
        return
    with ops_lib.name_scope(None):
        loss = regularizer(var)
    if loss is not None:
        ops_lib.add_to_collection(ops_lib.GraphKeys.REGULARIZATION_LOSSES, loss)


def dense(inputs: Any, units: int, activation: Any = None, use_bias: bool = True,
          kernel_initializer: Any = None, bias_initializer: Any = None,
          kernel_regularizer: Any = None, bias_regularizer: Any = None,
          activity_regularizer: Any = None, kernel_constraint: Any = None,
          bias_constraint: Any = None, trainable: bool = True, name: str | None = None,
          reuse: Any = None) -> ops_lib.Tensor:
    """``activation(inputs @ kernel + bias)`` with ``kernel`` [in, units] (glorot uniform)
    and ``bias`` [units] (zeros) made by ``get_variable``."""
    del kernel_constraint, bias_constraint
    if bias_initializer is None:
        bias_initializer = init_ops.zeros_initializer()
    inputs = convert_to_tensor(inputs)
    shape = inputs.get_shape()
    if shape.ndims is not None and shape.ndims < 2:
        raise ValueError(f"Input 0 of layer {name or 'dense'} is incompatible with the layer: "
                         f": expected min_ndim=2, found ndim={shape.ndims}. Full shape "
                         f"received: {shape.as_list()}")
    last = shape_lib.dimension_value(shape[-1]) if shape.ndims is not None else None
    if last is None:
        raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                         "Found `None`.")
    dtype = inputs.dtype.base_dtype
    with vs.variable_scope(name, default_name="dense", values=[inputs], reuse=reuse):
        kernel = vs.get_variable(
            "kernel", shape=[last, units], dtype=dtype,
            initializer=kernel_initializer if kernel_initializer is not None
            else init_ops.glorot_uniform_initializer(), trainable=trainable)
        _add_regularizer(kernel, kernel_regularizer)
        bias = None
        if use_bias:
            bias = vs.get_variable("bias", shape=[units], dtype=dtype,
                                   initializer=bias_initializer, trainable=trainable)
            _add_regularizer(bias, bias_regularizer)
        if shape.ndims == 2:
            outputs = math_ops.matmul(inputs, kernel)
        else:
            flat = array_ops.reshape(inputs, [-1, last])
            outputs = math_ops.matmul(flat, kernel)
            out_shape = array_ops.concat([array_ops.shape(inputs)[:-1], [units]], 0)
            outputs = array_ops.reshape(outputs, out_shape)
            if shape.ndims is not None:
                outputs.set_shape(shape[:-1].concatenate([units]))
        if bias is not None:
            outputs = nn_ops.bias_add(outputs, bias)
        if activation is not None:
            outputs = activation(outputs)
        if activity_regularizer is not None:
            _add_regularizer(outputs, activity_regularizer)
        return outputs


def flatten(inputs: Any, name: str | None = None,
            data_format: str = "channels_last") -> ops_lib.Tensor:
    """Flattens every dimension but the first: [N, ...] -> [N, prod(...)]."""
    inputs = convert_to_tensor(inputs)
    with ops_lib.name_scope(name, "flatten", [inputs]):
        if data_format == "channels_first" and inputs.shape.ndims and inputs.shape.ndims > 2:
            perm = [0] + list(range(2, inputs.shape.ndims)) + [1]
            inputs = array_ops.transpose(inputs, perm)
        shape = inputs.get_shape()
        batch = shape_lib.dimension_value(shape[0]) if shape.ndims else None
        if shape.ndims == 1:
            return array_ops.expand_dims(inputs, 1)
        if batch is None:
            batch = array_ops.shape(inputs)[0]
            target = array_ops.stack([batch, -1])
        else:
            target = (batch, -1)
        outputs = array_ops.reshape(inputs, target)
        if shape.ndims is not None:
            rest = shape[1:].num_elements()
            outputs.set_shape([shape_lib.dimension_value(shape[0]), rest])
        return outputs


def dropout(inputs: Any, rate: float = 0.5, noise_shape: Any = None, seed: int | None = None,
            training: Any = False, name: str | None = None) -> ops_lib.Tensor:
    """``tf.nn.dropout(inputs, rate=rate)`` when ``training``, else ``inputs`` unchanged."""
    with ops_lib.name_scope(name, "dropout", [inputs]):
        if isinstance(training, bool):
            if training:
                return nn_ops.dropout(inputs, noise_shape=noise_shape, seed=seed, rate=rate)
            return array_ops.identity(inputs)
        from graphcore.ops import control_flow_ops

        return control_flow_ops.cond(
            training,
            lambda: nn_ops.dropout(inputs, noise_shape=noise_shape, seed=seed, rate=rate),
            lambda: array_ops.identity(inputs))
