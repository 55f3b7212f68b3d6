"""CPU (numpy) kernels of the sparse segment reductions and their gradient ops
(:mod:`graphcore.ops.sparse_segment_ops`), with TF's index checks."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _counts(segment_ids: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(segment_ids, minlength=n)[:n]


def _scale(kind: str, counts: np.ndarray, dtype) -> np.ndarray:
    """The per-segment divisor of a mean (count) or sqrt_n (sqrt(count)); 1 when empty."""
    c = np.maximum(counts, 1).astype(dtype)
    if kind == "Mean":
        return c
    if kind == "SqrtN":
        return np.sqrt(c)
    return np.ones_like(c)


def _check(data_rows: int, indices: np.ndarray, segment_ids: np.ndarray) -> None:
    if indices.shape != segment_ids.shape:
        raise _invalid("segment_ids and indices should have same size.")
    if segment_ids.size and (np.diff(segment_ids) < 0).any():
        raise _invalid("segment ids are not increasing")
    if segment_ids.size and segment_ids[0] < 0:
        raise _invalid("segment ids must be >= 0")
    bad = (indices < 0) | (indices >= data_rows)
    if bad.any():
        i = int(np.argmax(bad))
        raise _invalid(f"Bad: indices[{i}] == {indices[i]} out of range [0, {data_rows})")


def _reduce(kind: str, with_num: bool):
    def factory(ctx: KernelContext):
        del ctx

        def compute(data, indices, segment_ids, *num_segments):
            data = np.asarray(data)
            idx = np.asarray(indices).astype(np.int64, copy=False)
            seg = np.asarray(segment_ids).astype(np.int64, copy=False)
            _check(data.shape[0], idx, seg)
            if with_num:
                n = int(np.asarray(num_segments[0]))
                if seg.size and seg[-1] >= n:
                    raise _invalid("segment ids must be < num_segments")
            else:
                n = int(seg[-1]) + 1 if seg.size else 0
            out = np.zeros((n,) + data.shape[1:], dtype=data.dtype)
            np.add.at(out, seg, data[idx])
            if kind != "Sum":
                shape = (n,) + (1,) * (data.ndim - 1)
                out /= _scale(kind, _counts(seg, n), data.dtype).reshape(shape)
            return (out,)

        return compute

    return factory


def _grad(kind: str):
    def factory(ctx: KernelContext):
        del ctx

        def compute(grad, indices, segment_ids, output_dim0):
            grad = np.asarray(grad)
            idx = np.asarray(indices).astype(np.int64, copy=False)
            seg = np.asarray(segment_ids).astype(np.int64, copy=False)
            dim0 = int(np.asarray(output_dim0))
            n = grad.shape[0]
            if seg.size and ((seg < 0) | (seg >= n)).any():
                raise _invalid("Segment id out of range")
            if idx.size and ((idx < 0) | (idx >= dim0)).any():
                raise _invalid("Index out of range")
            rows = grad[seg]
            if kind != "Sum":
                shape = (seg.size,) + (1,) * (grad.ndim - 1)
                rows = rows / _scale(kind, _counts(seg, n), grad.dtype)[seg].reshape(shape)
            out = np.zeros((dim0,) + grad.shape[1:], dtype=grad.dtype)
            np.add.at(out, idx, rows)
            return (out,)

        return compute

    return factory


for _kind in ("Sum", "Mean", "SqrtN"):
    register_kernel(f"SparseSegment{_kind}")(_reduce(_kind, False))
    register_kernel(f"SparseSegment{_kind}WithNumSegments")(_reduce(_kind, True))
    register_kernel(f"SparseSegment{_kind}Grad")(_grad(_kind))
