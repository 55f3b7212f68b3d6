"""Pooling ops (tf.nn): MaxPool/AvgPool (2-D), MaxPool3D/AvgPool3D, MaxPoolV2 (window as
inputs), MaxPoolWithArgmax, their gradient ops; and the wrappers that build them as TF1
does (max_pool, max_pool1d/2d/3d, max_pool_v2, avg_pool, avg_pool1d/2d/3d, avg_pool_v2,
max_pool_with_argmax)."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops
from graphcore.ops.window_shapes import (
    convert_padding,
    get_sequence,
    pool_shape,
    sizes_shape,
    unchanged_with_rank,
    windowed_output_size,
    with_rank,
)
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "max_pool", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool_v2", "avg_pool",
    "avg_pool1d", "avg_pool2d", "avg_pool3d", "avg_pool_v2", "max_pool_with_argmax",
]

_FLOATS = "{half, bfloat16, float, double}"
_MAX_POOL_TYPES = "{half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, " \
                  "qint8}"


def _window_attrs(builder: op_registry.OpBuilder, nd: int,
                  explicit: bool = False) -> op_registry.OpBuilder:
    builder = builder.attr(f"ksize: list(int) >= {nd + 2}") \
        .attr(f"strides: list(int) >= {nd + 2}")
    if explicit:
        return builder.attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
            .attr("explicit_paddings: list(int) = []")
    return builder.attr("padding: {'SAME', 'VALID'}")


_FORMAT_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMAT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"

_window_attrs(op_registry.register_op("MaxPool").input("input: T").output("output: T")
              .attr(f"T: {_MAX_POOL_TYPES} = DT_FLOAT"), 2, explicit=True) \
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'").shape_fn(pool_shape(2))
_window_attrs(op_registry.register_op("AvgPool").input("value: T").output("output: T"), 2) \
    .attr(_FORMAT_2D).attr(f"T: {_FLOATS}").shape_fn(pool_shape(2))
_window_attrs(op_registry.register_op("MaxPoolGrad").input("orig_input: T")
              .input("orig_output: T").input("grad: T").output("output: T"), 2,
              explicit=True) \
    .attr(_FORMAT_2D).attr("T: realnumbertype = DT_FLOAT").shape_fn(unchanged_with_rank(0, 4))
_window_attrs(op_registry.register_op("MaxPoolGradGrad").input("orig_input: T")
              .input("orig_output: T").input("grad: T").output("output: T"), 2) \
    .attr(_FORMAT_2D).attr("T: realnumbertype").shape_fn(pool_shape(2))
_window_attrs(op_registry.register_op("AvgPoolGrad").input("orig_input_shape: int32")
              .input("grad: T").output("output: T"), 2) \
    .attr(_FORMAT_2D).attr(f"T: {_FLOATS}").shape_fn(sizes_shape(0, 2))

_window_attrs(op_registry.register_op("MaxPool3D").input("input: T").output("output: T"), 3) \
    .attr(_FORMAT_3D).attr("T: {half, bfloat16, float}").shape_fn(pool_shape(3))
_window_attrs(op_registry.register_op("AvgPool3D").input("input: T").output("output: T"), 3) \
    .attr(_FORMAT_3D).attr(f"T: {_FLOATS}").shape_fn(pool_shape(3))
_window_attrs(op_registry.register_op("MaxPool3DGrad").input("orig_input: TInput")
              .input("orig_output: TInput").input("grad: T").output("output: T"), 3) \
    .attr(_FORMAT_3D).attr("T: {half, bfloat16, float} = DT_FLOAT") \
    .attr("TInput: {half, bfloat16, float} = DT_FLOAT").shape_fn(unchanged_with_rank(0, 5))
_window_attrs(op_registry.register_op("MaxPool3DGradGrad").input("orig_input: T")
              .input("orig_output: T").input("grad: T").output("output: T"), 3) \
    .attr(_FORMAT_3D).attr("T: realnumbertype").shape_fn(pool_shape(3))
_window_attrs(op_registry.register_op("AvgPool3DGrad").input("orig_input_shape: int32")
              .input("grad: T").output("output: T"), 3) \
    .attr(_FORMAT_3D).attr(f"T: {_FLOATS}").shape_fn(sizes_shape(0, 3))


def _max_pool_v2_shape(op: ops_lib.Operation) -> list:
    ksize = tensor_util.constant_value(op.inputs[1])
    strides = tensor_util.constant_value(op.inputs[2])
    x = with_rank(op.inputs[0].shape, 4)
    if ksize is None or strides is None:
        return [shape_lib.unknown_shape(rank=4)]
    if len(ksize) != 4 or len(strides) != 4:
        raise ValueError("MaxPoolV2 requires the ksize and strides inputs to contain 4 "
                         f"values, but got: {len(ksize)} and {len(strides)}")
    first = op.get_attr("data_format").startswith(b"NC")
    dims = x.as_list()
    padding = op.get_attr("padding").decode()
    axes = (2, 3) if first else (1, 2)
    for a in axes:
        dims[a] = windowed_output_size(dims[a], int(ksize[a]), 1, int(strides[a]), padding)
    return [shape_lib.TensorShape(dims)]


op_registry.register_op("MaxPoolV2").input("input: T").input("ksize: int32") \
    .input("strides: int32").output("output: T").attr(f"T: {_MAX_POOL_TYPES} = DT_FLOAT") \
    .attr("padding: {'SAME', 'VALID'}") \
    .attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'") \
    .shape_fn(_max_pool_v2_shape)
op_registry.register_op("MaxPoolGradV2").input("orig_input: T").input("orig_output: T") \
    .input("grad: T").input("ksize: int32").input("strides: int32").output("output: T") \
    .attr("padding: {'SAME', 'VALID'}").attr(_FORMAT_2D) \
    .attr("T: realnumbertype = DT_FLOAT").shape_fn(unchanged_with_rank(0, 4))


op_registry.register_op("MaxPoolGradGradV2").input("orig_input: T").input("orig_output: T") \
    .input("grad: T").input("ksize: int32").input("strides: int32").output("output: T") \
    .attr("padding: {'SAME', 'VALID'}").attr(_FORMAT_2D).attr("T: realnumbertype") \
    .shape_fn(lambda op: [with_rank(op.inputs[1].shape, 4)])


def _with_argmax_shape(op: ops_lib.Operation) -> list:
    shape = pool_shape(2)(op)[0]
    return [shape, shape]


op_registry.register_op("MaxPoolWithArgmax").input("input: T").output("output: T") \
    .output("argmax: Targmax").attr("ksize: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("Targmax: {int32, int64} = DT_INT64").attr("padding: {'SAME', 'VALID'}") \
    .attr("include_batch_in_index: bool = false").attr("T: realnumbertype") \
    .shape_fn(_with_argmax_shape)
_window_attrs(op_registry.register_op("MaxPoolGradWithArgmax").input("input: T")
              .input("grad: T").input("argmax: Targmax").output("output: T"), 2) \
    .attr("include_batch_in_index: bool = false").attr("Targmax: {int32, int64}") \
    .attr("T: realnumbertype").shape_fn(unchanged_with_rank(0, 4))


# -- wrappers ------------------------------------------------------------------------------

# tf.nn.max_pool_with_argmax's result.
_MaxPoolWithArgmaxOutput = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def _lookup_input(value: Any, input: Any) -> Any:  # noqa: A002
    return deprecated_argument_lookup("input", input, "value", value)


def max_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """Max pooling over 4-D windows (TF1's tf.nn.max_pool)."""
    value = _lookup_input(value, input)
    with ops_lib.name_scope(name, "MaxPool", [value]) as name:
        value = convert_to_tensor(value, name="input")
        return _max_pool_2d(value, ksize, strides, padding, data_format, name,
                            check_zero=True)


def _max_pool_2d(value: Any, ksize: Any, strides: Any, padding: Any, data_format: Any,
                 name: str | None, check_zero: bool = False) -> ops_lib.Tensor:
    if data_format is None:
        data_format = "NHWC"
    ksize, strides = _window(ksize, strides, 2, data_format, 3)
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError("`data_format='NCHW_VECT_C'` is not supported with explicit "
                         f"padding. Received: padding={padding}")
    padding, explicit = convert_padding(padding)
    if check_zero and any(v == 0 for v in ksize):
        raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")
    return apply_op("MaxPool", name=name, input=value, ksize=ksize, strides=strides,
                    padding=padding, explicit_paddings=explicit,
                    data_format=data_format).outputs[0]


def max_pool2d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NHWC", name: str | None = None) -> ops_lib.Tensor:
    """Max pooling over 2-D windows (name scope ``MaxPool2d``)."""
    with ops_lib.name_scope(name, "MaxPool2d", [input]) as name:
        return _max_pool_2d(input, ksize, strides, padding, data_format, name)


def max_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NWC", name: str | None = None) -> ops_lib.Tensor:
    """Max pooling over 1-D windows: ExpandDims, MaxPool, Squeeze."""
    with ops_lib.name_scope(name, "MaxPool1d", [input]) as name:
        if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
            raise ValueError("`data_format='NCHW_VECT_C'` is not supported with explicit "
                             f"padding. Received: padding={padding}")
        return _pool1d("MaxPool", "input", input, ksize, strides, padding, data_format, name)


def max_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NDHWC", name: str | None = None) -> ops_lib.Tensor:
    """Max pooling over 3-D windows."""
    with ops_lib.name_scope(name, "MaxPool3D", [input]) as name:
        if data_format is None:
            data_format = "NDHWC"
        ksize, strides = _window(ksize, strides, 3, data_format, 4)
        return apply_op("MaxPool3D", name=name, input=input, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format).outputs[0]


def _window(ksize: Any, strides: Any, n: int, data_format: str,
            channels_last_index: int) -> tuple:
    """``ksize`` and ``strides`` as full-rank lists (channel index 1 for NC... formats)."""
    channel_index = 1 if data_format.startswith("NC") else channels_last_index
    return (get_sequence(ksize, n, channel_index, "ksize"),
            get_sequence(strides, n, channel_index, "strides"))


def _pool1d(op_type: str, input_arg: str, input: Any, ksize: Any,  # noqa: A002
            strides: Any, padding: Any, data_format: Any,
            name: str | None) -> ops_lib.Tensor:
    """TF's 1-D pools: ExpandDims, the 2-D ``op_type`` (MaxPool with explicit paddings),
    Squeeze."""
    if data_format is None:
        data_format = "NWC"
    ksize, strides = _window(ksize, strides, 1, data_format, 2)
    ksize, strides = [1] + ksize, [1] + strides
    attrs = {}
    if op_type == "MaxPool":
        padding, explicit = convert_padding(padding, 3)
        attrs["explicit_paddings"] = [0, 0] + explicit if padding == "EXPLICIT" else explicit
    expanding_dim = 1 if data_format == "NWC" else 2
    data_format = "NHWC" if data_format == "NWC" else "NCHW"
    attrs[input_arg] = array_ops.expand_dims(input, expanding_dim)
    result = apply_op(op_type, name=name, ksize=ksize, strides=strides, padding=padding,
                      data_format=data_format, **attrs).outputs[0]
    return array_ops.squeeze(result, [expanding_dim])


def _spatial_rank(input: Any, data_format: Any, what: str) -> int:  # noqa: A002
    shape = getattr(input, "shape", None)
    if shape is not None and getattr(shape, "ndims", 0) is not None:
        n = len(shape) - 2
    elif data_format is not None:
        n = len(data_format) - 2
    else:
        raise ValueError(f"`input` must have a static shape or {what} must be given. "
                         f"Received: input.shape={shape} and data_format={data_format}")
    if not 1 <= n <= 3:
        raise ValueError(f"`input.shape.rank` must be 3, 4 or 5. Received: "
                         f"input.shape={shape} of rank {n + 2}.")
    return n


def max_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                data_format: str | None = None, name: str | None = None) -> ops_lib.Tensor:
    """TF2's max_pool: 1-, 2- or 3-D by the rank of ``input``."""
    n = _spatial_rank(input, data_format, "a data format")
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError("`data_format='NCHW_VECT_C'` is not supported with explicit "
                         f"padding. Received: padding={padding}")
    ksize, strides = _window(ksize, strides, n, data_format or "", n + 1)
    if isinstance(padding, (list, tuple)) and n == 3:
        raise ValueError("Explicit padding is not supported with an input tensor of rank 5. "
                         f"Received: padding={padding}")
    op = {1: max_pool1d, 2: max_pool2d, 3: max_pool3d}[n]
    return op(input, ksize=ksize, strides=strides, padding=padding, data_format=data_format,
              name=name)


