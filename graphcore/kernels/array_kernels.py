"""CPU kernels of the array ops."""

from __future__ import annotations

import math

import numpy as np

from graphcore.framework import errors, tensor_util
from graphcore.framework.strided_slice import StridedSliceError, strided_slice_spec
from graphcore.kernels.registry import KernelContext, register_kernel


def identity_kernel(ctx: KernelContext):
    del ctx
    return lambda x: (x,)


@register_kernel("Const")
def _const(ctx: KernelContext):
    value = tensor_util.MakeNdarray(ctx.node_def.attr["value"].tensor)
    value.flags.writeable = False  # shared by every step: nobody may write into it
    out = (value,)
    return lambda: out


@register_kernel("Placeholder")
def _placeholder(ctx: KernelContext):
    dtype = ctx.attr("dtype")
    shape = ctx.node_def.attr["shape"].shape
    if shape.unknown_rank:
        shape_text = ""
    else:
        dims = ",".join(str(d.size) if d.size >= 0 else "?" for d in shape.dim)
        shape_text = f" and shape [{dims}]"
    message = (f"You must feed a value for placeholder tensor '{ctx.name}' with dtype "
               f"{dtype.name}{shape_text}")

    def compute():
        raise errors.InvalidArgumentError(ctx.node_def, None, message)

    return compute


register_kernel("Identity")(identity_kernel)
register_kernel("PlaceholderWithDefault")(identity_kernel)


@register_kernel("Pack")
def _pack(ctx: KernelContext):
    axis_attr = ctx.node_def.attr["axis"].i

    def compute(*values):
        values = [np.asarray(v) for v in values]
        first = values[0].shape
        for i, v in enumerate(values[1:], 1):
            if v.shape != first:
                raise errors.InvalidArgumentError(
                    None, None, f"Shapes of all inputs must match: values[0].shape = "
                                f"{_shape_str(first)} != values[{i}].shape = "
                                f"{_shape_str(v.shape)}")
        rank = len(first) + 1
        axis = axis_attr + rank if axis_attr < 0 else axis_attr
        if not 0 <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None, f"axis = {axis_attr} not in [{-rank}, {rank})")
        return (np.stack(values, axis=axis),)

    return compute


@register_kernel("Where")
def _where(ctx: KernelContext):
    del ctx
    return lambda x: (np.argwhere(x).astype(np.int64, copy=False),)


@register_kernel("Squeeze")
def _squeeze(ctx: KernelContext):
    axes_attr = list(ctx.node_def.attr["squeeze_dims"].list.i)

    def compute(x):
        x = np.asarray(x)
        rank = x.ndim
        axes = []
        for a in axes_attr:
            if not -rank <= a < rank:
                raise errors.InvalidArgumentError(
                    None, None, f"Tried to squeeze dim index {a} for tensor with {rank} "
                                "dimensions.")
            a = a + rank if a < 0 else a
            if x.shape[a] != 1:
                raise errors.InvalidArgumentError(
                    None, None, f"Can not squeeze dim[{a}], expected a dimension of 1, got "
                                f"{x.shape[a]}")
            axes.append(a)
        if not axes_attr:
            axes = [i for i, d in enumerate(x.shape) if d == 1]
        return (np.squeeze(x, axis=tuple(sorted(set(axes)))),)

    return compute


@register_kernel("GatherV2")
def _gather(ctx: KernelContext):
    batch_attr = ctx.node_def.attr["batch_dims"].i

    def compute(params, indices, axis):
        if np.ndim(axis) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"axis must be scalar, but got {_shape_str(np.shape(axis))}")
        return (gather(params, indices, int(axis), batch_attr),)

    return compute


