"""tf.losses (TF1's ``tf.compat.v1.losses``): weighted losses reduced as TF1 does
(SUM_BY_NONZERO_WEIGHTS by default) and added to the LOSSES collection."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_util
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops, nn_ops

__all__ = [
    "Reduction",
    "add_loss",
    "compute_weighted_loss",
    "get_losses",
    "get_regularization_loss",
    "get_regularization_losses",
    "get_total_loss",
    "mean_squared_error",
    "softmax_cross_entropy",
    "sparse_softmax_cross_entropy",
]


class Reduction:
    """Types of loss reduction."""

    NONE = "none"
    SUM = "weighted_sum"
    SUM_OVER_BATCH_SIZE = "weighted_sum_over_batch_size"
    MEAN = "weighted_mean"
    SUM_BY_NONZERO_WEIGHTS = "weighted_sum_by_nonzero_weights"
    SUM_OVER_NONZERO_WEIGHTS = SUM_BY_NONZERO_WEIGHTS

    @classmethod
    def all(cls) -> tuple:
        return (cls.NONE, cls.SUM, cls.MEAN, cls.SUM_OVER_BATCH_SIZE,
                cls.SUM_OVER_NONZERO_WEIGHTS, cls.SUM_BY_NONZERO_WEIGHTS)

    @classmethod
    def validate(cls, key: str) -> None:
        if key not in cls.all():
            raise ValueError(f"Invalid Reduction Key {key}. Key should be one of "
                             f"{cls.all()}.")


_ASSERT_BROADCASTABLE_ERROR_PREFIX = "weights can not be broadcast to values."


def _assert_broadcastable(weights: Any, values: Any) -> Any:
    """TF's static ``assert_broadcastable``: a NoOp when the static shapes agree, a
    ValueError when they can't; None (no runtime check) when shapes are unknown."""
    with ops_lib.name_scope(None, "assert_broadcastable", (weights, values)):
        with ops_lib.name_scope(None, "weights", (weights,)) as weights_scope:
            weights = convert_to_tensor(weights, name=weights_scope)
            weights_shape = array_ops.shape(weights, name="shape")
            weights_rank = array_ops.rank(weights, name="rank")
        weights_rank_static = tensor_util.constant_value(weights_rank)
        with ops_lib.name_scope(None, "values", (values,)) as values_scope:
            values = convert_to_tensor(values, name=values_scope)
            values_shape = array_ops.shape(values, name="shape")
            values_rank = array_ops.rank(values, name="rank")
        values_rank_static = tensor_util.constant_value(values_rank)
        if weights_rank_static is None or values_rank_static is None:
            return None
        if weights_rank_static == 0:
            return control_flow_ops.no_op(name="static_scalar_check_success")
        if weights_rank_static != values_rank_static:
            raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} values.rank="
                             f"{values_rank_static}. weights.rank={weights_rank_static}. "
                             f"values.shape={values.shape}. weights.shape={weights.shape}. "
                             f"Received weights={weights}, values={values}")
        w_static = tensor_util.constant_value(weights_shape)
        v_static = tensor_util.constant_value(values_shape)
        if w_static is None or v_static is None:
            return None
        for i in range(len(v_static)):
            if w_static[i] not in (1, v_static[i]):
                raise ValueError(f"{_ASSERT_BROADCASTABLE_ERROR_PREFIX} Mismatch at dim {i}. "
                                 f"values.shape={v_static}, weights.shape={w_static}. "
                                 f"Received weights={weights}, values={values}")
        return control_flow_ops.no_op(name="static_dims_check_success")


def _deps(op: Any) -> Any:
    return ops_lib.control_dependencies([op] if op is not None else [])


def _broadcast_weights(weights: Any, values: Any) -> Any:
    with ops_lib.name_scope(None, "broadcast_weights", (weights, values)) as scope:
        values = convert_to_tensor(values, name="values")
        weights = convert_to_tensor(weights, name="weights")
        if weights.shape.is_fully_defined() and values.shape.is_fully_defined() and \
                weights.shape.as_list() == values.shape.as_list():
            return weights
        with _deps(_assert_broadcastable(weights, values)):
            return math_ops.multiply(weights, array_ops.ones_like(values), name=scope)


def _div_no_nan(x: Any, y: Any, name: str) -> Any:
    if hasattr(math_ops, "div_no_nan"):
        return math_ops.div_no_nan(x, y, name=name)
    safe = array_ops.where(math_ops.equal(y, 0.0), array_ops.ones_like(y), y)
    return array_ops.where(math_ops.equal(y, 0.0), array_ops.zeros_like(x),
                           math_ops.truediv(x, safe), name=name)


def _safe_mean(losses: Any, num_present: Any) -> Any:
    total_loss = math_ops.reduce_sum(losses)
    return _div_no_nan(total_loss, num_present, name="value")


def _num_elements(losses: Any) -> Any:
    with ops_lib.name_scope(None, "num_elements", values=[losses]) as scope:
        return math_ops.cast(array_ops.size(losses, name=scope), dtype=losses.dtype)


def _num_present(losses: Any, weights: Any, per_batch: bool = False) -> Any:
    if isinstance(weights, float) and weights != 0.0:
        return _num_elements(losses)
    with ops_lib.name_scope(None, "num_present", (losses, weights)) as scope:
        weights = math_ops.cast(weights, dtype=dtypes_lib.float32)
        present = array_ops.where(math_ops.equal(weights, 0.0), array_ops.zeros_like(weights),
                                  array_ops.ones_like(weights))
        present = _broadcast_weights(present, losses)
        if per_batch:
            return math_ops.reduce_sum(present, axis=math_ops.range(1, array_ops.rank(present)),
                                       keepdims=True, name=scope)
        return math_ops.reduce_sum(present, name=scope)


