"""Array ops: constants, placeholders, shapes, reshaping, slicing, concat/split, pad/tile,
fill/one_hot, gather, and ``Tensor.__getitem__`` (TF1 wrappers with TF1's op names)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from graphcore.framework import common_shapes, op_registry, tensor_conversion, tensor_util
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.protobuf import attr_value_pb2

__all__ = [
    "constant",
    "placeholder",
    "placeholder_with_default",
    "identity",
    "identity_n",
    "stack",
    "unstack",
    "where",
    "squeeze",
    "gather",
    "boolean_mask",
    "sequence_mask",
    "reshape",
    "transpose",
    "invert_permutation",
    "expand_dims",
    "concat",
    "split",
    "slice",
    "strided_slice",
    "tile",
    "pad",
    "reverse",
    "reverse_v2",
    "fill",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "shape",
    "shape_n",
    "size",
    "rank",
    "one_hot",
    "stop_gradient",
    "unsorted_segment_sum",
    "newaxis",
]

newaxis = None


def _shape_from_attr(attr: str):
    def fn(op: ops_lib.Operation) -> list:
        return [shape_lib.TensorShape(op._attrs[attr].shape)]
    return fn


def _const_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape(op._attrs["value"].tensor.tensor_shape)]


op_registry.register_op("Const").output("output: dtype").attr("value: tensor") \
    .attr("dtype: type").shape_fn(_const_shape)

op_registry.register_op("Placeholder").output("output: dtype").attr("dtype: type") \
    .attr("shape: shape", default=shape_lib.unknown_shape()).shape_fn(_shape_from_attr("shape"))

op_registry.register_op("PlaceholderWithDefault").input("input: dtype") \
    .output("output: dtype").attr("dtype: type").attr("shape: shape") \
    .shape_fn(_shape_from_attr("shape"))

op_registry.register_op("Identity").input("input: T").output("output: T").attr("T: type") \
    .shape_fn(common_shapes.unchanged_shape)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str = "Const",
             verify_shape: bool = False) -> ops_lib.Tensor:
    """A Const op holding ``value`` (``tf.constant`` of TF1: a scalar with a larger
    ``shape`` fills it)."""
    g = ops_lib.get_default_graph()
    proto = tensor_util.make_tensor_proto(value, dtype=dtype, shape=shape,
                                          verify_shape=verify_shape)
    attrs = {"value": attr_value_pb2.AttrValue(tensor=proto),
             "dtype": attr_value_pb2.AttrValue(type=proto.dtype)}
    op = g._create_op_internal(op_registry.get("Const"), [], [dtypes_lib.as_dtype(proto.dtype)],
                               name, attrs)
    return op._outputs[0]


def _constant_conversion(value: Any, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    return constant(value, dtype=dtype, name=name or "Const")


tensor_conversion.register_tensor_conversion_function(object, _constant_conversion, 200)


def placeholder(dtype: Any, shape: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """A value that must be fed at run time (any shape when ``shape`` is None)."""
    return apply_op("Placeholder", name=name, dtype=dtype,
                    shape=shape_lib.unknown_shape() if shape is None else shape).outputs[0]


def placeholder_with_default(input: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` unless fed; the fed value must match ``shape``."""
    return apply_op("PlaceholderWithDefault", name=name, input=input, shape=shape).outputs[0]


def identity(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """A Tensor with the same value as ``input`` (reads a Variable's ref)."""
    if hasattr(input, "_as_graph_element") and hasattr(input, "value"):
        input = input.value()
    return apply_op("Identity", name=name, input=input).outputs[0]


# -- shape-function helpers (TF's InferenceContext checks and messages) --------------------

def _dims(shape: shape_lib.TensorShape) -> list | None:
    return None if shape.ndims is None else shape.as_list()


def _shape(dims: list | None) -> shape_lib.TensorShape:
    return shape_lib.unknown_shape() if dims is None else shape_lib.TensorShape(dims)


_dbg = common_shapes.debug_string


def _with_rank(dims: list | None, rank: int) -> list:
    if dims is None:
        return [None] * rank
    if len(dims) != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {len(dims)}")
    return dims


def _with_rank_at_least(dims: list | None, rank: int) -> list | None:
    if dims is not None and len(dims) < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {len(dims)}")
    return dims


_merge_dims = common_shapes.merge_dims


def _with_value(dim: int | None, value: int) -> int:
    if dim is not None and dim != value:
        raise ValueError(f"Dimension must be {value} but is {dim}")
    return value


def _add_dims(a: int | None, b: int | None) -> int | None:
    return None if a is None or b is None else a + b


def _mul_dims(a: int | None, b: int | None) -> int | None:
    if a == 0 or b == 0:
        return 0
    if a == 1:
        return b
    if b == 1:
        return a
    return None if a is None or b is None else a * b


def _divide_dim(dim: int | None, divisor: int) -> int | None:
    if dim is None:
        return None
    if divisor and dim % divisor:
        raise ValueError(f"Dimension size must be evenly divisible by {divisor} but is {dim}")
    return dim // divisor if divisor else None


def _const(t: ops_lib.Tensor) -> np.ndarray | None:
    return tensor_util.constant_value(t)


def _scalar(t: ops_lib.Tensor) -> int | None:
    v = _const(t)
    if v is None or np.size(v) != 1:
        return None
    return int(np.asarray(v).reshape(-1)[0])


def _scalar_dim_input(t: ops_lib.Tensor, index: int) -> int | None:
    """MakeDimForScalarInput: a non-negative scalar input's value as a dimension."""
    _with_rank(_dims(t.shape), 0)
    v = _scalar(t)
    if v is not None and v < 0:
        raise ValueError(f"Dimension size, given by scalar input {index}, must be non-negative "
                         f"but is {v}")
    return v


def _axis_input(t: ops_lib.Tensor, index: int, rank: int | None) -> int | None:
    """MakeDimForScalarInputWithNegativeIndexing: an axis scalar, made non-negative."""
    _with_rank(_dims(t.shape), 0)
    v = _scalar(t)
    if v is None:
        return None
    if rank is None:
        return v if v >= 0 else None
    if not -rank <= v < rank:
        raise ValueError(f"Dimension size, given by scalar input {v} must be in range "
                         f"[{-rank}, {rank})")
    return v + rank if v < 0 else v


def _shape_tensor_dims(t: ops_lib.Tensor) -> list | None:
    """InferenceContext::MakeShapeFromShapeTensor: the (partial) shape a 1-D shape tensor
    holds; -1 entries and unknown values are unknown dims."""
    _with_rank(_dims(t.shape), 1)
    return _partial_shape_value(t)


def _partial_shape_value(t: ops_lib.Tensor) -> list | None:
    value = _const(t)
    if value is not None:
        out = []
        for v in np.asarray(value).reshape(-1).tolist():
            if v < -1:
                raise ValueError(f"Invalid value in tensor used for shape: {v}")
            out.append(None if v == -1 else int(v))
        return out
    op = t.op
    if op.type == "Shape":
        return _dims(op.inputs[0].shape)
    if op.type == "Cast":
        return _partial_shape_value(op.inputs[0])
    if op.type == "Pack" and t.shape.ndims == 1:
        out = []
        for x in op.inputs:
            v = _scalar(x)
            if v is not None and v < -1:
                raise ValueError(f"Invalid value in tensor used for shape: {v}")
            out.append(None if v is None or v == -1 else v)
        return out
    if op.type == "ConcatV2" and t.shape.ndims == 1:
        out = []
        for x in op.inputs[:-1]:
            part = _partial_shape_value(x)
            if part is None:
                return _unknown_of_vector(t)
            out.extend(part)
        return out
    if op.type == "StridedSlice" and op.inputs[0].op.type == "Shape":
        got = _strided_slice_of_shape(op)
        if got is not None:
            return got
    return _unknown_of_vector(t)


def _unknown_of_vector(t: ops_lib.Tensor) -> list | None:
    dims = _dims(t.shape)
    if dims is None or len(dims) != 1 or dims[0] is None:
        return None
    return [None] * dims[0]


def _strided_slice_of_shape(op: ops_lib.Operation) -> list | None:
    from graphcore.kernels import array_kernels

    dims = _dims(op.inputs[0].op.inputs[0].shape)
    values = [_const(x) for x in op.inputs[1:]]
    if dims is None or any(v is None for v in values):
        return None
    a = op._attrs
    masks = [a[k].i for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                              "shrink_axis_mask")]
    if masks[3] or masks[4]:
        return None
    try:
        dense, _, _ = array_kernels.strided_slice_spec(
            [len(dims)], *[np.asarray(v).reshape(-1).tolist() for v in values], *masks)
    except ValueError:
        return None
    b, e, s, _ = dense[0]
    return dims[b:(e if e >= 0 else None):s]


