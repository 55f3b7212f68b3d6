"""Rank-agnostic convolution and pooling (tf.nn.convolution, tf.nn.pool) and the wrappers
built on TF's with_space_to_batch (depthwise_conv2d, separable_conv2d, atrous_conv2d and
atrous_conv2d_transpose): a dilated window runs as the undilated op between SpaceToBatchND
and BatchToSpaceND (space_ops), as TF1 graph mode builds it."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework import tensor_util
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, nn_conv_ops, nn_pool_ops, space_ops
from graphcore.ops.window_shapes import convert_padding, get_sequence
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["convolution", "pool", "atrous_conv2d", "atrous_conv2d_transpose",
           "depthwise_conv2d", "separable_conv2d", "with_space_to_batch"]

_CHANNELS_LAST = ("NWC", "NHC", "NHWC", "NWHC", "NDHWC", "NDWHC", "NHDWC", "NHWDC",
                  "NWDHC", "NWHDC")


def _strides_and_dilation_rate(n: int, strides: Any, dilation_rate: Any) -> tuple:
    if dilation_rate is None:
        dilation_rate = [1] * n
    elif len(dilation_rate) != n:
        raise ValueError(f"`len(dilation_rate)` should be {n}. Received: "
                         f"dilation_rate={dilation_rate} of length {len(dilation_rate)}")
    dilation_rate = np.array(dilation_rate, dtype=np.int32)
    if np.any(dilation_rate < 1):
        raise ValueError("all values of `dilation_rate` must be positive. Received: "
                         f"dilation_rate={dilation_rate}")
    if strides is None:
        strides = [1] * n
    elif len(strides) != n:
        raise ValueError(f"`len(strides)` should be {n}. Received: strides={strides} of "
                         f"length {len(strides)}")
    strides = np.array(strides, dtype=np.int32)
    if np.any(strides < 1):
        raise ValueError(f"all values of `strides` must be positive. Received: "
                         f"strides={strides}")
    if np.any(strides > 1) and np.any(dilation_rate > 1):
        raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > "
                         f"1`. Received: strides={strides} and dilation_rate={dilation_rate}")
    return strides, dilation_rate


def _base_paddings(filter_shape: Any, n: int, rate: Any) -> Any:
    pad_extra = (filter_shape[:n] - 1) * rate
    start = pad_extra // 2
    end = pad_extra - start
    return array_ops.stack([[start[i], end[i]] for i in range(n)])


def _adjust(orig: Any, fill_value: int, spatial_dims: list) -> Any:
    """``orig`` (one row per spatial dim) widened with ``fill_value`` rows for the dims
    between the batch dim and the spatial ones."""
    const = orig if isinstance(orig, np.ndarray) else tensor_util.constant_value(orig)
    fill_dims = list(np.shape(const)[1:]) if const is not None else \
        orig.get_shape().as_list()[1:]
    dtype = const.dtype if const is not None else orig.dtype.as_numpy_dtype
    source = const if const is not None else orig
    parts, prev, i = [], 0, 0
    while i < len(spatial_dims):
        start_i, start_dim = i, spatial_dims[i]
        if start_dim > 1:
            parts.append(np.full([start_dim - 1 - prev] + fill_dims, fill_value, dtype=dtype))
        while i + 1 < len(spatial_dims) and spatial_dims[i + 1] == spatial_dims[i] + 1:
            i += 1
        parts.append(source[start_i:i + 1])
        prev = spatial_dims[i]
        i += 1
    if const is not None:
        return np.concatenate(parts)
    return array_ops.concat(parts, 0)


class _WithSpaceToBatch:
    """TF's helper: ``build_op(num_spatial_dims, padding)`` run on the SpaceToBatchND of the
    input (block = dilation rate), its result put back with BatchToSpaceND; just the op when
    every rate is 1."""

    def __init__(self, input_shape: shape_lib.TensorShape, dilation_rate: Any, padding: Any,
                 build_op: Any, filter_shape: Any = None, spatial_dims: Any = None,
                 data_format: str | None = None, num_batch_dims: int = 1):
        dilation_rate = convert_to_tensor(dilation_rate, dtypes_lib.int32,
                                          name="dilation_rate")
        if dilation_rate.shape.ndims not in (None, 1):
            raise ValueError("`dilation_rate.shape.rank` must be 1. Received: "
                             f"dilation_rate={dilation_rate} of rank "
                             f"{dilation_rate.shape.ndims}")
        if not dilation_rate.shape.is_fully_defined():
            raise ValueError("`dilation_rate.shape` must be fully defined. Received: "
                             f"dilation_rate={dilation_rate} with shape {dilation_rate.shape}")
        num_spatial_dims = dilation_rate.shape.as_list()[0]
        first = data_format is not None and data_format.startswith("NC")
        starting = num_batch_dims + 1 if first else num_batch_dims
        if spatial_dims is None:
            spatial_dims = range(starting, num_spatial_dims + starting)
        orig_spatial_dims = list(spatial_dims)
        spatial_dims = sorted({int(x) for x in orig_spatial_dims})
        if spatial_dims != orig_spatial_dims or any(x < 1 for x in spatial_dims):
            raise ValueError("`spatial_dims` must be a monotonically increasing sequence of "
                             f"positive integers. Received: spatial_dims={orig_spatial_dims}")
        expected_rank = spatial_dims[-1] if first else spatial_dims[-1] + 1
        try:
            input_shape.with_rank_at_least(expected_rank)
        except ValueError:
            raise ValueError(f"`input.shape.rank` must be at least {expected_rank}. Received: "
                             f"input.shape={input_shape} with rank {input_shape.ndims}"
                             ) from None
        const_rate = tensor_util.constant_value(dilation_rate)
        rate_or_const_rate = dilation_rate
        if const_rate is not None:
            rate_or_const_rate = const_rate
            if np.any(const_rate < 1):
                raise ValueError(f"`dilation_rate` must be positive. Received: "
                                 f"dilation_rate={const_rate}")
            if np.all(const_rate == 1):
                self.call = build_op(num_spatial_dims, padding)
                return
        padding, explicit = convert_padding(padding)
        if padding == "SAME":
            if filter_shape is None:
                raise ValueError("`filter_shape` must be specified for `padding='SAME'`. "
                                 f"Received: filter_shape={filter_shape} and "
                                 f"padding={padding}")
            filter_shape = convert_to_tensor(filter_shape, name="filter_shape")
            const_filter_shape = tensor_util.constant_value(filter_shape)
            if const_filter_shape is not None:
                self.base_paddings = _base_paddings(const_filter_shape, num_spatial_dims,
                                                    rate_or_const_rate)
            else:
                self.num_spatial_dims = num_spatial_dims
                self.rate_or_const_rate = rate_or_const_rate
                self.base_paddings = None
        elif padding == "VALID":
            self.base_paddings = np.zeros([num_spatial_dims, 2], np.int32)
        elif padding == "EXPLICIT":
            base = np.array(explicit).reshape([num_spatial_dims + 2, 2])
            self.base_paddings = base[2:] if first else base[1:-1]
        else:
            raise ValueError(f"`padding` must be one of 'SAME' or 'VALID'. Received: "
                             f"padding={padding}")
        self.input_shape = input_shape
        self.spatial_dims = spatial_dims
        self.dilation_rate = dilation_rate
        self.data_format = data_format
        self.op = build_op(num_spatial_dims, "VALID")
        self.call = self._with_space_to_batch_call

    def _with_space_to_batch_call(self, inp: Any, filter: Any) -> Any:  # noqa: A002
        input_spatial_shape = None
        if self.input_shape.ndims is not None:
            dims = self.input_shape.as_list()
            input_spatial_shape = [dims[i] for i in self.spatial_dims]
        if input_spatial_shape is None or None in input_spatial_shape:
            shape = array_ops.shape(inp)
            input_spatial_shape = array_ops.stack([shape[i] for i in self.spatial_dims])
        base_paddings = self.base_paddings
        if base_paddings is None:
            base_paddings = _base_paddings(array_ops.shape(filter), self.num_spatial_dims,
                                           self.rate_or_const_rate)
        paddings, crops = space_ops.required_space_to_batch_paddings(
            input_shape=input_spatial_shape, base_paddings=base_paddings,
            block_shape=self.dilation_rate)
        dilation_rate = _adjust(self.dilation_rate, 1, self.spatial_dims)
        paddings = _adjust(paddings, 0, self.spatial_dims)
        crops = _adjust(crops, 0, self.spatial_dims)
        converted = space_ops.space_to_batch_nd(input=inp, block_shape=dilation_rate,
                                                paddings=paddings)
        result = self.op(converted, filter)
        result = space_ops.batch_to_space_nd(input=result, block_shape=dilation_rate,
                                             crops=crops)
        if self.data_format is not None and self.data_format.startswith("NC"):
            if not result.shape.as_list()[1] and filter is not None:
                out_shape = result.shape.as_list()
                out_shape[1] = filter.shape.as_list()[-1]
                result.set_shape(out_shape)
        return result

    def __call__(self, inp: Any, filter: Any) -> Any:  # noqa: A002
        return self.call(inp, filter)


def with_space_to_batch(input: Any, dilation_rate: Any, padding: Any, op: Any,  # noqa: A002
                        filter_shape: Any = None, spatial_dims: Any = None,
                        data_format: str | None = None) -> ops_lib.Tensor:
    """``op(converted_input, num_spatial_dims, padding)`` over the space-to-batch
    transform of ``input`` by ``dilation_rate`` (the identity where every rate is 1)."""
    input = convert_to_tensor(input, name="input")

    def build_op(num_spatial_dims: int, padding: Any) -> Any:
        return lambda inp, _: op(inp, num_spatial_dims, padding)

    return _WithSpaceToBatch(input.shape, dilation_rate, padding, build_op,
                             filter_shape=filter_shape, spatial_dims=spatial_dims,
                             data_format=data_format)(input, None)


# -- convolution -----------------------------------------------------------------------------

class _NonAtrousConvolution:
    """conv1d / Conv2D / Conv3D by the rank, strides given per spatial dim."""

    def __init__(self, input_shape: shape_lib.TensorShape,
                 filter_shape: shape_lib.TensorShape, padding: Any,
                 data_format: str | None = None, strides: Any = None,
                 name: str | None = None, num_batch_dims: int = 1):
        if input_shape.ndims is not None:
            filter_shape = filter_shape.with_rank(input_shape.ndims - num_batch_dims + 1)
        self.padding, self.name = padding, name
        if filter_shape.ndims is not None:
            input_shape = input_shape.with_rank(filter_shape.ndims + num_batch_dims - 1)
        if input_shape.ndims is None:
            raise ValueError(f"Rank of convolution must be known. Received: "
                             f"input_shape={input_shape} of rank {input_shape.ndims}")
        if input_shape.ndims < 3 or input_shape.ndims - num_batch_dims + 1 > 5:
            raise ValueError("`input_shape.rank - num_batch_dims + 1` must be at least 3 and "
                             f"at most 5. Received: input_shape.rank={input_shape.ndims} and "
                             f"num_batch_dims={num_batch_dims}")
        conv_dims = input_shape.ndims - num_batch_dims - 1
        if strides is None:
            strides = [1] * conv_dims
        elif len(strides) != conv_dims:
            raise ValueError(f"`len(strides)` should be {conv_dims}. Received: "
                             f"strides={strides} of length {len(strides)}")
        if conv_dims == 1:
            if data_format is None:
                data_format = "NWC"
            elif data_format not in {"NCW", "NWC", "NCHW", "NHWC"}:
                raise ValueError("`data_format` must be 'NWC' or 'NCW'. Received: "
                                 f"data_format={data_format}")
            self.strides = strides[0]
            self.conv_op = self._conv1d
        elif conv_dims == 2:
            if data_format is None or data_format == "NHWC":
                data_format = "NHWC"
                strides = [1] + list(strides) + [1]
            elif data_format == "NCHW":
                strides = [1, 1] + list(strides)
            else:
                raise ValueError("`data_format` must be 'NHWC' or 'NCHW'. Received: "
                                 f"data_format={data_format}")
            self.strides = strides
            self.conv_op = nn_conv_ops.conv2d
        else:
            if data_format is None or data_format == "NDHWC":
                strides = [1] + list(strides) + [1]
            elif data_format == "NCDHW":
                strides = [1, 1] + list(strides)
            else:
                raise ValueError("`data_format` must be 'NDHWC' or 'NCDHW'. Received: "
                                 f"data_format={data_format}")
            self.strides = strides
            self.conv_op = nn_conv_ops.conv3d_expanded_batch
        self.data_format = data_format

    @staticmethod
    def _conv1d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                data_format: Any, name: str | None) -> ops_lib.Tensor:
        return nn_conv_ops.conv1d(value=input, filters=filter, stride=strides,
                                  padding=padding, data_format=data_format, name=name)

    def __call__(self, inp: Any, filter: Any) -> ops_lib.Tensor:  # noqa: A002
        return self.conv_op(input=inp, filter=filter, strides=self.strides,
                            padding=self.padding, data_format=self.data_format,
                            name=self.name)


class _Convolution:
    """A dilated convolution: the undilated one inside with_space_to_batch."""

    def __init__(self, input_shape: shape_lib.TensorShape,
                 filter_shape: shape_lib.TensorShape, padding: Any, strides: Any = None,
                 dilation_rate: Any = None, name: str | None = None,
                 data_format: str | None = None, num_spatial_dims: int | None = None):
        num_batch_dims = None
        if filter_shape.ndims is not None:
            if num_spatial_dims is not None and filter_shape.ndims != num_spatial_dims + 2:
                raise ValueError("`filters.shape.rank` must be `num_spatial_dims + 2`. "
                                 f"Received: filters.shape={filter_shape} of rank "
                                 f"{filter_shape.ndims} and "
                                 f"num_spatial_dims={num_spatial_dims}")
            num_spatial_dims = filter_shape.ndims - 2
        if input_shape.ndims is not None and num_spatial_dims is not None:
            num_batch_dims = input_shape.ndims - num_spatial_dims - 1
        if num_spatial_dims is None:
            num_spatial_dims = input_shape.ndims - 2
        elif input_shape.ndims is not None and input_shape.ndims < num_spatial_dims + 2:
            raise ValueError("`input.shape.rank` must be >= than `num_spatial_dims + 2`. "
                             f"Received: input.shape={input_shape} of rank "
                             f"{input_shape.ndims} and num_spatial_dims={num_spatial_dims}")
        if num_batch_dims is None:
            num_batch_dims = 1
        if num_batch_dims < 1:
            raise ValueError(f"Batch dims should be >= 1, but found {num_batch_dims}.")
        first = data_format is not None and data_format.startswith("NC")
        if first:
            channels = _dim(input_shape, num_batch_dims)
            spatial_dims = range(num_batch_dims + 1, num_spatial_dims + num_batch_dims + 1)
        else:
            channels = _dim(input_shape, num_spatial_dims + num_batch_dims)
            spatial_dims = range(num_batch_dims, num_spatial_dims + num_batch_dims)
        filter_dim = _dim(filter_shape, num_spatial_dims)
        if channels is not None and filter_dim is not None and filter_dim and \
                channels % filter_dim:
            raise ValueError("The number of input channels is not divisible by the "
                             "corresponding number of output filters. Received: "
                             f"input.shape={input_shape} with {channels} channels and "
                             f"filters.shape={filter_shape} with {filter_dim} output "
                             "filters.")
        strides, dilation_rate = _strides_and_dilation_rate(num_spatial_dims, strides,
                                                            dilation_rate)
        self.conv_op = _WithSpaceToBatch(
            input_shape, dilation_rate=dilation_rate, padding=padding,
            build_op=lambda _, padding: _NonAtrousConvolution(
                input_shape, filter_shape=filter_shape, padding=padding,
                data_format=data_format, strides=strides, name=name,
                num_batch_dims=num_batch_dims),
            filter_shape=filter_shape, spatial_dims=spatial_dims, data_format=data_format,
            num_batch_dims=num_batch_dims)

    def __call__(self, inp: Any, filter: Any) -> ops_lib.Tensor:  # noqa: A002
        return self.conv_op(inp, filter)


def _dim(shape: shape_lib.TensorShape, index: int) -> int | None:
    if shape.ndims is None:
        return None
    return shape.as_list()[index]


def convolution_internal(input: Any, filters: Any, strides: Any = None,  # noqa: A002
                         padding: Any = "VALID", data_format: str | None = None,
                         dilations: Any = None, name: str | None = None,
                         num_spatial_dims: int | None = None) -> ops_lib.Tensor:
    """TF's rank-agnostic convolution (tf.nn.convolution of TF2)."""
    if not isinstance(filters, ops_lib.Tensor) and not hasattr(filters, "op"):
        with ops_lib.name_scope("convolution_internal", None, [filters, input]):
            filters = convert_to_tensor(filters, name="filters")
    if not isinstance(input, ops_lib.Tensor) and not hasattr(input, "op"):
        with ops_lib.name_scope("convolution_internal", None, [filters, input]):
            input = convert_to_tensor(input, name="input")
    filters_rank, inputs_rank = filters.shape.ndims, input.shape.ndims
    if num_spatial_dims is None:
        if filters_rank:
            num_spatial_dims = filters_rank - 2
        elif inputs_rank:
            num_spatial_dims = inputs_rank - 2
        else:
            raise ValueError("When `num_spatial_dims` is not set, one of `input.shape.rank` "
                             "or `filters.shape.rank` must be known. Received: "
                             f"input.shape={input.shape} of rank {inputs_rank} and "
                             f"filters.shape={filters.shape} of rank {filters_rank}")
    elif filters_rank and filters_rank - 2 != num_spatial_dims:
        raise ValueError("`filters.shape.rank - 2` should equal `num_spatial_dims`. "
                         f"Received: filters.shape={filters.shape} of rank {filters_rank} "
                         f"and num_spatial_dims={num_spatial_dims}")
    num_batch_dims = inputs_rank - num_spatial_dims - 1 if inputs_rank else 1
    if num_spatial_dims not in {1, 2, 3}:
        raise ValueError("`num_spatial_dims` must be 1, 2, or 3. Received: "
                         f"num_spatial_dims={num_spatial_dims}.")
    if data_format is None or data_format in _CHANNELS_LAST:
        channel_index = num_batch_dims + num_spatial_dims
    else:
        channel_index = num_batch_dims
    is_dilated = dilations is not None and any(
        i != 1 for i in get_sequence(dilations, num_spatial_dims, channel_index, "dilations"))
    dilations = get_sequence(dilations, num_spatial_dims, channel_index, "dilations")
    strides = get_sequence(strides, num_spatial_dims, channel_index, "strides")
    default_name = None if name else "convolution"
    with ops_lib.name_scope(name, default_name, [input, filters]) as name:
        if not is_dilated:
            if num_spatial_dims == 2:
                return nn_conv_ops.conv2d_expanded_batch(
                    input, filters, strides, padding=padding, data_format=data_format,
                    dilations=dilations, name=name)
            if num_spatial_dims == 3:
                return nn_conv_ops.conv3d_expanded_batch(
                    input, filters, strides, padding=padding, data_format=data_format,
                    dilations=dilations, name=name)
            return nn_conv_ops.conv1d(input, filters, strides, padding=padding,
                                      data_format=data_format, dilations=dilations,
                                      name=name)
        if channel_index == 1:
            strides, dilations = strides[2:], dilations[2:]
        else:
            strides, dilations = strides[1:-1], dilations[1:-1]
        op = _Convolution(shape_lib.as_shape(input.shape), shape_lib.as_shape(filters.shape),
                          padding, strides=strides, dilation_rate=dilations, name=name,
                          data_format=data_format, num_spatial_dims=num_spatial_dims)
        return op(input, filters)


