"""CPU kernel of SparseMatMul (:mod:`graphcore.ops.sparse_matmul_ops`): the operands go
to float32 and through the float32 GEMM; the sparsity hints change nothing here."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels import blas
from graphcore.kernels.registry import KernelContext, register_kernel


@register_kernel("SparseMatMul")
def _sparse_matmul(ctx: KernelContext):
    ta = ctx.node_def.attr["transpose_a"].b
    tb = ctx.node_def.attr["transpose_b"].b
    product = blas.matmul_fn(np.float32)

    def compute(a, b):
        a = np.asarray(a, dtype=np.float32)
        b = np.asarray(b, dtype=np.float32)
        if a.ndim != 2 or b.ndim != 2:
            raise errors.InvalidArgumentError(None, None, "a and b must be matrices")
        inner_a = a.shape[0] if ta else a.shape[1]
        inner_b = b.shape[1] if tb else b.shape[0]
        if inner_a != inner_b:
            raise errors.InvalidArgumentError(
                None, None, f"Matrix size incompatible: a: {list(a.shape)}, b: {list(b.shape)}")
        return (np.asarray(product(a, b, ta, tb), dtype=np.float32),)

    return compute
