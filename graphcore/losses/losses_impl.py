"""tf.losses (TF1's ``tf.compat.v1.losses``): weighted losses reduced as TF1 does
(SUM_BY_NONZERO_WEIGHTS by default) and added to the LOSSES collection."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.losses import util
from graphcore.ops import array_ops, math_ops, nn_impl, nn_ops
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "Reduction",
    "absolute_difference",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_pairwise_squared_error",
    "sigmoid_cross_entropy",
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


def _safe_mean(losses: Any, num_present: Any) -> Any:
    total_loss = math_ops.reduce_sum(losses)
    return math_ops.div_no_nan(total_loss, num_present, name="value")


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
        present = util.broadcast_weights(present, losses)
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
    """``add_n`` of the LOSSES collection (plus the regularization losses)."""
    losses = get_losses(scope=scope)
    if add_regularization_losses:
        losses += get_regularization_losses(scope=scope)
    return math_ops.add_n(losses, name=name)


def compute_weighted_loss(losses: Any, weights: Any = 1.0, scope: str | None = None,
                          loss_collection: str = ops_lib.GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """``losses * weights`` reduced by ``reduction``; added to ``loss_collection``."""
    Reduction.validate(reduction)
    with ops_lib.name_scope(scope, "weighted_loss", (losses, weights)):
        ops_lib.get_default_graph()._last_loss_reduction = reduction
        with util.after(util.assert_broadcastable(weights, losses)):
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


def _check_not_none(**args: Any) -> None:
    for arg, value in args.items():
        if value is None:
            raise ValueError(f"Argument `{arg}` must not be None.")


def _pointwise_loss(default_name: str, labels: Any, predictions: Any, weights: Any,
                    scope: str | None, loss_collection: str, reduction: str, fn: Any,
                    predictions_arg: str = "predictions") -> Any:
    """The shape shared by TF's pointwise losses: float32 ``predictions`` and ``labels``
    of compatible shapes, ``fn(labels, predictions)`` weighted and reduced."""
    _check_not_none(labels=labels, **{predictions_arg: predictions})
    with ops_lib.name_scope(scope, default_name, (predictions, labels, weights)) as scope:
        predictions = math_ops.cast(predictions, dtype=dtypes_lib.float32)
        labels = math_ops.cast(labels, dtype=dtypes_lib.float32)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        losses = fn(labels, predictions)
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def absolute_difference(labels: Any, predictions: Any, weights: Any = 1.0,
                        scope: str | None = None,
                        loss_collection: str = ops_lib.GraphKeys.LOSSES,
                        reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted |predictions - labels|."""
    return _pointwise_loss(
        "absolute_difference", labels, predictions, weights, scope, loss_collection,
        reduction, lambda y, p: math_ops.abs(math_ops.subtract(p, y)))


def cosine_distance(labels: Any, predictions: Any, axis: int | None = None,
                    weights: Any = 1.0, scope: str | None = None,
                    loss_collection: str = ops_lib.GraphKeys.LOSSES,
                    reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS,
                    dim: int | None = None) -> Any:
    """Weighted ``1 - sum(predictions * labels, axis)`` of unit-normalized inputs."""
    axis = deprecated_argument_lookup("axis", axis, "dim", dim)
    if axis is None:
        raise ValueError("You must specify argument `axis`.")
    return _pointwise_loss(
        "cosine_distance_loss", labels, predictions, weights, scope, loss_collection,
        reduction, lambda y, p: 1 - math_ops.reduce_sum(math_ops.multiply(p, y),
                                                        axis=(axis,), keepdims=True))


