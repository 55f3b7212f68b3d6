"""CPU kernels of the shift ops in :mod:`graphcore.ops.bitwise_ops`."""

from __future__ import annotations

import numpy as np

from graphcore.kernels.math_kernels import binary_kernel
from graphcore.kernels.registry import register_kernel


def _clamped(shift):
    """TF's CPU kernels clamp the shift to [0, bits - 1] (numpy's result is undefined)."""
    def fn(x, y):
        x, y = np.asarray(x), np.asarray(y)
        bits = x.dtype.itemsize * 8
        return shift(x, np.clip(y, 0, bits - 1).astype(x.dtype))
    return fn


register_kernel("LeftShift")(binary_kernel(_clamped(np.left_shift)))
register_kernel("RightShift")(binary_kernel(_clamped(np.right_shift)))
