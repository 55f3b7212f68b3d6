"""Array manipulation beyond the core array ops (TF's manip_ops and the rest of its
array_ops): broadcast_to, linspace, meshgrid, repeat, roll, reverse_sequence,
unravel_index, ensure_shape, unique, setdiff1d, searchsorted, bucketize, bincount and
histogram_fixed_width, with TF's OpDefs and shape functions. Kernels:
:mod:`graphcore.kernels.manip_kernels`; gradients: :mod:`graphcore.ops.manip_grad`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import common_shapes, op_registry, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op, op_outputs
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, math_ops

__all__ = [
    "bincount", "bitcast", "bucketize", "histogram_fixed_width_bins", "broadcast_dynamic_shape", "broadcast_static_shape", "broadcast_to",
    "ensure_shape", "guarantee_const", "histogram_fixed_width", "lin_space", "linspace",
    "meshgrid", "parallel_stack", "repeat", "reverse_sequence", "roll", "searchsorted",
    "setdiff1d", "unique", "unique_with_counts", "unravel_index",
]

_INDEX = "{int32, int64}"


def _vector_of_unknown(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([None]) for _ in op.outputs]


def _broadcast_to_shape(op: ops_lib.Operation) -> list:
    value = tensor_util.constant_value(op._inputs[1])
    if value is not None:
        return [shape_lib.TensorShape([int(d) for d in value.reshape(-1)])]
    n = op._inputs[1].shape.with_rank(1)[0]
    return [shape_lib.unknown_shape(rank=n) if n is not None else shape_lib.unknown_shape()]


def _lin_space_shape(op: ops_lib.Operation) -> list:
    num = tensor_util.constant_value(op._inputs[2])
    return [shape_lib.TensorShape([None if num is None else int(num)])]


def _ensure_shape_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape.merge_with(shape_lib.TensorShape(op._attrs["shape"].shape))]


def _bound_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[1].shape]


def _unravel_shape(op: ops_lib.Operation) -> list:
    dims = op._inputs[1].shape.with_rank(1)[0]
    indices = op._inputs[0].shape
    if indices.ndims == 0:
        return [shape_lib.TensorShape([dims])]
    return [shape_lib.TensorShape([dims]).concatenate(indices)]


def _unique_shapes(op: ops_lib.Operation) -> list:
    x = op._inputs[0].shape.with_rank(1)
    return [shape_lib.TensorShape([None]), x] + [shape_lib.TensorShape([None])] * \
        (len(op.outputs) - 2)


def _histogram_shape(op: ops_lib.Operation) -> list:
    nbins = tensor_util.constant_value(op._inputs[2])
    return [shape_lib.TensorShape([None if nbins is None else int(nbins)])]


_reg = op_registry.register_op
_reg("BroadcastTo").input("input: T").input("shape: Tidx").output("output: T") \
    .attr("T: type").attr(f"Tidx: {_INDEX} = DT_INT32").shape_fn(_broadcast_to_shape)
_reg("BroadcastArgs").input("s0: T").input("s1: T").output("r0: T") \
    .attr(f"T: {_INDEX} = DT_INT32") \
    .shape_fn(lambda op: [shape_lib.TensorShape([None])])
def _bitcast_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape
    if shape.ndims is None:
        return [shape_lib.unknown_shape()]
    src = op._inputs[0].dtype.size
    dst = dtypes_lib.as_dtype(op._attrs["type"].type).size
    if src == dst:
        return [shape]
    if src > dst:
        return [shape.concatenate([src // dst])]
    shape.with_rank_at_least(1)
    if shape[-1].value is not None and shape[-1].value != dst // src:
        raise ValueError(f"Cannot bitcast from {op._inputs[0].dtype.name} to "
                         f"{dtypes_lib.as_dtype(op._attrs['type'].type).name}: shape {shape}")
    return [shape[:-1]]


_BITCAST_T = ("{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, "
              "int8, int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}")
_reg("Bitcast").input("input: T").output("output: type").attr(f"T: {_BITCAST_T}") \
    .attr(f"type: {_BITCAST_T}").shape_fn(_bitcast_shape)
_reg("LinSpace").input("start: T").input("stop: T").input("num: Tidx").output("output: T") \
    .attr("T: {bfloat16, half, float, double}").attr(f"Tidx: {_INDEX} = DT_INT32") \
    .shape_fn(_lin_space_shape)
_reg("Roll").input("input: T").input("shift: Tshift").input("axis: Taxis") \
    .output("output: T").attr("T: type").attr(f"Tshift: {_INDEX}").attr(f"Taxis: {_INDEX}") \
    .shape_fn(common_shapes.unchanged_shape)
_reg("ReverseSequence").input("input: T").input("seq_lengths: Tlen").output("output: T") \
    .attr("seq_dim: int").attr("batch_dim: int = 0").attr("T: type") \
    .attr(f"Tlen: {_INDEX} = DT_INT64").shape_fn(common_shapes.unchanged_shape)
_reg("UnravelIndex").input("indices: Tidx").input("dims: Tidx").output("output: Tidx") \
    .attr(f"Tidx: {_INDEX} = DT_INT32").shape_fn(_unravel_shape)
_reg("EnsureShape").input("input: T").output("output: T").attr("shape: shape") \
    .attr("T: type").shape_fn(_ensure_shape_shape)
_reg("GuaranteeConst").input("input: T").output("output: T").attr("T: type").stateful() \
    .shape_fn(common_shapes.unchanged_shape)
_reg("Unique").input("x: T").output("y: T").output("idx: out_idx").attr("T: type") \
    .attr(f"out_idx: {_INDEX} = DT_INT32").shape_fn(_unique_shapes)
_reg("UniqueWithCounts").input("x: T").output("y: T").output("idx: out_idx") \
    .output("count: out_idx").attr("T: type").attr(f"out_idx: {_INDEX} = DT_INT32") \
    .shape_fn(_unique_shapes)
_reg("ListDiff").input("x: T").input("y: T").output("out: T").output("idx: out_idx") \
    .attr("T: type").attr(f"out_idx: {_INDEX} = DT_INT32").shape_fn(_vector_of_unknown)
for _bound in ("UpperBound", "LowerBound"):
    _reg(_bound).input("sorted_inputs: T").input("values: T").output("output: out_type") \
        .attr("T: type").attr(f"out_type: {_INDEX} = DT_INT32").shape_fn(_bound_shape)
_reg("Bucketize").input("input: T").output("output: int32") \
    .attr("T: {int32, int64, float, double}").attr("boundaries: list(float)") \
    .shape_fn(common_shapes.unchanged_shape)
_reg("Bincount").input("arr: int32").input("size: int32").input("weights: T") \
    .output("bins: T").attr("T: {int32, int64, float, double}") \
    .shape_fn(lambda op: [shape_lib.TensorShape([None])])
_reg("HistogramFixedWidth").input("values: T").input("value_range: T").input("nbins: int32") \
    .output("out: dtype").attr("T: {int32, int64, float, double}") \
    .attr(f"dtype: {_INDEX} = DT_INT32").shape_fn(_histogram_shape)


def bucketize(input: Any, boundaries: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The index of each value's bucket among the sorted ``boundaries`` (how many of them
    are <= the value), as int32 (TF's private ``math_ops._bucketize``)."""
    return apply_op("Bucketize", name=name, input=input,
                    boundaries=[float(b) for b in boundaries]).outputs[0]