# -- op registrations -----------------------------------------------------------------------

def _pack_shape(op: ops_lib.Operation) -> list:
    cur = _dims(op._inputs[-1].shape)
    for i in range(len(op._inputs) - 2, -1, -1):
        try:
            cur = _merge_dims(_dims(op._inputs[i].shape), cur)
        except ValueError as e:
            raise ValueError(f"{e}\n\tFrom merging shape {i} with other shapes.") from None
    if cur is None:
        return [shape_lib.unknown_shape()]
    axis = op._attrs["axis"].i
    rank = len(cur) + 1
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    if axis < 0:
        axis += rank
    return [shape_lib.TensorShape(cur[:axis] + [len(op._inputs)] + cur[axis:])]


def _unpack_shape(op: ops_lib.Operation) -> list:
    dims = _dims(op._inputs[0].shape)
    if dims is None:
        return [shape_lib.unknown_shape()] * len(op._outputs)
    rank = len(dims)
    axis = op._attrs["axis"].i
    if not -rank <= axis < rank:
        raise ValueError(f"Invalid axis: {axis}; must be in [{-rank},{rank})")
    if axis < 0:
        axis += rank
    _with_value(dims[axis], len(op._outputs))
    out = shape_lib.TensorShape(dims[:axis] + dims[axis + 1:])
    return [out] * len(op._outputs)


def _where_shape(op: ops_lib.Operation) -> list:
    rank = op._inputs[0].shape.ndims
    return [shape_lib.TensorShape([None, rank])]


def _squeeze_shape(op: ops_lib.Operation) -> list:
    dims = _dims(op._inputs[0].shape)
    if dims is None:
        return [shape_lib.unknown_shape()]
    rank = len(dims)
    axes = []
    for a in op._attrs["squeeze_dims"].list.i:
        if not -rank <= a < rank:
            raise ValueError(f"squeeze_dims[{len(axes)}] not in [{-rank},{rank}).")
        axes.append(a + rank if a < 0 else a)
    out = []
    for i, d in enumerate(dims):
        if axes:
            if i in axes:
                if d is not None and d != 1:
                    raise ValueError(f"Can not squeeze dim[{i}], expected a dimension of 1, "
                                     f"got {d}")
                continue
            out.append(d)
        else:
            if d is None:
                return [shape_lib.unknown_shape()]
            if d != 1:
                out.append(d)
    return [shape_lib.TensorShape(out)]


def _gather_shape(op: ops_lib.Operation) -> list:
    params = _with_rank_at_least(_dims(op._inputs[0].shape), 1)
    indices = _dims(op._inputs[1].shape)
    _with_rank(_dims(op._inputs[2].shape), 0)
    batch_dims = op._attrs["batch_dims"].i
    axis = _scalar(op._inputs[2])
    if axis is None:
        if params is not None and indices is not None:
            return [shape_lib.unknown_shape(rank=len(params) + len(indices) - 1 - batch_dims)]
        return [shape_lib.unknown_shape()]
    _with_rank_at_least(params, -axis if axis < 0 else axis + 1)
    _with_rank_at_least(indices, abs(batch_dims))
    if batch_dims < 0 and indices is not None:
        batch_dims += len(indices)
    _with_rank_at_least(params, batch_dims + 1)
    if params is None or indices is None:
        return [shape_lib.unknown_shape()]
    if axis < 0:
        axis += len(params)
    return [shape_lib.TensorShape(params[:axis] + indices[batch_dims:] + params[axis + 1:])]


def _reshape_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    out = _shape_tensor_dims(op._inputs[1])
    if out is None:
        return [shape_lib.unknown_shape()]
    num_in = None
    if in_dims is not None and all(d is not None for d in in_dims):
        num_in = int(np.prod(in_dims, dtype=np.int64))
    if all(d is not None for d in out):
        num_out = int(np.prod(out, dtype=np.int64))
        if num_in is not None and num_in != num_out:
            raise ValueError(f"Cannot reshape a tensor with {num_in} elements to shape "
                             f"{_dbg(out)} ({num_out} elements)")
        return [shape_lib.TensorShape(out)]
    if num_in is not None:
        unknown = [i for i, d in enumerate(out) if d is None]
        known = int(np.prod([d for d in out if d is not None], dtype=np.int64))
        if len(unknown) == 1 and known != 0:
            out = list(out)
            out[unknown[0]] = _divide_dim(num_in, known)
    return [shape_lib.TensorShape(out)]


def _transpose_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    perm_dims = _with_rank(_dims(op._inputs[1].shape), 1)
    perm = _const(op._inputs[1])
    if in_dims is not None:
        rank = len(in_dims)
    elif perm_dims[0] is not None:
        rank = perm_dims[0]
    elif perm is not None:
        rank = perm.size
    else:
        return [shape_lib.unknown_shape()]
    if in_dims is None and rank < 2:
        return [shape_lib.unknown_shape() if in_dims is None else op._inputs[0].shape]
    in_dims = _with_rank(in_dims, rank)
    _with_value(perm_dims[0], rank)
    if perm is None:
        return [shape_lib.unknown_shape(rank=rank)]
    out = []
    for p in np.asarray(perm).reshape(-1).tolist():
        if p >= rank or p < -rank:
            raise ValueError(f"perm dim {p} is out of range of input rank {rank}")
        out.append(in_dims[p])
    return [shape_lib.TensorShape(out)]


def _invert_permutation_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape(_with_rank(_dims(op._inputs[0].shape), 1))]


def _expand_dims_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    dim = _const(op._inputs[1])
    if dim is not None and np.size(dim) != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    if dim is None or in_dims is None:
        return [shape_lib.unknown_shape()]
    d = int(np.asarray(dim).reshape(-1)[0])
    rank = len(in_dims)
    if d < -1 - rank or d > rank:
        raise ValueError(f"dim {d} not in the interval [{-1 - rank}, {rank}].")
    if d < 0:
        d += rank + 1
    return [shape_lib.TensorShape(in_dims[:d] + [1] + in_dims[d:])]


def _concat_shape(op: ops_lib.Operation) -> list:
    values = op._inputs[:-1]
    axis_t = op._inputs[-1]
    _with_rank(_dims(axis_t.shape), 0)
    all_dims = [_dims(v.shape) for v in values]
    rank = next((len(d) for d in all_dims if d is not None), None)
    if rank is not None:
        for d in all_dims:
            _with_rank(d, rank)
    axis = _scalar(axis_t)
    if axis is None:
        if rank is None:
            return [shape_lib.unknown_shape()]
        if rank == 0:
            raise ValueError("Can't concatenate scalars (use tf.stack instead)")
        return [shape_lib.unknown_shape(rank=rank)]
    min_rank = -axis if axis < 0 else axis + 1
    for d in reversed(all_dims):
        _with_rank_at_least(d, min_rank)
    if rank is None:
        return [shape_lib.unknown_shape()]
    if axis < 0:
        axis += rank
    last = all_dims[-1]
    before, middle, after = last[:axis], last[axis], last[axis + 1:]
    for d in reversed(all_dims[:-1]):
        before = _merge_dims(d[:axis], before)
        middle = _add_dims(middle, d[axis])
        after = _merge_dims(d[axis + 1:], after)
    return [shape_lib.TensorShape(before + [middle] + after)]


