"""CPU kernels of :mod:`graphcore.ops.elementwise_ops`: numpy ufuncs, and SciPy's special
functions for erf, lgamma, digamma and the incomplete gamma, beta and zeta functions."""

from __future__ import annotations

import numpy as np
from scipy import special

from graphcore.kernels.math_kernels import binary_kernel, unary_kernel
from graphcore.kernels.registry import KernelContext, register_kernel


def _lgamma(x):
    return special.gammaln(x)  # log|Gamma(x)|, as TF's Lgamma


def _truncate_div(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if np.result_type(x, y).kind in "iu":
        q = np.abs(x) // np.abs(y)
        return np.where((x < 0) != (y < 0), -q, q).astype(np.result_type(x, y))
    return np.trunc(np.true_divide(x, y)) if np.result_type(x, y).kind == "f" else x / y


def _truncate_mod(x, y):
    return np.fmod(x, y)


def _xlogy(x, y):
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros_like(x * y), x * np.log(y))


def _xdivy(x, y):
    x, y = np.asarray(x), np.asarray(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x == 0, np.zeros_like(x * y), x / y)


def _zeta(x, q):
    return special.zeta(x, q)


def _polygamma(a, x):
    a, x = np.broadcast_arrays(np.asarray(a), np.asarray(x))
    return special.polygamma(a.astype(np.int64), x).astype(np.result_type(a, x))


_UNARY = {
    "Acos": np.arccos, "Acosh": np.arccosh, "Asin": np.arcsin, "Asinh": np.arcsinh,
    "Atan": np.arctan, "Atanh": np.arctanh, "Cosh": np.cosh, "Sinh": np.sinh, "Tan": np.tan,
    "Erf": special.erf, "Erfc": special.erfc, "Erfinv": special.erfinv,
    "Ndtri": special.ndtri, "Lgamma": _lgamma, "Digamma": special.digamma,
    "IsNan": np.isnan, "IsInf": np.isinf, "IsFinite": np.isfinite,
    "Real": np.real, "Imag": np.imag, "Angle": np.angle,
}
_BINARY = {
    "Atan2": np.arctan2, "TruncateDiv": _truncate_div, "TruncateMod": _truncate_mod,
    "Igamma": special.gammainc, "Igammac": special.gammaincc, "Polygamma": _polygamma,
    "Zeta": _zeta, "Xlogy": _xlogy, "Xdivy": _xdivy,
}

for _op_type, _fn in _UNARY.items():
    register_kernel(_op_type)(unary_kernel(_fn, low_float_work=True))
for _op_type, _fn in _BINARY.items():
    register_kernel(_op_type)(binary_kernel(_fn, low_float_work=True))


@register_kernel("Complex")
def _complex(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype
    return lambda re, im: ((np.asarray(re) + 1j * np.asarray(im)).astype(out),)


def igamma_grad_a(a, x) -> np.ndarray:
    """d P(a, x) / da in float64, P the regularized lower incomplete gamma: a central
    difference of P, or in the upper tail of -Q = P - 1 (whichever is small keeps its
    precision)."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    h = 1e-5 * np.maximum(a, 1.0)
    upper = x > a
    plus = np.where(upper, -special.gammaincc(a + h, x), special.gammainc(a + h, x))
    minus = np.where(upper, -special.gammaincc(a - h, x), special.gammainc(a - h, x))
    return (plus - minus) / (2.0 * h)


@register_kernel("IgammaGradA")
def _igamma_grad_a(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype
    return lambda a, x: (igamma_grad_a(a, x).astype(out),)


@register_kernel("Betainc")
def _betainc(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype
    return lambda a, b, x: (np.asarray(special.betainc(a, b, x), dtype=out),)
