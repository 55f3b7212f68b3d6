"""Gradients of :mod:`graphcore.ops.stateless_random_ops`: StatelessRandomGammaV3's samples
are differentiable in ``alpha`` by implicit reparameterization, as RandomGamma's."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops
from graphcore.ops.random_distribution_grad import _add_leading_unit_dimensions


@RegisterGradient("StatelessRandomGammaV3")
def _stateless_random_gamma_v3_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    shape, alpha, sample = op.inputs[0], op.inputs[4], op.outputs[0]
    with ops_lib.control_dependencies([grad]):
        # Here ``shape`` is the whole output shape, alpha's dimensions included.
        num_sample_dimensions = array_ops.shape(shape)[0] - array_ops.rank(alpha)
        alpha_broadcastable = _add_leading_unit_dimensions(alpha, num_sample_dimensions)
        partial_a = apply_op("RandomGammaGrad", alpha=alpha_broadcastable,
                             sample=sample).outputs[0]
        return (None, None, None, None,
                math_ops.reduce_sum(grad * partial_a,
                                    axis=math_ops.range(num_sample_dimensions)))