def _concat_offset_shape(op: ops_lib.Operation) -> list:
    _with_rank(_dims(op._inputs[0].shape), 0)
    return [t.shape for t in op._inputs[1:]]


def _split_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[1].shape)
    axis = _axis_input(op._inputs[0], 0, None if in_dims is None else len(in_dims))
    n = len(op._outputs)
    if axis is None:
        out = _shape(None if in_dims is None else [None] * len(in_dims))
    else:
        _with_rank_at_least(in_dims, axis + 1)
        if in_dims is None:
            out = shape_lib.unknown_shape()
        else:
            try:
                size = _divide_dim(in_dims[axis], n)
            except ValueError as e:
                raise ValueError(f"{e}\n\tNumber of ways to split should evenly divide the "
                                 "split dimension") from None
            out = shape_lib.TensorShape(in_dims[:axis] + [size] + in_dims[axis + 1:])
    return [out] * n


def _split_v_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    rank = None if in_dims is None else len(in_dims)
    axis = _axis_input(op._inputs[2], 2, rank)
    n = len(op._outputs)
    sizes = _const(op._inputs[1])
    if in_dims is None:
        return [shape_lib.unknown_shape()] * n
    if rank == 0:
        raise ValueError("Can't split scalars")
    if sizes is None:
        if axis is None:
            return [shape_lib.unknown_shape(rank=rank)] * n
        out = list(in_dims)
        out[axis] = None
        return [shape_lib.TensorShape(out)] * n
    if axis is None:
        return [shape_lib.unknown_shape(rank=rank)] * n
    data = np.asarray(sizes).reshape(-1).tolist()
    if len(data) != n:
        raise ValueError("Length of size_splits should be equal to num_outputs")
    total, has_neg = 0, False
    for s in data:
        if s == -1:
            if has_neg:
                raise ValueError("size_splits can only have one -1")
            has_neg = True
        else:
            total += s
    dim = in_dims[axis]
    shapes = []
    for i, s in enumerate(data):
        if s == -1 and dim is not None:
            s = dim - total
        if s < -1 or (s == -1 and dim is not None):
            raise ValueError(f"Split size at index {i} must be >= 0. Got: {s}")
        out = list(in_dims)
        out[axis] = None if s == -1 else s
        shapes.append(shape_lib.TensorShape(out))
    if dim is not None and (total > dim if has_neg else total != dim):
        raise ValueError(f"can't split axis of size {dim} into pieces of size "
                         f"[{','.join(str(s) for s in data)}]")
    return shapes


def _slice_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    begin_shape = _with_rank(_dims(op._inputs[1].shape), 1)
    size_shape = _with_rank(_dims(op._inputs[2].shape), 1)
    begin_shape = _merge_dims(begin_shape, size_shape)
    if begin_shape[0] is not None:
        in_dims = _with_rank(in_dims, begin_shape[0])
    begin = _const(op._inputs[1])
    begin_vals = None if begin is None else np.asarray(begin).reshape(-1).tolist()
    sizes = _const(op._inputs[2])
    if sizes is not None:
        sizes = np.asarray(sizes).reshape(-1).tolist()
        if begin_vals is not None and len(begin_vals) != len(sizes):
            raise ValueError(f"Shape must be rank {len(sizes)} but is rank {len(begin_vals)}")
        out = []
        for i, s in enumerate(sizes):
            if s == -1:
                dim = None if in_dims is None else in_dims[i]
                b = None if begin_vals is None else begin_vals[i]
                if dim is None or b is None:
                    out.append(None)
                else:
                    if dim - b < 0:
                        raise ValueError(f"Negative dimension size caused by subtracting {b} "
                                         f"from {dim}")
                    out.append(dim - b)
            else:
                if s < 0:
                    raise ValueError(f"Dimension size must be non-negative but is {s}")
                out.append(s)
        return [shape_lib.TensorShape(out)]
    sizes_dims = _partial_shape_value(op._inputs[2])
    if sizes_dims is not None:
        return [shape_lib.TensorShape(sizes_dims)]
    return [_shape(None if in_dims is None else [None] * len(in_dims))]


def _strided_slice_shape(op: ops_lib.Operation) -> list:
    from graphcore.kernels import array_kernels

    in_dims = _dims(op._inputs[0].shape)
    vec = None
    for t in op._inputs[1:4]:
        vec = _merge_dims(_with_rank(_dims(t.shape), 1), vec)
    strides = _const(op._inputs[3])
    if in_dims is None or vec[0] is None or strides is None:
        return [shape_lib.unknown_shape()]
    begin, end = _const(op._inputs[1]), _const(op._inputs[2])
    a = op._attrs
    masks = [a[k].i for k in ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
                              "shrink_axis_mask")]
    _, _, final = array_kernels.strided_slice_spec(
        in_dims, None if begin is None else np.asarray(begin).reshape(-1).tolist(),
        None if end is None else np.asarray(end).reshape(-1).tolist(),
        np.asarray(strides).reshape(-1).tolist(), *masks)
    return [shape_lib.TensorShape(final)]


def _strided_slice_grad_shape(op: ops_lib.Operation) -> list:
    return [_shape(_shape_tensor_dims(op._inputs[0]))]


def _tile_shape(op: ops_lib.Operation) -> list:
    in_dims = _dims(op._inputs[0].shape)
    multiples = _shape_tensor_dims(op._inputs[1])
    if in_dims is not None:
        multiples = _with_rank(multiples, len(in_dims))
        _merge_dims(_dims(op._inputs[1].shape), [len(in_dims)])
    if multiples is None:
        return [shape_lib.unknown_shape()]
    in_dims = _with_rank(in_dims, len(multiples))
    return [shape_lib.TensorShape([_mul_dims(d, m) for d, m in zip(in_dims, multiples)])]


def _pad_shape(op: ops_lib.Operation) -> list:
    pad_dims = _with_rank(_dims(op._inputs[1].shape), 2)
    _with_value(pad_dims[1], 2)
    in_dims = _dims(op._inputs[0].shape)
    n = pad_dims[0]
    if n is not None:
        in_dims = _with_rank(in_dims, n)
    elif in_dims is not None:
        n = len(in_dims)
    paddings = _const(op._inputs[1])
    if paddings is None:
        return [_shape(None if n is None else [None] * n)]
    paddings = np.asarray(paddings).reshape(-1, 2).tolist()
    in_dims = _with_rank(in_dims, len(paddings))
    out = []
    for d, (p0, p1) in zip(in_dims, paddings):
        if p0 < 0 or p1 < 0:
            raise ValueError("Paddings must be non-negative")
        out.append(_add_dims(d, p0 + p1))
    return [shape_lib.TensorShape(out)]


def _pad_v2_shape(op: ops_lib.Operation) -> list:
    _with_rank(_dims(op._inputs[2].shape), 0)
    return _pad_shape(op)


def _mirror_pad_shape(op: ops_lib.Operation) -> list:
    shapes = _pad_shape(op)
    paddings, in_dims = _const(op._inputs[1]), _dims(op._inputs[0].shape)
    if paddings is not None and in_dims is not None:
        offset = 0 if op._attrs["mode"].s == b"SYMMETRIC" else 1
        for d, (p0, p1) in zip(in_dims, np.asarray(paddings).reshape(-1, 2).tolist()):
            if d is not None and (p0 > d - offset or p1 > d - offset):
                raise ValueError(f"Paddings must be no greater than the dimension size: {p0}, "
                                 f"{p1} greater than {d - offset}")
    return shapes


def _fill_shape(op: ops_lib.Operation) -> list:
    _with_rank(_dims(op._inputs[0].shape), 1)
    _with_rank(_dims(op._inputs[1].shape), 0)
    dims = _const(op._inputs[0])
    if dims is not None and (np.asarray(dims) < 0).any():
        raise ValueError("Fill dimensions must be >= 0")
    return [_shape(_shape_tensor_dims(op._inputs[0]))]