def add_loss(loss: Any, loss_collection: str = ops_lib.GraphKeys.LOSSES) -> None:
    """Adds ``loss`` to ``loss_collection``."""
    if loss_collection:
        ops_lib.add_to_collection(loss_collection, loss)


def get_losses(scope: str | None = None,
               loss_collection: str = ops_lib.GraphKeys.LOSSES) -> list:
    return ops_lib.get_collection(loss_collection, scope)


def get_regularization_losses(scope: str | None = None) -> list:
    return ops_lib.get_collection(ops_lib.GraphKeys.REGULARIZATION_LOSSES, scope)


def get_regularization_loss(scope: str | None = None,
                            name: str = "total_regularization_loss") -> Any:
    losses = get_regularization_losses(scope)
    if losses:
        return math_ops.add_n(losses, name=name)
    return array_ops.constant(0.0)


def get_total_loss(add_regularization_losses: bool = True, name: str = "total_loss",
                   scope: str | None = None) -> Any:
    """The sum of the LOSSES collection (plus regularization losses)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    if not losses:
        raise ValueError("No losses found in the LOSSES collection")
    if len(losses) == 1 and not hasattr(math_ops, "add_n"):
        return array_ops.identity(losses[0], name=name)
    return math_ops.add_n(losses, name=name)


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: str | None = None,
                          loss_collection: str = ops_lib.GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """``losses * weights`` reduced by ``reduction``; added to ``loss_collection``."""
    Reduction.validate(reduction)
    with ops_lib.name_scope(scope, "weighted_loss", (losses, weights)):
        ops_lib.get_default_graph()._last_loss_reduction = reduction
        with _deps(_assert_broadcastable(weights, losses)):
            losses = convert_to_tensor(losses)
            input_dtype = losses.dtype
            losses = math_ops.cast(losses, dtype=dtypes_lib.float32)
            weights = math_ops.cast(weights, dtype=dtypes_lib.float32)
            weighted_losses = math_ops.multiply(losses, weights)
            if reduction == Reduction.NONE:
                loss = weighted_losses
            else:
                loss = math_ops.reduce_sum(weighted_losses)
                if reduction == Reduction.MEAN:
                    loss = _safe_mean(loss, math_ops.reduce_sum(
                        array_ops.ones_like(losses) * weights))
                elif reduction == Reduction.SUM_BY_NONZERO_WEIGHTS:
                    loss = _safe_mean(loss, _num_present(losses, weights))
                elif reduction == Reduction.SUM_OVER_BATCH_SIZE:
                    loss = _safe_mean(loss, _num_elements(losses))
            loss = math_ops.cast(loss, input_dtype)
            add_loss(loss, loss_collection)
            return loss


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                       scope: str | None = None,
                       loss_collection: str = ops_lib.GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted mean of (predictions - labels) ** 2."""
    if labels is None:
        raise ValueError("Argument `labels` must not be None.")
    if predictions is None:
        raise ValueError("Argument `predictions` must not be None.")
    with ops_lib.name_scope(scope, "mean_squared_error",
                            (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes_lib.float32)
        labels = math_ops.cast(labels, dtype=dtypes_lib.float32)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        losses = math_ops.squared_difference(predictions, labels)
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None,
                          loss_collection: str = ops_lib.GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross entropy with one-hot labels (optionally smoothed)."""
    if onehot_labels is None:
        raise ValueError("Argument `onehot_labels` must not be None.")
    if logits is None:
        raise ValueError("Argument `logits` must not be None.")
    with ops_lib.name_scope(scope, "softmax_cross_entropy_loss",
                            (logits, onehot_labels, weights)) as scope:
        logits = convert_to_tensor(logits)
        onehot_labels = math_ops.cast(onehot_labels, logits.dtype)
        logits.get_shape().assert_is_compatible_with(onehot_labels.get_shape())
        if label_smoothing > 0:
            num_classes = math_ops.cast(array_ops.shape(onehot_labels)[-1], logits.dtype)
            smooth_positives = 1.0 - label_smoothing
            smooth_negatives = label_smoothing / num_classes
            onehot_labels = onehot_labels * smooth_positives + smooth_negatives
        onehot_labels = array_ops.stop_gradient(onehot_labels, name="labels_stop_gradient")
        losses = nn_ops.softmax_cross_entropy_with_logits_v2(labels=onehot_labels,
                                                             logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def _remove_squeezable_dimensions(labels: Any, predictions: Any, weights: Any = None,
                                  expected_rank_diff: int = 0) -> tuple:
    with ops_lib.name_scope(None, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        p_shape, l_shape = predictions.get_shape(), labels.get_shape()
        if p_shape.ndims is not None and l_shape.ndims is not None:
            rank_diff = p_shape.ndims - l_shape.ndims
            if rank_diff == expected_rank_diff + 1 and \
                    p_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and \
                    l_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
    if weights is not None:
        weights = convert_to_tensor(weights)
        labels_rank = labels.get_shape().ndims
        weights_rank = weights.get_shape().ndims
        if labels_rank is not None and weights_rank is not None and \
                weights_rank - labels_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
    return labels, predictions, weights


def sparse_softmax_cross_entropy(labels: Any, logits: Any, weights: Any = 1.0,
                                 scope: str | None = None,
                                 loss_collection: str = ops_lib.GraphKeys.LOSSES,
                                 reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross entropy with integer class labels."""
    if labels is None:
        raise ValueError("Argument `labels` must not be None.")
    if logits is None:
        raise ValueError("Argument `logits` must not be None.")
    with ops_lib.name_scope(scope, "sparse_softmax_cross_entropy_loss",
                            (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights,
                                                                expected_rank_diff=1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)
