"""CPU kernels of the FFT ops (:mod:`graphcore.ops.spectral_ops`), numpy's pocketfft."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_AXES = {"FFT": 1, "IFFT": 1, "FFT2D": 2, "IFFT2D": 2, "FFT3D": 3, "IFFT3D": 3}


def _complex_kernel(op_type: str):
    rank = _AXES[op_type]
    fn = np.fft.ifftn if op_type.startswith("I") else np.fft.fftn

    def factory(ctx: KernelContext):
        out = ctx.output_types[0].as_numpy_dtype

        def compute(x):
            x = np.asarray(x)
            axes = tuple(range(x.ndim - rank, x.ndim))
            return (fn(x, axes=axes).astype(out) if x.size else x.astype(out),)

        return compute

    return factory


for _op_type in _AXES:
    register_kernel(_op_type)(_complex_kernel(_op_type))


@register_kernel("RFFT")
def _rfft(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype
    return lambda x, n: (np.fft.rfft(np.asarray(x), n=int(np.asarray(n).reshape(-1)[0]))
                         .astype(out),)


@register_kernel("IRFFT")
def _irfft(ctx: KernelContext):
    out = ctx.output_types[0].as_numpy_dtype
    return lambda x, n: (np.fft.irfft(np.asarray(x), n=int(np.asarray(n).reshape(-1)[0]))
                         .astype(out),)


_ND = {"FFTND": np.fft.fftn, "IFFTND": np.fft.ifftn, "RFFTND": np.fft.rfftn,
       "IRFFTND": np.fft.irfftn}


def _nd_kernel(op_type: str):
    fn = _ND[op_type]

    def factory(ctx: KernelContext):
        out = ctx.output_types[0].as_numpy_dtype

        def compute(x, fft_length, axes):
            x = np.asarray(x)
            s = [int(n) for n in np.asarray(fft_length).reshape(-1)]
            axes = [int(a) for a in np.asarray(axes).reshape(-1)]
            if len(s) != len(axes):
                raise errors.InvalidArgumentError(
                    None, None, f"fft_length has {len(s)} values but axes has {len(axes)}")
            return (fn(x, s=s, axes=axes).astype(out),)

        return compute

    return factory


for _op_type in _ND:
    register_kernel(_op_type)(_nd_kernel(_op_type))