def _one_hot_shape(op: ops_lib.Operation) -> list:
    axis = op._attrs["axis"].i
    if axis < -1:
        raise ValueError("axis must be >= -1")
    depth = _scalar_dim_input(op._inputs[1], 1)
    indices = _dims(op._inputs[0].shape)
    if indices is None:
        return [shape_lib.unknown_shape()]
    new_rank = len(indices) + 1
    at = (axis + new_rank) % new_rank
    return [shape_lib.TensorShape(indices[:at] + [depth] + indices[at:])]


def _shape_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([t.shape.ndims]) for t in op._inputs]


def _identity_n_shape(op: ops_lib.Operation) -> list:
    return [t.shape for t in op._inputs]


def _unsorted_segment_shape(op: ops_lib.Operation) -> list:
    data = _dims(op._inputs[0].shape)
    ids = _dims(op._inputs[1].shape)
    _with_rank(_dims(op._inputs[2].shape), 0)
    if ids is None:
        return [shape_lib.unknown_shape()]
    if data is not None:
        _with_rank_at_least(data, len(ids))
        ids = _merge_dims(data[:len(ids)], ids)
    num = _scalar_dim_input(op._inputs[2], 2)
    if data is None:
        return [shape_lib.unknown_shape()]
    return [shape_lib.TensorShape([num] + data[len(ids):])]


_INDEX = "{int32, int64}"
_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _with_masks(builder: op_registry.OpBuilder) -> op_registry.OpBuilder:
    for m in _MASKS:
        builder = builder.attr(f"{m}: int = 0")
    return builder


op_registry.register_op("Pack").input("values: N * T").output("output: T") \
    .attr("N: int >= 1").attr("T: type").attr("axis: int = 0").shape_fn(_pack_shape)

op_registry.register_op("Unpack").input("value: T").output("output: num * T") \
    .attr("num: int >= 0").attr("T: type").attr("axis: int = 0").shape_fn(_unpack_shape)

op_registry.register_op("Where").input("input: T").output("index: int64") \
    .attr("T: {numbertype, bool} = DT_BOOL").shape_fn(_where_shape)

op_registry.register_op("Squeeze").input("input: T").output("output: T").attr("T: type") \
    .attr("squeeze_dims: list(int) >= 0 = []").shape_fn(_squeeze_shape)

op_registry.register_op("GatherV2").input("params: Tparams").input("indices: Tindices") \
    .input("axis: Taxis").output("output: Tparams").attr("batch_dims: int = 0") \
    .attr("Tparams: type").attr("Tindices: {int16, int32, int64}") \
    .attr("Taxis: {int32, int64}").shape_fn(_gather_shape)

op_registry.register_op("Reshape").input("tensor: T").input("shape: Tshape") \
    .output("output: T").attr("T: type").attr(f"Tshape: {_INDEX} = DT_INT32") \
    .shape_fn(_reshape_shape)

op_registry.register_op("Transpose").input("x: T").input("perm: Tperm").output("y: T") \
    .attr("T: type").attr(f"Tperm: {_INDEX} = DT_INT32").shape_fn(_transpose_shape)

op_registry.register_op("InvertPermutation").input("x: T").output("y: T") \
    .attr(f"T: {_INDEX} = DT_INT32").shape_fn(_invert_permutation_shape)

op_registry.register_op("ExpandDims").input("input: T").input("dim: Tdim") \
    .output("output: T").attr("T: type").attr(f"Tdim: {_INDEX} = DT_INT32") \
    .shape_fn(_expand_dims_shape)

op_registry.register_op("ConcatV2").input("values: N * T").input("axis: Tidx") \
    .output("output: T").attr("N: int >= 2").attr("T: type") \
    .attr(f"Tidx: {_INDEX} = DT_INT32").shape_fn(_concat_shape)

op_registry.register_op("ConcatOffset").input("concat_dim: int32") \
    .input("shape: N * shape_type").output("offset: N * shape_type").attr("N: int >= 2") \
    .attr(f"shape_type: {_INDEX} = DT_INT32").shape_fn(_concat_offset_shape)

op_registry.register_op("Split").input("split_dim: int32").input("value: T") \
    .output("output: num_split * T").attr("num_split: int >= 1").attr("T: type") \
    .shape_fn(_split_shape)

op_registry.register_op("SplitV").input("value: T").input("size_splits: Tlen") \
    .input("split_dim: int32").output("output: num_split * T").attr("num_split: int >= 1") \
    .attr("T: type").attr("Tlen: {int8, int32, int64} = DT_INT64").shape_fn(_split_v_shape)

op_registry.register_op("Slice").input("input: T").input("begin: Index").input("size: Index") \
    .output("output: T").attr("T: type").attr(f"Index: {_INDEX}").shape_fn(_slice_shape)

_with_masks(op_registry.register_op("StridedSlice").input("input: T").input("begin: Index")
            .input("end: Index").input("strides: Index").output("output: T").attr("T: type")
            .attr("Index: {int16, int32, int64}")).shape_fn(_strided_slice_shape)

_with_masks(op_registry.register_op("StridedSliceGrad").input("shape: Index")
            .input("begin: Index").input("end: Index").input("strides: Index").input("dy: T")
            .output("output: T").attr("T: type").attr(f"Index: {_INDEX}")) \
    .shape_fn(_strided_slice_grad_shape)

op_registry.register_op("Tile").input("input: T").input("multiples: Tmultiples") \
    .output("output: T").attr("T: type").attr(f"Tmultiples: {_INDEX} = DT_INT32") \
    .shape_fn(_tile_shape)

op_registry.register_op("Pad").input("input: T").input("paddings: Tpaddings") \
    .output("output: T").attr("T: type").attr(f"Tpaddings: {_INDEX} = DT_INT32") \
    .shape_fn(_pad_shape)

op_registry.register_op("PadV2").input("input: T").input("paddings: Tpaddings") \
    .input("constant_values: T").output("output: T").attr("T: type") \
    .attr(f"Tpaddings: {_INDEX} = DT_INT32").shape_fn(_pad_v2_shape)

op_registry.register_op("MirrorPad").input("input: T").input("paddings: Tpaddings") \
    .output("output: T").attr("T: type").attr(f"Tpaddings: {_INDEX} = DT_INT32") \
    .attr("mode: {'REFLECT', 'SYMMETRIC'}").shape_fn(_mirror_pad_shape)

op_registry.register_op("ReverseV2").input("tensor: T").input("axis: Tidx") \
    .output("output: T").attr(f"Tidx: {_INDEX} = DT_INT32") \
    .attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, "
          "half, float, double, complex64, complex128, string}") \
    .shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("Fill").input("dims: index_type").input("value: T") \
    .output("output: T").attr("T: type").attr(f"index_type: {_INDEX} = DT_INT32") \
    .shape_fn(_fill_shape)

op_registry.register_op("ZerosLike").input("x: T").output("y: T").attr("T: type") \
    .shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("OnesLike").input("x: T").output("y: T") \
    .attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, "
          "int64, uint64, complex64, complex128, bool}") \
    .shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("OneHot").input("indices: TI").input("depth: int32") \
    .input("on_value: T").input("off_value: T").output("output: T").attr("axis: int = -1") \
    .attr("T: type").attr("TI: {uint8, int8, int32, int64} = DT_INT64") \
    .shape_fn(_one_hot_shape)

op_registry.register_op("Shape").input("input: T").output("output: out_type") \
    .attr("T: type").attr(f"out_type: {_INDEX} = DT_INT32").shape_fn(_shape_shape)

op_registry.register_op("ShapeN").input("input: N * T").output("output: N * out_type") \
    .attr("N: int >= 1").attr("T: type").attr(f"out_type: {_INDEX} = DT_INT32") \
    .shape_fn(_shape_shape)

