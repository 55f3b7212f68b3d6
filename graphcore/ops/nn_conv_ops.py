"""Convolution ops (tf.nn): Conv2D/Conv3D with their input and filter backprops, Conv,
DepthwiseConv2dNative with its backprops, Dilation2D with its backprops,
ExtractVolumePatches (Conv3D's im2col); and the wrappers
that build them as TF1 does (conv1d, conv2d, conv3d, the transposed convolutions,
depthwise_conv2d_native, dilation2d, erosion2d)."""

from __future__ import annotations

from collections.abc import Sized
from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops
from graphcore.ops.window_shapes import (
    conv_shape,
    convert_padding,
    get_sequence,
    sizes_shape,
    unchanged_with_rank,
    window_output_shape,
    windowed_output_size,
    with_rank,
)
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "conv1d", "conv1d_transpose", "conv2d", "conv2d_backprop_filter", "conv2d_backprop_input",
    "conv2d_transpose", "conv3d", "conv3d_backprop_filter", "conv3d_backprop_filter_v2",
    "conv3d_transpose", "conv_transpose", "depthwise_conv2d_native",
    "depthwise_conv2d_native_backprop_input", "depthwise_conv2d_native_backprop_filter",
    "depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter", "dilation2d",
    "erosion2d",
]

_FLOATS = "{half, bfloat16, float, double}"


# -- registrations -------------------------------------------------------------------------

def _conv2d_attrs(builder: op_registry.OpBuilder, types: str,
                  cudnn: bool = True) -> op_registry.OpBuilder:
    builder = builder.attr(f"T: {types}").attr("strides: list(int)")
    if cudnn:
        builder = builder.attr("use_cudnn_on_gpu: bool = true")
    return builder.attr("padding: {'SAME', 'VALID', 'EXPLICIT'}") \
        .attr("explicit_paddings: list(int) = []") \
        .attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'") \
        .attr("dilations: list(int) = [1, 1, 1, 1]")


def _conv3d_attrs(builder: op_registry.OpBuilder) -> op_registry.OpBuilder:
    return builder.attr(f"T: {_FLOATS}").attr("strides: list(int) >= 5") \
        .attr("padding: {'SAME', 'VALID'}") \
        .attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'") \
        .attr("dilations: list(int) = [1, 1, 1, 1, 1]")


_conv2d_attrs(op_registry.register_op("Conv2D").input("input: T").input("filter: T")
              .output("output: T"), "{half, bfloat16, float, double, int32}") \
    .shape_fn(conv_shape(2))
_conv2d_attrs(op_registry.register_op("Conv2DBackpropInput").input("input_sizes: int32")
              .input("filter: T").input("out_backprop: T").output("output: T"),
              "{half, bfloat16, float, double, int32}").shape_fn(sizes_shape(0, 2))
_conv2d_attrs(op_registry.register_op("Conv2DBackpropFilter").input("input: T")
              .input("filter_sizes: int32").input("out_backprop: T").output("output: T"),
              _FLOATS).shape_fn(sizes_shape(1, 2))
_conv2d_attrs(op_registry.register_op("Conv2DBackpropInputV2").input("input: T")
              .input("filter: T").input("out_backprop: T").output("output: T"),
              "{half, bfloat16, float, double, int32}").shape_fn(unchanged_with_rank(0, 4))
_conv2d_attrs(op_registry.register_op("Conv2DBackpropFilterV2").input("input: T")
              .input("filter: T").input("out_backprop: T").output("output: T"),
              _FLOATS).shape_fn(unchanged_with_rank(1, 4))

_conv3d_attrs(op_registry.register_op("Conv3D").input("input: T").input("filter: T")
              .output("output: T")).shape_fn(conv_shape(3))
_conv3d_attrs(op_registry.register_op("Conv3DBackpropInputV2").input("input_sizes: Tshape")
              .input("filter: T").input("out_backprop: T").output("output: T")) \
    .attr("Tshape: {int32, int64} = DT_INT32").shape_fn(sizes_shape(0, 3))
_conv3d_attrs(op_registry.register_op("Conv3DBackpropFilterV2").input("input: T")
              .input("filter_sizes: int32").input("out_backprop: T").output("output: T")) \
    .shape_fn(sizes_shape(1, 3))

