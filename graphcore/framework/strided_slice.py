"""The validation and shapes of a strided slice (TF's ``core/util/strided_slice_op.cc``):
shared by StridedSlice's shape function and its kernels."""

from __future__ import annotations


class StridedSliceError(ValueError):
    """A strided slice spec that can't apply to the input."""


def strided_slice_spec(input_dims, begin, end, strides, begin_mask: int, end_mask: int,
                       ellipsis_mask: int, new_axis_mask: int, shrink_axis_mask: int):
    """TF's ``ValidateStridedSliceOp``.

    ``input_dims``: list of ints (None = unknown dim); ``begin``/``end``: list of ints or
    None (unknown values); ``strides``: list of ints.  Returns ``(dense, processing_shape,
    final_shape)`` where ``dense`` holds ``(begin, end, stride, shrink)`` per input dim
    (begin/end None when unknown) and shapes use None for unknown sizes.  Raises
    StridedSliceError with TF's messages.
    """
    n = len(strides)
    if (begin is not None and len(begin) != n) or (end is not None and len(end) != n):
        raise StridedSliceError(
            "Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
            f"[{n if begin is None else len(begin)}], [{n if end is None else len(end)}], "
            f"and [{n}] instead.")
    if ellipsis_mask and (ellipsis_mask & (ellipsis_mask - 1)):
        raise StridedSliceError("Multiple ellipses in slice spec not allowed")
    sparse_dims = n
    ellipsis_seen = False
    num_add_axis_after_ellipsis = 0
    for i in range(n):
        if ellipsis_seen and (1 << i) & new_axis_mask:
            num_add_axis_after_ellipsis += 1
        if (1 << i) & ellipsis_mask:
            ellipsis_seen = True
    if not ellipsis_seen:
        ellipsis_mask |= 1 << sparse_dims
        sparse_dims += 1
    rank = len(input_dims)
    d_begin = [0] * rank
    d_end = [0] * rank
    d_strides = [1] * rank
    d_bmask = d_emask = d_shrink = 0
    gather: list[int] = []  # >=0: dense index; -1: new axis; -2: shrink
    full_index = 0
    for i in range(sparse_dims):
        if (1 << i) & ellipsis_mask:
            next_index = min(rank - (sparse_dims - i) + 1 + num_add_axis_after_ellipsis, rank)
            while full_index < next_index:
                d_bmask |= 1 << full_index
                d_emask |= 1 << full_index
                gather.append(full_index)
                full_index += 1
        elif (1 << i) & new_axis_mask:
            gather.append(-1)
        else:
            if full_index == rank:
                raise StridedSliceError(f"Index out of range using input dim {full_index}; "
                                        f"input has only {rank} dims")
            if begin is not None:
                d_begin[full_index] = begin[i]
            if end is not None:
                d_end[full_index] = end[i]
            d_strides[full_index] = strides[i]
            if begin_mask & (1 << i):
                d_bmask |= 1 << full_index
            if end_mask & (1 << i):
                d_emask |= 1 << full_index
            if shrink_axis_mask & (1 << i):
                gather.append(-2)
                d_shrink |= 1 << full_index
            else:
                gather.append(full_index)
            full_index += 1
    dense = []
    processing: list[int | None] = []
    known = begin is not None and end is not None
    for i in range(rank):
        b, e, s = d_begin[i], d_end[i], d_strides[i]
        if s == 0:
            raise StridedSliceError(f"strides[{i}] must be non-zero")
        bm, em = bool(d_bmask & (1 << i)), bool(d_emask & (1 << i))
        shrink = bool(d_shrink & (1 << i))
        dim = input_dims[i]
        if dim is None:
            processing.append(1 if shrink else None)
            dense.append((None, None, s, shrink))
            continue
        lo, hi = (0, dim) if s > 0 else (-1, dim - 1)

        def canonical(x, c, masked, s=s, dim=dim, lo=lo, hi=hi):
            if masked:
                return (lo, hi)[c] if s > 0 else (lo, hi)[(c + 1) & 1]
            x_fwd = dim + x if x < 0 else x
            return min(max(x_fwd, lo), hi)

        if shrink and s <= 0:
            raise StridedSliceError("only stride 1 allowed on non-range indexing.")
        if known:
            if shrink:
                x_fwd = dim + b if b < 0 else b
                if x_fwd < 0 or x_fwd >= dim:
                    raise StridedSliceError(f"slice index {x_fwd} of dimension {i} out of bounds.")
                b, e = x_fwd, x_fwd + 1
            else:
                b, e = canonical(b, 0, bm), canonical(e, 1, em)
            length = e - b
        elif shrink:
            length = 1
        elif bm and em:
            length = -dim if s < 0 else dim
        else:
            length = None
        if length is None:
            processing.append(None)
        elif length == 0 or ((length < 0) != (s < 0)):
            processing.append(0)
        else:
            q = abs(length) // abs(s)
            processing.append(q + (1 if abs(length) % abs(s) else 0))
        dense.append((b if known else None, e if known else None, s, shrink))
    final = []
    for g in gather:
        if g >= 0:
            final.append(processing[g])
        elif g == -1:
            final.append(1)
    return dense, processing, final