def hinge_loss(labels: Any, logits: Any, weights: Any = 1.0, scope: str | None = None,
               loss_collection: str = ops_lib.GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted ``relu(1 - (2 * labels - 1) * logits)`` for labels in {0, 1}."""
    _check_not_none(labels=labels, logits=logits)
    with ops_lib.name_scope(scope, "hinge_loss", (logits, labels, weights)) as scope:
        logits = math_ops.cast(logits, dtype=dtypes_lib.float32)
        labels = math_ops.cast(labels, dtype=dtypes_lib.float32)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        all_ones = array_ops.ones_like(labels)
        labels = math_ops.subtract(2 * labels, all_ones)
        losses = nn_ops.relu(math_ops.subtract(all_ones, math_ops.multiply(labels, logits)))
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def huber_loss(labels: Any, predictions: Any, weights: Any = 1.0, delta: float = 1.0,
               scope: str | None = None, loss_collection: str = ops_lib.GraphKeys.LOSSES,
               reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted Huber loss: quadratic for |error| <= delta, linear beyond."""
    def huber(y: Any, p: Any) -> Any:
        abs_error = math_ops.abs(math_ops.subtract(p, y))
        quadratic = math_ops.minimum(abs_error, delta)
        # The linear part is |error| - min(|error|, delta): no branch, so gradients flow.
        linear = math_ops.subtract(abs_error, quadratic)
        return math_ops.add(
            math_ops.multiply(convert_to_tensor(0.5, dtype=quadratic.dtype),
                              math_ops.multiply(quadratic, quadratic)),
            math_ops.multiply(delta, linear))

    return _pointwise_loss("huber_loss", labels, predictions, weights, scope,
                           loss_collection, reduction, huber)


def log_loss(labels: Any, predictions: Any, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: str | None = None, loss_collection: str = ops_lib.GraphKeys.LOSSES,
             reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted negative log likelihood of probabilities ``predictions``."""
    return _pointwise_loss(
        "log_loss", labels, predictions, weights, scope, loss_collection, reduction,
        lambda y, p: -math_ops.multiply(y, math_ops.log(p + epsilon))
        - math_ops.multiply(1 - y, math_ops.log(1 - p + epsilon)))


def mean_pairwise_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                                scope: str | None = None,
                                loss_collection: str = ops_lib.GraphKeys.LOSSES) -> Any:
    """Weighted mean over the batch of the squared differences between every pair of
    (predictions - labels) elements of one example."""
    _check_not_none(labels=labels, predictions=predictions)
    with ops_lib.name_scope(scope, "mean_pairwise_squared_error",
                            (predictions, labels, weights)):
        weights = math_ops.cast(weights, dtype=dtypes_lib.float32)
        labels = math_ops.cast(labels, dtype=dtypes_lib.float32)
        with util.after(util.assert_broadcastable(weights, labels)):
            predictions = math_ops.cast(predictions, dtype=dtypes_lib.float32)
            predictions.get_shape().assert_is_compatible_with(labels.get_shape())
            diffs = math_ops.subtract(predictions, labels)
            axis = math_ops.range(1, array_ops.rank(diffs))
            sum_squares_diff_per_batch = math_ops.reduce_sum(math_ops.square(diffs),
                                                             axis=axis, keepdims=True)
            num_present_per_batch = _num_present(diffs, weights, per_batch=True)
            term1 = 2.0 * math_ops.div_no_nan(
                sum_squares_diff_per_batch,
                math_ops.maximum(num_present_per_batch - 1, 0), name="value")
            sum_diff = math_ops.reduce_sum(diffs, axis=axis, keepdims=True)
            term2 = 2.0 * math_ops.div_no_nan(
                math_ops.square(sum_diff),
                math_ops.maximum(math_ops.multiply(num_present_per_batch,
                                                   num_present_per_batch - 1), 0),
                name="value")
            weighted_losses = math_ops.multiply(term1 - term2, weights)
            loss = math_ops.reduce_sum(weighted_losses)
            mean_loss = array_ops.where(math_ops.reduce_sum(num_present_per_batch) > 0, loss,
                                        array_ops.zeros_like(loss), name="value")
            add_loss(mean_loss, loss_collection)
            return mean_loss


def mean_squared_error(labels: Any, predictions: Any, weights: Any = 1.0,
                       scope: str | None = None,
                       loss_collection: str = ops_lib.GraphKeys.LOSSES,
                       reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted mean of (predictions - labels) ** 2."""
    return _pointwise_loss("mean_squared_error", labels, predictions, weights, scope,
                           loss_collection, reduction,
                           lambda y, p: math_ops.squared_difference(p, y))


def _logits_and_labels(logits: Any, labels: Any) -> tuple:
    """``logits`` as a tensor and ``labels`` cast to its dtype, of compatible shapes."""
    logits = convert_to_tensor(logits)
    labels = math_ops.cast(labels, logits.dtype)
    logits.get_shape().assert_is_compatible_with(labels.get_shape())
    return logits, labels


def sigmoid_cross_entropy(multi_class_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None,
                          loss_collection: str = ops_lib.GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted sigmoid cross entropy; labels smoothed towards 1/2 by
    ``label_smoothing``."""
    _check_not_none(multi_class_labels=multi_class_labels, logits=logits)
    with ops_lib.name_scope(scope, "sigmoid_cross_entropy_loss",
                            (logits, multi_class_labels, weights)) as scope:
        logits, multi_class_labels = _logits_and_labels(logits, multi_class_labels)
        if label_smoothing > 0:
            multi_class_labels = (multi_class_labels * (1 - label_smoothing)
                                  + 0.5 * label_smoothing)
        losses = nn_impl.sigmoid_cross_entropy_with_logits(
            labels=multi_class_labels, logits=logits, name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)


def softmax_cross_entropy(onehot_labels: Any, logits: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None,
                          loss_collection: str = ops_lib.GraphKeys.LOSSES,
                          reduction: str = Reduction.SUM_BY_NONZERO_WEIGHTS) -> Any:
    """Weighted softmax cross entropy with one-hot labels (optionally smoothed)."""
    _check_not_none(onehot_labels=onehot_labels, logits=logits)
    with ops_lib.name_scope(scope, "softmax_cross_entropy_loss",
                            (logits, onehot_labels, weights)) as scope:
        logits, onehot_labels = _logits_and_labels(logits, onehot_labels)
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
    labels, predictions = util.remove_squeezable_dimensions(
        labels, predictions, expected_rank_diff=expected_rank_diff)
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
    _check_not_none(labels=labels, logits=logits)
    with ops_lib.name_scope(scope, "sparse_softmax_cross_entropy_loss",
                            (logits, labels, weights)) as scope:
        labels, logits, weights = _remove_squeezable_dimensions(labels, logits, weights,
                                                                expected_rank_diff=1)
        losses = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                                 name="xentropy")
        return compute_weighted_loss(losses, weights, scope, loss_collection,
                                     reduction=reduction)