_conv2d_attrs(op_registry.register_op("DepthwiseConv2dNative").input("input: T")
              .input("filter: T").output("output: T"), _FLOATS, cudnn=False) \
    .shape_fn(conv_shape(2, depthwise=True))
_conv2d_attrs(op_registry.register_op("DepthwiseConv2dNativeBackpropInput")
              .input("input_sizes: int32").input("filter: T").input("out_backprop: T")
              .output("output: T"), _FLOATS, cudnn=False).shape_fn(sizes_shape(0, 2))
_conv2d_attrs(op_registry.register_op("DepthwiseConv2dNativeBackpropFilter")
              .input("input: T").input("filter_sizes: int32").input("out_backprop: T")
              .output("output: T"), _FLOATS, cudnn=False).shape_fn(sizes_shape(1, 2))


def _generic_conv_shape(op: ops_lib.Operation) -> list:
    batch_dims = op.get_attr("batch_dims")
    x, w = op.inputs[0].shape, op.inputs[1].shape
    rank = x.ndims if x.ndims is not None else (None if w.ndims is None else
                                                w.ndims + batch_dims - 1)
    if rank is None:
        return [shape_lib.unknown_shape()]
    nd = rank - batch_dims - 1
    if nd not in (2, 3):
        raise ValueError("Input tensor must be rank 4 or 5, excluding extra batch "
                         f"dimensions, but got: {rank - batch_dims + 1}")
    strides = list(op.get_attr("strides"))
    if len(strides) != nd + 2:
        raise ValueError(f"Stride attribute should contain {nd + 2} values, but got: "
                         f"{len(strides)}")
    dims = with_rank(x, rank).as_list()
    first = op.get_attr("data_format") == b"CHANNELS_FIRST"
    batch, inner = dims[:batch_dims], [None] + dims[batch_dims:]
    w = with_rank(w, nd + 2).as_list()
    axes = range(2, nd + 2) if first else range(1, nd + 1)
    dilations = list(op.get_attr("dilations")) or [1] * (nd + 2)
    padding = op.get_attr("padding").decode()
    explicit = list(op.get_attr("explicit_paddings"))
    out = [windowed_output_size(inner[a], k, dilations[a], strides[a], padding,
                                tuple(explicit[2 * a:2 * a + 2]) if explicit else (0, 0))
           for a, k in zip(axes, w[:nd])]
    return [shape_lib.TensorShape(batch + ([w[-1]] + out if first else out + [w[-1]]))]


op_registry.register_op("Conv").input("input: T").input("filter: T").output("output: T") \
    .attr("T: {half, bfloat16, float, double, int32}").attr("strides: list(int)") \
    .attr("padding: {'SAME', 'VALID', 'EXPLICIT'}").attr("explicit_paddings: list(int) = []") \
    .attr("data_format: {'CHANNELS_FIRST', 'CHANNELS_LAST'} = 'CHANNELS_LAST'") \
    .attr("dilations: list(int) = []").attr("batch_dims: int = 1").attr("groups: int = 1") \
    .shape_fn(_generic_conv_shape)


def _extract_volume_patches_shape(op: ops_lib.Operation) -> list:
    ksizes, strides = list(op.get_attr("ksizes")), list(op.get_attr("strides"))
    for name, values in (("ksizes", ksizes), ("strides", strides)):
        if len(values) != 5:
            raise ValueError(f"ExtractVolumePatches requires the {name} attribute to "
                             f"contain 5 values, but got: {len(values)}")
    if ksizes[0] != 1 or ksizes[4] != 1 or strides[0] != 1 or strides[4] != 1:
        raise ValueError("ExtractVolumePatches is only supported across planes, rows and "
                         "columns for now.")
    dims = with_rank(op.inputs[0].shape, 5).as_list()
    padding = op.get_attr("padding").decode()
    out = [windowed_output_size(dims[a], ksizes[a], 1, strides[a], padding)
           for a in (1, 2, 3)]
    depth = None if dims[4] is None else ksizes[1] * ksizes[2] * ksizes[3] * dims[4]
    return [shape_lib.TensorShape([dims[0]] + out + [depth])]


op_registry.register_op("ExtractVolumePatches").input("input: T").output("patches: T") \
    .attr("ksizes: list(int) >= 5").attr("strides: list(int) >= 5") \
    .attr("T: realnumbertype").attr("padding: {'SAME', 'VALID'}") \
    .shape_fn(_extract_volume_patches_shape)