def gather(params, indices, axis: int, batch_dims: int) -> np.ndarray:
    """TF's gather: slices of ``params`` along ``axis`` at ``indices``, the first
    ``batch_dims`` dimensions of both matched (GatherV2, ResourceGather)."""
    params = np.asarray(params)
    idx = np.asarray(indices)
    rank = params.ndim
    ax = axis
    if not -rank <= ax < rank:
        raise errors.InvalidArgumentError(
            None, None, f"Expected axis in the range [{-rank}, {rank}), but got {ax}")
    ax = ax + rank if ax < 0 else ax
    batch = batch_dims + idx.ndim if batch_dims < 0 else batch_dims
    if batch > ax:
        raise errors.InvalidArgumentError(
            None, None, f"batch_dims ({batch_dims}) must be less than or equal to axis "
                        f"({ax}).")
    n = params.shape[ax]
    bad = (idx < 0) | (idx >= n)
    if bad.any():
        pos = np.argwhere(bad)[0]
        where = ",".join(str(int(p)) for p in pos)
        raise errors.InvalidArgumentError(
            None, None, f"indices[{where}] = {idx[tuple(pos)]} is not in [0, {n})")
    if batch == 0:
        return np.take(params, idx, axis=ax)
    bshape = params.shape[:batch]
    nb = int(np.prod(bshape, dtype=np.int64))
    p = params.reshape((nb,) + params.shape[batch:])
    i = idx.reshape((nb,) + idx.shape[batch:])
    parts = [np.take(p[k], i[k], axis=ax - batch) for k in range(nb)]
    out_tail = params.shape[batch:ax] + idx.shape[batch:] + params.shape[ax + 1:]
    out = np.stack(parts) if parts else np.zeros((0,) + out_tail, dtype=params.dtype)
    return out.reshape(bshape + out_tail)


# -- helpers --------------------------------------------------------------------------------

def _invalid(msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, msg)


def frozen(value) -> bool:
    """Whether ``value`` is an ndarray whose contents cannot change (read-only, over its
    own memory or immutable bytes): a constant's or a folded value, which a kernel may
    keep what it parsed from, keyed by the array's identity."""
    return type(value) is np.ndarray and not value.flags.writeable and \
        (value.base is None or type(value.base) is bytes)


def _shape_str(shape) -> str:
    """TF's TensorShape::DebugString: ``[2,3]``."""
    return "[" + ",".join(str(d) for d in shape) + "]"


def _ints(value) -> list[int]:
    arr = np.asarray(value).reshape(-1)
    return arr.tolist() if arr.dtype.kind in "iu" else [int(v) for v in arr]


def _zeros(shape, dtype) -> np.ndarray:
    if np.dtype(dtype).kind == "O":
        out = np.empty(shape, dtype=object)
        out.fill(b"")
        return out
    return np.zeros(shape, dtype=dtype)


def _strided_attrs(ctx: KernelContext) -> tuple[int, ...]:
    a = ctx.node_def.attr
    return (a["begin_mask"].i, a["end_mask"].i, a["ellipsis_mask"].i, a["new_axis_mask"].i,
            a["shrink_axis_mask"].i)


def _check_slice_vectors(begin, end, strides) -> None:
    shapes = [np.shape(begin), np.shape(end), np.shape(strides)]
    if any(len(s) != 1 for s in shapes) or len({s[0] for s in shapes}) != 1:
        raise _invalid("Expected begin, end, and strides to be 1D equal size tensors, but got "
                       f"shapes {_shape_str(shapes[0])}, {_shape_str(shapes[1])}, and "
                       f"{_shape_str(shapes[2])} instead.")


def _dense_index(dense) -> tuple:
    index = []
    for b, e, s, shrink in dense:
        if shrink:
            index.append(slice(b, b + 1))
        else:
            index.append(slice(b, e if e >= 0 else None, s))
    return tuple(index)


@register_kernel("StridedSlice")
def _strided_slice(ctx: KernelContext):
    masks = _strided_attrs(ctx)

    def compute(x, begin, end, strides):
        _check_slice_vectors(begin, end, strides)
        x = np.asarray(x)
        try:
            dense, processing, final = strided_slice_spec(
                list(x.shape), _ints(begin), _ints(end), _ints(strides), *masks)
        except StridedSliceError as e:
            raise _invalid(str(e)) from None
        if 0 in processing:
            return (_zeros(final, x.dtype),)
        return (x[_dense_index(dense)].reshape(final),)

    return compute