def _avg_pool_2d(value: Any, ksize: Any, strides: Any, padding: Any, data_format: Any,
                 name: str | None) -> ops_lib.Tensor:
    if data_format is None:
        data_format = "NHWC"
    ksize, strides = _window(ksize, strides, 2, data_format, 3)
    return apply_op("AvgPool", name=name, value=value, ksize=ksize, strides=strides,
                    padding=padding, data_format=data_format).outputs[0]


def avg_pool(value: Any, ksize: Any, strides: Any, padding: Any, data_format: str = "NHWC",
             name: str | None = None, input: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """Average pooling over 4-D windows (padding not counted); also tf.nn.avg_pool2d."""
    with ops_lib.name_scope(name, "AvgPool", [value]) as name:
        value = _lookup_input(value, input)
        return _avg_pool_2d(value, ksize, strides, padding, data_format, name)


avg_pool2d = avg_pool


def avg_pool1d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NWC", name: str | None = None) -> ops_lib.Tensor:
    """Average pooling over 1-D windows: ExpandDims, AvgPool, Squeeze."""
    with ops_lib.name_scope(name, "AvgPool1D", [input]) as name:
        return _pool1d("AvgPool", "value", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
               data_format: str = "NDHWC", name: str | None = None) -> ops_lib.Tensor:
    """Average pooling over 3-D windows."""
    with ops_lib.name_scope(name, "AvgPool3D", [input]) as name:
        if data_format is None:
            data_format = "NDHWC"
        # channels-last index 3 here, 4 in max_pool3d: both kept as they were
        ksize, strides = _window(ksize, strides, 3, data_format, 3)
        return apply_op("AvgPool3D", name=name, input=input, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format).outputs[0]


def avg_pool_v2(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                data_format: str | None = None, name: str | None = None) -> ops_lib.Tensor:
    """TF2's avg_pool: 1-, 2- or 3-D by the rank of ``input``."""
    n = _spatial_rank(input, data_format, "`data_format`")
    ksize, strides = _window(ksize, strides, n, data_format or "", n + 1)
    if n == 2:
        return apply_op("AvgPool", name=name, value=input, ksize=ksize, strides=strides,
                        padding=padding, data_format=data_format or "NHWC").outputs[0]
    op = {1: avg_pool1d, 3: avg_pool3d}[n]
    return op(input, ksize=ksize, strides=strides, padding=padding, data_format=data_format,
              name=name)


def max_pool_with_argmax(input: Any, ksize: Any, strides: Any, padding: Any,  # noqa: A002
                         data_format: str = "NHWC", Targmax: Any = None,  # noqa: N803
                         name: str | None = None, output_dtype: Any = None,
                         include_batch_in_index: bool = False) -> tuple:
    """(max pooled output, flat argmax of each window) over NHWC ``input``."""
    if data_format != "NHWC":
        raise ValueError("`data_format` values other  than 'NHWC' are not supported. "
                         f"Received: data_format={data_format}")
    if output_dtype is not None:
        if Targmax is not None:
            raise ValueError("Cannot specify both 'Targmax' and 'output_dtype'")
        Targmax = output_dtype  # noqa: N806
    if Targmax is None:
        Targmax = dtypes_lib.int64  # noqa: N806
    op = apply_op("MaxPoolWithArgmax", name=name, input=input, ksize=ksize, strides=strides,
                  padding=padding, Targmax=Targmax,
                  include_batch_in_index=include_batch_in_index)
    return _MaxPoolWithArgmaxOutput(op.outputs[0], op.outputs[1])