op_registry.register_op("Size").input("input: T").output("output: out_type") \
    .attr("T: type").attr(f"out_type: {_INDEX} = DT_INT32").shape_fn(common_shapes.scalar_shape)

op_registry.register_op("Rank").input("input: T").output("output: int32").attr("T: type") \
    .shape_fn(common_shapes.scalar_shape)

op_registry.register_op("IdentityN").input("input: T").output("output: T") \
    .attr("T: list(type) >= 1").shape_fn(_identity_n_shape)

op_registry.register_op("StopGradient").input("input: T").output("output: T").attr("T: type") \
    .shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("PreventGradient").input("input: T").output("output: T") \
    .attr("T: type").attr("message: string = ''").shape_fn(common_shapes.unchanged_shape)

op_registry.register_op("UnsortedSegmentSum").input("data: T").input("segment_ids: Tindices") \
    .input("num_segments: Tnumsegments").output("output: T").attr("T: numbertype") \
    .attr("Tindices: {int16, int32, int64}").attr(f"Tnumsegments: {_INDEX} = DT_INT32") \
    .shape_fn(_unsorted_segment_shape)


# -- conversions: TensorShape/Dimension to tensors, lists of tensors auto-packed ----------

def _tensor_shape_conversion(s: Any, dtype: Any = None, name: str | None = None,
                             as_ref: bool = False) -> ops_lib.Tensor:
    """TF's TensorShape -> Tensor conversion (int64 only when a dimension needs it)."""
    del as_ref
    if not s.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {s} to a Tensor.")
    dims = s.as_list()
    big = next((d for d in dims if d >= 2**31), 0)
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            raise TypeError(f"Cannot convert TensorShape {s} to dtype {dtype}. Allowed dtypes "
                            "are tf.int32 and tf.int64.")
        if dtype == dtypes_lib.int32 and big:
            raise ValueError(f"Cannot convert TensorShape {s} to dtype int32; a dimension is "
                             "too large. Consider using tf.int64.")
    else:
        dtype = dtypes_lib.int64 if big else dtypes_lib.int32
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


def _dimension_conversion(d: Any, dtype: Any = None, name: str | None = None,
                          as_ref: bool = False) -> ops_lib.Tensor:
    del as_ref
    if d.value is None:
        raise ValueError(f"Cannot convert unknown Dimension {d} to a Tensor.")
    if dtype is not None:
        dtype = dtypes_lib.as_dtype(dtype)
        if dtype not in (dtypes_lib.int32, dtypes_lib.int64):
            raise TypeError(f"Cannot convert Dimension {d} to dtype {dtype}. Allowed dtypes are "
                            "tf.int32 and tf.int64.")
    else:
        dtype = dtypes_lib.int32
    return constant(d.value, dtype=dtype, name=name or "dimension_as_tensor")


tensor_conversion.register_tensor_conversion_function(shape_lib.TensorShape,
                                                      _tensor_shape_conversion, 100)
tensor_conversion.register_tensor_conversion_function(shape_lib.Dimension,
                                                      _dimension_conversion, 100)


def _is_tensor_like(x: Any) -> bool:
    return isinstance(x, ops_lib.Tensor) or (hasattr(x, "_as_graph_element")
                                             and hasattr(x, "dtype"))


def _nested_dtype(values: Any) -> Any:
    for v in values:
        if _is_tensor_like(v):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            d = _nested_dtype(v)
            if d is not None:
                return d
    return None


def _autopack(values: Any, dtype: Any, name: str) -> Any:
    must_pack = False
    converted = []
    with ops_lib.name_scope(name) as scope:
        for i, elem in enumerate(values):
            if _is_tensor_like(elem):
                if dtype is not None and elem.dtype.base_dtype != dtype:
                    raise TypeError(f"Cannot convert a list containing a tensor of dtype "
                                    f"{elem.dtype} to {dtype} (Tensor is: {elem!r})")
                converted.append(elem)
                must_pack = True
            elif isinstance(elem, (list, tuple)):
                sub = _autopack(elem, dtype, str(i))
                if isinstance(sub, ops_lib.Tensor):
                    must_pack = True
                converted.append(sub)
            else:
                converted.append(elem)
        if not must_pack:
            return converted
        tensors = [e if isinstance(e, ops_lib.Tensor) or _is_tensor_like(e)
                   else constant(e, dtype=dtype, name=str(i)) for i, e in enumerate(converted)]
        return apply_op("Pack", name=scope, values=tensors).outputs[0]


def _autopacking_conversion(v: Any, dtype: Any = None, name: str | None = None,
                            as_ref: bool = False) -> Any:
    """TF's conversion of a (nested) list holding tensors: a Pack op named 'packed'."""
    if as_ref:
        return NotImplemented
    inferred = _nested_dtype(v)
    if inferred is None:
        return NotImplemented
    if dtype is not None and dtypes_lib.as_dtype(dtype).base_dtype != inferred:
        return NotImplemented
    return _autopack(v, inferred, name or "packed")


tensor_conversion.register_tensor_conversion_function((list, tuple), _autopacking_conversion,
                                                      99)


# -- wrappers ------------------------------------------------------------------------------

def _to_tensor(value: Any, name: str, **kwargs: Any) -> ops_lib.Tensor:
    return tensor_conversion.convert_to_tensor(value, name=name, **kwargs)


