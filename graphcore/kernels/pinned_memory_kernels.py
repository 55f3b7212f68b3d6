"""Kernel of CheckPinned (:mod:`graphcore.ops.pinned_memory_ops`): asks the CUDA runtime
(through CuPy) whether the tensor's buffer is registered host memory, as TF's
cudaHostGetFlags check."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.gpu_kernels import AVAILABLE, cp
from graphcore.kernels.registry import KernelContext, register_kernel

_CUDA_MEMORY_TYPE_HOST = 1


def _pinned(value) -> bool:
    pointer = value.data.ptr if isinstance(value, cp.ndarray) else \
        np.asarray(value).__array_interface__["data"][0]
    try:
        attributes = cp.cuda.runtime.pointerGetAttributes(pointer)
    except cp.cuda.runtime.CUDARuntimeError:
        return False
    return attributes.type == _CUDA_MEMORY_TYPE_HOST


def _check_pinned(ctx: KernelContext):
    del ctx

    def compute(tensor):
        if not AVAILABLE:
            raise errors.FailedPreconditionError(
                None, None, "to check pinnedness, must be built with `--config=cuda` "
                "(graphcore: needs CuPy and a GPU)")
        if not _pinned(tensor):
            raise errors.InvalidArgumentError(None, None, "not pinned")
        return (tensor,)

    return compute


register_kernel("CheckPinned")(_check_pinned)
if AVAILABLE:
    register_kernel("CheckPinned", "GPU")(_check_pinned)
