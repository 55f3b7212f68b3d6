"""graphcore.kernels."""
