"""Ops of TF's SDCA linear solver that TF1 exports in ``tf.train``: SdcaOptimizer (one
pass of stochastic dual coordinate ascent over a mini-batch: new per-example dual state
and weight deltas), SdcaFprint (the 128-bit farmhash Fingerprint128 of each string, as
two int64 columns) and SdcaShrinkL1 (the L1 proximal step ``sign(w) * max(|w| - l1 /
l2, 0)`` on a list of float ref variables, in place). Kernels:
:mod:`graphcore.kernels.sdca_kernels`, :mod:`graphcore.kernels.sdca_optimizer_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op

__all__ = ["sdca_fprint", "sdca_optimizer", "sdca_shrink_l1"]


def _fprint_shape(op: ops_lib.Operation) -> list:
    shape = op._inputs[0].shape.with_rank(1)
    return [shape_lib.TensorShape([shape.dims[0].value, 2])]


op_registry.register_op("SdcaFprint").input("input: string").output("output: int64") \
    .shape_fn(_fprint_shape)
op_registry.register_op("SdcaShrinkL1").input("weights: num_features * Ref(float)") \
    .attr("num_features: int >= 0").attr("l1: float").attr("l2: float") \
    .shape_fn(lambda op: [])


def _sdca_optimizer_shape(op: ops_lib.Operation) -> list:
    attrs = {k: op.get_attr(k) for k in ("num_sparse_features",
                                         "num_sparse_features_with_values",
                                         "num_dense_features")}
    ns, nd = attrs["num_sparse_features"], attrs["num_dense_features"]
    # inputs: 2*ns indices, nsv values, nd dense features, weights, labels, ns sparse
    # indices, ns sparse weights, nd dense weights, state.
    base = 2 * ns + attrs["num_sparse_features_with_values"] + nd + 2
    sparse_weights = op._inputs[base + ns:base + 2 * ns]
    dense_weights = op._inputs[base + 2 * ns:base + 2 * ns + nd]
    state = shape_lib.TensorShape([None, 4])  # TF's: rows unknown
    return [state] + [t.shape for t in sparse_weights] + [t.shape for t in dense_weights]


op_registry.register_op("SdcaOptimizer") \
    .input("sparse_example_indices: num_sparse_features * int64") \
    .input("sparse_feature_indices: num_sparse_features * int64") \
    .input("sparse_feature_values: num_sparse_features_with_values * float") \
    .input("dense_features: num_dense_features * float") \
    .input("example_weights: float").input("example_labels: float") \
    .input("sparse_indices: num_sparse_features * int64") \
    .input("sparse_weights: num_sparse_features * float") \
    .input("dense_weights: num_dense_features * float") \
    .input("example_state_data: float") \
    .output("out_example_state_data: float") \
    .output("out_delta_sparse_weights: num_sparse_features * float") \
    .output("out_delta_dense_weights: num_dense_features * float") \
    .attr("loss_type: {'logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss', "
          "'poisson_loss'}") \
    .attr("adaptative: bool = false") \
    .attr("num_sparse_features: int >= 0") \
    .attr("num_sparse_features_with_values: int >= 0") \
    .attr("num_dense_features: int >= 0") \
    .attr("l1: float").attr("l2: float") \
    .attr("num_loss_partitions: int >= 1").attr("num_inner_iterations: int >= 1") \
    .shape_fn(_sdca_optimizer_shape)
for _op_type in ("SdcaFprint", "SdcaShrinkL1", "SdcaOptimizer"):
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


def sdca_optimizer(sparse_example_indices: list, sparse_feature_indices: list,
                   sparse_feature_values: list, dense_features: list, example_weights: Any,
                   example_labels: Any, sparse_indices: list, sparse_weights: list,
                   dense_weights: list, example_state_data: Any, loss_type: str, l1: float,
                   l2: float, num_loss_partitions: int, num_inner_iterations: int,
                   adaptative: bool = True, name: str | None = None) -> tuple:
    """One SDCA pass over the examples: (out_example_state_data,
    out_delta_sparse_weights, out_delta_dense_weights), the new [N, 4] dual state (dual,
    primal loss, dual loss, example weight) and the deltas to add to the weights."""
    op = apply_op("SdcaOptimizer", name=name, sparse_example_indices=sparse_example_indices,
                  sparse_feature_indices=sparse_feature_indices,
                  sparse_feature_values=sparse_feature_values, dense_features=dense_features,
                  example_weights=example_weights, example_labels=example_labels,
                  sparse_indices=sparse_indices, sparse_weights=sparse_weights,
                  dense_weights=dense_weights, example_state_data=example_state_data,
                  loss_type=loss_type, adaptative=adaptative,
                  num_sparse_features=len(sparse_example_indices),
                  num_sparse_features_with_values=len(sparse_feature_values),
                  num_dense_features=len(dense_features), l1=l1, l2=l2,
                  num_loss_partitions=num_loss_partitions,
                  num_inner_iterations=num_inner_iterations)
    ns, nd = len(sparse_example_indices), len(dense_features)
    outs = op.outputs
    return outs[0], outs[1:1 + ns], outs[1 + ns:1 + ns + nd]