def convolution(input: Any, filter: Any = None, padding: Any = None,  # noqa: A002
                strides: Any = None, dilation_rate: Any = None, name: str | None = None,
                data_format: str | None = None, filters: Any = None,
                dilations: Any = None) -> ops_lib.Tensor:
    """N-D convolution (N = 1, 2, 3), strided or dilated (tf.compat.v1.nn.convolution)."""
    filter = deprecated_argument_lookup("filters", filters, "filter", filter)
    dilation_rate = deprecated_argument_lookup("dilations", dilations, "dilation_rate",
                                        dilation_rate)
    return convolution_internal(input, filter, strides=strides, padding=padding,
                                data_format=data_format, dilations=dilation_rate, name=name)


def atrous_conv2d(value: Any, filters: Any, rate: int, padding: Any,
                  name: str | None = None) -> ops_lib.Tensor:
    """2-D convolution with holes: convolution with dilation ``rate`` in both dims."""
    return convolution(input=value, filter=filters, padding=padding,
                       dilation_rate=np.broadcast_to(rate, (2,)), name=name)


def atrous_conv2d_transpose(value: Any, filters: Any, output_shape: Any, rate: int,
                            padding: str, name: str | None = None) -> ops_lib.Tensor:
    """The transpose of atrous_conv2d (SpaceToBatch, Conv2DBackpropInput, BatchToSpace)."""
    with ops_lib.name_scope(name, "atrous_conv2d_transpose",
                            [value, filters, output_shape]) as name:
        value = convert_to_tensor(value, name="value")
        filters = convert_to_tensor(filters, name="filters")
        if not value.get_shape()[3:4].is_compatible_with(filters.get_shape()[3:4]):
            raise ValueError(
                "`value` channel count must be compatible with `filters` input channel count. "
                f"Received: value.shape={value.get_shape()} with channel count "
                f"{value.get_shape()[3]} and filters.shape={filters.get_shape()} with input "
                f"channel count {filters.get_shape()[3]}.")
        if rate < 1:
            raise ValueError(f"`rate` cannot be less than one. Received: rate={rate}")
        if rate == 1:
            return nn_conv_ops.conv2d_transpose(value, filters, output_shape,
                                                strides=[1, 1, 1, 1], padding=padding,
                                                data_format="NHWC")
        output_shape_ = convert_to_tensor(output_shape, name="output_shape")
        if not output_shape_.get_shape().is_compatible_with(shape_lib.TensorShape([4])):
            raise ValueError("`output_shape` must have shape (4,). Received: "
                             f"output_shape={output_shape_.get_shape()}")
        if isinstance(output_shape, tuple):
            output_shape = list(output_shape)
        if isinstance(output_shape, (list, np.ndarray)):
            if not filters.get_shape()[2:3].is_compatible_with([output_shape[3]]):
                raise ValueError(
                    "`output_shape` channel count must be compatible with `filters` output "
                    f"channel count. Received: output_shape={output_shape} with channel "
                    f"count {output_shape[3]} and filters.shape={filters.get_shape()} with "
                    f"output channel count {filters.get_shape()[3]}.")
        if padding == "SAME":
            if filters.get_shape().is_fully_defined():
                filter_shape = filters.get_shape().as_list()
            else:
                filter_shape = array_ops.shape(filters)
            filter_height, filter_width = filter_shape[0], filter_shape[1]
            pad_height = filter_height + (filter_height - 1) * (rate - 1) - 1
            pad_width = filter_width + (filter_width - 1) * (rate - 1) - 1
            pad_top = pad_height // 2
            pad_bottom = pad_height - pad_top
            pad_left = pad_width // 2
            pad_right = pad_width - pad_left
        elif padding == "VALID":
            pad_top = pad_bottom = pad_left = pad_right = 0
        else:
            raise ValueError("`padding` must be either 'VALID' or 'SAME'. Received: "
                             f"padding={padding}")
        in_height = output_shape[1] + pad_top + pad_bottom
        in_width = output_shape[2] + pad_left + pad_right
        pad_bottom_extra = (rate - in_height % rate) % rate
        pad_right_extra = (rate - in_width % rate) % rate
        value = space_ops.space_to_batch(input=value, block_size=rate,
                                         paddings=[[0, pad_bottom_extra],
                                                   [0, pad_right_extra]])
        input_sizes = [rate * rate * output_shape[0], (in_height + pad_bottom_extra) // rate,
                       (in_width + pad_right_extra) // rate, output_shape[3]]
        value = apply_op("Conv2DBackpropInput", input_sizes=input_sizes, filter=filters,
                         out_backprop=value, strides=[1, 1, 1, 1], padding="VALID",
                         data_format="NHWC").outputs[0]
        crops = [[pad_top, pad_bottom + pad_bottom_extra],
                 [pad_left, pad_right + pad_right_extra]]
        return space_ops.batch_to_space(input=value, crops=crops, block_size=rate)


def depthwise_conv2d(input: Any, filter: Any, strides: Any, padding: Any,  # noqa: A002
                     rate: Any = None, name: str | None = None,
                     data_format: str | None = None,
                     dilations: Any = None) -> ops_lib.Tensor:
    """Depthwise 2-D convolution, dilated by ``rate`` through with_space_to_batch."""
    rate = deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with ops_lib.name_scope(name, "depthwise", [input, filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        filter = convert_to_tensor(filter, name="filter_in")
        if rate is None:
            rate = [1, 1]

        def op(input_converted: Any, _: Any, padding: Any) -> ops_lib.Tensor:
            return nn_conv_ops.depthwise_conv2d_native(
                input=input_converted, filter=filter, strides=strides, padding=padding,
                data_format=data_format, name=name)

        return with_space_to_batch(input=input, filter_shape=array_ops.shape(filter),
                                   dilation_rate=rate, padding=padding,
                                   data_format=data_format, op=op)


def separable_conv2d(input: Any, depthwise_filter: Any, pointwise_filter: Any,  # noqa: A002
                     strides: Any, padding: Any, rate: Any = None, name: str | None = None,
                     data_format: str | None = None,
                     dilations: Any = None) -> ops_lib.Tensor:
    """A depthwise convolution followed by a 1x1 (pointwise) Conv2D."""
    rate = deprecated_argument_lookup("dilations", dilations, "rate", rate)
    with ops_lib.name_scope(name, "separable_conv2d",
                            [input, depthwise_filter, pointwise_filter]) as name:
        input = convert_to_tensor(input, name="tensor_in")
        depthwise_filter = convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pointwise_shape = pointwise_filter.get_shape().with_rank(4)
        for i in (0, 1):
            if pointwise_shape.as_list()[i] not in (None, 1):
                raise ValueError(f"Dimensions {pointwise_shape.as_list()[i]} and 1 are not "
                                 "compatible")
        if rate is None:
            rate = [1, 1]

        def op(input_converted: Any, _: Any, padding: Any) -> ops_lib.Tensor:
            return nn_conv_ops.depthwise_conv2d_native(
                input=input_converted, filter=depthwise_filter, strides=strides,
                padding=padding, data_format=data_format, name="depthwise")

        depthwise = with_space_to_batch(input=input,
                                        filter_shape=array_ops.shape(depthwise_filter),
                                        dilation_rate=rate, padding=padding,
                                        data_format=data_format, op=op)
        return nn_conv_ops.conv2d(depthwise, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                                  data_format=data_format, name=name)


# -- pooling ---------------------------------------------------------------------------------

def pool(input: Any, window_shape: Any, pooling_type: str, padding: Any,  # noqa: A002
         dilation_rate: Any = None, strides: Any = None, name: str | None = None,
         data_format: str | None = None, dilations: Any = None) -> ops_lib.Tensor:
    """N-D max or average pooling (N = 1, 2, 3), strided or dilated."""
    dilation_rate = deprecated_argument_lookup("dilations", dilations, "dilation_rate",
                                        dilation_rate)
    with ops_lib.name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")
        num_spatial_dims = len(window_shape)
        if num_spatial_dims < 1 or num_spatial_dims > 3:
            raise ValueError("`len(window_shape)` must be 1, 2, or 3. Received: "
                             f"window_shape={window_shape} of length {len(window_shape)}")
        input.get_shape().with_rank(num_spatial_dims + 2)
        strides, dilation_rate = _strides_and_dilation_rate(num_spatial_dims, strides,
                                                            dilation_rate)
        if padding == "SAME" and np.any(dilation_rate > 1):
            raise ValueError("pooling with 'SAME' padding is not implemented for "
                             f"`dilation_rate` > 1. Received: padding={padding} and "
                             f"dilation_rate={dilation_rate}")
        if np.any(strides > window_shape):
            raise ValueError("`strides` > `window_shape` not supported due to inconsistency "
                             f"between CPU and GPU implementations. Received: "
                             f"strides={strides} and window_shape={window_shape}")
        pooling_ops = {("MAX", 1): nn_pool_ops.max_pool, ("MAX", 2): nn_pool_ops.max_pool,
                       ("MAX", 3): nn_pool_ops.max_pool3d, ("AVG", 1): nn_pool_ops.avg_pool,
                       ("AVG", 2): nn_pool_ops.avg_pool, ("AVG", 3): nn_pool_ops.avg_pool3d}
        op_key = (pooling_type, num_spatial_dims)
        if op_key not in pooling_ops:
            raise ValueError(f"{num_spatial_dims}-D {pooling_type} pooling is not supported.")
        if data_format is None or not data_format.startswith("NC"):
            window = [1] + list(window_shape) + [1]
            adjusted_strides = [1] + list(strides) + [1]
            spatial_dims = range(1, num_spatial_dims + 1)
        else:
            window = [1, 1] + list(window_shape)
            adjusted_strides = [1, 1] + list(strides)
            spatial_dims = range(2, num_spatial_dims + 2)
        if num_spatial_dims == 1:
            if data_format is None or data_format == "NWC":
                format_kwargs = {"data_format": "NHWC"}
            elif data_format == "NCW":
                format_kwargs = {"data_format": "NCHW"}
            else:
                raise ValueError("data_format must be either 'NWC' or 'NCW'. Received: "
                                 f"data_format={data_format}")
            window = [1] + window
            adjusted_strides = [1] + adjusted_strides
        else:
            format_kwargs = {"data_format": data_format}

        def op(converted_input: Any, _: Any, converted_padding: Any) -> ops_lib.Tensor:
            if num_spatial_dims == 1:
                converted_input = array_ops.expand_dims(converted_input, spatial_dims[0])
            result = pooling_ops[op_key](converted_input, window, adjusted_strides,
                                         converted_padding, name=scope, **format_kwargs)
            if num_spatial_dims == 1:
                result = array_ops.squeeze(result, [spatial_dims[0]])
            return result

        return with_space_to_batch(input=input, dilation_rate=dilation_rate, padding=padding,
                                   op=op, spatial_dims=spatial_dims,
                                   filter_shape=window_shape)
