"""Neural-network ops (tf.nn): activations, softmax and cross entropy, bias add, l2 loss,
dropout; with their grad-helper ops and shape functions (convolutions are in nn_conv_ops.py,
pooling in nn_pool_ops.py)."""

from __future__ import annotations

import numbers
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import random_ops
from graphcore.ops.window_shapes import with_rank
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "relu",
    "relu6",
    "elu",
    "softplus",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "softmax_cross_entropy_with_logits",
    "softmax_cross_entropy_with_logits_v2",
    "sparse_softmax_cross_entropy_with_logits",
    "bias_add",
    "l2_loss",
    "dropout",
    "l2_normalize",
    "moments",
    "in_top_k",
]

# -- shape-function helpers ---------------------------------------------------------------


def _with_rank_at_least(shape: shape_lib.TensorShape, rank: int) -> shape_lib.TensorShape:
    if shape.ndims is not None and shape.ndims < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.ndims}")
    return shape


def _merge_dim(a: int | None, b: int | None) -> int | None:
    if a is None:
        return b
    if b is None or a == b:
        return a
    raise ValueError(f"Dimensions must be equal, but are {a} and {b}")


def _unchanged_rank_at_least_1(op: ops_lib.Operation) -> list:
    return [_with_rank_at_least(op.inputs[0].shape, 1)]


def _unchanged(op: ops_lib.Operation) -> list:
    return [op.inputs[0].shape]


def _merge_both(op: ops_lib.Operation) -> list:
    a, b = op.inputs[0].shape, op.inputs[1].shape
    try:
        return [a.merge_with(b)]
    except ValueError:
        raise ValueError(f"Incompatible shapes: {a} vs. {b}") from None


def _scalar(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([])]


def _broadcast_dims(a: list, b: list) -> list:
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        elif x == y:
            out.append(x)
        else:
            raise ValueError(f"Dimensions must be equal, but are {x} and {y}")
    return out


def _xent_shape(op: ops_lib.Operation) -> list:
    f, lab = op.inputs[0].shape, op.inputs[1].shape
    try:
        merged = with_rank(f, 2).merge_with(lab)
        return [shape_lib.TensorShape([merged.as_list()[0]]), merged]
    except ValueError:
        pass
    if f.ndims is None or lab.ndims is None:
        raise ValueError("Shape must be broadcasted with rank 2, but is rank is unknown.")
    dims = _broadcast_dims(f.as_list(), lab.as_list())
    if len(dims) != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {len(dims)}")
    return [shape_lib.TensorShape([dims[0]]), shape_lib.TensorShape(dims)]


def _sparse_xent_shape(op: ops_lib.Operation) -> list:
    features = with_rank(op.inputs[0].shape, 2).as_list()
    labels = with_rank(op.inputs[1].shape, 1).as_list()
    batch = _merge_dim(features[0], labels[0])
    return [shape_lib.TensorShape([batch]), shape_lib.TensorShape([batch, features[1]])]


def _data_format(op: ops_lib.Operation) -> str:
    return op.get_attr("data_format").decode()


def _bias_add_shape(op: ops_lib.Operation) -> list:
    value, bias = op.inputs[0].shape, with_rank(op.inputs[1].shape, 1)
    nchw = _data_format(op) == "NCHW"
    value = _with_rank_at_least(value, 3 if nchw else 2)
    if value.ndims is None:
        return [value]
    dims = value.as_list()
    axis = 1 if nchw else len(dims) - 1
    try:
        dims[axis] = _merge_dim(dims[axis], bias.as_list()[0])
    except ValueError as e:
        raise ValueError(f"{e} for bias add") from None
    return [shape_lib.TensorShape(dims)]


def _bias_add_grad_shape(op: ops_lib.Operation) -> list:
    shape = _with_rank_at_least(op.inputs[0].shape, 2)
    if shape.ndims is None:
        return [shape_lib.unknown_shape(rank=1)]
    axis = 1 if _data_format(op) == "NCHW" else shape.ndims - 1
    return [shape_lib.TensorShape([shape.as_list()[axis]])]


def _in_top_k_shape(op: ops_lib.Operation) -> list:
    predictions = with_rank(op.inputs[0].shape, 2).as_list()
    targets = with_rank(op.inputs[1].shape, 1).as_list()
    if op.inputs[2].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[2].shape.ndims}")
    return [shape_lib.TensorShape([_merge_dim(predictions[0], targets[0])])]


# -- registrations -------------------------------------------------------------------------

_FLOATS = "{half, bfloat16, float, double}"


