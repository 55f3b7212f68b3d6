"""CPU (numpy) kernels of the scatter/gather family (:mod:`graphcore.ops.scatter_ops`).

Scatters into a variable write its stored array in place under the variable's lock (ref
variables, as TF's) or copy-on-write (resource variables, whose reads are snapshots);
duplicate indices accumulate with the ufunc's ``.at`` (ScatterUpdate: the last wins).
Index checks and their messages are TF's.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.array_kernels import gather
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.resource_variable_kernels import _read


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _trunc_divide_at(a: np.ndarray, idx: np.ndarray, b: np.ndarray) -> None:
    """Integer ScatterDiv: C++'s truncating division, one index at a time."""
    for i, u in zip(idx, b):
        a[i] = np.trunc(np.true_divide(a[i], u)).astype(a.dtype)


def _set_at(a: np.ndarray, idx: np.ndarray, b: np.ndarray) -> None:
    a[idx] = b


_SCATTER_UFUNCS: dict[str, Callable] = {
    "Update": _set_at, "Add": np.add.at, "Sub": np.subtract.at, "Mul": np.multiply.at,
    "Div": np.divide.at, "Min": np.minimum.at, "Max": np.maximum.at,
}


def scatter_rows(kind: str, params: np.ndarray, indices, updates, resource: bool) -> None:
    """``params[indices[i]] (op)= updates[i]``, in place, with TF's checks; ``updates`` may
    be a scalar."""
    idx = np.asarray(indices)
    upd = np.asarray(updates)
    want = idx.shape + params.shape[1:]
    if upd.ndim != 0 and upd.shape != want:
        if resource:
            raise _invalid(f"The shape of indices ({_shape_text(idx.shape)}) must be a prefix "
                           f"of the shape of updates ({_shape_text(upd.shape)})")
        raise _invalid(f"Must have updates.shape = indices.shape + params.shape[1:] or "
                       f"updates.shape = [], got updates.shape {_shape_text(upd.shape)}, "
                       f"indices.shape {_shape_text(idx.shape)}, params.shape "
                       f"{_shape_text(params.shape)}")
    flat = idx.reshape(-1)
    n = params.shape[0]
    bad = (flat < 0) | (flat >= n)
    if bad.any():
        i = int(np.argmax(bad))
        raise _invalid(f"indices[{i}] = {flat[i]} is not in [0, {n})")
    upd = np.broadcast_to(upd.astype(params.dtype, copy=False), want) \
        .reshape((flat.size,) + params.shape[1:])
    fn = _SCATTER_UFUNCS[kind]
    if kind == "Div" and params.dtype.kind in "iu":
        fn = _trunc_divide_at
    fn(params, flat, upd)


def _variable_scatter(apply: Callable[..., None], copy_on_write: bool):
    """The kernel factory of a scatter into a variable: ``apply(array, indices, updates)``
    writes the stored array in place (ref variables, returning the ref) or a private copy
    of it when a reader holds it (resource variables, no output)."""

    def factory(ctx: KernelContext):
        name = ctx.name

        def compute(state, indices, updates):
            with state.lock:
                if copy_on_write:
                    _read(state, name)
                else:
                    state.read()
                owned = state.value_to_update(copy_on_write=copy_on_write)
                apply(owned, indices, updates)
                state.set(owned)
            return () if copy_on_write else (state,)

        return compute

    return factory


def _rows(kind: str, resource: bool) -> Callable[..., None]:
    return lambda a, indices, updates: scatter_rows(kind, a, indices, updates, resource)


for _kind in _SCATTER_UFUNCS:
    register_kernel("Scatter" + _kind)(_variable_scatter(_rows(_kind, False), False))
    register_kernel("ResourceScatter" + _kind)(_variable_scatter(_rows(_kind, True), True))


# -- the N-d family ------------------------------------------------------------------------

def _nd_index(indices, shape: tuple, verb: str = "shape") -> tuple[tuple, int, int]:
    """``indices`` [..., K] as a tuple of K flat coordinate arrays into ``shape``, checked
    as TF's ("indices[i] = [a, b] does not index into shape [..]"); also N and K."""
    idx = np.asarray(indices)
    if idx.ndim < 1:
        raise _invalid(f"indices must be at least a vector: {_shape_text(idx.shape)}")
    k = idx.shape[-1]
    if k > len(shape):
        raise _invalid(f"index innermost dimension length must be <= params rank; saw: {k} "
                       f"vs. {len(shape)}")
    flat = idx.reshape(-1, k).astype(np.int64, copy=False)
    limits = np.asarray(shape[:k], dtype=np.int64)
    bad = ((flat < 0) | (flat >= limits)).any(axis=1)
    if bad.any():
        i = int(np.argmax(bad))
        row = ", ".join(str(v) for v in flat[i])
        raise _invalid(f"indices[{i}] = [{row}] does not index into {verb} "
                       f"{_shape_text(shape)}")
    return tuple(flat[:, j] for j in range(k)), flat.shape[0], k


