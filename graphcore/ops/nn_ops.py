"""Neural-network ops (tf.nn): activations, softmax and cross entropy, bias add,
conv2d, pooling, l2 loss, dropout; with their grad-helper ops and shape functions."""

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
from graphcore.ops.random_ops import shape_from_shape_tensor

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
    "conv2d",
    "max_pool",
    "avg_pool",
    "l2_loss",
    "dropout",
    "l2_normalize",
    "moments",
    "in_top_k",
]

# -- shape-function helpers ---------------------------------------------------------------


def _with_rank(shape: shape_lib.TensorShape, rank: int) -> shape_lib.TensorShape:
    if shape.ndims is None:
        return shape_lib.unknown_shape(rank=rank)
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


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
        merged = _with_rank(f, 2).merge_with(lab)
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
    features = _with_rank(op.inputs[0].shape, 2).as_list()
    labels = _with_rank(op.inputs[1].shape, 1).as_list()
    batch = _merge_dim(features[0], labels[0])
    return [shape_lib.TensorShape([batch]), shape_lib.TensorShape([batch, features[1]])]


def _data_format(op: ops_lib.Operation) -> str:
    return op.get_attr("data_format").decode()


def _bias_add_shape(op: ops_lib.Operation) -> list:
    value, bias = op.inputs[0].shape, _with_rank(op.inputs[1].shape, 1)
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


def _cdiv(a: int, b: int) -> int:
    """C++ integer division (truncates toward zero)."""
    return a // b if a >= 0 else -(-a // b)


def windowed_output_size(in_size: int | None, k: int, dilation: int, stride: int,
                         padding: str, pads: tuple[int, int] = (0, 0)) -> int | None:
    """TF's GetWindowedOutputSize: the output length of a conv/pool dimension."""
    if stride <= 0:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ValueError(f"Dilation rate must be >= 1, but got {dilation}")
    if in_size is None:
        return None
    eff = (k - 1) * dilation + 1
    if padding == "VALID":
        out = _cdiv(in_size - eff + stride, stride)
    elif padding == "SAME":
        out = _cdiv(in_size + stride - 1, stride)
    else:
        out = _cdiv(in_size + pads[0] + pads[1] - eff + stride, stride)
    if out < 0:
        raise ValueError(f"Computed output size would be negative: {out} [input_size: "
                         f"{in_size}, effective_filter_size: {eff}, stride: {stride}]")
    return out


def same_padding(in_size: int, k: int, dilation: int, stride: int) -> tuple[int, int]:
    """(before, after) padding TF's SAME adds along one dimension."""
    eff = (k - 1) * dilation + 1
    out = (in_size + stride - 1) // stride
    needed = max(0, (out - 1) * stride + eff - in_size)
    return needed // 2, needed - needed // 2


def _spatial(op: ops_lib.Operation, name: str) -> list[int]:
    values = list(op.get_attr(name))
    return values


def _conv2d_shape(op: ops_lib.Operation) -> list:
    strides = _spatial(op, "strides")
    dilations = _spatial(op, "dilations")
    if len(strides) != 4:
        raise ValueError(f"Conv2D requires the stride attribute to contain 4 values, but got: "
                         f"{len(strides)}")
    if len(dilations) != 4:
        raise ValueError(f"Conv2D requires the dilation attribute to contain 4 values, but "
                         f"got: {len(dilations)}")
    nchw = _data_format(op) == "NCHW"
    x = _with_rank(op.inputs[0].shape, 4).as_list()
    w = _with_rank(op.inputs[1].shape, 4).as_list()
    if nchw:
        n, c, h, wd = x
        sh, sw, dh, dw = strides[2], strides[3], dilations[2], dilations[3]
    else:
        n, h, wd, c = x
        sh, sw, dh, dw = strides[1], strides[2], dilations[1], dilations[2]
    kh, kw, ci, co = w
    if c is not None and ci is not None and ci and c % ci != 0:
        raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of filter "
                         f"({ci})")
    padding = op.get_attr("padding").decode()
    explicit = list(op.get_attr("explicit_paddings"))
    if padding == "EXPLICIT":
        if len(explicit) != 8:
            raise ValueError("explicit_paddings attribute must contain 8 values, but got: "
                             f"{len(explicit)}")
        hp = (explicit[4], explicit[5]) if nchw else (explicit[2], explicit[3])
        wp = (explicit[6], explicit[7]) if nchw else (explicit[4], explicit[5])
    else:
        hp = wp = (0, 0)
    oh = None if kh is None else windowed_output_size(h, kh, dh, sh, padding, hp)
    ow = None if kw is None else windowed_output_size(wd, kw, dw, sw, padding, wp)
    out = [n, co, oh, ow] if nchw else [n, oh, ow, co]
    return [shape_lib.TensorShape(out)]


