"""CPU kernels of the counting and crossing ops (:mod:`graphcore.ops.sparse_count_ops`):
counts per batch row sorted by value as TF's count_ops; crosses enumerate each row's
feature product with the last column varying fastest, as TF's ProductIterator."""

from __future__ import annotations

import itertools

import farmhash
import numpy as np

from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.sparse_kernels import _invalid

_MASK = (1 << 64) - 1
_K_MUL = 0xC6A4A7935BD1E995


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def fingerprint_cat64(fp1: int, fp2: int) -> int:
    """TF's FingerprintCat64 of two uint64 fingerprints."""
    result = fp1 ^ _K_MUL
    result ^= (_shift_mix((fp2 * _K_MUL) & _MASK) * _K_MUL) & _MASK
    result = (result * _K_MUL) & _MASK
    result = (_shift_mix(result) * _K_MUL) & _MASK
    return _shift_mix(result)


def _counts(ctx: KernelContext, batches: np.ndarray, values: np.ndarray, weights: np.ndarray,
            num_batches: int, is_1d: bool) -> tuple:
    minlength = ctx.node_def.attr["minlength"].i
    maxlength = ctx.node_def.attr["maxlength"].i
    binary = ctx.node_def.attr["binary_output"].b
    out_dtype = ctx.attr("output_type").as_numpy_dtype
    use_weights = weights.size > 0
    if use_weights and weights.shape != values.shape:
        raise _invalid(f"Weights and values must have the same shape. Weight shape: "
                       f"{list(weights.shape)}; values shape: {list(values.shape)}")
    per_batch: list[dict] = [{} for _ in range(num_batches)]
    max_value = 0
    for k, (b, v) in enumerate(zip(batches.tolist(), values.tolist())):
        if v < 0:
            raise _invalid("Input values must all be non-negative")
        if maxlength >= 0 and v >= maxlength:
            continue
        max_value = max(max_value, v + 1)
        counts = per_batch[b]
        counts[v] = counts.get(v, 0) + (weights[k] if use_weights else 1)
    size = maxlength if maxlength > -1 else max(max_value, minlength)
    rows, vals = [], []
    for b, counts in enumerate(per_batch):
        for v in sorted(counts):
            rows.append([v] if is_1d else [b, v])
            vals.append(1 if binary else counts[v])
    indices = np.array(rows, dtype=np.int64).reshape(len(rows), 1 if is_1d else 2)
    shape = np.array([size] if is_1d else [num_batches, size], dtype=np.int64)
    return indices, np.array(vals, dtype=out_dtype), shape


@register_kernel("DenseCountSparseOutput")
def _dense_count(ctx: KernelContext):
    def compute(values, weights):
        values, weights = np.asarray(values), np.asarray(weights)
        if values.ndim not in (1, 2):
            raise _invalid(f"Input must be a 1 or 2-dimensional tensor. Got: {values.ndim}")
        is_1d = values.ndim == 1
        num_batches = 1 if is_1d else values.shape[0]
        batches = np.repeat(np.arange(num_batches), values.size // max(num_batches, 1))
        return _counts(ctx, batches, values.reshape(-1), weights.reshape(-1)
                       if weights.size else weights, num_batches, is_1d)

    return compute


@register_kernel("SparseCountSparseOutput")
def _sparse_count(ctx: KernelContext):
    def compute(indices, values, dense_shape, weights):
        idx, values = np.asarray(indices, np.int64), np.asarray(values)
        shape = np.asarray(dense_shape, np.int64)
        is_1d = len(shape) == 1
        num_batches = 1 if is_1d else int(shape[0])
        batches = np.zeros(len(values), np.int64) if is_1d else idx[:, 0]
        return _counts(ctx, batches, values, np.asarray(weights), num_batches, is_1d)

    return compute


def _columns(n: int, inputs: tuple) -> tuple[list[list[list]], int]:
    """Each column's features per batch row: sparse inputs first, then dense ones."""
    indices, values, shapes = inputs[:n], inputs[n:2 * n], inputs[2 * n:3 * n]
    dense = inputs[3 * n:]
    batch = None
    for s in shapes:
        batch = int(np.asarray(s)[0]) if batch is None else batch
    for d in dense:
        batch = np.asarray(d).shape[0] if batch is None else batch
    batch = batch or 0
    columns = []
    for i in range(n):
        idx = np.asarray(indices[i], np.int64)
        if idx.ndim != 2 or idx.shape[1] != 2:
            raise _invalid(f"Expected D2 of index to be 2 got {idx.shape[-1]} at position {i}")
        vals = np.asarray(values[i]).reshape(-1).tolist()
        col: list[list] = [[] for _ in range(batch)]
        for row, v in zip(idx[:, 0].tolist(), vals):
            col[row].append(v)
        columns.append(col)
    for d in dense:
        d = np.asarray(d)
        if d.ndim != 2:
            raise _invalid(f"Dense inputs should be a matrix but received shape "
                           f"{list(d.shape)}")
        columns.append([list(r) for r in d.tolist()])
    return columns, batch


def _cross(columns: list, batch: int, combine) -> tuple:
    rows, vals, width = [], [], 0
    for b in range(batch):
        k = 0
        for combo in itertools.product(*(c[b] for c in columns)):
            rows.append([b, k])
            vals.append(combine(combo))
            k += 1
        width = max(width, k)
    return (np.array(rows, np.int64).reshape(len(rows), 2), vals,
            np.array([batch, width], np.int64))


def _text(v) -> bytes:
    return bytes(v) if isinstance(v, (bytes, np.bytes_)) else str(int(v)).encode()


@register_kernel("SparseCrossV2")
def _sparse_cross_v2(ctx: KernelContext):
    n = ctx.node_def.attr["N"].i

    def compute(*inputs):
        columns, batch = _columns(n, inputs[:-1])
        sep = bytes(np.asarray(inputs[-1], dtype=object).item())
        idx, vals, shape = _cross(columns, batch, lambda c: sep.join(_text(v) for v in c))
        return (idx, np.array(vals, dtype=object), shape)

    return compute


@register_kernel("SparseCross")
def _sparse_cross(ctx: KernelContext):
    n = ctx.node_def.attr["N"].i
    hashed = ctx.node_def.attr["hashed_output"].b
    num_buckets = ctx.node_def.attr["num_buckets"].i
    hash_key = ctx.node_def.attr["hash_key"].i & _MASK

    def feature_hash(v) -> int:
        if isinstance(v, (bytes, np.bytes_)):
            return farmhash.fingerprint64(bytes(v))
        return int(v) & _MASK

    def hashed_cross(combo) -> int:
        out = hash_key
        for v in combo:
            out = fingerprint_cat64(out, feature_hash(v))
        return out % num_buckets if num_buckets > 0 else out % ((1 << 63) - 1)

    def compute(*inputs):
        columns, batch = _columns(n, inputs)
        if hashed:
            idx, vals, shape = _cross(columns, batch, hashed_cross)
            return (idx, np.array(vals, dtype=np.int64), shape)
        idx, vals, shape = _cross(columns, batch, lambda c: b"_X_".join(_text(v) for v in c))
        return (idx, np.array(vals, dtype=object), shape)

    return compute