def scatter_nd_into(kind: str, out: np.ndarray, indices, updates) -> None:
    """``out[indices[i]] (op)= updates[i]`` over index tuples, in place."""
    coords, n, k = _nd_index(indices, out.shape)
    upd = np.asarray(updates)
    want = np.asarray(indices).shape[:-1] + out.shape[k:]
    if upd.shape != want:
        raise _invalid(f"Dimensions [0,{len(want) - len(out.shape[k:])}) of indices"
                       f"[shape={_shape_text(np.shape(indices))}] = "
                       f"{_shape_text(np.shape(indices)[:-1])} must match dimensions "
                       f"[0,{upd.ndim - len(out.shape[k:])}) of updates[shape="
                       f"{_shape_text(upd.shape)}]")
    upd = upd.astype(out.dtype, copy=False).reshape((n,) + out.shape[k:])
    if k == 0:
        coords = (np.zeros(n, dtype=np.int64),)
        out_view = out.reshape((1,) + out.shape)
    else:
        out_view = out
    _SCATTER_UFUNCS[kind](out_view, coords, upd)


def _nd(kind: str) -> Callable[..., None]:
    return lambda a, indices, updates: scatter_nd_into(kind, a, indices, updates)


for _kind in ("Update", "Add", "Sub"):
    register_kernel("ScatterNd" + _kind)(_variable_scatter(_nd(_kind), False))
    register_kernel("ResourceScatterNd" + _kind)(_variable_scatter(_nd(_kind), True))


@register_kernel("ScatterNd")
def _scatter_nd(ctx: KernelContext):
    dtype = ctx.attr("T").as_numpy_dtype

    def compute(indices, updates, shape):
        shape = tuple(int(d) for d in np.asarray(shape).reshape(-1))
        if any(d < 0 for d in shape):
            raise _invalid("Indices and updates specified for empty output shape")
        out = np.zeros(shape, dtype=dtype)
        scatter_nd_into("Add", out, indices, updates)
        return (out,)

    return compute


def _tensor_scatter(kind: str):
    def factory(ctx: KernelContext):
        del ctx

        def compute(tensor, indices, updates):
            out = np.array(tensor, copy=True)
            scatter_nd_into(kind, out, indices, updates)
            return (out,)

        return compute

    return factory


for _kind in ("Update", "Add", "Sub", "Min", "Max"):
    register_kernel("TensorScatter" + _kind)(_tensor_scatter(_kind))


@register_kernel("GatherNd")
def _gather_nd(ctx: KernelContext):
    name = ctx.name

    def compute(params, indices):
        params = np.asarray(params)
        idx = np.asarray(indices)
        try:
            coords, _, k = _nd_index(idx, params.shape, "param shape")
        except errors.InvalidArgumentError as e:
            raise _invalid(f"{e.message}, node name: {name}") from None
        lead = idx.shape[:-1]
        if k == 0:
            return (np.broadcast_to(params, lead + params.shape).copy(),)
        return (params[coords].reshape(lead + params.shape[k:]),)

    return compute


@register_kernel("Gather")
def _gather_v1(ctx: KernelContext):
    del ctx
    return lambda params, indices: (gather(params, indices, 0, 0),)


# -- DynamicPartition / DynamicStitch ------------------------------------------------------

@register_kernel("DynamicPartition")
def _dynamic_partition(ctx: KernelContext):
    n = ctx.node_def.attr["num_partitions"].i

    def compute(data, partitions):
        data = np.asarray(data)
        parts = np.asarray(partitions)
        if data.shape[:parts.ndim] != parts.shape:
            raise _invalid(f"data.shape must start with partitions.shape, got data.shape = "
                           f"{_shape_text(data.shape)}, partitions.shape = "
                           f"{_shape_text(parts.shape)}")
        flat = parts.reshape(-1)
        bad = (flat < 0) | (flat >= n)
        if bad.any():
            i = int(np.argmax(bad))
            raise _invalid(f"partitions[{i}] = {flat[i]} is not in [0, {n})")
        rows = data.reshape((flat.size,) + data.shape[parts.ndim:])
        return tuple(rows[flat == p] for p in range(n))

    return compute


def _dynamic_stitch(ctx: KernelContext):
    n = ctx.node_def.attr["N"].i
    dtype = ctx.attr("T").as_numpy_dtype

    def compute(*inputs):
        indices = [np.asarray(i) for i in inputs[:n]]
        data = [np.asarray(d) for d in inputs[n:]]
        tail = data[0].shape[indices[0].ndim:]
        for m, (i, d) in enumerate(zip(indices, data)):
            if d.shape[:i.ndim] != i.shape:
                raise _invalid(f"data[{m}].shape = {_shape_text(d.shape)} does not start with "
                               f"indices[{m}].shape = {_shape_text(i.shape)}")
            if d.shape[i.ndim:] != tail:
                raise _invalid(f"Need data[0].shape[{indices[0].ndim}:] = "
                               f"data[{m}].shape[{i.ndim}:], got data[0].shape = "
                               f"{_shape_text(data[0].shape)}, data[{m}].shape = "
                               f"{_shape_text(d.shape)}, indices[0].shape = "
                               f"{_shape_text(indices[0].shape)}, indices[{m}].shape = "
                               f"{_shape_text(i.shape)}")
        first = max((int(i.max()) for i in indices if i.size), default=-1) + 1
        merged = np.zeros((first,) + tail, dtype=dtype)
        for m, (i, d) in enumerate(zip(indices, data)):
            flat = i.reshape(-1)
            if (flat < 0).any():
                j = int(np.argmax(flat < 0))
                raise _invalid(f"indices[{m}][{j}] is out of range")
            merged[flat] = d.reshape((flat.size,) + tail)
        return (merged,)

    return compute


register_kernel("DynamicStitch")(_dynamic_stitch)
register_kernel("ParallelDynamicStitch")(_dynamic_stitch)
