"""Gradients of :mod:`graphcore.ops.random_distribution_ops`: RandomGamma's samples are
differentiable in ``alpha`` by implicit reparameterization (Figurnov et al., 2018), which
is what makes tf.distributions' Gamma, Beta and Dirichlet samples reparameterized."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes
from graphcore.framework import ops as ops_lib
from graphcore.framework.gradient_registry import RegisterGradient
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, math_ops


def _add_leading_unit_dimensions(x: Any, num_dimensions: Any) -> ops_lib.Tensor:
    new_shape = array_ops.concat(
        [array_ops.ones([num_dimensions], dtype=dtypes.int32), array_ops.shape(x)], axis=0)
    return array_ops.reshape(x, new_shape)


@RegisterGradient("RandomGamma")
def _random_gamma_grad(op: ops_lib.Operation, grad: Any) -> tuple:
    shape, alpha = op.inputs
    sample = op.outputs[0]
    with ops_lib.control_dependencies([grad]):
        num_sample_dimensions = array_ops.shape(shape)[0]
        alpha_broadcastable = _add_leading_unit_dimensions(alpha, num_sample_dimensions)
        partial_a = apply_op("RandomGammaGrad", alpha=alpha_broadcastable,
                             sample=sample).outputs[0]
        return (None, math_ops.reduce_sum(grad * partial_a,
                                          axis=math_ops.range(num_sample_dimensions)))
