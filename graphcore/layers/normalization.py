"""tf.layers.BatchNormalization and batch_normalization (TF1's ``tf.compat.v1.layers``).

Variables ``gamma``/``beta`` (trainable) and ``moving_mean``/``moving_variance`` (not
trainable); in training the moving averages are updated by ``AssignMovingAvg`` ops that
join UPDATE_OPS, to be run with ``tf.control_dependencies(tf.get_collection(UPDATE_OPS))``.
``training`` is a Python bool or a boolean tensor.

Not here: ``renorm``, ``virtual_batch_size`` and ``adjustment`` (NotImplementedError).
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework import tensor_util
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers.base import InputSpec, Layer, smart_cond
from graphcore.ops import array_ops, init_ops, math_ops, nn_impl, nn_norm_ops, nn_ops, state_ops

__all__ = ["BatchNormalization", "batch_normalization"]


class BatchNormalization(Layer):
    """Batch normalization over ``axis`` (Ioffe et al., 2015)."""

    def __init__(self, axis: Any = -1, momentum: float = 0.99, epsilon: float = 1e-3,
                 center: bool = True, scale: bool = True, beta_initializer: Any = None,
                 gamma_initializer: Any = None, moving_mean_initializer: Any = None,
                 moving_variance_initializer: Any = None, beta_regularizer: Any = None,
                 gamma_regularizer: Any = None, beta_constraint: Any = None,
                 gamma_constraint: Any = None, renorm: bool = False,
                 renorm_clipping: Any = None, renorm_momentum: float = 0.99,
                 fused: bool | None = None, trainable: bool = True,
                 virtual_batch_size: int | None = None, adjustment: Any = None,
                 name: str | None = None, **kwargs: Any) -> None:
        super().__init__(name=name, trainable=trainable, **kwargs)
        if renorm or virtual_batch_size is not None or adjustment is not None:
            raise NotImplementedError("BatchNormalization: renorm, virtual_batch_size and "
                                      "adjustment are not implemented in graphcore")
        del renorm_clipping, renorm_momentum
        if isinstance(axis, (list, tuple)):
            self.axis = list(axis)
        elif isinstance(axis, int):
            self.axis = axis
        else:
            raise TypeError("Expected an int or a list/tuple of ints for the argument "
                            f"'axis', but received: {axis!r}")
        self.momentum = momentum
        self.epsilon = epsilon
        self.center = center
        self.scale = scale
        self.beta_initializer = beta_initializer or init_ops.zeros_initializer()
        self.gamma_initializer = gamma_initializer or init_ops.ones_initializer()
        self.moving_mean_initializer = moving_mean_initializer or init_ops.zeros_initializer()
        self.moving_variance_initializer = moving_variance_initializer or \
            init_ops.ones_initializer()
        self.beta_regularizer = beta_regularizer
        self.gamma_regularizer = gamma_regularizer
        self.beta_constraint = beta_constraint
        self.gamma_constraint = gamma_constraint
        self.fused = fused
        self.supports_masking = True

    @property
    def _param_dtype(self) -> Any:
        dtype = dtypes_lib.as_dtype(self.dtype or dtypes_lib.float32)
        return dtypes_lib.float32 if dtype in (dtypes_lib.float16, dtypes_lib.bfloat16) \
            else dtype

    def build(self, input_shape: Any) -> None:
        input_shape = shape_lib.TensorShape(input_shape)
        rank = input_shape.ndims
        if rank is None:
            raise ValueError(f"Input has undefined rank. Received: input_shape={input_shape}.")
        axes = self.axis if isinstance(self.axis, list) else [self.axis]
        self.axis = sorted({a + rank if a < 0 else a for a in axes})
        for a in self.axis:
            if not 0 <= a < rank:
                raise ValueError(f"Invalid value for `axis` argument. Expected 0 <= axis < "
                                 f"inputs.rank (with inputs.rank={rank}). Received: "
                                 f"axis={tuple(axes)}")
        # As TF1's layer: a 4-D batch norm over the channel axis (NHWC's or NCHW's) runs
        # as FusedBatchNormV3 unless ``fused=False``; its variance, which updates
        # moving_variance, is the unbiased one.
        fusable = rank == 4 and self.axis in ([1], [3])
        if self.fused and rank == 4 and not fusable:
            raise ValueError("Unsupported axis. The use of `fused=True` is only possible "
                             "with `axis=1` or `axis=3` for 4D input tensors. Received: "
                             f"axis={tuple(self.axis)}")
        self._unbiased_moving_variance = self.fused is None and fusable
        self.fused = self.fused is not False and fusable
        self._data_format = "NCHW" if self.axis == [1] else "NHWC"
        axis_to_dim = {x: shape_lib.dimension_value(input_shape[x]) for x in self.axis}
        for dim in axis_to_dim.values():
            if dim is None:
                raise ValueError(f"Input has undefined `axis` dimension. Received input with "
                                 f"shape {tuple(input_shape.as_list())} and "
                                 f"axis={tuple(self.axis)}")
        self.input_spec = InputSpec(ndim=rank, axes=axis_to_dim)
        if len(axis_to_dim) == 1:
            param_shape = (list(axis_to_dim.values())[0],)
        else:
            param_shape = [axis_to_dim.get(i, 1) for i in range(rank)]
        self.gamma = self.add_weight(
            name="gamma", shape=param_shape, dtype=self._param_dtype,
            initializer=self.gamma_initializer, regularizer=self.gamma_regularizer,
            constraint=self.gamma_constraint, trainable=True) if self.scale else None
        self.beta = self.add_weight(
            name="beta", shape=param_shape, dtype=self._param_dtype,
            initializer=self.beta_initializer, regularizer=self.beta_regularizer,
            constraint=self.beta_constraint, trainable=True) if self.center else None
        self.moving_mean = self.add_weight(
            name="moving_mean", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_mean_initializer, trainable=False)
        self.moving_variance = self.add_weight(
            name="moving_variance", shape=param_shape, dtype=self._param_dtype,
            initializer=self.moving_variance_initializer, trainable=False)
        self.built = True

    def _assign_moving_average(self, variable: Any, value: Any, momentum: Any) -> Any:
        with ops_lib.name_scope(None, "AssignMovingAvg") as scope:
            with ops_lib.colocate_with(variable):
                decay = convert_to_tensor(1.0 - momentum, name="decay")
                if decay.dtype != variable.dtype.base_dtype:
                    decay = math_ops.cast(decay, variable.dtype.base_dtype)
                update_delta = (variable - math_ops.cast(value, variable.dtype)) * decay
                return state_ops.assign_sub(variable, update_delta, name=scope)

    def _fused_batch_norm(self, inputs: Any, training: Any, training_value: Any) -> Any:
        """TF1's fused path: FusedBatchNormV3 in training (batch statistics) and in
        inference (the moving ones), chosen by ``training``; the moving averages are
        updated with momentum 1 (no change) when ``training`` is a false tensor."""
        param_shape = self.moving_mean.shape
        gamma = self.gamma if self.scale else array_ops.constant(
            1.0, self._param_dtype, shape=param_shape)
        beta = self.beta if self.center else array_ops.constant(
            0.0, self._param_dtype, shape=param_shape)

        def batch_norm(is_training: bool) -> Any:
            return nn_norm_ops.fused_batch_norm(
                inputs, gamma, beta, mean=self.moving_mean, variance=self.moving_variance,
                epsilon=self.epsilon, is_training=is_training, data_format=self._data_format)

        output, mean, variance = smart_cond(training, lambda: batch_norm(True),
                                            lambda: batch_norm(False))
        if training_value is None or training_value:
            momentum = smart_cond(training, lambda: self.momentum, lambda: 1.0) \
                if training_value is None else convert_to_tensor(self.momentum)
            self.add_update(lambda: self._assign_moving_average(self.moving_mean, mean,
                                                                momentum))
            self.add_update(lambda: self._assign_moving_average(self.moving_variance,
                                                                variance, momentum))
        return output

    def call(self, inputs: Any, training: Any = False) -> Any:
        training_value = training if isinstance(training, bool) else \
            tensor_util.constant_value(training)
        if self.fused and inputs.dtype.base_dtype == dtypes_lib.float32:
            return self._fused_batch_norm(inputs, training, training_value)
        inputs_dtype = inputs.dtype.base_dtype
        if inputs_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
            inputs = math_ops.cast(inputs, dtypes_lib.float32)
        input_shape = inputs.shape
        ndims = input_shape.ndims
        reduction_axes = [i for i in range(ndims) if i not in self.axis]
        broadcast_shape = [1] * ndims
        broadcast_shape[self.axis[0]] = shape_lib.dimension_value(input_shape[self.axis[0]])

        def _broadcast(v: Any) -> Any:
            if v is not None and len(v.shape) != ndims and \
                    reduction_axes != list(range(ndims - 1)):
                return array_ops.reshape(v, broadcast_shape)
            return v

        scale, offset = _broadcast(self.gamma), _broadcast(self.beta)
        if training_value is False:
            mean, variance = self.moving_mean, self.moving_variance
        else:
            keep_dims = len(self.axis) > 1
            mean, variance = nn_ops.moments(math_ops.cast(inputs, self._param_dtype),
                                            reduction_axes, keep_dims=keep_dims)
            moving_mean, moving_variance = self.moving_mean, self.moving_variance
            mean = smart_cond(training, lambda: mean,
                              lambda: convert_to_tensor(moving_mean))
            variance = smart_cond(training, lambda: variance,
                                  lambda: convert_to_tensor(moving_variance))
            new_mean, new_variance = mean, variance
            if self._unbiased_moving_variance:
                count = math_ops.cast(math_ops.reduce_prod(
                    array_ops.gather(array_ops.shape(inputs), reduction_axes)), variance.dtype)
                new_variance = variance * (count / math_ops.maximum(count - 1.0, 1.0))

            def _update(var: Any, value: Any) -> Any:
                return smart_cond(training,
                                  lambda: self._assign_moving_average(var, value,
                                                                      self.momentum),
                                  lambda: var)

            self.add_update(lambda: _update(self.moving_mean, new_mean))
            self.add_update(lambda: _update(self.moving_variance, new_variance))
        mean = math_ops.cast(mean, inputs.dtype)
        variance = math_ops.cast(variance, inputs.dtype)
        if offset is not None:
            offset = math_ops.cast(offset, inputs.dtype)
        if scale is not None:
            scale = math_ops.cast(scale, inputs.dtype)
        outputs = nn_impl.batch_normalization(inputs, _broadcast(mean), _broadcast(variance),
                                              offset, scale, self.epsilon)
        if inputs_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
            outputs = math_ops.cast(outputs, inputs_dtype)
        outputs.set_shape(input_shape)
        return outputs

    def compute_output_shape(self, input_shape: Any) -> shape_lib.TensorShape:
        return shape_lib.TensorShape(input_shape)


def batch_normalization(inputs: Any, axis: Any = -1, momentum: float = 0.99,
                        epsilon: float = 1e-3, center: bool = True, scale: bool = True,
                        beta_initializer: Any = None, gamma_initializer: Any = None,
                        moving_mean_initializer: Any = None,
                        moving_variance_initializer: Any = None, beta_regularizer: Any = None,
                        gamma_regularizer: Any = None, beta_constraint: Any = None,
                        gamma_constraint: Any = None, training: Any = False,
                        trainable: bool = True, name: str | None = None, reuse: Any = None,
                        renorm: bool = False, renorm_clipping: Any = None,
                        renorm_momentum: float = 0.99, fused: bool | None = None,
                        virtual_batch_size: int | None = None,
                        adjustment: Any = None) -> ops_lib.Tensor:
    """Functional interface of ``BatchNormalization``."""
    layer = BatchNormalization(
        axis=axis, momentum=momentum, epsilon=epsilon, center=center, scale=scale,
        beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
        moving_mean_initializer=moving_mean_initializer,
        moving_variance_initializer=moving_variance_initializer,
        beta_regularizer=beta_regularizer, gamma_regularizer=gamma_regularizer,
        beta_constraint=beta_constraint, gamma_constraint=gamma_constraint, renorm=renorm,
        renorm_clipping=renorm_clipping, renorm_momentum=renorm_momentum, fused=fused,
        trainable=trainable, virtual_batch_size=virtual_batch_size, adjustment=adjustment,
        name=name, _reuse=reuse, _scope=name)
    return layer.apply(inputs, training=training)