def stack(values: list, axis: int = 0, name: str = "stack") -> ops_lib.Tensor:
    """Packs a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if axis == 0:
        try:
            return tensor_conversion.convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass
    first = tensor_conversion.convert_to_tensor(values[0], name=name)
    if first.shape.ndims is not None:
        n = first.shape.ndims + 1
        if axis < -n or axis >= n:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-n}, {n})")
    return apply_op("Pack", name=name, values=list(values), axis=axis).outputs[0]


def unstack(value: Any, num: int | None = None, axis: int = 0,
            name: str = "unstack") -> list:
    """Unpacks dimension ``axis`` of ``value`` into a list of ``num`` tensors."""
    if num is None:
        value = tensor_conversion.convert_to_tensor(value)
        shape = value.shape
        if shape.ndims is not None:
            if axis < -shape.ndims or axis >= shape.ndims:
                raise ValueError(f"Argument `axis` = {axis} not in range [{-shape.ndims}, "
                                 f"{shape.ndims})")
            num = shape.as_list()[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {shape}")
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis).outputs


def where(condition: Any, x: Any = None, y: Any = None, name: str | None = None):
    """TF1 ``tf.where``: coordinates of true elements (int64, [num_true, rank]) or, with
    ``x`` and ``y``, a Select between them."""
    if x is None and y is None:
        with ops_lib.name_scope(name, "Where", [condition]) as scope:
            condition = _to_tensor(condition, "condition", preferred_dtype=dtypes_lib.bool)
            return apply_op("Where", name=scope, input=condition).outputs[0]
    if x is not None and y is not None:
        if op_registry.lookup("Select") is None:
            raise NotImplementedError("where(condition, x, y) needs the Select op")
        return apply_op("Select", name=name, condition=condition, t=x, e=y).outputs[0]
    raise ValueError("x and y must both be non-None or both be None.")


def squeeze(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
            squeeze_dims: Any = None) -> ops_lib.Tensor:
    """Removes size-1 dimensions (only those in ``axis`` when given)."""
    if axis is not None and squeeze_dims is not None:
        raise ValueError("Cannot specify both 'axis' and 'squeeze_dims'.")
    axis = squeeze_dims if axis is None else axis
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input,
                    squeeze_dims=[int(a) for a in (axis or [])]).outputs[0]


def gather(params: Any, indices: Any, validate_indices: Any = None, name: str | None = None,
           axis: Any = None, batch_dims: int = 0) -> ops_lib.Tensor:
    """Slices of ``params`` at ``indices`` along ``axis`` (default ``batch_dims``)."""
    del validate_indices
    if axis is None:
        axis = batch_dims
    if hasattr(params, "_as_graph_element") and hasattr(params, "value"):
        params = params.value()
    return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis,
                    batch_dims=batch_dims).outputs[0]


def _math_op(op_type: str, name: str, **kwargs: Any) -> ops_lib.Tensor:
    """An op the math engineer registers (Prod, Max, Range...), by its TF op type."""
    if op_registry.lookup(op_type) is None:
        raise NotImplementedError(f"This needs the {op_type} op, which is not registered yet")
    return apply_op(op_type, name=name, **kwargs).outputs[0]


def boolean_mask(tensor: Any, mask: Any, name: str = "boolean_mask",
                 axis: Any = None) -> ops_lib.Tensor:
    """The slices of ``tensor`` (from ``axis`` on) where the K-D ``mask`` is true."""
    with ops_lib.name_scope(name, values=[tensor, mask]):
        tensor = tensor_conversion.convert_to_tensor(tensor, name="tensor")
        mask = tensor_conversion.convert_to_tensor(mask, name="mask")
        shape_mask = mask.shape
        ndims_mask = shape_mask.ndims
        shape_tensor = tensor.shape
        if ndims_mask == 0:
            raise ValueError("mask cannot be scalar.")
        if ndims_mask is None:
            raise ValueError("Number of mask dimensions must be specified, even if some "
                             "dimensions are None.  E.g. shape=[None] is ok, but shape=None "
                             "is not.")
        axis = 0 if axis is None else axis
        axis_value = axis if isinstance(axis, int) else tensor_util.constant_value(axis)
        if axis_value is not None:
            axis = int(axis_value)
            if shape_tensor.ndims is not None:
                shape_tensor[axis:axis + ndims_mask].assert_is_compatible_with(shape_mask)
        leading = shape(tensor)[axis:axis + ndims_mask]
        if op_registry.lookup("Prod") is not None:
            leading_size = _math_op("Prod", "Prod", input=leading, reduction_indices=[0],
                                    keep_dims=False)
        else:
            dims = tensor_util.constant_value(leading)
            if dims is None:
                raise NotImplementedError("boolean_mask of a dynamic shape needs the Prod op")
            leading_size = constant(int(np.prod(dims)), dtype=leading.dtype, name="Prod")
        tensor = reshape(tensor, concat([shape(tensor)[:axis], [leading_size],
                                         shape(tensor)[axis + ndims_mask:]], 0))
        if axis_value is not None and shape_tensor.ndims is not None:
            first = shape_tensor[axis:axis + ndims_mask].num_elements()
            tensor.set_shape(shape_lib.TensorShape(shape_tensor[:axis]).concatenate(
                [first]).concatenate(shape_tensor[axis + ndims_mask:]))
        mask = reshape(mask, [-1])
        indices = squeeze(where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def sequence_mask(lengths: Any, maxlen: Any = None, dtype: Any = dtypes_lib.bool,
                  name: str | None = None) -> ops_lib.Tensor:
    """mask[i..., j] = j < lengths[i...] (needs the math ops Range, Cast, Less)."""
    with ops_lib.name_scope(name, "SequenceMask", [lengths, maxlen]):
        lengths = tensor_conversion.convert_to_tensor(lengths)
        if maxlen is None:
            r = lengths.shape.ndims
            axes = np.arange(r, dtype=np.int32) if r is not None else _math_op(
                "Range", "range", start=0, limit=rank(lengths), delta=1)
            if r is not None:
                axes = constant(axes)
            maxlen = _math_op("Max", "Max", input=lengths, reduction_indices=axes,
                              keep_dims=False)
            maxlen = _math_op("Maximum", "Maximum", x=constant(0, dtype=maxlen.dtype),
                              y=maxlen)
        else:
            maxlen = tensor_conversion.convert_to_tensor(maxlen)
        if maxlen.shape.ndims is not None and maxlen.shape.ndims != 0:
            raise ValueError("Argument `maxlen` must be scalar for sequence_mask, received "
                             f"`maxlen` = {maxlen} with shape '{maxlen.shape}' instead")
        row_vector = _math_op("Range", "Range", start=constant(0, dtype=maxlen.dtype),
                              limit=maxlen, delta=constant(1, dtype=maxlen.dtype))
        matrix = _math_op("Cast", "Cast", x=expand_dims(lengths, -1), DstT=maxlen.dtype,
                          Truncate=False)
        result = _math_op("Less", "Less", x=row_vector, y=matrix)
        dtype = dtypes_lib.as_dtype(dtype) if dtype is not None else None
        if dtype is None or result.dtype.is_compatible_with(dtype):
            return result
        return _math_op("Cast", "Cast", x=result, DstT=dtype, Truncate=False)


def reshape(tensor: Any, shape: Any, name: str | None = None) -> ops_lib.Tensor:
    """``tensor``'s values in ``shape`` (one entry may be -1: inferred)."""
    return apply_op("Reshape", name=name, tensor=tensor, shape=shape).outputs[0]


def transpose(a: Any, perm: Any = None, name: str = "transpose",
              conjugate: bool = False) -> ops_lib.Tensor:
    """Permutes the dimensions of ``a`` (reverses them when ``perm`` is None)."""
    with ops_lib.name_scope(name, "transpose", [a]) as scope:
        if not isinstance(a, ops_lib.Tensor):
            a = _to_tensor(a, "a")
        if conjugate and a.dtype.is_complex:
            raise NotImplementedError("conjugate transpose is not supported yet")
        if perm is None:
            r = a.shape.ndims
            if r is None:
                from graphcore.ops import math_ops

                perm = math_ops.range(rank(a) - 1, -1, -1)
            else:
                perm = np.arange(r - 1, -1, -1, dtype=np.int32)
        return apply_op("Transpose", name=scope, x=a, perm=perm).outputs[0]


def invert_permutation(x: Any, name: str | None = None) -> ops_lib.Tensor:
    return apply_op("InvertPermutation", name=name, x=x).outputs[0]


def expand_dims(input: Any, axis: Any = None, name: str | None = None,  # noqa: A002
                dim: Any = None) -> ops_lib.Tensor:
    """Inserts a size-1 dimension at ``axis`` (TF1's ``dim`` alias accepted)."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'axis' and 'dim'")
    axis = dim if axis is None else axis
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", name=name, input=input, dim=axis).outputs[0]


def concat(values: Any, axis: Any, name: str = "concat") -> ops_lib.Tensor:
    """Concatenates ``values`` along ``axis``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with ops_lib.name_scope(name) as scope:
            t = _to_tensor(axis, "concat_dim", dtype=dtypes_lib.int32)
            t.shape.assert_has_rank(0)
            del scope
            return identity(values[0], name=name)
    with ops_lib.name_scope(name, "concat", list(values)) as scope:
        # TF names converted list elements values_0, values_1... (a list holding tensors
        # becomes a Pack of that name)
        dtype = next((v.dtype.base_dtype for v in values if _is_tensor_like(v)), None)
        values = [v if isinstance(v, ops_lib.Tensor)
                  else tensor_conversion.convert_to_tensor(v, dtype=dtype, name=f"values_{i}")
                  for i, v in enumerate(values)]
        return apply_op("ConcatV2", name=scope, values=values, axis=axis).outputs[0]


