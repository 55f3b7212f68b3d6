"""Array op definitions: each array op's OpDef and shape function (TF's
``core/ops/array_ops.cc``), registered by op type. The Python API is
:mod:`graphcore.ops.array_ops`."""

from __future__ import annotations

import numpy as np

from graphcore.framework import (
    common_shapes,
    op_registry,
    strided_slice,
    tensor_util,
)
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib


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


# -- shape-function helpers (TF's InferenceContext checks and messages) --------------------

_dims = common_shapes.dims_of


def _shape(dims: list | None) -> shape_lib.TensorShape:
    return shape_lib.unknown_shape() if dims is None else shape_lib.TensorShape(dims)


_dbg = common_shapes.debug_string


_with_rank = common_shapes.with_rank


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
        dense, _, _ = strided_slice.strided_slice_spec(
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
    # An input of unknown rank has the others' rank, its dims unknown (as TF's).
    all_dims = [d if d is not None else [None] * rank for d in all_dims]
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
    _, _, final = strided_slice.strided_slice_spec(
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


def _mirror_pad_grad_shape(op: ops_lib.Operation) -> list:
    paddings, in_dims = _const(op._inputs[1]), _dims(op._inputs[0].shape)
    if in_dims is None:
        return [shape_lib.unknown_shape()]
    if paddings is None:
        return [shape_lib.unknown_shape(rank=len(in_dims))]
    pairs = np.asarray(paddings).reshape(-1, 2).tolist()
    return [shape_lib.TensorShape([None if d is None else d - p0 - p1
                                   for d, (p0, p1) in zip(in_dims, pairs)])]


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


def unsorted_segment_shape(op: ops_lib.Operation) -> list:
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
op_registry.register_op("MirrorPadGrad").input("input: T").input("paddings: Tpaddings") \
    .output("output: T").attr("T: type").attr(f"Tpaddings: {_INDEX} = DT_INT32") \
    .attr("mode: {'REFLECT', 'SYMMETRIC'}").shape_fn(_mirror_pad_grad_shape)

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
    .shape_fn(unsorted_segment_shape)
