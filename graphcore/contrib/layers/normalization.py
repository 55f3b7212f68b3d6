"""``tf.contrib.layers.batch_norm``, ``layer_norm`` and ``group_norm`` (TF 1.15). batch_norm's variables are
the model variables ``BatchNorm/{beta,gamma,moving_mean,moving_variance}`` (gamma only with
``scale=True``). With ``fused`` (the default) on rank-2/4 inputs it runs FusedBatchNorm,
whose moving variance is updated with the Bessel-corrected batch variance; otherwise
moments over all but the channel axis. Moving averages update through
``updates_collections`` (UPDATE_OPS), or in place before the output when it is None."""

from __future__ import annotations

from typing import Any

from graphcore.contrib.framework import add_arg_scope, model_variable
from graphcore.contrib.layers.utils import (
    collect_named_outputs,
    constant_value,
    get_variable_collections,
)
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers.base import smart_cond
from graphcore.ops import array_ops, init_ops, math_ops, nn_impl, nn_norm_ops, nn_ops
from graphcore.ops import variable_scope as vs
from graphcore.train import moving_averages

__all__ = ["batch_norm", "group_norm", "layer_norm"]

DATA_FORMAT_NCHW = "NCHW"
DATA_FORMAT_NHWC = "NHWC"


def _params(params_shape: Any, dtype: Any, center: bool, scale: bool,
            param_initializers: dict, param_regularizers: dict,
            variables_collections: Any, trainable: bool) -> tuple:
    """beta, gamma (or None) and the non-trainable moving_mean, moving_variance."""
    def make(name: str, default_init: Any, trainable: bool, regularizer: Any = None) -> Any:
        return model_variable(name, shape=params_shape, dtype=dtype,
                              initializer=param_initializers.get(name, default_init),
                              regularizer=regularizer, trainable=trainable,
                              collections=get_variable_collections(variables_collections, name))

    beta = make("beta", init_ops.zeros_initializer(), trainable,
                param_regularizers.get("beta")) if center else None
    gamma = make("gamma", init_ops.ones_initializer(), trainable,
                 param_regularizers.get("gamma")) if scale else None
    # As TF: the moving averages are never partitioned (assign_moving_average could not).
    with vs.variable_scope(vs.get_variable_scope()) as local_scope:
        local_scope.set_partitioner(None)
        moving_mean = make("moving_mean", init_ops.zeros_initializer(), False)
        moving_variance = make("moving_variance", init_ops.ones_initializer(), False)
    return beta, gamma, moving_mean, moving_variance


def _moving_updates(moving_mean: Any, moving_variance: Any, mean: Any, variance: Any,
                    decay: float, zero_debias_moving_mean: bool) -> tuple:
    return (moving_averages.assign_moving_average(moving_mean, mean, decay,
                                                  zero_debias=zero_debias_moving_mean),
            moving_averages.assign_moving_average(moving_variance, variance, decay,
                                                  zero_debias=False))


