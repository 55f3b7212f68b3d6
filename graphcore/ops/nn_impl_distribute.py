"""tf.nn.compute_average_loss and tf.nn.scale_regularization_loss (TF's
``nn_impl_distribute.py``). graphcore has no tf.distribute strategy, so every call is in
the default strategy's replica context with one replica in sync, as in a TF1 script."""

from __future__ import annotations

import contextlib
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops

__all__ = ["compute_average_loss", "scale_regularization_loss"]

_NUM_REPLICAS_IN_SYNC = 1


def _squeeze_or_expand_weights(y_pred: ops_lib.Tensor, sample_weight: ops_lib.Tensor) -> Any:
    """``sample_weight`` with its last dimension squeezed or expanded when its rank is one
    off that of ``y_pred`` (TF's losses_util.squeeze_or_expand_dimensions)."""
    y_pred_rank = y_pred.shape.ndims
    weights_rank = sample_weight.shape.ndims
    if weights_rank == 0:
        return sample_weight
    if y_pred_rank is not None and weights_rank is not None:
        if weights_rank - y_pred_rank == 1:
            sample_weight = array_ops.squeeze(sample_weight, [-1])
        elif y_pred_rank - weights_rank == 1:
            sample_weight = array_ops.expand_dims(sample_weight, [-1])
        return sample_weight
    weights_rank_tensor = array_ops.rank(sample_weight)
    rank_diff = weights_rank_tensor - array_ops.rank(y_pred)

    def maybe_expand() -> Any:
        return control_flow_ops.cond(math_ops.equal(rank_diff, -1),
                                     lambda: array_ops.expand_dims(sample_weight, [-1]),
                                     lambda: sample_weight)

    def maybe_adjust() -> Any:
        return control_flow_ops.cond(math_ops.equal(rank_diff, 1),
                                     lambda: array_ops.squeeze(sample_weight, [-1]),
                                     maybe_expand)

    return control_flow_ops.cond(math_ops.equal(weights_rank_tensor, 0),
                                 lambda: sample_weight, maybe_adjust)


@contextlib.contextmanager
def _check_per_example_loss_rank(per_example_loss: ops_lib.Tensor) -> Any:
    loss_rank = per_example_loss.shape.ndims
    if loss_rank is not None:
        if loss_rank == 0:
            raise ValueError("Invalid value passed for `per_example_loss`. Expected a tensor "
                             f"with at least rank 1. Received per_example_loss="
                             f"{per_example_loss} with rank {loss_rank}")
        yield
    else:
        with ops_lib.control_dependencies([check_ops.assert_greater_equal(
                array_ops.rank(per_example_loss), math_ops.cast(1, dtype=dtypes_lib.int32),
                message="Invalid value passed for `per_example_loss`. Expected a tensor "
                        "with at least rank 1.")]):
            yield


def scale_regularization_loss(regularization_loss: Any) -> ops_lib.Tensor:
    """The sum of ``regularization_loss`` divided by the replicas in sync."""
    return math_ops.reduce_sum(regularization_loss) / _NUM_REPLICAS_IN_SYNC


def compute_average_loss(per_example_loss: Any, sample_weight: Any = None,
                         global_batch_size: Any = None) -> ops_lib.Tensor:
    """sum(per_example_loss * sample_weight) / global_batch_size (the per-replica batch
    size times the replicas in sync when None)."""
    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    with _check_per_example_loss_rank(per_example_loss):
        if sample_weight is not None:
            sample_weight = convert_to_tensor(sample_weight)
            losses = math_ops.cast(per_example_loss, dtypes_lib.float32)
            sample_weight = math_ops.cast(sample_weight, dtypes_lib.float32)
            sample_weight = _squeeze_or_expand_weights(losses, sample_weight)
            per_example_loss = math_ops.multiply(losses, sample_weight)
        per_example_loss = math_ops.cast(per_example_loss, input_dtype)
        if global_batch_size is None:
            per_replica_batch_size = array_ops.shape(per_example_loss)[0]
            global_batch_size = per_replica_batch_size * _NUM_REPLICAS_IN_SYNC
        check_ops.assert_scalar(global_batch_size, message="global_batch_size must be "
                                                           "scalar.")
        check_ops.assert_integer(global_batch_size, message="global_batch_size must be an "
                                                            "integer.")
        check_ops.assert_non_negative(global_batch_size, message="global_batch_size must "
                                                                 "be non-negative.")
        loss = math_ops.reduce_sum(per_example_loss)
        global_batch_size = math_ops.cast(global_batch_size, input_dtype)
        return math_ops.div_no_nan(loss, global_batch_size)