def broadcast_to(input: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` broadcast to ``shape`` (numpy's rules)."""
    return apply_op("BroadcastTo", name=name, input=input, shape=shape).outputs[0]


def broadcast_dynamic_shape(shape_x: Any, shape_y: Any) -> ops_lib.Tensor:
    """The broadcast of two shape vectors (a BroadcastArgs op)."""
    return apply_op("BroadcastArgs", s0=shape_x, s1=shape_y).outputs[0]


def broadcast_static_shape(shape_x: Any, shape_y: Any) -> shape_lib.TensorShape:
    """The broadcast of two TensorShapes (ValueError when they don't broadcast)."""
    return common_shapes.broadcast_static_shapes(shape_lib.as_shape(shape_x),
                                                 shape_lib.as_shape(shape_y))


def linspace(start: Any, stop: Any, num: Any, name: str | None = None,
             axis: int = 0) -> ops_lib.Tensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive."""
    if axis != 0:
        raise NotImplementedError("linspace along an axis other than 0 is not supported")
    return apply_op("LinSpace", name=name, start=start, stop=stop, num=num).outputs[0]


lin_space = linspace


def meshgrid(*args: Any, **kwargs: Any) -> list:
    """Coordinate grids from 1-D tensors, ``indexing="xy"`` (default) or ``"ij"``."""
    indexing = kwargs.pop("indexing", "xy")
    name = kwargs.pop("name", "meshgrid")
    if kwargs:
        raise TypeError(f"'{next(iter(kwargs))}' is an invalid keyword argument for this "
                        "function")
    if indexing not in ("xy", "ij"):
        raise ValueError("Argument `indexing` parameter must be either 'xy' or 'ij', got "
                         f"'{indexing}'")
    with ops_lib.name_scope(name, "meshgrid", args):
        ndim = len(args)
        s0 = (1,) * ndim
        if not ndim:
            return []
        output = [array_ops.reshape(array_ops.stack(x) if isinstance(x, list) else x,
                                    s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(args)]
        shapes = [array_ops.size(x) for x in args]
        output_dtype = convert_to_tensor(args[0]).dtype.base_dtype
        if indexing == "xy" and ndim > 1:
            output[0] = array_ops.reshape(output[0], (1, -1) + (1,) * (ndim - 2))
            output[1] = array_ops.reshape(output[1], (-1, 1) + (1,) * (ndim - 2))
            shapes[0], shapes[1] = shapes[1], shapes[0]
        mult_fact = array_ops.ones(shapes, output_dtype)
        return [x * mult_fact for x in output]


def repeat(input: Any, repeats: Any, axis: int | None = None,  # noqa: A002
           name: str | None = None) -> ops_lib.Tensor:
    """numpy's repeat: each element (slice along ``axis``; flattened when None) repeated
    ``repeats`` times (a scalar, or one count per element)."""
    with ops_lib.name_scope(name, "Repeat", [input, repeats]):
        x = convert_to_tensor(input, name="input")
        if axis is None:
            x = array_ops.reshape(x, [-1])
            axis = 0
        repeats = math_ops.cast(convert_to_tensor(repeats, name="repeats"), dtypes_lib.int32)
        n = array_ops.shape(x)[axis]
        repeats = array_ops.reshape(repeats, [-1]) * array_ops.ones([n], dtypes_lib.int32)
        ends = math_ops.cumsum(repeats)
        positions = math_ops.range(math_ops.reduce_sum(repeats))
        indices = searchsorted(ends, positions, side="right")
        return array_ops.gather(x, indices, axis=axis)


def roll(input: Any, shift: Any, axis: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` shifted by ``shift`` along ``axis``, wrapping around."""
    return apply_op("Roll", name=name, input=input, shift=shift, axis=axis).outputs[0]


def reverse_sequence(input: Any, seq_lengths: Any, seq_axis: int | None = None,  # noqa: A002
                     batch_axis: int | None = None, name: str | None = None,
                     seq_dim: int | None = None, batch_dim: int | None = None
                     ) -> ops_lib.Tensor:
    """Reverses the first ``seq_lengths[i]`` elements along ``seq_axis`` of each slice
    ``i`` along ``batch_axis``."""
    seq_axis = seq_axis if seq_axis is not None else seq_dim
    batch_axis = batch_axis if batch_axis is not None else batch_dim
    return apply_op("ReverseSequence", name=name, input=input, seq_lengths=seq_lengths,
                    seq_dim=seq_axis, batch_dim=0 if batch_axis is None else batch_axis
                    ).outputs[0]


def unravel_index(indices: Any, dims: Any, name: str | None = None) -> ops_lib.Tensor:
    """The coordinates of flat ``indices`` in an array of shape ``dims``."""
    return apply_op("UnravelIndex", name=name, indices=indices, dims=dims).outputs[0]


def ensure_shape(x: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:
    """``x``, failing the step when its shape is not compatible with ``shape``."""
    return apply_op("EnsureShape", name=name, input=x,
                    shape=shape_lib.as_shape(shape)).outputs[0]


def guarantee_const(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input``, promised to be constant over the session's life."""
    return apply_op("GuaranteeConst", name=name, input=input).outputs[0]


def parallel_stack(values: list, name: str = "parallel_stack") -> ops_lib.Tensor:
    """``tf.stack(values)``: the values packed along a new first axis."""
    return array_ops.stack(values, name=name)


def unique(x: Any, out_idx: Any = dtypes_lib.int32, name: str | None = None) -> tuple:
    """(the distinct elements of 1-D ``x`` in order of first appearance, the index of
    each element of ``x`` in them)."""
    return op_outputs(apply_op("Unique", name=name, x=x, out_idx=out_idx))


def unique_with_counts(x: Any, out_idx: Any = dtypes_lib.int32,
                       name: str | None = None) -> tuple:
    """``unique`` plus how often each distinct element occurs."""
    return op_outputs(apply_op("UniqueWithCounts", name=name, x=x, out_idx=out_idx))


def setdiff1d(x: Any, y: Any, index_dtype: Any = dtypes_lib.int32,
              name: str | None = None) -> tuple:
    """(the elements of ``x`` not in ``y``, in order; their indices in ``x``)."""
    return op_outputs(apply_op("ListDiff", name=name, x=x, y=y, out_idx=index_dtype))


def searchsorted(sorted_sequence: Any, values: Any, side: str = "left",
                 out_type: Any = dtypes_lib.int32, name: str | None = None) -> ops_lib.Tensor:
    """Where ``values`` would be inserted into each innermost row of
    ``sorted_sequence`` to keep it sorted (``side`` "left" or "right")."""
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = {side}.")
    op_type = "LowerBound" if side == "left" else "UpperBound"
    with ops_lib.name_scope(name):
        sorted_sequence = convert_to_tensor(sorted_sequence)
        values = convert_to_tensor(values)
        if sorted_sequence.shape.ndims == 1 and values.shape.ndims == 1:
            seq = array_ops.reshape(sorted_sequence, [1, -1])
            vals = array_ops.reshape(values, [1, -1])
            out = apply_op(op_type, sorted_inputs=seq, values=vals, out_type=out_type)
            return array_ops.reshape(out.outputs[0], [-1])
        seq_2d = array_ops.reshape(sorted_sequence, [-1, array_ops.shape(sorted_sequence)[-1]])
        vals_2d = array_ops.reshape(values, [-1, array_ops.shape(values)[-1]])
        out = apply_op(op_type, sorted_inputs=seq_2d, values=vals_2d, out_type=out_type)
        return array_ops.reshape(out.outputs[0], array_ops.shape(values))


def bincount(arr: Any, weights: Any = None, minlength: Any = None, maxlength: Any = None,
             dtype: Any = dtypes_lib.int32, name: str | None = None) -> ops_lib.Tensor:
    """How often each value in [0, max(arr)] occurs in ``arr`` (summing ``weights``)."""
    with ops_lib.name_scope(name, "bincount", [arr, weights, minlength, maxlength]):
        arr = convert_to_tensor(arr, name="arr", dtype=dtypes_lib.int32)
        array_is_nonempty = math_ops.reduce_prod(array_ops.shape(arr)) > 0
        output_size = math_ops.cast(array_is_nonempty, dtypes_lib.int32) * (
            math_ops.reduce_max(arr) + 1)
        if minlength is not None:
            output_size = math_ops.maximum(minlength, output_size)
        if maxlength is not None:
            output_size = math_ops.minimum(maxlength, output_size)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            return apply_op("Bincount", arr=arr, size=output_size,
                            weights=weights).outputs[0]
        weights = array_ops.constant([], dtype)
        return apply_op("Bincount", arr=arr, size=output_size, weights=weights).outputs[0]


def histogram_fixed_width(values: Any, value_range: Any, nbins: Any = 100,
                          dtype: Any = dtypes_lib.int32,
                          name: str | None = None) -> ops_lib.Tensor:
    """Counts of ``values`` in ``nbins`` equal bins over ``value_range`` (values outside
    go to the first or last bin)."""
    with ops_lib.name_scope(name, "histogram_fixed_width", [values, value_range, nbins]) \
            as scope:
        return apply_op("HistogramFixedWidth", name=scope, values=values,
                        value_range=value_range, nbins=nbins, dtype=dtype).outputs[0]


def bitcast(input: Any, type: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The bytes of ``input`` read as ``type`` (a last dimension added or removed when the
    sizes differ)."""
    return apply_op("Bitcast", name=name, input=input, type=type).outputs[0]


def histogram_fixed_width_bins(values: Any, value_range: Any, nbins: Any = 100,
                               dtype: Any = dtypes_lib.int32,
                               name: str | None = None) -> ops_lib.Tensor:
    """The bin index of each of ``values`` among ``nbins`` equal bins over
    ``value_range`` (values outside go to the first or last bin), as TF composes it."""
    with ops_lib.name_scope(name, "histogram_fixed_width_bins", [values, value_range, nbins]):
        values = convert_to_tensor(values, name="values")
        shape = array_ops.shape(values)
        values = array_ops.reshape(values, [-1])
        value_range = convert_to_tensor(value_range, name="value_range")
        nbins_t = convert_to_tensor(nbins, dtype=dtypes_lib.int32, name="nbins")
        nbins_float = math_ops.cast(nbins_t, values.dtype)
        scaled_values = math_ops.truediv(values - value_range[0],
                                         value_range[1] - value_range[0], name="scaled_values")
        indices = math_ops.floor(nbins_float * scaled_values, name="indices")
        indices = math_ops.cast(
            math_ops.minimum(math_ops.maximum(indices, 0.0), nbins_float - 1), dtypes_lib.int32)
        return array_ops.reshape(math_ops.cast(indices, dtype), shape)