def _fused_batch_norm(inputs: Any, decay: float, center: bool, scale: bool, epsilon: float,
                      param_initializers: dict, param_regularizers: dict,
                      updates_collections: Any, is_training: Any,
                      variables_collections: Any, trainable: bool, data_format: str,
                      zero_debias_moving_mean: bool) -> Any:
    original_shape = inputs.get_shape()
    original_inputs = inputs
    rank = original_shape.ndims
    if rank == 2:
        channels = original_shape.dims[-1].value
        if channels is None:
            raise ValueError("`C` dimension must be known but is None")
        new_shape = [-1, channels, 1, 1] if data_format == DATA_FORMAT_NCHW \
            else [-1, 1, 1, channels]
        inputs = array_ops.reshape(inputs, new_shape)
    inputs_shape = inputs.get_shape()
    params_shape = inputs_shape[-1:] if data_format == DATA_FORMAT_NHWC else inputs_shape[1:2]
    if not params_shape.is_fully_defined():
        raise ValueError(f"Inputs {inputs.name} has undefined `C` dimension {params_shape}.")
    # float32 parameters even for float16 inputs, as FusedBatchNorm wants.
    beta, gamma, moving_mean, moving_variance = _params(
        params_shape, dtypes_lib.float32, center, scale, param_initializers,
        param_regularizers, variables_collections, trainable)
    if beta is None:
        beta = array_ops.constant(0.0, dtype=dtypes_lib.float32, shape=params_shape)
    if gamma is None:
        gamma = array_ops.constant(1.0, dtype=dtypes_lib.float32, shape=params_shape)

    def training() -> tuple:
        return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, epsilon=epsilon,
                                            data_format=data_format)

    def inference() -> tuple:
        return nn_norm_ops.fused_batch_norm(inputs, gamma, beta, mean=moving_mean,
                                            variance=moving_variance, epsilon=epsilon,
                                            is_training=False, data_format=data_format)

    outputs, mean, variance = smart_cond(is_training, training, inference)
    is_training_value = constant_value(is_training)
    if is_training_value is None or is_training_value:
        if updates_collections is None:
            def force_updates() -> Any:
                updates = _moving_updates(moving_mean, moving_variance, mean, variance, decay,
                                          zero_debias_moving_mean)
                with ops_lib.control_dependencies(updates):
                    return array_ops.identity(outputs)

            outputs = smart_cond(is_training, force_updates, lambda: outputs)
        else:
            update_mean, update_variance = smart_cond(
                is_training,
                lambda: _moving_updates(moving_mean, moving_variance, mean, variance, decay,
                                        zero_debias_moving_mean),
                lambda: (moving_mean, moving_variance))
            ops_lib.add_to_collections(updates_collections, update_mean)
            ops_lib.add_to_collections(updates_collections, update_variance)
    outputs.set_shape(inputs_shape)
    if rank == 2:
        outputs = array_ops.reshape(outputs, array_ops.shape(original_inputs))
    return outputs


def _moments_batch_norm(inputs: Any, decay: float, center: bool, scale: bool, epsilon: float,
                        param_initializers: dict, updates_collections: Any, is_training: Any,
                        variables_collections: Any, trainable: bool, batch_weights: Any,
                        data_format: str, zero_debias_moving_mean: bool) -> Any:
    inputs_shape = inputs.get_shape()
    rank = inputs_shape.ndims
    dtype = inputs.dtype.base_dtype
    if batch_weights is not None:
        batch_weights = convert_to_tensor(batch_weights)
        inputs_shape[0:1].assert_is_compatible_with(batch_weights.get_shape())
        batch_weights = array_ops.reshape(batch_weights, [-1] + [1] * (rank - 1))
    if data_format == DATA_FORMAT_NCHW:
        moments_axes = [0] + list(range(2, rank))
        params_shape = inputs_shape[1:2]
        broadcast_shape = [1, inputs_shape.dims[1].value] + [1] * (rank - 2)
    else:
        moments_axes = list(range(rank - 1))
        params_shape = inputs_shape[-1:]
        broadcast_shape = None
    if not params_shape.is_fully_defined():
        raise ValueError(f"Inputs {inputs.name} has undefined channels dimension "
                         f"{params_shape}.")
    beta, gamma, moving_mean, moving_variance = _params(
        params_shape, dtype, center, scale, param_initializers, {}, variables_collections,
        trainable)
    is_training_value = constant_value(is_training)
    if is_training_value is None or is_training_value:
        keep = data_format == DATA_FORMAT_NCHW
        if batch_weights is None:
            mean, variance = nn_ops.moments(inputs, moments_axes, keep_dims=keep)
        else:
            mean, variance = nn_impl.weighted_moments(inputs, moments_axes, batch_weights,
                                                      keep_dims=keep)
        if keep:
            mean, variance = array_ops.reshape(mean, [-1]), array_ops.reshape(variance, [-1])

        def moving_vars() -> tuple:
            return moving_mean, moving_variance

        if updates_collections is None:
            def force_updates() -> tuple:
                updates = _moving_updates(moving_mean, moving_variance, mean, variance, decay,
                                          zero_debias_moving_mean)
                with ops_lib.control_dependencies(updates):
                    return array_ops.identity(mean), array_ops.identity(variance)

            mean, variance = smart_cond(is_training, force_updates, moving_vars)
        else:
            update_mean, update_variance = smart_cond(
                is_training,
                lambda: _moving_updates(moving_mean, moving_variance, mean, variance, decay,
                                        zero_debias_moving_mean),
                moving_vars)
            ops_lib.add_to_collections(updates_collections, update_mean)
            ops_lib.add_to_collections(updates_collections, update_variance)
            batch = (mean, variance)
            mean, variance = smart_cond(is_training, lambda: batch, moving_vars)
    else:
        mean, variance = moving_mean, moving_variance
    if broadcast_shape is not None:
        mean = array_ops.reshape(mean, broadcast_shape)
        variance = array_ops.reshape(variance, broadcast_shape)
        beta = None if beta is None else array_ops.reshape(beta, broadcast_shape)
        gamma = None if gamma is None else array_ops.reshape(gamma, broadcast_shape)
    outputs = nn_impl.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
    outputs.set_shape(inputs_shape)
    return outputs