@register_kernel("StridedSliceGrad")
def _strided_slice_grad(ctx: KernelContext):
    masks = _strided_attrs(ctx)

    def compute(shape, begin, end, strides, dy):
        _check_slice_vectors(begin, end, strides)
        dy = np.asarray(dy)
        dims = _ints(shape)
        try:
            dense, processing, final = strided_slice_spec(
                dims, _ints(begin), _ints(end), _ints(strides), *masks)
        except StridedSliceError as e:
            raise _invalid(str(e)) from None
        if list(dy.shape) != final:
            raise _invalid(f"shape of dy was {_shape_str(dy.shape)} instead of "
                           f"{_shape_str(final)}")
        out = _zeros(dims, dy.dtype)
        if 0 not in processing:
            out[_dense_index(dense)] = dy.reshape(processing)
        return (out,)

    return compute


# -- reshaping -------------------------------------------------------------------------------

@register_kernel("Reshape")
def _reshape(ctx: KernelContext):
    del ctx
    # (shape array, input shape, sizes) of the last call: a constant or folded shape (the
    # same unchanging array every step) is parsed once per input shape.
    last = [(None, None, None)]

    def compute(x, shape):
        x = np.asarray(x)
        seen, in_shape, sizes = last[0]
        if shape is seen and x.shape == in_shape:
            return (x.reshape(sizes),)
        sizes = tuple(_reshape_sizes(x, shape))
        if frozen(shape):
            last[0] = shape, x.shape, sizes
        return (x.reshape(sizes),)

    return compute


def _reshape_sizes(x: np.ndarray, shape) -> list[int]:
    """The output shape of Reshape(x, shape), -1 resolved, as TF's kernel checks it."""
    if np.ndim(shape) != 1:
        raise _invalid(f"sizes input must be 1-D, not {_shape_str(np.shape(shape))}")
    sizes = _ints(shape)
    unknown = -1
    product = 1
    has_zero = False
    for i, s in enumerate(sizes):
        if s == -1:
            if unknown >= 0:
                raise _invalid(f"Only one input size may be -1, not both {unknown} and {i}")
            unknown = i
        elif s < 0:
            raise _invalid(f"Size {i} must be non-negative, not {s}")
        elif s == 0:
            has_zero = True
        else:
            product *= s
    if unknown >= 0:
        n_in = 1
        input_has_zero = False
        for d in x.shape:
            if d > 0 or not has_zero:
                n_in *= d
            else:
                input_has_zero = True
        missing = n_in // product
        if not input_has_zero and product * missing != n_in:
            raise _invalid(f"Input to reshape is a tensor with {n_in} values, but the "
                           f"requested shape requires a multiple of {product}")
        sizes[unknown] = missing
    total = math.prod(sizes)
    if total != x.size:
        raise _invalid(f"Input to reshape is a tensor with {x.size} values, but the "
                       f"requested shape has {total}")
    return sizes


@register_kernel("ExpandDims")
def _expand_dims(ctx: KernelContext):
    del ctx

    def compute(x, dim):
        x = np.asarray(x)
        if np.size(dim) != 1:
            raise _invalid("'dim' must be a tensor with a single value")
        d = _ints(dim)[0]
        rank = x.ndim
        if d < -1 - rank or d > rank:
            raise _invalid(f"Tried to expand dim index {d} for tensor with {rank} dimensions.")
        if d < 0:
            d += rank + 1
        return (np.expand_dims(x, d),)

    return compute


@register_kernel("Transpose")
def _transpose(ctx: KernelContext):
    del ctx

    def compute(x, perm):
        x = np.asarray(x)
        if np.ndim(perm) != 1:
            raise _invalid(f"perm must be a vector, not {_shape_str(np.shape(perm))}")
        p = _ints(perm)
        rank = x.ndim
        if len(p) != rank:
            raise _invalid(f"transpose expects a vector of size {rank}. But input(1) is a "
                           f"vector of size {len(p)}")
        p = [d + rank if d < 0 else d for d in p]
        for d in p:
            if not 0 <= d < rank:
                raise _invalid(f"{d} is out of range [0 .. {rank})")
        for i in range(rank):
            if i not in p:
                raise _invalid(f"{i} is missing from {{{','.join(str(d) for d in p)}}}.")
        return (np.transpose(x, p),)

    return compute


