"""CPU kernels of the set operations, SetSize and EditDistance
(:mod:`graphcore.ops.sets_ops`): every op groups elements by their index on all but the
last dimension; set results come sorted, one output row per element, groups row-major."""

from __future__ import annotations

import numpy as np

from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.sparse_kernels import _invalid, _sparse


def _groups_of_dense(x: np.ndarray) -> tuple[dict, np.ndarray]:
    if x.ndim < 2:
        raise _invalid(f"Invalid rank {x.ndim}.")
    groups = {}
    flat = x.reshape(-1, x.shape[-1])
    for k, pos in enumerate(np.ndindex(*x.shape[:-1])):
        groups[pos] = flat[k].tolist()
    return groups, np.array(x.shape[:-1], np.int64)


def _groups_of_sparse(indices, values, shape) -> tuple[dict, np.ndarray]:
    idx, vals, shp = _sparse(indices, values, shape)
    if len(shp) < 2:
        raise _invalid(f"Invalid rank {len(shp)}.")
    groups: dict = {}
    for row, v in zip(map(tuple, idx[:, :-1].tolist()), vals.tolist()):
        groups.setdefault(row, []).append(v)
    return groups, shp[:-1]


_SET_FNS = {
    "intersection": lambda a, b: a & b,
    "union": lambda a, b: a | b,
    "a-b": lambda a, b: a - b,
    "b-a": lambda a, b: b - a,
}


def _set_result(ctx: KernelContext, g1: tuple, g2: tuple) -> tuple:
    op = ctx.node_def.attr["set_operation"].s.decode()
    if op not in _SET_FNS:
        raise _invalid(f"Invalid set_operation {op}.")
    (groups1, shape1), (groups2, shape2) = g1, g2
    if not np.array_equal(shape1, shape2):
        raise _invalid(f"Shapes {list(shape1)} vs {list(shape2)} mismatch.")
    rows, vals, width = [], [], 0
    for group in sorted(set(groups1) | set(groups2)):
        result = sorted(_SET_FNS[op](set(groups1.get(group, ())), set(groups2.get(group, ()))))
        for k, v in enumerate(result):
            rows.append(list(group) + [k])
            vals.append(v)
        width = max(width, len(result))
    dtype = ctx.attr("T")
    out_vals = np.array(vals, dtype=object if dtype.name == "string" else dtype.as_numpy_dtype)
    rank = len(shape1) + 1
    return (np.array(rows, np.int64).reshape(len(rows), rank), out_vals,
            np.concatenate([shape1, [width]]).astype(np.int64))


@register_kernel("DenseToDenseSetOperation")
def _dense_dense(ctx: KernelContext):
    return lambda set1, set2: _set_result(ctx, _groups_of_dense(np.asarray(set1)),
                                          _groups_of_dense(np.asarray(set2)))


@register_kernel("DenseToSparseSetOperation")
def _dense_sparse(ctx: KernelContext):
    return lambda set1, i, v, s: _set_result(ctx, _groups_of_dense(np.asarray(set1)),
                                             _groups_of_sparse(i, v, s))


@register_kernel("SparseToSparseSetOperation")
def _sparse_sparse(ctx: KernelContext):
    return lambda i1, v1, s1, i2, v2, s2: _set_result(ctx, _groups_of_sparse(i1, v1, s1),
                                                      _groups_of_sparse(i2, v2, s2))


@register_kernel("SetSize")
def _set_size(ctx: KernelContext):
    del ctx

    def compute(set_indices, set_values, set_shape):
        groups, shape = _groups_of_sparse(set_indices, set_values, set_shape)
        out = np.zeros(tuple(shape), np.int32)
        for group, members in groups.items():
            out[group] = len(set(members))
        return (out,)

    return compute


def _levenshtein(a: list, b: list) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


@register_kernel("EditDistance")
def _edit_distance(ctx: KernelContext):
    normalize = ctx.node_def.attr["normalize"].b

    def compute(hi, hv, hs, ti, tv, ts):
        hyp, hshape = _groups_of_sparse(hi, hv, hs)
        truth, tshape = _groups_of_sparse(ti, tv, ts)
        if len(hshape) != len(tshape):
            raise _invalid(f"Inconsistent rank in hypothesis_shape vs. truth_shape: "
                           f"{len(hshape) + 1} vs. {len(tshape) + 1}")
        out = np.zeros(tuple(np.maximum(hshape, tshape)), np.float32)
        with np.errstate(divide="ignore"):
            for group in set(hyp) | set(truth):
                h, t = hyp.get(group, []), truth.get(group, [])
                dist = np.float32(_levenshtein(h, t))
                out[group] = dist / np.float32(len(t)) if normalize else dist
        return (out,)

    return compute