@add_arg_scope
def batch_norm(inputs: Any, decay: float = 0.999, center: bool = True, scale: bool = False,
               epsilon: float = 0.001, activation_fn: Any = None,
               param_initializers: dict | None = None, param_regularizers: dict | None = None,
               updates_collections: Any = ops_lib.GraphKeys.UPDATE_OPS, is_training: Any = True,
               reuse: Any = None, variables_collections: Any = None,
               outputs_collections: Any = None, trainable: bool = True,
               batch_weights: Any = None, fused: bool | None = None,
               data_format: str = DATA_FORMAT_NHWC, zero_debias_moving_mean: bool = False,
               scope: Any = None, renorm: bool = False, renorm_clipping: Any = None,
               renorm_decay: float = 0.99, adjustment: Any = None) -> Any:
    """Batch normalization (Ioffe & Szegedy) over the channel axis (last for NHWC, 1 for
    NCHW): batch statistics when ``is_training``, the moving averages otherwise."""
    del renorm_clipping, renorm_decay
    if renorm or adjustment is not None:
        raise NotImplementedError("batch_norm: renorm and adjustment are not implemented "
                                  "in graphcore")
    if data_format not in (DATA_FORMAT_NCHW, DATA_FORMAT_NHWC):
        raise ValueError("data_format has to be either NCHW or NHWC.")
    fused = True if fused is None else fused
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        if fused and batch_weights is None and rank in (2, 4):
            outputs = _fused_batch_norm(
                inputs, decay, center, scale, epsilon, param_initializers or {},
                param_regularizers or {}, updates_collections, is_training,
                variables_collections, trainable, data_format, zero_debias_moving_mean)
        else:
            outputs = _moments_batch_norm(
                inputs, decay, center, scale, epsilon, param_initializers or {},
                updates_collections, is_training, variables_collections, trainable,
                batch_weights, data_format, zero_debias_moving_mean)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def layer_norm(inputs: Any, center: bool = True, scale: bool = True, activation_fn: Any = None,
               reuse: Any = None, variables_collections: Any = None,
               outputs_collections: Any = None, trainable: bool = True,
               begin_norm_axis: int = 1, begin_params_axis: int = -1,
               scope: Any = None) -> Any:
    """Layer normalization (Ba et al.): moments over axes ``begin_norm_axis:``, model
    variables ``LayerNorm/beta`` and ``LayerNorm/gamma`` of shape ``inputs.shape[
    begin_params_axis:]``, epsilon 1e-12 (1e-3 for float16)."""
    with vs.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as sc:
        inputs = convert_to_tensor(inputs)
        inputs_shape = inputs.shape
        rank = inputs_shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        dtype = inputs.dtype.base_dtype
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                             f"({begin_norm_axis}) must be < rank(inputs) ({rank})")
        params_shape = inputs_shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape(inputs)[{begin_params_axis}:] is "
                             f"not fully defined: {inputs_shape}")
        beta = model_variable(
            "beta", shape=params_shape, dtype=dtype, initializer=init_ops.zeros_initializer(),
            collections=get_variable_collections(variables_collections, "beta"),
            trainable=trainable) if center else None
        gamma = model_variable(
            "gamma", shape=params_shape, dtype=dtype, initializer=init_ops.ones_initializer(),
            collections=get_variable_collections(variables_collections, "gamma"),
            trainable=trainable) if scale else None
        mean, variance = nn_ops.moments(inputs, list(range(begin_norm_axis, rank)),
                                        keep_dims=True)
        epsilon = 1e-3 if dtype == dtypes_lib.float16 else 1e-12
        outputs = nn_impl.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma,
                                              variance_epsilon=epsilon)
        outputs.set_shape(inputs_shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)