@register_kernel("InvertPermutation")
def _invert_permutation(ctx: KernelContext):
    del ctx

    def compute(x):
        if np.ndim(x) != 1:
            raise _invalid("invert_permutation expects a 1D vector.")
        p = np.asarray(x)
        n = p.size
        out = np.full(n, -1, dtype=p.dtype)
        for i, d in enumerate(p.tolist()):
            if not 0 <= d < n:
                raise _invalid(f"{d} is not between 0 and {n}")
            if out[d] != -1:
                raise _invalid(f"{d} is duplicated in the input.")
            out[d] = i
        return (out,)

    return compute


# -- concat / split / pack ---------------------------------------------------------------

@register_kernel("ConcatV2")
def _concat(ctx: KernelContext):
    del ctx

    def compute(*args):
        values, axis = [np.asarray(v) for v in args[:-1]], args[-1]
        if np.ndim(axis) != 0:
            raise _invalid(f"Concat dim tensor should be a scalar integer, but got shape "
                           f"{_shape_str(np.shape(axis))}")
        ax = int(axis)
        rank = values[0].ndim
        if not -rank <= ax < rank:
            if rank == 0:
                raise _invalid("ConcatOp : Can't concatenate scalars (use tf.stack instead)")
            raise _invalid(f"ConcatOp : Expected concatenating dimensions in the range "
                           f"[{-rank}, {rank}), but got {ax}")
        if ax < 0:
            ax += rank
        first = values[0].shape
        for i, v in enumerate(values[1:], 1):
            if v.ndim != rank:
                raise _invalid(f"ConcatOp : Ranks of all input tensors should match: shape[0] "
                               f"= {_shape_str(first)} vs. shape[{i}] = {_shape_str(v.shape)}")
            for j in range(rank):
                if j != ax and v.shape[j] != first[j]:
                    raise _invalid(f"ConcatOp : Dimension {j} in both shapes must be equal: "
                                   f"shape[0] = {_shape_str(first)} vs. shape[{i}] = "
                                   f"{_shape_str(v.shape)}")
        return (np.concatenate(values, axis=ax),)

    return compute


@register_kernel("ConcatOffset")
def _concat_offset(ctx: KernelContext):
    del ctx

    def compute(concat_dim, *shapes):
        shapes = [np.asarray(s) for s in shapes]
        n = shapes[0].size
        cdim = int(concat_dim)
        axis = cdim + n if cdim < 0 else cdim
        if not 0 <= axis < n:
            raise _invalid(f"Concat dim is out of range: {cdim} vs. {n}")
        offset = 0
        out = []
        for i, s in enumerate(shapes):
            if s.size != n:
                raise _invalid(f"input {i} should contain {n} elements, but got {s.size}")
            o = np.zeros(n, dtype=s.dtype)
            for j in range(n):
                if j == axis:
                    o[j] = offset
                    offset += int(s[j])
                elif int(s[j]) != int(shapes[0][j]):
                    raise _invalid(f"input[{i},{j}] mismatch: {int(shapes[0][j])} vs. "
                                   f"{int(s[j])}")
            out.append(o)
        return tuple(out)

    return compute


def _split_axis(axis, rank: int) -> int:
    a = int(axis)
    if not -rank <= a < rank:
        raise _invalid(f"-input rank(-{rank}) <= split_dim < input rank ({rank}), but got {a}")
    return a + rank if a < 0 else a


@register_kernel("Split")
def _split(ctx: KernelContext):
    num = ctx.node_def.attr["num_split"].i

    def compute(split_dim, value):
        value = np.asarray(value)
        axis = _split_axis(split_dim, value.ndim)
        size = value.shape[axis]
        if size % num:
            raise _invalid(f"Number of ways to split should evenly divide the split dimension, "
                           f"but got split_dim {axis} (size = {size}) and num_split {num}")
        return tuple(np.split(value, num, axis=axis))

    return compute


