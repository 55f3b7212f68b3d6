"""Kernels: numpy implementations for CPU (and CuPy for GPU when present), registered
per (op type, device type) in :mod:`graphcore.kernels.registry`."""

from graphcore.kernels import (  # noqa: F401 - imported for their registrations
    array_kernels,
    control_kernels,
    gpu_kernels,
    io_kernels,
    math_kernels,
    nn_kernels,
    random_kernels,
    runtime_kernels,
    state_kernels,
    summary_kernels,
    training_kernels,
)
