"""Ops of TF's SDCA linear solver that TF1 exports in ``tf.train``: SdcaFprint (the
128-bit farmhash Fingerprint128 of each string, as two int64 columns) and SdcaShrinkL1
(the L1 proximal step ``sign(w) * max(|w| - l1 / l2, 0)`` on a list of float ref
variables, in place). Kernels: :mod:`graphcore.kernels.sdca_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op

__all__ = ["sdca_fprint", "sdca_shrink_l1"]


def _fprint_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape.with_rank(1)
    return [shape_lib.TensorShape([shape.dims[0].value, 2])]


op_registry.register_op("SdcaFprint").input("input: string").output("output: int64") \
    .shape_fn(_fprint_shape)
op_registry.register_op("SdcaShrinkL1").input("weights: num_features * Ref(float)") \
    .attr("num_features: int >= 0").attr("l1: float").attr("l2: float") \
    .shape_fn(lambda op: [])
for _op_type in ("SdcaFprint", "SdcaShrinkL1"):
    NotDifferentiable(_op_type)


def sdca_fprint(input: Any, name: str | None = None) -> ops_lib.Tensor:  # noqa: A002 - TF's
    """The Fingerprint128 of each string of the 1-D ``input``: an int64 [N, 2] tensor
    (low and high 64 bits)."""
    return apply_op("SdcaFprint", name=name, input=input).outputs[0]


def sdca_shrink_l1(weights: list, l1: float, l2: float,
                   name: str | None = None) -> ops_lib.Operation:
    """Shrinks each variable of ``weights`` in place towards 0 by ``l1 / l2``."""
    refs = [w._ref() if hasattr(w, "_ref") else w for w in weights]
    return apply_op("SdcaShrinkL1", name=name, weights=refs, l1=l1, l2=l2)