def split(value: Any, num_or_size_splits: Any, axis: Any = 0, num: int | None = None,
          name: str = "split") -> list:
    """Splits ``value`` along ``axis`` into equal parts (an int) or given sizes."""
    if isinstance(num_or_size_splits, (int, np.integer, shape_lib.Dimension)) and \
            not isinstance(num_or_size_splits, bool):
        return apply_op("Split", name=name, split_dim=axis, value=value,
                        num_split=int(num_or_size_splits)).outputs
    size_splits = tensor_conversion.convert_to_tensor(num_or_size_splits)
    if size_splits.shape.ndims == 0:
        raise ValueError("Rank-0 tensors are not supported as the num_or_size_splits argument "
                         f"to split. Argument provided: {num_or_size_splits}")
    if num is None:
        dims = _dims(size_splits.shape)
        if dims:
            num = dims[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return apply_op("SplitV", name=name, value=value, size_splits=size_splits, split_dim=axis,
                    num_split=num).outputs


def slice(input_: Any, begin: Any, size: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A001
    """The ``size``-sized block of ``input_`` starting at ``begin`` (size -1: to the end)."""
    return apply_op("Slice", name=name, input=input_, begin=begin, size=size).outputs[0]


def strided_slice(input_: Any, begin: Any, end: Any, strides: Any = None, begin_mask: int = 0,
                  end_mask: int = 0, ellipsis_mask: int = 0, new_axis_mask: int = 0,
                  shrink_axis_mask: int = 0, var: Any = None,
                  name: str | None = None) -> ops_lib.Tensor:
    """numpy-style strided slicing with TF's mask attributes."""
    del var
    if strides is None:
        strides = ones_like(begin)
    return apply_op("StridedSlice", name=name, input=input_, begin=begin, end=end,
                    strides=strides, begin_mask=begin_mask, end_mask=end_mask,
                    ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                    shrink_axis_mask=shrink_axis_mask).outputs[0]


def strided_slice_grad(shape: Any, begin: Any, end: Any, strides: Any, dy: Any,
                       begin_mask: int = 0, end_mask: int = 0, ellipsis_mask: int = 0,
                       new_axis_mask: int = 0, shrink_axis_mask: int = 0,
                       name: str | None = None) -> ops_lib.Tensor:
    return apply_op("StridedSliceGrad", name=name, shape=shape, begin=begin, end=end,
                    strides=strides, dy=dy, begin_mask=begin_mask, end_mask=end_mask,
                    ellipsis_mask=ellipsis_mask, new_axis_mask=new_axis_mask,
                    shrink_axis_mask=shrink_axis_mask).outputs[0]


_SLICE_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "scalar tf.int32/tf.int64 tensors are valid indices")
_SLICE_DTYPES = (dtypes_lib.int16, dtypes_lib.int32, dtypes_lib.int64)


def _check_index(idx: Any) -> None:
    if isinstance(idx, (int, np.integer, shape_lib.Dimension)) and not isinstance(idx, bool):
        return
    dtype = getattr(idx, "dtype", None)
    if (dtype is None or dtypes_lib.as_dtype(dtype).base_dtype not in _SLICE_DTYPES
            or (getattr(idx, "shape", None) is not None and len(idx.shape or ()) == 1)):
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _is_undefined_dimension(d: Any) -> bool:
    return isinstance(d, shape_lib.Dimension) and d.value is None


def _cast(x: ops_lib.Tensor, dtype: dtypes_lib.DType) -> ops_lib.Tensor:
    return apply_op("Cast", x=x, DstT=dtype, Truncate=False).outputs[0]


def _slice_helper(tensor: Any, slice_spec: Any) -> ops_lib.Tensor:
    """``Tensor.__getitem__``: basic numpy indexing as one StridedSlice op."""
    tensor = tensor_conversion.convert_to_tensor(tensor)
    if (isinstance(slice_spec, bool)
            or (isinstance(slice_spec, ops_lib.Tensor) and slice_spec.dtype == dtypes_lib.bool)
            or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)):
        return boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    begin, end, strides = [], [], []
    new_axis_mask = shrink_axis_mask = begin_mask = end_mask = ellipsis_mask = 0
    for index, s in enumerate(slice_spec):
        if isinstance(s, builtins.slice):
            dtype = None
            for t in (s.start, s.stop, s.step):
                if isinstance(t, ops_lib.Tensor):
                    if t.dtype == dtypes_lib.int64:
                        dtype = dtypes_lib.int64
                    elif t.dtype == dtypes_lib.int32 and dtype != dtypes_lib.int64:
                        dtype = dtypes_lib.int32
                    elif t.dtype == dtypes_lib.int16 and dtype is None:
                        dtype = dtypes_lib.int16
            if s.start is not None and not _is_undefined_dimension(s.start):
                _check_index(s.start)
                begin.append(s.start)
            else:
                begin.append(0 if dtype is None else constant(0, dtype=dtype))
                begin_mask |= 1 << index
            if s.stop is not None and not _is_undefined_dimension(s.stop):
                _check_index(s.stop)
                end.append(s.stop)
            else:
                end.append(0 if dtype is None else constant(0, dtype=dtype))
                end_mask |= 1 << index
            if s.step is not None and not _is_undefined_dimension(s.step):
                _check_index(s.step)
                strides.append(s.step)
            else:
                strides.append(1 if dtype is None else constant(1, dtype=dtype))
        elif s is Ellipsis:
            begin.append(0)
            end.append(0)
            strides.append(1)
            ellipsis_mask |= 1 << index
        elif s is None:
            begin.append(0)
            end.append(0)
            strides.append(1)
            new_axis_mask |= 1 << index
        else:
            _check_index(s)
            begin.append(s)
            end.append(s + 1)
            if isinstance(s, ops_lib.Tensor) and s.dtype in (dtypes_lib.int16, dtypes_lib.int64):
                strides.append(constant(1, dtype=s.dtype))
            else:
                strides.append(1)
            shrink_axis_mask |= 1 << index
    with ops_lib.name_scope(None, "strided_slice", [tensor] + begin + end + strides) as name:
        if begin:
            packed = [stack(begin), stack(end), stack(strides)]
            types = [p.dtype.base_dtype for p in packed]
            if dtypes_lib.int64 in types:
                packed = [p if p.dtype.base_dtype == dtypes_lib.int64
                          else _cast(p, dtypes_lib.int64) for p in packed]
        else:
            empty = constant([], dtype=dtypes_lib.int32)
            packed = [empty, empty, empty]
        return strided_slice(tensor, *packed, begin_mask=begin_mask, end_mask=end_mask,
                             shrink_axis_mask=shrink_axis_mask, new_axis_mask=new_axis_mask,
                             ellipsis_mask=ellipsis_mask, name=name)


ops_lib.Tensor._override_operator("__getitem__", _slice_helper)


