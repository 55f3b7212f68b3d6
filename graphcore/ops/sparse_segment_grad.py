"""Gradients of the sparse segment reductions (TF's math_grad): the *Grad ops scatter the
segments' gradient rows back to the gathered rows of ``data``."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import NotDifferentiable, RegisterGradient
from graphcore.ops import array_ops, sparse_segment_ops


def _register(op_type: str, base: str, n_inputs: int) -> None:
    @RegisterGradient(op_type)
    def _grad(op: ops_lib.Operation, grad: Any) -> list:
        if op.get_attr("sparse_gradient"):
            raise NotImplementedError(f"The gradient of {op_type} with sparse_gradient=True "
                                      "(SparseSegment*GradV2) is not supported")
        dim0 = array_ops.shape(op.inputs[0])[0]
        return [sparse_segment_ops.sparse_segment_grad(base, grad, op.inputs[1], op.inputs[2],
                                                       dim0)] + [None] * (n_inputs - 1)


for _base in sparse_segment_ops.REDUCTIONS:
    _register(_base, _base, 3)
    _register(_base + "WithNumSegments", _base, 4)
    NotDifferentiable(_base + "Grad")