def _activation(op_type: str, types: str) -> None:
    op_registry.register_op(op_type).input("features: T").output("activations: T") \
        .attr(f"T: {types}").shape_fn(_unchanged)


def _activation_grad(op_type: str, second: str, types: str) -> None:
    op_registry.register_op(op_type).input("gradients: T").input(f"{second}: T") \
        .output("backprops: T").attr(f"T: {types}").shape_fn(_merge_both)


_activation("Relu", "{realnumbertype, qint8}")
_activation("Relu6", "realnumbertype")
_activation("Elu", _FLOATS)
_activation("Softplus", _FLOATS)
_activation_grad("ReluGrad", "features", "realnumbertype")
_activation_grad("Relu6Grad", "features", "realnumbertype")
_activation_grad("EluGrad", "outputs", _FLOATS)
_activation_grad("SoftplusGrad", "features", _FLOATS)

op_registry.register_op("Softmax").input("logits: T").output("softmax: T") \
    .attr(f"T: {_FLOATS}").shape_fn(_unchanged_rank_at_least_1)
op_registry.register_op("LogSoftmax").input("logits: T").output("logsoftmax: T") \
    .attr(f"T: {_FLOATS}").shape_fn(_unchanged_rank_at_least_1)

op_registry.register_op("SoftmaxCrossEntropyWithLogits").input("features: T") \
    .input("labels: T").output("loss: T").output("backprop: T").attr(f"T: {_FLOATS}") \
    .shape_fn(_xent_shape)
op_registry.register_op("SparseSoftmaxCrossEntropyWithLogits").input("features: T") \
    .input("labels: Tlabels").output("loss: T").output("backprop: T") \
    .attr(f"T: {_FLOATS}").attr("Tlabels: {int32, int64} = DT_INT64") \
    .shape_fn(_sparse_xent_shape)

op_registry.register_op("BiasAdd").input("value: T").input("bias: T").output("output: T") \
    .attr("T: numbertype").attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .shape_fn(_bias_add_shape)
op_registry.register_op("BiasAddGrad").input("out_backprop: T").output("output: T") \
    .attr("T: numbertype").attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .shape_fn(_bias_add_grad_shape)


op_registry.register_op("L2Loss").input("t: T").output("output: T") \
    .attr(f"T: {_FLOATS}").shape_fn(_scalar)

op_registry.register_op("InTopKV2").input("predictions: float").input("targets: T") \
    .input("k: T").output("precision: bool").attr("T: {int32, int64} = DT_INT32") \
    .shape_fn(_in_top_k_shape)


# -- wrappers ------------------------------------------------------------------------------

def _math():
    from graphcore.ops import math_ops

    return math_ops


def _array():
    from graphcore.ops import array_ops

    return array_ops