def _shape_input_rank4(index: int):
    def fn(op: ops_lib.Operation) -> list:
        shape = shape_from_shape_tensor(op.inputs[index])
        if shape.ndims is not None and shape.ndims == 2 and op.type == "Conv2DBackpropInput":
            # input_sizes may be [height, width]: batch and depth come from the others.
            grad = op.inputs[2].shape
            filt = op.inputs[1].shape
            n = grad.as_list()[0] if grad.ndims == 4 else None
            c = filt.as_list()[2] if filt.ndims == 4 else None
            h, w = shape.as_list()
            nchw = _data_format(op) == "NCHW"
            return [shape_lib.TensorShape([n, c, h, w] if nchw else [n, h, w, c])]
        return [_with_rank(shape, 4)]
    return fn


def _pool_shape(op: ops_lib.Operation) -> list:
    ksize = list(op.get_attr("ksize"))
    strides = list(op.get_attr("strides"))
    if len(strides) != 4:
        raise ValueError(f"{op.type} requires the stride attribute to contain 4 values, but "
                         f"got: {len(strides)}")
    if len(ksize) != 4:
        raise ValueError(f"{op.type} requires the ksize attribute to contain 4 values, but "
                         f"got: {len(ksize)}")
    nchw = _data_format(op) == "NCHW"
    x = _with_rank(op.inputs[0].shape, 4).as_list()
    if nchw:
        n, c, h, w = x
        kh, kw, sh, sw, kc, sc = ksize[2], ksize[3], strides[2], strides[3], ksize[1], strides[1]
    else:
        n, h, w, c = x
        kh, kw, sh, sw, kc, sc = ksize[1], ksize[2], strides[1], strides[2], ksize[3], strides[3]
    padding = op.get_attr("padding").decode()
    pads_h = pads_w = (0, 0)
    if padding == "EXPLICIT":
        explicit = list(op.get_attr("explicit_paddings"))
        pads_h = (explicit[4], explicit[5]) if nchw else (explicit[2], explicit[3])
        pads_w = (explicit[6], explicit[7]) if nchw else (explicit[4], explicit[5])
    oh = windowed_output_size(h, kh, 1, sh, padding, pads_h)
    ow = windowed_output_size(w, kw, 1, sw, padding, pads_w)
    oc = windowed_output_size(c, kc, 1, sc, "VALID") if kc != 1 or sc != 1 else c
    return [shape_lib.TensorShape([n, oc, oh, ow] if nchw else [n, oh, ow, oc])]


def _unchanged_rank4(op: ops_lib.Operation) -> list:
    return [_with_rank(op.inputs[0].shape, 4)]


def _in_top_k_shape(op: ops_lib.Operation) -> list:
    predictions = _with_rank(op.inputs[0].shape, 2).as_list()
    targets = _with_rank(op.inputs[1].shape, 1).as_list()
    if op.inputs[2].shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[2].shape.ndims}")
    return [shape_lib.TensorShape([_merge_dim(predictions[0], targets[0])])]


# -- registrations -------------------------------------------------------------------------

_FLOATS = "{half, bfloat16, float, double}"
_CONV_TYPES = "{half, bfloat16, float, double, int32}"


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


def _conv_attrs(builder: op_registry.OpBuilder, types: str) -> op_registry.OpBuilder:
    return builder.attr(f"T: {types}").attr("strides: list(int)") \
        .attr("use_cudnn_on_gpu: bool = true") \
        .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
        .attr("explicit_paddings: list(int) = []") \
        .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
        .attr("dilations: list(int) = [1, 1, 1, 1]")


_conv_attrs(op_registry.register_op("Conv2D").input("input: T").input("filter: T")
            .output("output: T"), _CONV_TYPES).shape_fn(_conv2d_shape)
_conv_attrs(op_registry.register_op("Conv2DBackpropInput").input("input_sizes: int32")
            .input("filter: T").input("out_backprop: T").output("output: T"),
            _CONV_TYPES).shape_fn(_shape_input_rank4(0))
_conv_attrs(op_registry.register_op("Conv2DBackpropFilter").input("input: T")
            .input("filter_sizes: int32").input("out_backprop: T").output("output: T"),
            _FLOATS).shape_fn(_shape_input_rank4(1))