@register_kernel("SplitV")
def _split_v(ctx: KernelContext):
    num = ctx.node_def.attr["num_split"].i

    def compute(value, size_splits, split_dim):
        value = np.asarray(value)
        axis = _split_axis(split_dim, value.ndim)
        sizes = _ints(size_splits)
        if len(sizes) != num:
            raise _invalid(f"Number of split sizes ({len(sizes)}) must equal num_split "
                           f"({num}).")
        size = value.shape[axis]
        if sizes.count(-1) > 1:
            raise _invalid("There can only be one -1 in the input.")
        if -1 in sizes:
            sizes[sizes.index(-1)] = size - (sum(sizes) + 1)
        if any(s < 0 for s in sizes) or sum(sizes) != size:
            raise _invalid(f"Determined shape must either match input shape along split_dim "
                           f"exactly if fully specified, or be less than the size of the input "
                           f"along split_dim if not fully specified.  Got: {sum(sizes)}")
        cuts = np.cumsum(sizes)[:-1]
        return tuple(np.split(value, cuts, axis=axis))

    return compute


@register_kernel("Unpack")
def _unpack(ctx: KernelContext):
    num = ctx.node_def.attr["num"].i
    axis_attr = ctx.node_def.attr["axis"].i

    def compute(value):
        value = np.asarray(value)
        rank = value.ndim
        axis = axis_attr + rank if axis_attr < 0 else axis_attr
        if not 0 <= axis < rank:
            raise _invalid(f"axis = {axis_attr} not in [{-rank}, {rank})")
        if value.shape[axis] != num:
            raise _invalid(f"Input shape axis {axis} must equal {num}, got shape "
                           f"{_shape_str(value.shape)}")
        return tuple(np.take(value, i, axis=axis) for i in range(num))

    return compute


# -- slicing, tiling, padding ------------------------------------------------------------------

@register_kernel("Slice")
def _slice(ctx: KernelContext):
    del ctx

    def compute(x, begin, size):
        x = np.asarray(x)
        rank = x.ndim
        if (np.ndim(begin) != 1 or np.ndim(size) != 1 or np.size(begin) != rank
                or np.size(size) != rank):
            raise _invalid(f"Expected begin and size arguments to be 1-D tensors of size {rank}, "
                           f"but got shapes {_shape_str(np.shape(begin))} and "
                           f"{_shape_str(np.shape(size))} instead.")
        b, s = _ints(begin), _ints(size)
        index = []
        for i in range(rank):
            dim = x.shape[i]
            if s[i] == -1:
                s[i] = dim - b[i]
            if dim == 0:
                if b[i] != 0 or s[i] not in (0, -1):
                    raise _invalid(f"Expected begin[{i}] == 0 (got {b[i]}) and size[{i}] == 0 "
                                   f"(got {s[i]}) when input.dim_size({i}) == 0")
            else:
                if not 0 <= b[i] <= dim:
                    raise _invalid(f"Expected begin[{i}] in [0, {dim}], but got {b[i]}")
                if not (0 <= s[i] and b[i] + s[i] <= dim):
                    raise _invalid(f"Expected size[{i}] in [0, {dim - b[i]}], but got {s[i]}")
            index.append(slice(b[i], b[i] + s[i]))
        return (x[tuple(index)],)

    return compute


@register_kernel("Tile")
def _tile(ctx: KernelContext):
    del ctx

    def compute(x, multiples):
        x = np.asarray(x)
        if np.ndim(multiples) != 1:
            raise _invalid(f"Expected multiples argument to be a vector of length {x.ndim} but "
                           f"got length {np.size(multiples)}")
        m = _ints(multiples)
        if len(m) != x.ndim:
            raise _invalid(f"Expected multiples argument to be a vector of length {x.ndim} but "
                           f"got length {len(m)}")
        for i, v in enumerate(m):
            if v < 0:
                raise _invalid(f"Expected multiples[{i}] >= 0, but got {v}")
        return (np.tile(x, m) if x.ndim else x.copy(),)

    return compute


