"""Shape functions of the sliding-window ops (convolutions, pooling, dilation): TF's
GetWindowedOutputSize per spatial dim, over NHWC/NCHW/NDHWC/NCDHW layouts."""

from __future__ import annotations

from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops.random_ops import shape_from_shape_tensor


def with_rank(shape: shape_lib.TensorShape, rank: int) -> shape_lib.TensorShape:
    if shape.ndims is None:
        return shape_lib.unknown_shape(rank=rank)
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape


def _cdiv(a: int, b: int) -> int:
    """C++ integer division (truncates toward zero)."""
    return a // b if a >= 0 else -(-a // b)


def windowed_output_size(in_size: int | None, k: int | None, dilation: int, stride: int,
                         padding: str, pads: tuple[int, int] = (0, 0)) -> int | None:
    """TF's GetWindowedOutputSize: the output length of a conv/pool dimension."""
    if stride <= 0:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if dilation < 1:
        raise ValueError(f"Dilation rate must be >= 1, but got {dilation}")
    if in_size is None or k is None:
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


def channels_first(op: ops_lib.Operation) -> bool:
    try:
        return op.get_attr("data_format").startswith(b"NC")
    except ValueError:
        return False


def spatial_axes(nd: int, first: bool) -> list[int]:
    return list(range(2, nd + 2)) if first else list(range(1, nd + 1))


def _attr_list(op: ops_lib.Operation, name: str, nd: int, default: int = 1) -> list[int]:
    try:
        values = list(op.get_attr(name))
    except ValueError:
        return [default] * (nd + 2)
    if len(values) != nd + 2:
        label = {"strides": "stride", "dilations": "dilation"}.get(name, name)
        raise ValueError(f"{op.type} requires the {label} attribute to contain {nd + 2} "
                         f"values, but got: {len(values)}")
    return values


def _explicit(op: ops_lib.Operation, nd: int, axes: list[int]) -> list[tuple[int, int]]:
    if op.get_attr("padding") != b"EXPLICIT":
        return [(0, 0)] * nd
    explicit = list(op.get_attr("explicit_paddings"))
    if len(explicit) != 2 * (nd + 2):
        raise ValueError(f"explicit_paddings attribute must contain {2 * (nd + 2)} values, "
                         f"but got: {len(explicit)}")
    return [(explicit[2 * a], explicit[2 * a + 1]) for a in axes]


def window_output_shape(op: ops_lib.Operation, x: shape_lib.TensorShape, nd: int,
                        k_sizes: list, out_channels: int | None,
                        dilation_attr: str = "dilations") -> shape_lib.TensorShape:
    """[N, *out, C] (or [N, C, *out]) of a window op with spatial window ``k_sizes``."""
    first = channels_first(op)
    axes = spatial_axes(nd, first)
    strides = _attr_list(op, "strides", nd)
    dilations = _attr_list(op, dilation_attr, nd)
    padding = op.get_attr("padding").decode()
    pads = _explicit(op, nd, axes) if padding == "EXPLICIT" else [(0, 0)] * nd
    dims = with_rank(x, nd + 2).as_list()
    out = [windowed_output_size(dims[a], k, dilations[a], strides[a], padding, p)
           for a, k, p in zip(axes, k_sizes, pads)]
    return shape_lib.TensorShape([dims[0], out_channels] + out if first
                                 else [dims[0]] + out + [out_channels])


def conv_shape(nd: int, depthwise: bool = False):
    """Shape function of Conv2D/Conv3D (and DepthwiseConv2dNative: C * M channels out)."""
    def fn(op: ops_lib.Operation) -> list:
        _attr_list(op, "strides", nd)
        _attr_list(op, "dilations", nd)
        x = with_rank(op.inputs[0].shape, nd + 2)
        w = with_rank(op.inputs[1].shape, nd + 2).as_list()
        c = x.as_list()[1 if channels_first(op) else -1] if x.ndims else None
        ci, co = w[-2], w[-1]
        if depthwise:
            if c is not None and ci is not None and c != ci:
                raise ValueError(f"Dimensions must be equal, but are {c} and {ci}")
            ci = c if ci is None else ci
            co = None if ci is None or co is None else ci * co
        elif c is not None and ci is not None and ci and c % ci != 0:
            raise ValueError(f"Depth of input ({c}) is not a multiple of input depth of "
                             f"filter ({ci})")
        return [window_output_shape(op, x, nd, w[:nd], co)]
    return fn