@add_arg_scope
def group_norm(inputs: Any, groups: int = 32, channels_axis: int = -1,
               reduction_axes: Any = (-3, -2), center: bool = True, scale: bool = True,
               epsilon: float = 1e-6, activation_fn: Any = None,
               param_initializers: dict | None = None, reuse: Any = None,
               variables_collections: Any = None, outputs_collections: Any = None,
               trainable: bool = True, scope: Any = None,
               mean_close_to_zero: bool = False) -> Any:
    """Group normalization (Wu & He): the channels split into ``groups``, moments per
    example and group over ``reduction_axes`` and the group's channels; model variables
    ``GroupNorm/beta`` and ``GroupNorm/gamma`` per channel."""
    inputs = convert_to_tensor(inputs)
    rank = inputs.shape.ndims
    if rank is None:
        raise ValueError(f"Inputs {inputs.name} has undefined rank.")
    if channels_axis > rank - 1:
        raise ValueError("Axis is out of bounds.")
    dynamic_shape = array_ops.shape(inputs)
    input_shape_list = [dim if dim is not None else dynamic_shape[i]
                        for i, dim in enumerate(inputs.shape.as_list())]
    if channels_axis < 0:
        channels_axis += rank
    channels = inputs.shape.as_list()[channels_axis]
    if channels is None:
        raise ValueError(f"Inputs {inputs.name} has undefined channel dimension: "
                         f"{channels_axis}.")
    reduction_axes = [a + rank if a < 0 else a for a in reduction_axes]
    for a in reduction_axes:
        if a > rank:
            raise ValueError("Axis is out of bounds.")
        if inputs.shape.as_list()[a] is None:
            raise ValueError(f"Inputs {inputs.name} has undefined dimensions {a}.")
        if channels_axis == a:
            raise ValueError("reduction_axis must be mutually exclusive with channels_axis")
    if groups > channels:
        raise ValueError(f"Invalid groups {groups} for {channels} channels.")
    if channels % groups != 0:
        raise ValueError(f"{channels} channels is not commensurate with {groups} groups.")
    before = input_shape_list[:channels_axis]
    after = input_shape_list[channels_axis + 1:]
    params_shape_broadcast = [1] * len(before) + [groups, channels // groups] + \
        [1] * len(after)
    inputs = array_ops.reshape(inputs, before + [groups, channels // groups] + after)
    moments_axes = [channels_axis + 1] + [a + 1 if a > channels_axis else a
                                          for a in reduction_axes]
    with vs.variable_scope(scope, "GroupNorm", [inputs], reuse=reuse) as sc:
        dtype = inputs.dtype.base_dtype
        param_initializers = param_initializers or {}

        def param(name: str, default: Any) -> Any:
            var = model_variable(
                name, shape=[channels], dtype=dtype,
                initializer=param_initializers.get(name, default), trainable=trainable,
                collections=get_variable_collections(variables_collections, name))
            return array_ops.reshape(var, params_shape_broadcast)

        beta = param("beta", init_ops.zeros_initializer()) if center else None
        gamma = param("gamma", init_ops.ones_initializer()) if scale else None
        if mean_close_to_zero:
            counts, means_ss, variance_ss, _ = nn_impl.sufficient_statistics(
                inputs, moments_axes, keep_dims=True)
            mean, variance = nn_impl.normalize_moments(counts, means_ss, variance_ss,
                                                       shift=None)
        else:
            mean, variance = nn_ops.moments(inputs, moments_axes, keep_dims=True)
        gain = math_ops.rsqrt(variance + epsilon)
        offset = -mean * gain
        if gamma is not None:
            gain *= gamma
            offset *= gamma
        if beta is not None:
            offset += beta
        outputs = array_ops.reshape(inputs * gain + offset, input_shape_list)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return collect_named_outputs(outputs_collections, sc.name, outputs)
