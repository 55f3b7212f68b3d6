"""tf.signal / tf.spectral: Fourier transforms."""

# ruff: noqa: F401
from graphcore.ops.spectral_ops import fft, fft2d, fft3d, ifft, ifft2d, ifft3d, irfft, rfft