def sizes_shape(index: int, nd: int):
    """The shape held by input ``index`` (input_sizes / filter_sizes / orig_input_shape); a
    Conv2DBackpropInput ``input_sizes`` of just [height, width] takes batch and depth from
    the other inputs."""
    def fn(op: ops_lib.Operation) -> list:
        shape = shape_from_shape_tensor(op.inputs[index])
        if op.type == "Conv2DBackpropInput" and shape.ndims == 2:
            grad, filt = op.inputs[2].shape, op.inputs[1].shape
            n = grad.as_list()[0] if grad.ndims == 4 else None
            c = filt.as_list()[2] if filt.ndims == 4 else None
            h, w = shape.as_list()
            return [shape_lib.TensorShape([n, c, h, w] if channels_first(op) else [n, h, w, c])]
        return [with_rank(shape, nd + 2)]
    return fn


def pool_shape(nd: int):
    """Shape function of MaxPool/AvgPool (2-D) and MaxPool3D/AvgPool3D: ksize and strides
    over every dim, depthwise pooling (over channels) included."""
    def fn(op: ops_lib.Operation) -> list:
        ksize = _attr_list(op, "ksize", nd)
        strides = _attr_list(op, "strides", nd)
        first = channels_first(op)
        x = with_rank(op.inputs[0].shape, nd + 2)
        c_axis = 1 if first else nd + 1
        c = x.as_list()[c_axis] if x.ndims else None
        if ksize[c_axis] != 1 or strides[c_axis] != 1:
            c = windowed_output_size(c, ksize[c_axis], 1, strides[c_axis], "VALID")
        return [window_output_shape(op, x, nd, [ksize[a] for a in spatial_axes(nd, first)],
                                    c)]
    return fn


def unchanged_with_rank(index: int, rank: int):
    def fn(op: ops_lib.Operation) -> list:
        return [with_rank(op.inputs[index].shape, rank)]
    return fn


# -- argument normalizers of the tf.nn wrappers ----------------------------------------------

def get_sequence(value: object, n: int, channel_index: int, name: str) -> list:
    """``value`` (an int or a list of 1, n or n + 2) as the n + 2 values of a window attr,
    1 over the batch and channel dims (TF's nn_ops._get_sequence)."""
    if value is None:
        return [1] * (n + 2)
    if isinstance(value, (list, tuple)):
        value = list(value)
    elif isinstance(value, int) or not hasattr(value, "__len__"):
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


def convert_padding(padding: object, expected_length: int = 4) -> tuple[object, list]:
    """(padding, explicit_paddings): a list of (before, after) pairs becomes 'EXPLICIT'."""
    explicit: list = []
    if padding == "EXPLICIT":
        raise ValueError("'EXPLICIT' is not a valid value for `padding`. To use explicit "
                         "padding, `padding` must be a list.")
    if isinstance(padding, (list, tuple)):
        for i, dim_paddings in enumerate(padding):
            if not isinstance(dim_paddings, (list, tuple)):
                raise ValueError("When `padding` is a list, each element of `padding` must "
                                 f"be a list/tuple of size 2. Received: padding={padding} "
                                 f"with element at index {i} of type {type(dim_paddings)}")
            if len(dim_paddings) != 2:
                raise ValueError("When `padding` is a list, each element of `padding` must "
                                 f"be a list/tuple of size 2. Received: padding={padding} "
                                 f"with element at index {i} of size {len(dim_paddings)}")
            explicit.extend(dim_paddings)
        if len(padding) != expected_length:
            raise ValueError(f"When padding is a list, it must be of size {expected_length}. "
                             f"Received: padding={padding} of size {len(padding)}")
        padding = "EXPLICIT"
    return padding, explicit