def _dilation2d_shape(op: ops_lib.Operation) -> list:
    x = with_rank(op.inputs[0].shape, 4)
    f = with_rank(op.inputs[1].shape, 3).as_list()
    return [window_output_shape(op, x, 2, f[:2], f[2] if f[2] is not None else
                                (x.as_list()[3] if x.ndims else None), dilation_attr="rates")]


def _dilation2d_attrs(builder: op_registry.OpBuilder) -> op_registry.OpBuilder:
    return builder.attr("T: realnumbertype").attr("strides: list(int) >= 4") \
        .attr("rates: list(int) >= 4").attr("padding: {'SAME', 'VALID'}")


_dilation2d_attrs(op_registry.register_op("Dilation2D").input("input: T").input("filter: T")
                  .output("output: T")).shape_fn(_dilation2d_shape)
_dilation2d_attrs(op_registry.register_op("Dilation2DBackpropInput").input("input: T")
                  .input("filter: T").input("out_backprop: T").output("in_backprop: T")) \
    .shape_fn(unchanged_with_rank(0, 4))
_dilation2d_attrs(op_registry.register_op("Dilation2DBackpropFilter").input("input: T")
                  .input("filter: T").input("out_backprop: T").output("filter_backprop: T")) \
    .shape_fn(unchanged_with_rank(1, 3))


# -- wrappers ------------------------------------------------------------------------------

def squeeze_batch_dims(inp: Any, op: Any, inner_rank: int,
                       name: str | None = None) -> ops_lib.Tensor:
    """``op`` over ``inp`` with its leading (batch) dims folded into one and restored."""
    with ops_lib.name_scope(name, "squeeze_batch_dims", [inp]):
        inp = convert_to_tensor(inp, name="input")
        shape = inp.shape
        inner_shape = shape[-inner_rank:]
        if not inner_shape.is_fully_defined():
            inner_shape = array_ops.shape(inp)[-inner_rank:]
        batch_shape = shape[:-inner_rank]
        if not batch_shape.is_fully_defined():
            batch_shape = array_ops.shape(inp)[:-inner_rank]
        if isinstance(inner_shape, shape_lib.TensorShape):
            inp_reshaped = array_ops.reshape(inp, [-1] + inner_shape.as_list())
        else:
            inp_reshaped = array_ops.reshape(inp, array_ops.concat(([-1], inner_shape), -1))
        out_reshaped = op(inp_reshaped)
        out_inner_shape = out_reshaped.shape[-inner_rank:]
        if not out_inner_shape.is_fully_defined():
            out_inner_shape = array_ops.shape(out_reshaped)[-inner_rank:]
        if isinstance(batch_shape, shape_lib.TensorShape):
            batch_shape = batch_shape.as_list()
        if isinstance(out_inner_shape, shape_lib.TensorShape):
            out_inner_shape = out_inner_shape.as_list()
        out = array_ops.reshape(out_reshaped, array_ops.concat((batch_shape, out_inner_shape),
                                                               -1))
        out.set_shape(inp.shape[:-inner_rank].concatenate(out.shape[-inner_rank:]))
        return out


def _rank(x: Any) -> int | None:
    shape = getattr(x, "shape", None)
    if isinstance(shape, shape_lib.TensorShape):
        return shape.ndims
    return None if shape is None else len(shape)


def _gen_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                name: str | None = None, **attrs: Any) -> ops_lib.Tensor:
    return apply_op("Conv2D", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, **attrs).outputs[0]