def _check_paddings(x: np.ndarray, paddings) -> list[tuple[int, int]]:
    p = np.asarray(paddings)
    if p.ndim != 2 or p.shape[1] != 2:
        raise _invalid(f"paddings must be a matrix with 2 columns: {_shape_str(p.shape)}")
    if p.shape[0] != x.ndim:
        raise _invalid(f"The first dimension of paddings must be the rank of inputs"
                       f"{_shape_str(p.shape)} {_shape_str(x.shape)}")
    pairs = [(int(a), int(b)) for a, b in p.tolist()]
    for a, b in pairs:
        if a < 0 or b < 0:
            raise _invalid(f"Paddings must be non-negative: {a} {b}")
    return pairs


def _pad_with(x: np.ndarray, pairs: list[tuple[int, int]], value) -> np.ndarray:
    out = np.empty([d + a + b for d, (a, b) in zip(x.shape, pairs)], dtype=x.dtype)
    out.fill(value)
    out[tuple(slice(a, a + d) for d, (a, _) in zip(x.shape, pairs))] = x
    return out


@register_kernel("Pad")
def _pad(ctx: KernelContext):
    del ctx

    def compute(x, paddings):
        x = np.asarray(x)
        pairs = _check_paddings(x, paddings)
        return (_pad_with(x, pairs, b"" if x.dtype.kind == "O" else 0),)

    return compute


@register_kernel("PadV2")
def _pad_v2(ctx: KernelContext):
    del ctx

    def compute(x, paddings, constant_values):
        x = np.asarray(x)
        pairs = _check_paddings(x, paddings)
        if np.ndim(constant_values) != 0:
            raise _invalid(f"constant_values must be a scalar. Found: "
                           f"{_shape_str(np.shape(constant_values))}")
        return (_pad_with(x, pairs, np.asarray(constant_values)[()]),)

    return compute


@register_kernel("MirrorPad")
def _mirror_pad(ctx: KernelContext):
    mode = ctx.node_def.attr["mode"].s.decode()
    offset = 0 if mode == "SYMMETRIC" else 1

    def compute(x, paddings):
        x = np.asarray(x)
        pairs = _check_paddings(x, paddings)
        for i, (a, b) in enumerate(pairs):
            if a > x.shape[i] - offset or b > x.shape[i] - offset:
                raise _invalid(f"paddings must be no greater than the dimension size: {a}, {b} "
                               f"greater than {x.shape[i] - offset}")
        return (np.pad(x, pairs, mode="symmetric" if offset == 0 else "reflect"),)

    return compute


@register_kernel("MirrorPadGrad")
def _mirror_pad_grad(ctx: KernelContext):
    offset = 0 if ctx.node_def.attr["mode"].s.decode() == "SYMMETRIC" else 1

    def compute(grad, paddings):
        out = np.asarray(grad)
        pairs = _check_paddings(out, paddings)
        for axis, (a, b) in enumerate(pairs):
            n = out.shape[axis] - a - b
            if n < 0 or a > n - offset or b > n - offset:
                raise _invalid(f"paddings must be no greater than the dimension size: {a}, {b} "
                               f"greater than {n - offset}")
            # Where each padded position came from: reflected edges fold back onto x.
            source = np.concatenate([a - np.arange(a) - (1 - offset), np.arange(n),
                                     n - 1 - np.arange(b) - offset])
            folded = np.zeros(out.shape[:axis] + (n,) + out.shape[axis + 1:], out.dtype)
            np.add.at(np.moveaxis(folded, axis, 0), source, np.moveaxis(out, axis, 0))
            out = folded
        return (out,)

    return compute


@register_kernel("ReverseV2")
def _reverse(ctx: KernelContext):
    del ctx

    def compute(x, axis):
        x = np.asarray(x)
        rank = x.ndim
        axes = []
        for a in _ints(axis):
            if not -rank <= a < rank:
                raise _invalid(f"'axis'[{len(axes)}] = {a} is out of valid range [0, "
                               f"{rank - 1}")
            a = a + rank if a < 0 else a
            if a in axes:
                raise _invalid(f"axis {a} specified more than once.")
            axes.append(a)
        return (np.flip(x, axis=tuple(axes)) if axes else x,)

    return compute


