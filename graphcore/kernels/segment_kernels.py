"""CPU kernels of the segment reductions (:mod:`graphcore.ops.segment_ops` and
UnsortedSegmentSum): one scatter with the reduction's ufunc, TF's checks and TF's values
for empty segments."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _shape_text(shape) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


def _empty_value(kind: str, dtype: np.dtype, unsorted: bool):
    """What a segment no id falls in holds: 1 for prod, 0 for sum and mean; for max and
    min, 0 in TF's sorted kernels and the lowest / highest finite value in the unsorted
    ones."""
    if kind == "prod":
        return 1
    if kind in ("sum", "mean") or not unsorted:
        return 0
    info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
    return info.min if kind == "max" else info.max


_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "max": np.maximum,
           "min": np.minimum}


def _reduce(kind: str, data: np.ndarray, ids: np.ndarray, n: int, unsorted: bool):
    flat_ids = ids.reshape(-1).astype(np.int64)
    flat = data.reshape((flat_ids.size,) + data.shape[ids.ndim:])
    keep = flat_ids >= 0
    flat_ids, flat = flat_ids[keep], flat[keep]
    out_shape = (n,) + data.shape[ids.ndim:]
    ufunc = _UFUNCS[kind]
    if kind in ("sum", "mean"):
        out = np.zeros(out_shape, dtype=data.dtype)
    else:
        identity = {"prod": 1, "max": _empty_value("max", data.dtype, True),
                    "min": _empty_value("min", data.dtype, True)}[kind]
        out = np.full(out_shape, identity, dtype=data.dtype)
    ufunc.at(out, flat_ids, flat)
    counts = np.bincount(flat_ids, minlength=n)[:n]
    if kind == "mean":
        shape = (n,) + (1,) * (out.ndim - 1)
        divisor = np.maximum(counts, 1).reshape(shape).astype(out.dtype)
        out = out // divisor if out.dtype.kind in "iu" else out / divisor
    if kind != "sum":
        out[counts == 0] = _empty_value(kind, data.dtype, unsorted)
    return out


def _sorted_kernel(kind: str):
    def factory(ctx: KernelContext):
        del ctx

        def compute(data, segment_ids):
            data, ids = np.asarray(data), np.asarray(segment_ids)
            if ids.ndim != 1:
                raise _invalid(f"segment_ids should be a vector. Got shape "
                               f"{_shape_text(ids.shape)}")
            if data.ndim == 0 or data.shape[0] != ids.shape[0]:
                raise _invalid(f"segment_ids should be the same size as dimension 0 of "
                               f"input. Got shape {_shape_text(ids.shape)}")
            if ids.size and np.any(np.diff(ids) < 0):
                bad = int(np.argmax(np.diff(ids) < 0)) + 1
                raise _invalid(f"segment ids are not increasing (segment_ids[{bad}] = "
                               f"{ids[bad]})")
            if ids.size and ids[0] < 0:
                raise _invalid(f"segment_ids[0] = {ids[0]} is out of range")
            n = int(ids[-1]) + 1 if ids.size else 0
            return (_reduce(kind, data, ids, n, unsorted=False),)

        return compute

    return factory


def _unsorted_kernel(kind: str):
    def factory(ctx: KernelContext):
        del ctx

        def compute(data, segment_ids, num_segments):
            data, ids = np.asarray(data), np.asarray(segment_ids)
            if np.ndim(num_segments) != 0:
                raise _invalid(f"num_segments should be a scalar, not shape "
                               f"{_shape_text(np.shape(num_segments))}")
            n = int(num_segments)
            if data.shape[:ids.ndim] != ids.shape:
                raise _invalid(f"data.shape = {_shape_text(data.shape)} does not start with "
                               f"segment_ids.shape = {_shape_text(ids.shape)}")
            if n < 0:
                raise _invalid(f"Input num_segments == {n} must not be negative.")
            flat_ids = ids.reshape(-1)
            bad = np.nonzero(flat_ids >= n)[0]
            if bad.size:
                pos = np.unravel_index(bad[0], ids.shape) if ids.ndim else ()
                where = ",".join(str(int(p)) for p in pos)
                raise _invalid(f"segment_ids[{where}] = {flat_ids[bad[0]]} is out of range "
                               f"[0, {n})")
            return (_reduce(kind, data, ids, n, unsorted=True),)

        return compute

    return factory


for _kind in ("sum", "mean", "prod", "max", "min"):
    register_kernel(f"Segment{_kind.capitalize()}")(_sorted_kernel(_kind))
for _kind in ("sum", "prod", "max", "min"):
    register_kernel(f"UnsortedSegment{_kind.capitalize()}")(_unsorted_kernel(_kind))