def conv2d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
           padding: Any = None, use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
           dilations: Any = (1, 1, 1, 1), name: str | None = None,
           filters: Any = None) -> ops_lib.Tensor:
    """2-D convolution of a 4-D ``input`` with a [h, w, in, out] ``filter``."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    if data_format is None:
        data_format = "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    strides = get_sequence(strides, 2, channel_index, "strides")
    dilations = get_sequence(dilations, 2, channel_index, "dilations")
    attrs = {"use_cudnn_on_gpu": use_cudnn_on_gpu, "explicit_paddings": explicit,
             "data_format": data_format, "dilations": dilations}
    if _rank(input) in (4, 3, 2, 1, 0, None):
        return _gen_conv2d(input, filter, strides, padding, name=name, **attrs)
    return squeeze_batch_dims(
        input, lambda x: _gen_conv2d(x, filter, strides, padding, **attrs), inner_rank=3,
        name=name)


def conv2d_expanded_batch(input: Any, filters: Any, strides: Any, padding: Any,  # noqa: A002
                          data_format: Any, dilations: Any,
                          name: str | None) -> ops_lib.Tensor:
    """Conv2D over an input of rank 4, or of more batch dims (folded into one)."""
    attrs = {"data_format": data_format, "dilations": dilations}
    rank = _rank(input)
    if rank is None or rank < 5:
        return _gen_conv2d(input, filters, strides, padding, name=name, **attrs)
    return squeeze_batch_dims(
        input, lambda x: _gen_conv2d(x, filters, strides, padding, **attrs), inner_rank=3,
        name=name)


def conv2d_backprop_filter(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                           strides: Any, padding: Any, use_cudnn_on_gpu: bool = True,
                           data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
                           name: str | None = None) -> ops_lib.Tensor:
    """The gradient of conv2d with respect to its filter."""
    padding, explicit = convert_padding(padding)
    return apply_op("Conv2DBackpropFilter", name=name, input=input, filter_sizes=filter_sizes,
                    out_backprop=out_backprop, strides=strides, padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
                    data_format=data_format, dilations=list(dilations)).outputs[0]


def conv2d_backprop_input(input_sizes: Any, filter: Any = None,  # noqa: A002
                          out_backprop: Any = None, strides: Any = None, padding: Any = None,
                          use_cudnn_on_gpu: bool = True, data_format: str = "NHWC",
                          dilations: Any = (1, 1, 1, 1), name: str | None = None,
                          filters: Any = None) -> ops_lib.Tensor:
    """The gradient of conv2d with respect to its input."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    padding, explicit = convert_padding(padding)
    return apply_op("Conv2DBackpropInput", name=name, input_sizes=input_sizes, filter=filter,
                    out_backprop=out_backprop, strides=strides, padding=padding,
                    use_cudnn_on_gpu=use_cudnn_on_gpu, explicit_paddings=explicit,
                    data_format=data_format, dilations=list(dilations)).outputs[0]


def conv(input: Any, filter: Any, strides: Any, padding: str,  # noqa: A002
         explicit_paddings: Any = (), data_format: str = "CHANNELS_LAST",
         dilations: Any = (), batch_dims: int = 1, groups: int = 1,
         name: str | None = None) -> ops_lib.Tensor:
    """The generic Conv op (tf.conv): 2-D or 3-D convolution after ``batch_dims`` batch
    dims."""
    return apply_op("Conv", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, explicit_paddings=list(explicit_paddings),
                    data_format=data_format, dilations=list(dilations),
                    batch_dims=batch_dims, groups=groups).outputs[0]


def extract_volume_patches(input: Any, ksizes: Any, strides: Any, padding: str,  # noqa: A002
                           name: str | None = None) -> ops_lib.Tensor:
    """The [kp, kr, kc, C] patches of a 5-D ``input``, flattened into the depth."""
    return apply_op("ExtractVolumePatches", name=name, input=input, ksizes=ksizes,
                    strides=strides, padding=padding).outputs[0]


def _conv2d_backprop_v2(op_type: str, fn_name: str, doc: str):
    """The wrapper of Conv2DBackpropInputV2 / Conv2DBackpropFilterV2 (shapes from the
    tensors themselves)."""
    def fn(input: Any, filter: Any, out_backprop: Any, strides: Any,  # noqa: A002
           padding: Any, use_cudnn_on_gpu: bool = True, explicit_paddings: Any = (),
           data_format: str = "NHWC", dilations: Any = (1, 1, 1, 1),
           name: str | None = None) -> ops_lib.Tensor:
        return apply_op(op_type, name=name, input=input, filter=filter,
                        out_backprop=out_backprop, strides=strides, padding=padding,
                        use_cudnn_on_gpu=use_cudnn_on_gpu,
                        explicit_paddings=list(explicit_paddings), data_format=data_format,
                        dilations=list(dilations)).outputs[0]

    fn.__name__ = fn.__qualname__ = fn_name
    fn.__doc__ = doc
    return fn