# -- creation ---------------------------------------------------------------------------------

@register_kernel("Fill")
def _fill(ctx: KernelContext):
    del ctx

    def compute(dims, value):
        if np.ndim(dims) != 1:
            raise _invalid(f"dims must represent a vector, got shape "
                           f"{_shape_str(np.shape(dims))}")
        if np.ndim(value) != 0:
            raise _invalid(f"value must represent a scalar, got shape "
                           f"{_shape_str(np.shape(value))}")
        d = _ints(dims)
        for v in d:
            if v < 0:
                raise _invalid(f"Dimension {v} must be >= 0")
        value = np.asarray(value)
        out = np.empty(d, dtype=value.dtype)
        out.fill(value[()])
        return (out,)

    return compute


@register_kernel("ZerosLike")
def _zeros_like(ctx: KernelContext):
    del ctx
    return lambda x: (_zeros(np.shape(x), np.asarray(x).dtype),)


@register_kernel("OnesLike")
def _ones_like(ctx: KernelContext):
    del ctx
    return lambda x: (np.ones_like(np.asarray(x)),)


@register_kernel("OneHot")
def _one_hot(ctx: KernelContext):
    axis_attr = ctx.node_def.attr["axis"].i

    def compute(indices, depth, on_value, off_value):
        indices = np.asarray(indices)
        if np.ndim(depth) != 0:
            raise _invalid(f"depth must be a scalar, but got: {_shape_str(np.shape(depth))}")
        if np.ndim(on_value) != 0:
            raise _invalid(f"on_value must be a scalar, but got: "
                           f"{_shape_str(np.shape(on_value))}")
        if np.ndim(off_value) != 0:
            raise _invalid(f"off_value must be a scalar, but got: "
                           f"{_shape_str(np.shape(off_value))}")
        out_dims = indices.ndim + 1
        if not (axis_attr == -1 or 0 <= axis_attr < out_dims):
            raise _invalid(f"Expected axis to be -1 or between [0, {out_dims}).  But received: "
                           f"{axis_attr}")
        d = int(depth)
        if d < 0:
            raise _invalid(f"depth must be non-negative, got: {d}")
        on, off = np.asarray(on_value), np.asarray(off_value)
        # off everywhere, then on at each in-range index (out-of-range rows stay off)
        out = np.full(indices.shape + (d,), off, dtype=on.dtype)
        flat = indices.reshape(-1).astype(np.int64)
        rows = np.flatnonzero((flat >= 0) & (flat < d))
        if rows.size:
            out.reshape(-1, d)[rows, flat[rows]] = on
        if axis_attr != -1:
            out = np.moveaxis(out, -1, axis_attr)
        return (out,)

    return compute


# -- shapes -------------------------------------------------------------------------------------

@register_kernel("Shape")
def _shape(ctx: KernelContext):
    dtype = ctx.attr("out_type").as_numpy_dtype
    return lambda x: (np.array(np.shape(x), dtype=dtype),)


@register_kernel("ShapeN")
def _shape_n(ctx: KernelContext):
    dtype = ctx.attr("out_type").as_numpy_dtype
    return lambda *xs: tuple(np.array(np.shape(x), dtype=dtype) for x in xs)


@register_kernel("Size")
def _size(ctx: KernelContext):
    dtype = ctx.attr("out_type").as_numpy_dtype
    return lambda x: (np.array(np.size(x), dtype=dtype),)


@register_kernel("Rank")
def _rank(ctx: KernelContext):
    del ctx
    return lambda x: (np.array(np.ndim(x), dtype=np.int32),)


register_kernel("StopGradient")(identity_kernel)
register_kernel("PreventGradient")(identity_kernel)


@register_kernel("IdentityN")
def _identity_n(ctx: KernelContext):
    del ctx
    return lambda *xs: tuple(xs)
