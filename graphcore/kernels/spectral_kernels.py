"""CPU kernels of the FFT ops (:mod:`graphcore.ops.spectral_ops`), numpy's pocketfft."""

from __future__ import annotations

import numpy as np

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
