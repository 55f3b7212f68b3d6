"""CPU kernels of :mod:`graphcore.ops.sdca_ops`: SdcaFprint (farmhash Fingerprint128,
bit for bit TF's) and SdcaShrinkL1 (in place on the ref variables, under their locks)."""

from __future__ import annotations

import farmhash
import numpy as np

from graphcore.kernels.registry import KernelContext, register_kernel

_MASK64 = (1 << 64) - 1
_NOT_ONE = _MASK64 ^ 1  # ~uint64(1)


@register_kernel("SdcaFprint")
def _sdca_fprint(ctx: KernelContext):
    del ctx

    def compute(values):
        flat = np.asarray(values, dtype=object).reshape(-1)
        out = np.empty((flat.size, 2), np.uint64)
        for i, s in enumerate(flat):
            low, high = farmhash.fingerprint128(bytes(s))
            # TF never returns 0 or 1 as the low half (sentinels for hash tables).
            out[i] = (low if low >= 2 else (low + _NOT_ONE) & _MASK64, high)
        return (out.view(np.int64),)

    return compute


@register_kernel("SdcaShrinkL1")
def _sdca_shrink_l1(ctx: KernelContext):
    attr = ctx.node_def.attr
    shrinkage = np.float32(np.float32(attr["l1"].f) / np.float32(attr["l2"].f))

    def compute(*weights):
        for state in weights:
            with state.lock:
                w = state.value_to_update()
                w[...] = np.sign(w) * np.maximum(np.abs(w) - shrinkage, np.float32(0))
                state.set(w)
        return ()

    return compute