def tile(input: Any, multiples: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` repeated ``multiples[i]`` times along each dimension i."""
    return apply_op("Tile", name=name, input=input, multiples=multiples).outputs[0]


def pad(tensor: Any, paddings: Any, mode: str = "CONSTANT", name: str | None = None,
        constant_values: Any = 0) -> ops_lib.Tensor:
    """Pads ``tensor`` by ``paddings`` ([rank, 2]); CONSTANT, REFLECT or SYMMETRIC."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if (not isinstance(constant_values, ops_lib.Tensor) and np.ndim(constant_values) == 0
                and constant_values == np.zeros_like(constant_values)):
            result = apply_op("Pad", name=name, input=tensor, paddings=paddings).outputs[0]
        else:
            result = apply_op("PadV2", name=name, input=tensor, paddings=paddings,
                              constant_values=constant_values).outputs[0]
    elif mode in ("REFLECT", "SYMMETRIC"):
        result = apply_op("MirrorPad", name=name, input=tensor, paddings=paddings,
                          mode=mode).outputs[0]
    else:
        raise ValueError('Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    return result


def reverse(tensor: Any, axis: Any, name: str | None = None) -> ops_lib.Tensor:
    """Reverses ``tensor`` along the dimensions in ``axis``."""
    return apply_op("ReverseV2", name=name, tensor=tensor, axis=axis).outputs[0]


reverse_v2 = reverse


def fill(dims: Any, value: Any, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of shape ``dims`` filled with the scalar ``value``."""
    return apply_op("Fill", name=name, dims=dims, value=value).outputs[0]


def _static_dims(shape: Any) -> list[int] | None:
    """Python ints of a shape given as list/tuple/TensorShape, or None."""
    if isinstance(shape, ops_lib.Tensor):
        return None
    if isinstance(shape, shape_lib.TensorShape):
        return shape.as_list() if shape.is_fully_defined() else None
    try:
        flat = np.asarray(shape)
    except Exception:
        return None
    if flat.dtype == object or flat.ndim > 1 or flat.dtype.kind not in "iu":
        if flat.size == 0 and flat.ndim == 1:
            return []
        return None
    return [int(d) for d in flat.reshape(-1)]


def _zeros_or_ones(shape: Any, dtype: Any, name: str | None, default: str,
                   one: bool) -> ops_lib.Tensor:
    dtype = dtypes_lib.as_dtype(dtype).base_dtype
    with ops_lib.name_scope(name, default, [shape]) as scope:
        if dtype == dtypes_lib.bool:
            value: Any = one
        elif dtype == dtypes_lib.string and not one:
            value = ""
        else:
            value = 1 if one else 0
        if not isinstance(shape, ops_lib.Tensor):
            dims = _static_dims(shape)
            if dims is not None and int(np.prod(dims, dtype=np.int64)) < 1000:
                return constant(value, shape=dims, dtype=dtype, name=scope)
            if dims is not None:
                shape = _tensor_shape_conversion(shape_lib.TensorShape(dims))
            else:
                shape = tensor_conversion.convert_to_tensor(shape, dtype=dtypes_lib.int32)
        if shape.shape.ndims == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def zeros(shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of ``shape`` with all elements zero (a Const when small, else Fill)."""
    return _zeros_or_ones(shape, dtype, name, "zeros", False)


def ones(shape: Any, dtype: Any = dtypes_lib.float32, name: str | None = None) -> ops_lib.Tensor:
    """A tensor of ``shape`` with all elements one (a Const when small, else Fill)."""
    return _zeros_or_ones(shape, dtype, name, "ones", True)


def _shape_internal(input: Any, name: str | None = None, optimize: bool = True,  # noqa: A002
                    out_type: Any = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "Shape", [input]) as scope:
        input = tensor_conversion.convert_to_tensor(input)
        s = input.shape
        if optimize and s.is_fully_defined():
            if out_type is None:
                return _tensor_shape_conversion(s)
            return constant(s.as_list(), dtype=out_type, name=scope)
        return apply_op("Shape", name=scope, input=input,
                        out_type=dtypes_lib.int32 if out_type is None else out_type).outputs[0]


def shape(input: Any, name: str | None = None,  # noqa: A002
          out_type: Any = dtypes_lib.int32) -> ops_lib.Tensor:
    """The shape of ``input`` as a 1-D tensor (a Const when statically known)."""
    return _shape_internal(input, name, optimize=True, out_type=out_type)


def shape_n(input: Any, out_type: Any = dtypes_lib.int32,  # noqa: A002
            name: str | None = None) -> list:
    return apply_op("ShapeN", name=name, input=list(input), out_type=out_type).outputs


def size(input: Any, name: str | None = None,  # noqa: A002
         out_type: Any = dtypes_lib.int32) -> ops_lib.Tensor:
    """The number of elements of ``input`` (a Const when statically known)."""
    with ops_lib.name_scope(name, "Size", [input]) as scope:
        input = tensor_conversion.convert_to_tensor(input)
        s = input.shape
        if s.is_fully_defined():
            return constant(s.num_elements(), dtype=out_type, name=scope)
        if s.ndims is not None and 0 in s.as_list():
            return constant(0, dtype=out_type, name=scope)
        return apply_op("Size", name=scope, input=input, out_type=out_type).outputs[0]


def rank(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """The rank of ``input`` (a Const when statically known)."""
    with ops_lib.name_scope(name, "Rank", [input]) as scope:
        input = tensor_conversion.convert_to_tensor(input)
        if input.shape.ndims is not None:
            return constant(input.shape.ndims, dtype=dtypes_lib.int32, name=scope)
        return apply_op("Rank", name=scope, input=input).outputs[0]


def zeros_like(tensor: Any, dtype: Any = None, name: str | None = None,
               optimize: bool = True) -> ops_lib.Tensor:
    """Zeros of ``tensor``'s shape (and dtype unless given)."""
    with ops_lib.name_scope(name, "zeros_like", [tensor]) as scope:
        if not isinstance(tensor, ops_lib.Tensor):
            tensor = _to_tensor(tensor, "tensor")
        if dtype is not None:
            dtype = dtypes_lib.as_dtype(dtype)
        if optimize and tensor.shape.is_fully_defined() and tensor.dtype != dtypes_lib.variant:
            return zeros(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
        if dtype is not None and dtype != tensor.dtype and dtype != dtypes_lib.variant:
            return zeros(_shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
        return apply_op("ZerosLike", name=scope, x=tensor).outputs[0]


def ones_like(tensor: Any, dtype: Any = None, name: str | None = None,
              optimize: bool = True) -> ops_lib.Tensor:
    """Ones of ``tensor``'s shape (and dtype unless given)."""
    with ops_lib.name_scope(name, "ones_like", [tensor]) as scope:
        tensor = _to_tensor(tensor, "tensor")
        ones_shape = _shape_internal(tensor, optimize=optimize)
        if dtype is None:
            dtype = tensor.dtype
        ret = ones(ones_shape, dtype=dtype, name=scope)
        ret.set_shape(tensor.shape)
        return ret


def one_hot(indices: Any, depth: Any, on_value: Any = None, off_value: Any = None,
            axis: Any = None, dtype: Any = None, name: str | None = None) -> ops_lib.Tensor:
    """One-hot vectors of length ``depth`` at ``indices`` (on/off values, new ``axis``)."""
    with ops_lib.name_scope(name, "one_hot",
                            [indices, depth, on_value, off_value, axis, dtype]) as scope:
        dtype = None if dtype is None else dtypes_lib.as_dtype(dtype)
        on_exists, off_exists = on_value is not None, off_value is not None
        if on_exists:
            on_value = tensor_conversion.convert_to_tensor(on_value, dtype_hint=dtype)
        if off_exists:
            off_value = tensor_conversion.convert_to_tensor(off_value, dtype_hint=dtype)
        on_dtype = on_value.dtype.base_dtype if on_exists else None
        off_dtype = off_value.dtype.base_dtype if off_exists else None
        if on_exists or off_exists:
            if dtype is not None:
                if on_exists and on_dtype != dtype:
                    raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                    f"parameter {dtype}")
                if off_exists and off_dtype != dtype:
                    raise TypeError(f"dtype {off_dtype} of off_value does not match dtype "
                                    f"parameter {dtype}")
            else:
                dtype = on_dtype if on_exists else off_dtype
            if on_exists and off_exists and on_dtype != off_dtype:
                raise TypeError(f"dtype {on_dtype} of on_value does not match dtype "
                                f"{off_dtype} of off_value")
        else:
            dtype = dtypes_lib.float32 if dtype is None else dtype
        if not on_exists:
            on_value = tensor_conversion.convert_to_tensor(1, dtype, name="on_value")
        if not off_exists:
            off_value = tensor_conversion.convert_to_tensor(0, dtype, name="off_value")
        return apply_op("OneHot", name=scope, indices=indices, depth=depth, on_value=on_value,
                        off_value=off_value, axis=axis).outputs[0]


def identity_n(input: Any, name: str | None = None) -> list:  # noqa: A002
    """Identity of each tensor in the list ``input``."""
    return apply_op("IdentityN", name=name, input=list(input)).outputs


def stop_gradient(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002
    """``input`` unchanged, but no gradient flows through it."""
    return apply_op("StopGradient", name=name, input=input).outputs[0]


def prevent_gradient(input: Any, message: str = "",  # noqa: A002
                     name: str | None = None) -> ops_lib.Tensor:
    """``input`` unchanged; taking a gradient through it raises LookupError."""
    return apply_op("PreventGradient", name=name, input=input, message=message).outputs[0]


def unsorted_segment_sum(data: Any, segment_ids: Any, num_segments: Any,
                         name: str | None = None) -> ops_lib.Tensor:
    """Sums of ``data`` slices per segment id (ids outside [0, num_segments) dropped)."""
    return apply_op("UnsortedSegmentSum", name=name, data=data, segment_ids=segment_ids,
                    num_segments=num_segments).outputs[0]