op_registry.register_op("MaxPool").input("input: T").output("output: T") \
    .attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, "
          "qint8} = DT_FLOAT") \
    .attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
    .attr("explicit_paddings: list(int) = []") \
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'").shape_fn(_pool_shape)
op_registry.register_op("AvgPool").input("value: T").output("output: T") \
    .attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("padding: {'SAME', 'VALID'}").attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .attr(f"T: {_FLOATS}").shape_fn(_pool_shape)
op_registry.register_op("MaxPoolGrad").input("orig_input: T").input("orig_output: T") \
    .input("grad: T").output("output: T") \
    .attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
    .attr("explicit_paddings: list(int) = []") \
    .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .attr("T: realnumbertype = DT_FLOAT").shape_fn(_unchanged_rank4)
op_registry.register_op("AvgPoolGrad").input("orig_input_shape: int32").input("grad: T") \
    .output("output: T") \
    .attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("padding: {'SAME', 'VALID'}").attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
    .attr(f"T: {_FLOATS}").shape_fn(_shape_input_rank4(0))

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
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
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


def _get_sequence(value: Any, n: int, channel_index: int, name: str) -> list:
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, list):
        pass
    elif isinstance(value, tuple):
        value = list(value)
    elif isinstance(value, int):
        value = [value]
    elif not hasattr(value, "__len__"):
        value = [value]
    else:
        value = list(value)
    len_value = len(value)
    if len_value == n + 2:
        return value
    if len_value == 1:
        value = value * n
    elif len_value != n:
        raise ValueError(f"{name} should be of length 1, {n} or {n + 2}. Received: "
                         f"{name}={value} of length {len_value}")
    if channel_index == 1:
        return [1, 1] + value
    return [1] + value + [1]


def _convert_padding(padding: Any, expected_length: int = 4) -> tuple[Any, list]:
    explicit: list = []
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    if isinstance(padding, (list, tuple)):
        for i, dim_paddings in enumerate(padding):
            if not isinstance(dim_paddings, (list, tuple)) or len(dim_paddings) != 2:
                raise ValueError("When `padding` is a list, each element of `padding` must "
                                 f"be a list/tuple of size 2. Received: padding={padding} "
                                 f"with element at index {i}")
            explicit.extend(dim_paddings)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. "
                             f"Received: padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    return padding, explicit


def conv2d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
           padding: Any = None, use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
           dilations: Any = (1, 1, 1, 1), name: str | None = None,
           filters: Any = None) -> ops_lib.Tensor:
    """2-D convolution of a 4-D ``input`` with a [h, w, in, out] ``filter``."""
    if filters is not None:
        if filter is not None:
            raise ValueError("Cannot specify both 'filters' and 'filter'")
        filter = filters
    padding, explicit = _convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = _get_sequence(strides, 2, channel_index, "strides")
    dilations = _get_sequence(list(dilations) if isinstance(dilations, tuple) else dilations,
                              2, channel_index, "dilations")
    return apply_op("Conv2D", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, use_cudnn_on_gpu=use_cudnn_on_gpu,
                    explicit_paddings=explicit, data_format=data_format,
                    dilations=dilations).outputs[0]


def max_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """Max pooling over NHWC windows."""
    if input is not None:
        if value is not None:
            raise ValueError("Cannot specify both 'input' and 'value'")
        value = input
    with ops_lib.name_scope(name, "MaxPool", [value]) as name:
        value = convert_to_tensor(value, name="input")
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        padding, explicit = _convert_padding(padding)
        if any(v == 0 for v in ksize):
            raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
        return apply_op("MaxPool", name=name, input=value, ksize=ksize, strides=strides,
                        padding=padding, explicit_paddings=explicit,
                        data_format=data_format).outputs[0]


def avg_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """Average pooling over NHWC windows (padding not counted)."""
    with ops_lib.name_scope(name, "AvgPool", [value]) as name:
        if input is not None:
            if value is not None:
                raise ValueError("Cannot specify both 'input' and 'value'")
            value = input
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        ksize = _get_sequence(ksize, 2, channel_index, "ksize")
        strides = _get_sequence(strides, 2, channel_index, "strides")
        return apply_op("AvgPool", name=name, value=value, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format).outputs[0]


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
    array_ops, math_ops = _array(), _math()
    with ops_lib.name_scope(name, "dropout", [x]) as name:
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
                rate = math_ops.cast(rate, x_dtype, name="rate")
            one_tensor = array_ops.constant(1, dtype=x_dtype)
            ret = apply_op("RealDiv", x=x,
                           y=apply_op("Sub", x=one_tensor, y=rate).outputs[0]).outputs[0]
        noise_shape = _get_noise_shape(x, noise_shape)
        random_tensor = random_ops.random_uniform(noise_shape, seed=seed, dtype=x_dtype)
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