conv2d_backprop_filter_v2 = _conv2d_backprop_v2(
    "Conv2DBackpropFilterV2", "conv2d_backprop_filter_v2",
    "The filter gradient of conv2d, its shape that of ``filter``.")
conv2d_backprop_input_v2 = _conv2d_backprop_v2(
    "Conv2DBackpropInputV2", "conv2d_backprop_input_v2",
    "The input gradient of conv2d, its shape that of ``input``.")


def conv2d_transpose_v2(input: Any, filters: Any, output_shape: Any,  # noqa: A002
                        strides: Any, padding: Any = "SAME", data_format: str = "NHWC",
                        dilations: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """TF2's conv2d_transpose (Conv2DBackpropInput of ``input`` as the out_backprop)."""
    with ops_lib.name_scope(name, "conv2d_transpose", [input, filters, output_shape]) as name:
        if data_format is None:
            data_format = "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        strides = get_sequence(strides, 2, channel_index, "strides")
        dilations = get_sequence(dilations, 2, channel_index, "dilations")
        padding, explicit = convert_padding(padding)
        return apply_op("Conv2DBackpropInput", name=name, input_sizes=output_shape,
                        filter=filters, out_backprop=input, strides=strides, padding=padding,
                        explicit_paddings=explicit, data_format=data_format,
                        dilations=dilations).outputs[0]


def conv2d_transpose(value: Any = None, filter: Any = None,  # noqa: A002
                     output_shape: Any = None, strides: Any = None, padding: Any = "SAME",
                     data_format: str = "NHWC", name: str | None = None,
                     input: Any = None, filters: Any = None,  # noqa: A002
                     dilations: Any = None) -> ops_lib.Tensor:
    """The transpose (gradient) of conv2d: ``value`` [N, H, W, out] to ``output_shape``."""
    value = deprecated_argument_lookup("input", input, "value", value)
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    with ops_lib.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as name:
        return conv2d_transpose_v2(value, filter, output_shape, strides, padding=padding,
                                   data_format=data_format, dilations=dilations, name=name)


def conv1d(value: Any = None, filters: Any = None, stride: Any = None, padding: Any = None,
           use_cudnn_on_gpu: Any = None, data_format: str | None = None,
           name: str | None = None, input: Any = None,  # noqa: A002
           dilations: Any = None) -> ops_lib.Tensor:
    """1-D convolution: ExpandDims to [N, 1, W, C], Conv2D, Squeeze (as TF builds it)."""
    value = deprecated_argument_lookup("input", input, "value", value)
    with ops_lib.name_scope(name, "conv1d", [value, filters]) as name:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, spatial_start_dim, channel_index = "NHWC", -3, 2
        elif data_format in ("NCHW", "NCW"):
            data_format, spatial_start_dim, channel_index = "NCHW", -2, 1
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        strides = [1] + get_sequence(stride, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        value = array_ops.expand_dims(value, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        attrs = {"data_format": data_format, "dilations": dilations}
        if use_cudnn_on_gpu is not None:
            attrs["use_cudnn_on_gpu"] = use_cudnn_on_gpu
        if value.shape.ndims in (4, 3, 2, 1, 0, None):
            result = _gen_conv2d(value, filters, strides, padding, name=name, **attrs)
        else:
            result = squeeze_batch_dims(
                value, lambda x: _gen_conv2d(x, filters, strides, padding, **attrs),
                inner_rank=3, name=name)
        return array_ops.squeeze(result, [spatial_start_dim])


def conv1d_transpose(input: Any, filters: Any, output_shape: Any,  # noqa: A002
                     strides: Any, padding: str = "SAME", data_format: str = "NWC",
                     dilations: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """The transpose of conv1d, through Conv2DBackpropInput over a [N, 1, W, C] view."""
    with ops_lib.name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as name:
        if data_format is None or data_format == "NWC":
            data_format, spatial_start_dim, channel_index = "NHWC", 1, 2
        elif data_format == "NCW":
            data_format, spatial_start_dim, channel_index = "NCHW", 2, 1
        else:
            raise ValueError("`data_format` must be 'NWC' or 'NCW'. Received: "
                             f"data_format={data_format}")
        strides = [1] + get_sequence(strides, 1, channel_index, "stride")
        dilations = [1] + get_sequence(dilations, 1, channel_index, "dilations")
        input = array_ops.expand_dims(input, spatial_start_dim)
        filters = array_ops.expand_dims(filters, 0)
        if not isinstance(output_shape, ops_lib.Tensor):
            output_shape = list(output_shape)
        output_shape = array_ops.concat([output_shape[:spatial_start_dim], [1],
                                         output_shape[spatial_start_dim:]], 0)
        result = apply_op("Conv2DBackpropInput", name=name, input_sizes=output_shape,
                          filter=filters, out_backprop=input, strides=strides,
                          padding=padding, data_format=data_format,
                          dilations=dilations).outputs[0]
        return array_ops.squeeze(result, spatial_start_dim)


def _gen_conv3d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                data_format: str = "NDHWC", dilations: Any = (1, 1, 1, 1, 1),
                name: str | None = None) -> ops_lib.Tensor:
    return apply_op("Conv3D", name=name, input=input, filter=filter, strides=strides,
                    padding=padding, data_format=data_format,
                    dilations=[1] * 5 if dilations is None else list(dilations)).outputs[0]


def conv3d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
           padding: Any = None, data_format: str = "NDHWC",
           dilations: Any = (1, 1, 1, 1, 1), name: str | None = None,
           filters: Any = None) -> ops_lib.Tensor:
    """3-D convolution of a 5-D ``input`` with a [d, h, w, in, out] ``filter``."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    return _gen_conv3d(input, filter, strides, padding, data_format, dilations, name)


def conv3d_expanded_batch(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                          data_format: Any, dilations: Any = None,
                          name: str | None = None) -> ops_lib.Tensor:
    """Conv3D over an input of rank 5, or of more batch dims (folded into one)."""
    if _rank(input) in (5, 4, 3, 2, 1, 0, None):
        return _gen_conv3d(input, filter, strides, padding, data_format, dilations, name)
    return squeeze_batch_dims(
        input, lambda x: _gen_conv3d(x, filter, strides, padding, data_format, dilations),
        inner_rank=4, name=name)


def conv3d_backprop_filter_v2(input: Any, filter_sizes: Any, out_backprop: Any,  # noqa: A002
                              strides: Any, padding: str, data_format: str = "NDHWC",
                              dilations: Any = (1, 1, 1, 1, 1),
                              name: str | None = None) -> ops_lib.Tensor:
    """The gradient of conv3d with respect to its filter."""
    return apply_op("Conv3DBackpropFilterV2", name=name, input=input,
                    filter_sizes=filter_sizes, out_backprop=out_backprop, strides=strides,
                    padding=padding, data_format=data_format,
                    dilations=list(dilations)).outputs[0]


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv3d_transpose_v2(input: Any, filters: Any, output_shape: Any,  # noqa: A002
                        strides: Any, padding: str = "SAME", data_format: str = "NDHWC",
                        dilations: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """TF2's conv3d_transpose (Conv3DBackpropInputV2 of ``input``)."""
    with ops_lib.name_scope(name, "conv3d_transpose", [input, filters, output_shape]) as name:
        if data_format is None:
            data_format = "NDHWC"
        channel_index = 1 if data_format.startswith("NC") else 4
        strides = get_sequence(strides, 3, channel_index, "strides")
        dilations = get_sequence(dilations, 3, channel_index, "dilations")
        return apply_op("Conv3DBackpropInputV2", name=name, input_sizes=output_shape,
                        filter=filters, out_backprop=input, strides=strides, padding=padding,
                        data_format=data_format, dilations=dilations).outputs[0]


def conv3d_transpose(value: Any, filter: Any = None, output_shape: Any = None,  # noqa: A002
                     strides: Any = None, padding: str = "SAME", data_format: str = "NDHWC",
                     name: str | None = None, input: Any = None,  # noqa: A002
                     filters: Any = None, dilations: Any = None) -> ops_lib.Tensor:
    """The transpose (gradient) of conv3d."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    value = deprecated_argument_lookup("input", input, "value", value)
    return conv3d_transpose_v2(value, filter, output_shape, strides, padding=padding,
                               data_format=data_format, dilations=dilations, name=name)


def conv_transpose(input: Any, filters: Any, output_shape: Any, strides: Any,  # noqa: A002
                   padding: str = "SAME", data_format: str | None = None,
                   dilations: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """conv1d/2d/3d_transpose, chosen by the length of ``output_shape``."""
    with ops_lib.name_scope(name, "conv_transpose", [input, filters, output_shape]) as name:
        if isinstance(output_shape, ops_lib.Tensor):
            n = output_shape.shape.as_list()[0] - 2
        elif isinstance(output_shape, Sized):
            n = len(output_shape) - 2
        else:
            raise ValueError("`output_shape` must be a tensor or sized collection. Received: "
                             f"output_shape={output_shape}")
        if not 1 <= n <= 3:
            raise ValueError("`output_shape` must be of length 3, 4 or 5. Received: "
                             f"output_shape={output_shape} of length {n + 2}.")
        op = (conv1d_transpose, conv2d_transpose_v2, conv3d_transpose_v2)[n - 1]
        return op(input, filters, output_shape, strides, padding=padding,
                  data_format=data_format, dilations=dilations, name=name)


def _depthwise_op(op_type: str, name: str | None, padding: Any, **kwargs: Any) -> Any:
    padding, explicit = convert_padding(padding)
    dilations = kwargs.pop("dilations")
    return apply_op(op_type, name=name, padding=padding, explicit_paddings=explicit,
                    dilations=list(dilations), **kwargs).outputs[0]


def depthwise_conv2d_native(input: Any, filter: Any, strides: Any,  # noqa: A002
                            padding: Any, data_format: str = "NHWC",
                            dilations: Any = (1, 1, 1, 1),
                            name: str | None = None) -> ops_lib.Tensor:
    """Depthwise 2-D convolution: filter [h, w, in, multiplier] -> in * multiplier."""
    return _depthwise_op("DepthwiseConv2dNative", name, padding, input=input, filter=filter,
                         strides=strides, data_format=data_format, dilations=dilations)


def depthwise_conv2d_native_backprop_input(input_sizes: Any, filter: Any,  # noqa: A002
                                           out_backprop: Any, strides: Any, padding: Any,
                                           data_format: str = "NHWC",
                                           dilations: Any = (1, 1, 1, 1),
                                           name: str | None = None) -> ops_lib.Tensor:
    """The gradient of depthwise_conv2d_native with respect to its input."""
    return _depthwise_op("DepthwiseConv2dNativeBackpropInput", name, padding,
                         input_sizes=input_sizes, filter=filter, out_backprop=out_backprop,
                         strides=strides, data_format=data_format, dilations=dilations)


def depthwise_conv2d_native_backprop_filter(input: Any, filter_sizes: Any,  # noqa: A002
                                            out_backprop: Any, strides: Any, padding: Any,
                                            data_format: str = "NHWC",
                                            dilations: Any = (1, 1, 1, 1),
                                            name: str | None = None) -> ops_lib.Tensor:
    """The gradient of depthwise_conv2d_native with respect to its filter."""
    return _depthwise_op("DepthwiseConv2dNativeBackpropFilter", name, padding, input=input,
                         filter_sizes=filter_sizes, out_backprop=out_backprop,
                         strides=strides, data_format=data_format, dilations=dilations)


depthwise_conv2d_backprop_input = depthwise_conv2d_native_backprop_input
depthwise_conv2d_backprop_filter = depthwise_conv2d_native_backprop_filter


def dilation2d(input: Any, filter: Any = None, strides: Any = None,  # noqa: A002
               rates: Any = None, padding: Any = None, name: str | None = None,
               filters: Any = None, dilations: Any = None) -> ops_lib.Tensor:
    """Grayscale morphological dilation: max over the window of input + filter."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    rates = deprecated_argument_lookup("dilations", dilations, "rates", rates)
    return apply_op("Dilation2D", name=name, input=input, filter=filter, strides=strides,
                    rates=rates, padding=padding).outputs[0]


def erosion2d(value: Any, kernel: Any, strides: Any, rates: Any, padding: Any,
              name: str | None = None) -> ops_lib.Tensor:
    """Grayscale morphological erosion: -dilation2d(-value, reversed kernel)."""
    with ops_lib.name_scope(name, "erosion2d", [value, kernel]) as name:
        return math_ops.negative(apply_op(
            "Dilation2D", name=name, input=math_ops.negative(value),
            filter=array_ops.reverse_v2(kernel, [0, 1]), strides=strides, rates=rates,
            padding=padding).outputs[0])