def relu(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """max(features, 0)."""
    return apply_op("Relu", name=name, features=features).outputs[0]


def relu6(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """min(max(features, 0), 6)."""
    with ops_lib.name_scope(name, "Relu6", [features]) as name:
        features = convert_to_tensor(features, name="features")
        return apply_op("Relu6", name=name, features=features).outputs[0]


def elu(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """exp(features) - 1 where features < 0, else features."""
    return apply_op("Elu", name=name, features=features).outputs[0]


def softplus(features: Any, name: str | None = None) -> ops_lib.Tensor:
    """log(exp(features) + 1)."""
    return apply_op("Softplus", name=name, features=features).outputs[0]


def sigmoid(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """1 / (1 + exp(-x)) (math_ops.sigmoid)."""
    return _math().sigmoid(x, name=name)


def tanh(x: Any, name: str | None = None) -> ops_lib.Tensor:
    """Hyperbolic tangent (math_ops.tanh)."""
    return _math().tanh(x, name=name)


def _swap_axis(x: ops_lib.Tensor, dim_index: int, last_index: Any,
               name: str | None = None) -> ops_lib.Tensor:
    array_ops, math_ops = _array(), _math()
    perm = array_ops.concat([math_ops.range(dim_index), [last_index],
                             math_ops.range(dim_index + 1, last_index), [dim_index]], 0)
    return array_ops.transpose(x, perm, name=name)


def _wrap_2d_function(inputs: Any, op_type: str, dim: Any = -1,
                      name: str | None = None) -> ops_lib.Tensor:
    """Runs ``op_type`` (which works on the last axis) along axis ``dim``."""
    inputs = convert_to_tensor(inputs)
    shape = inputs.get_shape()
    is_last_dim = dim == -1 or dim == shape.ndims - 1
    if is_last_dim:
        return apply_op(op_type, name=name, logits=inputs).outputs[0]
    dim_val = dim
    if isinstance(dim, ops_lib.Tensor):
        dim_val = tensor_util.constant_value(dim)
    if shape.ndims is None:
        raise ValueError(f"{op_type} along axis {dim} needs a tensor of known rank")
    if dim_val is not None and not -shape.ndims <= dim_val < shape.ndims:
        from graphcore.framework import errors

        raise errors.InvalidArgumentError(
            None, None, f"`dim` must be in the range [{-shape.ndims}, {shape.ndims}) where "
                        f"{shape.ndims} is the number of dimensions in the input. "
                        f"Received: dim={dim_val}")
    array_ops, math_ops = _array(), _math()
    array_ops.rank(inputs)  # TF builds (and leaves unused) a first Rank here
    input_rank = array_ops.rank(inputs)
    dim_axis = int(dim_val) % shape.ndims
    inputs = _swap_axis(inputs, dim_axis, math_ops.subtract(input_rank, 1))
    output = apply_op(op_type, logits=inputs).outputs[0]
    output = _swap_axis(output, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    output.set_shape(shape)
    return output


def _axis_lookup(axis: Any, dim: Any) -> Any:
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    return -1 if axis is None else axis


def softmax(logits: Any, axis: Any = None, name: str | None = None,
            dim: Any = None) -> ops_lib.Tensor:
    """exp(logits) / sum(exp(logits), axis)."""
    return _wrap_2d_function(logits, "Softmax", _axis_lookup(axis, dim), name)


def log_softmax(logits: Any, axis: Any = None, name: str | None = None,
                dim: Any = None) -> ops_lib.Tensor:
    """logits - log(sum(exp(logits), axis))."""
    return _wrap_2d_function(logits, "LogSoftmax", _axis_lookup(axis, dim), name)


def _flatten_outer_dims(logits: ops_lib.Tensor) -> ops_lib.Tensor:
    array_ops, math_ops = _array(), _math()
    rank = array_ops.rank(logits)
    last_dim_size = array_ops.slice(array_ops.shape(logits), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(logits, array_ops.concat([[-1], last_dim_size], 0))
    shape = logits.get_shape()
    if shape.ndims is not None:
        dims = shape.as_list()
        product = 1
        for d in dims[:-1]:
            if d is None:
                product = None
                break
            product *= d
        if product is not None:
            output.set_shape([product, dims[-1]])
    return output


def _ensure_xent_args(name: str, labels: Any, logits: Any) -> None:
    if labels is None or logits is None:
        raise ValueError(f"Both `labels` and `logits` must be provided for {name}"
                         f"Received: labels={labels} and logits={logits}")


def softmax_cross_entropy_with_logits_v2(labels: Any, logits: Any, axis: Any = None,
                                         name: str | None = None,
                                         dim: Any = None) -> ops_lib.Tensor:
    """Softmax cross entropy between ``logits`` and a distribution ``labels`` (gradients
    flow into both)."""
    axis = _axis_lookup(axis, dim)
    array_ops, math_ops = _array(), _math()
    with ops_lib.name_scope(name, "softmax_cross_entropy_with_logits",
                            [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        convert_to_float32 = logits.dtype in (dtypes_lib.float16, dtypes_lib.bfloat16)
        precise_logits = math_ops.cast(logits, dtypes_lib.float32) if convert_to_float32 \
            else logits
        labels = math_ops.cast(labels, precise_logits.dtype)
        input_rank = array_ops.rank(precise_logits)
        shape = logits.get_shape()
        if axis != -1:
            def _move_dim_to_end(tensor: Any, dim_index: int, rank: Any) -> Any:
                return array_ops.transpose(tensor, array_ops.concat([
                    math_ops.range(dim_index), math_ops.range(dim_index + 1, rank),
                    [dim_index]], 0))

            precise_logits = _move_dim_to_end(precise_logits, axis, input_rank)
            labels = _move_dim_to_end(labels, axis, input_rank)
        input_shape = array_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost = apply_op("SoftmaxCrossEntropyWithLogits", name=name, features=precise_logits,
                        labels=labels).outputs[0]
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.ndims is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        if convert_to_float32:
            return math_ops.cast(cost, logits.dtype)
        return cost


def softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                      logits: Any = None, dim: Any = -1,
                                      name: str | None = None,
                                      axis: Any = None) -> ops_lib.Tensor:
    """TF1's softmax cross entropy: no gradient flows into ``labels``."""
    if _sentinel is not None:
        raise ValueError("Only call `softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    if axis is not None:
        dim = axis
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with ops_lib.name_scope(name, "softmax_cross_entropy_with_logits_sg",
                            [logits, labels]) as name:
        labels = _array().stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                name=name)


def sparse_softmax_cross_entropy_with_logits(_sentinel: Any = None, labels: Any = None,
                                             logits: Any = None,
                                             name: str | None = None) -> ops_lib.Tensor:
    """Softmax cross entropy between ``logits`` and integer class ``labels``."""
    if _sentinel is not None:
        raise ValueError("Only call `sparse_softmax_cross_entropy_with_logits` with named "
                         "arguments (labels=..., logits=..., ...).")
    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with ops_lib.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        math_ops = _math()
        half = logits.dtype.base_dtype == dtypes_lib.float16
        precise_logits = math_ops.cast(logits, dtypes_lib.float32) if half else logits
        labels_static_shape = labels.get_shape()
        array_ops = _array()
        labels_shape = array_ops.shape(labels)
        logits_shape = logits.get_shape()
        static_fully_defined = labels_static_shape.is_fully_defined() and (
            logits_shape.ndims is not None and logits_shape[:-1].is_fully_defined())
        if logits_shape.ndims is not None and logits_shape.ndims == 0:
            raise ValueError(f"`logits` cannot be a scalar. Received logits={logits}`")
        if logits_shape.ndims is not None and labels_static_shape.ndims is not None and \
                labels_static_shape.ndims != logits_shape.ndims - 1:
            raise ValueError(
                "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
                f"labels.shape={labels_static_shape} of rank {labels_static_shape.ndims} and "
                f"logits.shape={logits_shape} of rank {logits_shape.ndims}")
        if static_fully_defined and labels_static_shape != logits_shape[:-1]:
            raise ValueError(
                "`labels.shape` must equal `logits.shape` except for the last dimension. "
                f"Received: labels.shape={labels_static_shape} and "
                f"logits.shape={logits_shape}")
        if logits_shape.ndims == 2:
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=name,
                            features=precise_logits, labels=labels).outputs[0]
            return math_ops.cast(cost, dtypes_lib.float16) if half else cost
        shape_checks = []
        if not static_fully_defined:
            from graphcore.ops import check_ops

            shape_checks.append(check_ops.assert_equal(array_ops.shape(labels),
                                                       array_ops.shape(logits)[:-1]))
        with ops_lib.control_dependencies(shape_checks):
            num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
            precise_logits = array_ops.reshape(precise_logits, [-1, num_classes])
            labels = array_ops.reshape(labels, [-1])
            cost = apply_op("SparseSoftmaxCrossEntropyWithLogits", name=name,
                            features=precise_logits, labels=labels).outputs[0]
            cost = array_ops.reshape(cost, labels_shape)
            cost.set_shape(labels_static_shape)
        return math_ops.cast(cost, dtypes_lib.float16) if half else cost


def bias_add(value: Any, bias: Any, data_format: str | None = None,
             name: str | None = None) -> ops_lib.Tensor:
    """value + bias, with ``bias`` (1-D) added along the channel dimension."""
    with ops_lib.name_scope(name, "BiasAdd", [value, bias]) as name:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("`data_format` must be of the form `N...C` or `NC...`. "
                                 f"Received: data_format={data_format}")
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype.base_dtype, name="bias")
        return apply_op("BiasAdd", name=name, value=value, bias=bias,
                        data_format=data_format).outputs[0]


def l2_loss(t: Any, name: str | None = None) -> ops_lib.Tensor:
    """sum(t ** 2) / 2."""
    return apply_op("L2Loss", name=name, t=t).outputs[0]


def _get_noise_shape(x: ops_lib.Tensor, noise_shape: Any) -> Any:
    if noise_shape is None:
        return _array().shape(x)
    try:
        noise_shape_ = shape_lib.as_shape(noise_shape)
    except (TypeError, ValueError):
        return noise_shape
    if x.shape.ndims is not None and len(x.shape.dims) == len(noise_shape_.dims):
        new_dims = []
        for i, dim in enumerate(x.shape.dims):
            if noise_shape_.dims[i] is None and dim is not None:
                new_dims.append(dim)
            else:
                new_dims.append(noise_shape_.dims[i])
        return shape_lib.TensorShape(new_dims)
    return noise_shape


def dropout(x: Any, keep_prob: Any = None, noise_shape: Any = None, seed: int | None = None,
            name: str | None = None, rate: Any = None) -> ops_lib.Tensor:
    """Zeroes elements with probability ``rate`` (= 1 - keep_prob), scaling the others by
    1 / (1 - rate)."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'rate' and 'keep_prob'")
        try:
            rate = 1.0 - keep_prob
        except TypeError:
            raise ValueError("`keep_prob` must be a floating point number or Tensor. "
                             f"Received: keep_prob={keep_prob}") from None
    if rate is None:
        raise ValueError(f"`rate` must be provided. Received: rate={rate}")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


def dropout_v2(x: Any, rate: Any, noise_shape: Any = None, seed: int | None = None,
               name: str | None = None) -> ops_lib.Tensor:
    """``tf.nn.dropout`` of TF2: ``rate`` is the probability of dropping."""
    def sampler(shape: Any, dtype: Any) -> ops_lib.Tensor:
        return random_ops.random_uniform(shape, seed=seed, dtype=dtype)

    return _dropout(x, rate, noise_shape, sampler, name, "dropout")


def _dropout(x: Any, rate: Any, noise_shape: Any, uniform_sampler: Any, name: str | None,
             default_name: str) -> ops_lib.Tensor:
    """TF's ``nn_ops._dropout``: ``x`` scaled by 1 / (1 - rate) where
    ``uniform_sampler(shape=, dtype=)``'s noise is at least ``rate``, zero elsewhere."""
    array_ops = _array()
    with ops_lib.name_scope(name, default_name, [x]):
        is_rate_number = isinstance(rate, numbers.Real)
        if is_rate_number and (rate < 0 or rate >= 1):
            raise ValueError("`rate` must be a scalar tensor or a float in the range [0, 1). "
                             f"Received: rate={rate}")
        x = convert_to_tensor(x, name="x")
        x_dtype = x.dtype.base_dtype
        if not x_dtype.is_floating:
            raise ValueError("`x.dtype` must be a floating point tensor as `x` will be "
                             f"scaled. Received: x_dtype={x_dtype}")
        if is_rate_number and rate == 0:
            return x
        if not isinstance(rate, ops_lib.Tensor):
            if not is_rate_number:
                raise ValueError(f"`rate` must be a scalar or scalar tensor. Received: "
                                 f"rate={rate}")
            scale = convert_to_tensor(1 / (1 - rate), dtype=x_dtype)
            ret = apply_op("Mul", x=x, y=scale).outputs[0]
        else:
            rate.get_shape().assert_has_rank(0)
            if rate.dtype.base_dtype != x_dtype:
                if not rate.dtype.base_dtype.is_compatible_with(x_dtype):
                    raise ValueError("`x.dtype` must be compatible with `rate.dtype`. "
                                     f"Received: x.dtype={x_dtype} and "
                                     f"rate.dtype={rate.dtype}")
                rate = apply_op("Cast", x=rate, DstT=x_dtype, name="rate").outputs[0]
            one_tensor = array_ops.constant(1, dtype=x_dtype)
            ret = apply_op("RealDiv", x=x,
                           y=apply_op("Sub", x=one_tensor, y=rate).outputs[0]).outputs[0]
        noise_shape = _get_noise_shape(x, noise_shape)
        random_tensor = uniform_sampler(shape=noise_shape, dtype=x_dtype)
        keep_mask = random_tensor >= rate
        zero_tensor = array_ops.constant(0, dtype=x_dtype)
        ret = apply_op("SelectV2", condition=keep_mask, t=ret, e=zero_tensor).outputs[0]
        ret.set_shape(x.get_shape())
        return ret


def l2_normalize(x: Any, axis: Any = None, epsilon: float = 1e-12, name: str | None = None,
                 dim: Any = None) -> ops_lib.Tensor:
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    axis = dim if axis is None else axis
    math_ops = _math()
    with ops_lib.name_scope(name, "l2_normalize", [x]) as name:
        x = convert_to_tensor(x, name="x")
        square_sum = math_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=name)


def moments(x: Any, axes: Any, shift: Any = None, name: str | None = None,
            keep_dims: Any = None, keepdims: Any = None) -> tuple:
    """(mean, variance) of ``x`` over ``axes``."""
    del shift
    keep = bool(keepdims if keepdims is not None else keep_dims)
    array_ops, math_ops = _array(), _math()
    with ops_lib.name_scope(name, "moments", [x, axes]):
        y = math_ops.cast(x, dtypes_lib.float32) if x.dtype == dtypes_lib.float16 else x
        mean = math_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = math_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes,
            keepdims=True, name="variance")
        if not keep:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes_lib.float16:
            return (math_ops.cast(mean, dtypes_lib.float16),
                    math_ops.cast(variance, dtypes_lib.float16))
        return mean, variance


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> ops_lib.Tensor:
    """Whether each target is among the top ``k`` predictions of its row (ties count)."""
    with ops_lib.name_scope(name, "in_top_k"):
        return apply_op("InTopKV2", name=name, predictions=predictions, targets=targets,
                        k=k).outputs[0]
