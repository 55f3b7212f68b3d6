"""CPU kernels of :mod:`graphcore.ops.special_math_ops`: SciPy's special functions, numpy's
nextafter, MulNoNan, Xlog1py, EuclideanNorm, CumulativeLogsumexp, and SobolSample from
SciPy's unscrambled Sobol sequence (the same Joe-Kuo direction numbers as TF's)."""

from __future__ import annotations

import warnings

import numpy as np
from scipy import special
from scipy.stats import qmc

from graphcore.framework import errors
from graphcore.kernels.math_kernels import binary_kernel, unary_kernel
from graphcore.kernels.registry import KernelContext, register_kernel


def _expint(x):
    # TF's Expint is Ei(x): NaN for x < 0 (scipy's expi is defined there).
    return np.where(x < 0, np.nan, special.expi(x))


def _spence(x):
    return special.spence(x)


_UNARY = {
    "BesselI0": special.i0, "BesselI0e": special.i0e, "BesselI1": special.i1,
    "BesselI1e": special.i1e, "BesselJ0": special.j0, "BesselJ1": special.j1,
    "BesselK0": special.k0, "BesselK0e": special.k0e, "BesselK1": special.k1,
    "BesselK1e": special.k1e, "BesselY0": special.y0, "BesselY1": special.y1,
    "Dawsn": special.dawsn, "Expint": _expint,
    "FresnelCos": lambda x: special.fresnel(x)[1],
    "FresnelSin": lambda x: special.fresnel(x)[0], "Spence": _spence,
}
for _op_type, _fn in _UNARY.items():
    register_kernel(_op_type)(unary_kernel(_fn, low_float_work=True))


def _mul_no_nan(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return np.where(y == 0, np.zeros_like(x * y), x * y)


def _xlog1py(x, y):
    x, y = np.asarray(x), np.asarray(y)
    return np.where(x == 0, np.zeros_like(x * y), x * np.log1p(y))


register_kernel("MulNoNan")(binary_kernel(_mul_no_nan, low_float_work=True))
register_kernel("Xlog1py")(binary_kernel(_xlog1py, low_float_work=True))
register_kernel("NextAfter")(binary_kernel(np.nextafter))


def _axes(x: np.ndarray, axes) -> tuple:
    flat = np.asarray(axes).reshape(-1)
    out = []
    for a in flat:
        a = int(a)
        if not -x.ndim <= a < max(x.ndim, 1):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid reduction dimension ({a} for input with {x.ndim} "
                            "dimension(s)")
        out.append(a % max(x.ndim, 1))
    return tuple(sorted(set(out)))


@register_kernel("EuclideanNorm")
def _euclidean_norm(ctx: KernelContext):
    keep = ctx.attr("keep_dims")
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(x, axes):
        x = np.asarray(x)
        ax = _axes(x, axes)
        if out.kind == "c":
            total = np.sum(x * np.conj(x), axis=ax, keepdims=keep)
        else:
            work = np.float64 if out.kind in "iu" else (
                np.float32 if out.itemsize < 4 else out)
            total = np.sum(np.square(x.astype(work)), axis=ax, keepdims=keep)
        r = np.sqrt(total)
        return (np.asarray(np.trunc(r) if out.kind in "iu" else r).astype(out),)

    return compute


@register_kernel("CumulativeLogsumexp")
def _cumulative_logsumexp(ctx: KernelContext):
    exclusive, reverse = ctx.attr("exclusive"), ctx.attr("reverse")
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(x, axis):
        x = np.asarray(x)
        work = np.float32 if out.itemsize < 4 else out
        x = x.astype(work)
        a = int(np.asarray(axis))
        if not -x.ndim <= a < x.ndim:
            raise errors.InvalidArgumentError(
                None, None, f"ScanOp: Expected scan axis in the range [{-x.ndim}, {x.ndim}), "
                            f"but got {a}")
        if reverse:
            x = np.flip(x, a)
        r = np.logaddexp.accumulate(x, axis=a)
        if exclusive and x.shape[a]:
            lowest = np.full_like(np.take(r, [0], axis=a), -np.inf)
            r = np.concatenate([lowest, np.take(r, np.arange(x.shape[a] - 1), axis=a)], axis=a)
        if reverse:
            r = np.flip(r, a)
        return (np.ascontiguousarray(r).astype(out),)

    return compute


# TF's SobolSample supports dimensions up to this bound (its direction-number table).
_SOBOL_MAX_DIM = 21200


@register_kernel("SobolSample")
def _sobol_sample(ctx: KernelContext):
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(dim, num_results, skip):
        dim, num_results, skip = int(dim), int(num_results), int(skip)
        if dim < 1:
            raise errors.InvalidArgumentError(None, None, "dim must be at least one")
        if dim > _SOBOL_MAX_DIM:
            raise errors.InvalidArgumentError(None, None,
                                              f"dim must be at most {_SOBOL_MAX_DIM}")
        if num_results < 1:
            raise errors.InvalidArgumentError(None, None, "num_results must be at least one")
        if skip < 0:
            raise errors.InvalidArgumentError(None, None, "skip must be non-negative")
        engine = qmc.Sobol(d=dim, scramble=False)
        with warnings.catch_warnings():
            # SciPy warns when a sample size is not a power of two; TF's op allows any.
            warnings.simplefilter("ignore")
            engine.fast_forward(1 + skip)
            return (engine.random(num_results).astype(out),)

    return compute
