"""SparseMatMul (TF's math_ops): a float32 product of two dense matrices, either of which
may be flagged as mostly zeros (``a_is_sparse``/``b_is_sparse``, a performance hint only);
``tf.sparse_matmul`` and ``tf.matmul(..., a_is_sparse=True)`` build it. The gradient is
TF's. Kernel: :mod:`graphcore.kernels.sparse_matmul_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops
from graphcore.ops.gen_math_ops import _matmul_shape_fn

__all__ = ["sparse_matmul"]

op_registry.register_op("SparseMatMul").input("a: Ta").input("b: Tb") \
    .output("product: float").attr("transpose_a: bool = false") \
    .attr("transpose_b: bool = false").attr("a_is_sparse: bool = false") \
    .attr("b_is_sparse: bool = false").attr("Ta: {float, bfloat16} = DT_FLOAT") \
    .attr("Tb: {float, bfloat16} = DT_FLOAT").shape_fn(_matmul_shape_fn)


def sparse_matmul(a: Any, b: Any, transpose_a: bool = False, transpose_b: bool = False,
                  a_is_sparse: bool = False, b_is_sparse: bool = False,
                  name: str | None = None) -> ops_lib.Tensor:
    """``a @ b`` as float32 (SparseMatMul)."""
    return apply_op("SparseMatMul", name=name, a=a, b=b, transpose_a=transpose_a,
                    transpose_b=transpose_b, a_is_sparse=a_is_sparse,
                    b_is_sparse=b_is_sparse).outputs[0]


@RegisterGradient("SparseMatMul")
def _sparse_matmul_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    is_sparse = {id(op.inputs[0]): op.get_attr("a_is_sparse"),
                 id(op.inputs[1]): op.get_attr("b_is_sparse"),
                 # TF's heuristic: a gradient out of a ReluGrad is likely sparse.
                 id(grad): grad.op.type == "ReluGrad"}

    def product(t1: Any, t2: Any, out_dtype: Any, transpose_a: bool = False,
                transpose_b: bool = False) -> Any:
        t1_sparse, t2_sparse = is_sparse[id(t1)], is_sparse[id(t2)]
        if transpose_b:
            t2 = array_ops.transpose(t2)
            transpose_b = False
        prod = math_ops.matmul(t1, t2, transpose_a=transpose_a, transpose_b=transpose_b,
                               a_is_sparse=t1_sparse, b_is_sparse=t2_sparse)
        if prod.dtype != out_dtype:
            prod = math_ops.cast(prod, out_dtype)
        return prod

    a, b = op.inputs[0], op.inputs[1]
    dtype_a, dtype_b = a.dtype, b.dtype
    if not t_a and not t_b:
        return (product(grad, b, dtype_a, transpose_b=True),
                product(a, grad, dtype_b, transpose_a=True))
    if not t_a and t_b:
        return (product(grad, b, dtype_a), product(grad, a, dtype_b, transpose_a=True))
    if t_a and not t_b:
        return (product(b, grad, dtype_a, transpose_b=True), product(a, grad, dtype_b))
    return (product(b, grad, dtype_a, transpose_a=True, transpose_b=True),
            product(grad, a, dtype_b, transpose_a=True, transpose_b=True))

