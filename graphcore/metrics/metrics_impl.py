"""The streaming metrics of TF1's ``tf.compat.v1.metrics`` but the top-k ones
(:mod:`graphcore.metrics.at_k`).

Each metric returns ``(value_tensor, update_op)``: running ``update_op`` folds a batch into
local variables (``<name>/total``, ``<name>/count``... in LOCAL_VARIABLES and
METRIC_VARIABLES, zeroed by ``tf.local_variables_initializer()``) and returns the updated
value; ``value_tensor`` reads the value without updating. ``metrics_collections`` and
``updates_collections`` receive the value and the update op.
"""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.losses import util as weights_util
from graphcore.ops import (
    array_ops,
    check_ops,
    linalg_ops,
    math_ops,
    scatter_ops,
    state_ops,
)
from graphcore.ops import confusion_matrix as confusion_matrix_lib
from graphcore.ops import variable_scope as vs
from graphcore.ops import variables as variables_lib

__all__ = [
    "accuracy", "auc", "false_negatives", "false_negatives_at_thresholds", "false_positives",
    "false_positives_at_thresholds", "mean", "mean_absolute_error", "mean_cosine_distance",
    "mean_iou", "mean_per_class_accuracy", "mean_relative_error", "mean_squared_error",
    "mean_tensor", "percentage_below", "precision", "precision_at_thresholds", "recall",
    "recall_at_thresholds", "root_mean_squared_error", "sensitivity_at_specificity",
    "specificity_at_sensitivity", "true_negatives", "true_negatives_at_thresholds",
    "true_positives", "true_positives_at_thresholds",
]

_float32 = dtypes_lib.float32


def metric_variable(shape: Any, dtype: Any, validate_shape: bool = True,
                    name: str | None = None) -> variables_lib.Variable:
    """A zero-initialized local variable in LOCAL_VARIABLES and METRIC_VARIABLES."""
    return variables_lib.Variable(
        lambda: array_ops.zeros(shape, dtype), trainable=False,
        collections=[ops_lib.GraphKeys.LOCAL_VARIABLES, ops_lib.GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape, name=name)


def _add_to(collections: Any, value: Any) -> None:
    if collections:
        ops_lib.add_to_collections(collections, value)


def _finish(value: Any, update_op: Any, metrics_collections: Any,
            updates_collections: Any) -> tuple:
    _add_to(metrics_collections, value)
    _add_to(updates_collections, update_op)
    return value, update_op


def _read(variable: Any) -> Any:
    """A metric variable's value as the default distribution strategy reads it."""
    return array_ops.identity(variable)


def _remove_squeezable_dimensions(predictions: Any, labels: Any, weights: Any) -> tuple:
    """Squeezes or expands ``labels`` and ``weights`` to the rank of ``predictions``
    (static ranks)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = weights_util.remove_squeezable_dimensions(labels, predictions)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    weights_rank = weights.get_shape().ndims
    if weights_rank == 0:
        return predictions, labels, weights
    predictions_rank = predictions.get_shape().ndims
    if predictions_rank is not None and weights_rank is not None:
        if weights_rank - predictions_rank == 1:
            weights = array_ops.squeeze(weights, [-1])
        elif predictions_rank - weights_rank == 1:
            weights = array_ops.expand_dims(weights, [-1])
    return predictions, labels, weights


def _mean_of(values: Any, weights: Any, shape: Any, names: tuple) -> tuple:
    """(total, count, update_total, update_count) of a weighted streaming mean with
    variables of ``shape`` named ``names``."""
    values = math_ops.cast(values, _float32)
    total = metric_variable(values.get_shape() if shape is None else shape, _float32,
                            name=names[0])
    count = metric_variable(values.get_shape() if shape is None else shape, _float32,
                            name=names[1])
    if shape is None:
        num_values = array_ops.ones_like(values)
    else:
        num_values = math_ops.cast(array_ops.size(values), _float32) if weights is None \
            else None
    if weights is not None:
        values, _, weights = _remove_squeezable_dimensions(values, None, weights)
        weights = weights_util.broadcast_weights(math_ops.cast(weights, _float32), values)
        values = math_ops.multiply(values, weights)
        num_values = math_ops.multiply(num_values, weights) if shape is None \
            else math_ops.reduce_sum(weights)
    update_total_op = state_ops.assign_add(
        total, values if shape is None else math_ops.reduce_sum(values))
    with ops_lib.control_dependencies([values]):
        update_count_op = state_ops.assign_add(count, num_values)
    return total, count, update_total_op, update_count_op


def _ratio(total: Any, count: Any, name: str) -> Any:
    return math_ops.div_no_nan(total, math_ops.maximum(count, 0), name=name)


def mean(values: Any, weights: Any = None, metrics_collections: Any = None,
         updates_collections: Any = None, name: str | None = None) -> tuple:
    """The (weighted) mean of ``values``: ``total / count``."""
    with vs.variable_scope(name, "mean", (values, weights)):
        total, count, update_total, update_count = _mean_of(values, weights, [],
                                                            ("total", "count"))
        return _finish(_ratio(total, count, "value"),
                       _ratio(update_total, update_count, "update_op"),
                       metrics_collections, updates_collections)


def mean_tensor(values: Any, weights: Any = None, metrics_collections: Any = None,
                updates_collections: Any = None, name: str | None = None) -> tuple:
    """The element-wise (weighted) mean of ``values`` over the updates."""
    with vs.variable_scope(name, "mean", (values, weights)):
        total, count, update_total, update_count = _mean_of(
            values, weights, None, ("total_tensor", "count_tensor"))
        return _finish(_ratio(total, count, "value"),
                       _ratio(update_total, update_count, "update_op"),
                       metrics_collections, updates_collections)


def accuracy(labels: Any, predictions: Any, weights: Any = None,
             metrics_collections: Any = None, updates_collections: Any = None,
             name: str | None = None) -> tuple:
    """How often ``predictions`` equal ``labels``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions.get_shape().assert_is_compatible_with(labels.get_shape())
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), _float32)
    return mean(is_correct, weights, metrics_collections, updates_collections,
                name or "accuracy")


def mean_absolute_error(labels: Any, predictions: Any, weights: Any = None,
                        metrics_collections: Any = None, updates_collections: Any = None,
                        name: str | None = None) -> tuple:
    """The mean of |predictions - labels|."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(math_ops.abs(predictions - labels), weights, metrics_collections,
                updates_collections, name or "mean_absolute_error")


def mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                       metrics_collections: Any = None, updates_collections: Any = None,
                       name: str | None = None) -> tuple:
    """The mean of (labels - predictions) ** 2."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    return mean(math_ops.squared_difference(labels, predictions), weights,
                metrics_collections, updates_collections, name or "mean_squared_error")


def root_mean_squared_error(labels: Any, predictions: Any, weights: Any = None,
                            metrics_collections: Any = None, updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """The square root of ``mean_squared_error``."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(labels, predictions, weights, None, None,
                                            name or "root_mean_squared_error")
    return _finish(math_ops.sqrt(mse), math_ops.sqrt(update_mse_op), metrics_collections,
                   updates_collections)


def mean_relative_error(labels: Any, predictions: Any, normalizer: Any, weights: Any = None,
                        metrics_collections: Any = None, updates_collections: Any = None,
                        name: str | None = None) -> tuple:
    """The mean of |labels - predictions| / normalizer (0 where normalizer is 0)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    predictions, normalizer = weights_util.remove_squeezable_dimensions(predictions,
                                                                        normalizer)
    predictions.get_shape().assert_is_compatible_with(normalizer.get_shape())
    relative_errors = array_ops.where(
        math_ops.equal(normalizer, 0.0), array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer))
    return mean(relative_errors, weights, metrics_collections, updates_collections,
                name or "mean_relative_error")


def mean_cosine_distance(labels: Any, predictions: Any, dim: int, weights: Any = None,
                         metrics_collections: Any = None, updates_collections: Any = None,
                         name: str | None = None) -> tuple:
    """1 - the mean of sum(labels * predictions, dim) (unit-normalized inputs)."""
    predictions, labels, weights = _remove_squeezable_dimensions(predictions, labels, weights)
    radial_diffs = math_ops.reduce_sum(math_ops.multiply(predictions, labels), axis=[dim],
                                       keepdims=True)
    mean_distance, update_op = mean(radial_diffs, weights, None, None,
                                    name or "mean_cosine_distance")
    return _finish(math_ops.subtract(1.0, mean_distance), math_ops.subtract(1.0, update_op),
                   metrics_collections, updates_collections)


def percentage_below(values: Any, threshold: Any, weights: Any = None,
                     metrics_collections: Any = None, updates_collections: Any = None,
                     name: str | None = None) -> tuple:
    """The fraction of ``values`` below ``threshold``."""
    is_below_threshold = math_ops.cast(math_ops.less(values, threshold), _float32)
    return mean(is_below_threshold, weights, metrics_collections, updates_collections,
                name or "percentage_below_threshold")


# -- counts of true/false positives/negatives ------------------------------------------------

def _count_condition(values: Any, weights: Any, metrics_collections: Any,
                     updates_collections: Any) -> tuple:
    check_ops.assert_type(values, dtypes_lib.bool)
    count = metric_variable([], _float32, name="count")
    values = math_ops.cast(values, _float32)
    if weights is not None:
        with ops_lib.control_dependencies(
                (check_ops.assert_rank_in(weights, (0, array_ops.rank(values))),)):
            weights = math_ops.cast(weights, _float32)
            values = math_ops.multiply(values, weights)
    value_tensor = _read(count)
    update_op = state_ops.assign_add(count, math_ops.reduce_sum(values))
    return _finish(value_tensor, update_op, metrics_collections, updates_collections)


def _count(default_name: str, label_is: bool, prediction_is: bool, labels: Any,
           predictions: Any, weights: Any, metrics_collections: Any,
           updates_collections: Any, name: str | None) -> tuple:
    with vs.variable_scope(name, default_name, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtype=dtypes_lib.bool),
            math_ops.cast(labels, dtype=dtypes_lib.bool), weights)
        condition = math_ops.logical_and(math_ops.equal(labels, label_is),
                                         math_ops.equal(predictions, prediction_is))
        return _count_condition(condition, weights, metrics_collections, updates_collections)


def true_positives(labels: Any, predictions: Any, weights: Any = None,
                   metrics_collections: Any = None, updates_collections: Any = None,
                   name: str | None = None) -> tuple:
    """The (weighted) count of labels and predictions both True."""
    return _count("true_positives", True, True, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


def false_positives(labels: Any, predictions: Any, weights: Any = None,
                    metrics_collections: Any = None, updates_collections: Any = None,
                    name: str | None = None) -> tuple:
    """The (weighted) count of False labels predicted True."""
    return _count("false_positives", False, True, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


def true_negatives(labels: Any, predictions: Any, weights: Any = None,
                   metrics_collections: Any = None, updates_collections: Any = None,
                   name: str | None = None) -> tuple:
    """The (weighted) count of labels and predictions both False."""
    return _count("true_negatives", False, False, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


def false_negatives(labels: Any, predictions: Any, weights: Any = None,
                    metrics_collections: Any = None, updates_collections: Any = None,
                    name: str | None = None) -> tuple:
    """The (weighted) count of True labels predicted False."""
    return _count("false_negatives", True, False, labels, predictions, weights,
                  metrics_collections, updates_collections, name)


def _precision_or_recall(default_name: str, other: Any, labels: Any, predictions: Any,
                         weights: Any, metrics_collections: Any, updates_collections: Any,
                         name: str | None) -> tuple:
    """tp / (tp + other) where ``other`` counts false positives (precision) or false
    negatives (recall); 0 while the denominator is 0."""
    with vs.variable_scope(name, default_name, (predictions, labels, weights)):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, dtype=dtypes_lib.bool),
            math_ops.cast(labels, dtype=dtypes_lib.bool), weights)
        true_p, true_p_update = true_positives(labels, predictions, weights)
        other_v, other_update = other(labels, predictions, weights)

        def compute(tp: Any, x: Any, name: str) -> Any:
            return array_ops.where(math_ops.greater(tp + x, 0), math_ops.divide(tp, tp + x), 0,
                                   name)

        return _finish(compute(true_p, other_v, "value"),
                       compute(true_p_update, other_update, "update_op"),
                       metrics_collections, updates_collections)


def precision(labels: Any, predictions: Any, weights: Any = None,
              metrics_collections: Any = None, updates_collections: Any = None,
              name: str | None = None) -> tuple:
    """true_positives / (true_positives + false_positives)."""
    return _precision_or_recall("precision", false_positives, labels, predictions, weights,
                                metrics_collections, updates_collections, name)


def recall(labels: Any, predictions: Any, weights: Any = None,
           metrics_collections: Any = None, updates_collections: Any = None,
           name: str | None = None) -> tuple:
    """true_positives / (true_positives + false_negatives)."""
    return _precision_or_recall("recall", false_negatives, labels, predictions, weights,
                                metrics_collections, updates_collections, name)


# -- at thresholds ----------------------------------------------------------------------------

_ALL_INCLUDES = ("tp", "fn", "tn", "fp")
_INCLUDE_NAMES = {"tp": "true_positives", "fn": "false_negatives", "tn": "true_negatives",
                  "fp": "false_positives"}


def _confusion_matrix_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                    weights: Any = None, includes: Any = None) -> tuple:
    """Per-threshold counts ({key: variable}, {key: update op}) for keys in ``includes``;
    a prediction counts positive when it is above the threshold."""
    includes = _ALL_INCLUDES if includes is None else includes
    for include in includes:
        if include not in _ALL_INCLUDES:
            raise ValueError(f"Invalid key: {include}")
    predictions = convert_to_tensor(predictions)
    with ops_lib.control_dependencies([
            check_ops.assert_greater_equal(
                predictions, math_ops.cast(0.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]"),
            check_ops.assert_less_equal(
                predictions, math_ops.cast(1.0, dtype=predictions.dtype),
                message="predictions must be in [0, 1]")]):
        predictions, labels, weights = _remove_squeezable_dimensions(
            math_ops.cast(predictions, _float32), math_ops.cast(labels, dtype=dtypes_lib.bool),
            weights)
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtype=dtypes_lib.bool), [1, -1])
    num_predictions = predictions_2d.get_shape().as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(array_ops.expand_dims(array_ops.constant(thresholds), [1]),
                                  array_ops.stack([1, num_predictions]))
    pred_is_pos = math_ops.greater(
        array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]),
        thresh_tiled)
    if "fn" in includes or "tn" in includes:
        pred_is_neg = math_ops.logical_not(pred_is_pos)
    label_is_pos = array_ops.tile(labels_2d, [num_thresholds, 1])
    if "fp" in includes or "tn" in includes:
        label_is_neg = math_ops.logical_not(label_is_pos)
    weights_tiled = None
    if weights is not None:
        weights = weights_util.broadcast_weights(math_ops.cast(weights, _float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]),
                                       [num_thresholds, 1])
        thresh_tiled.get_shape().assert_is_compatible_with(weights_tiled.get_shape())
    conditions = {"tp": lambda: (label_is_pos, pred_is_pos),
                  "fn": lambda: (label_is_pos, pred_is_neg),
                  "tn": lambda: (label_is_neg, pred_is_neg),
                  "fp": lambda: (label_is_neg, pred_is_pos)}
    values, update_ops = {}, {}
    for key in _ALL_INCLUDES:
        if key not in includes:
            continue
        variable = metric_variable([num_thresholds], _float32, name=_INCLUDE_NAMES[key])
        is_key = math_ops.cast(math_ops.logical_and(*conditions[key]()), _float32)
        if weights_tiled is not None:
            is_key *= weights_tiled
        update_ops[key] = state_ops.assign_add(variable, math_ops.reduce_sum(is_key, 1))
        values[key] = variable
    return values, update_ops


def _count_at_thresholds(key: str, labels: Any, predictions: Any, thresholds: list,
                         weights: Any, metrics_collections: Any, updates_collections: Any,
                         name: str | None) -> tuple:
    with vs.variable_scope(name, _INCLUDE_NAMES[key], (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights=weights, includes=(key,))
        return _finish(_read(values[key]), update_ops[key], metrics_collections,
                       updates_collections)


def true_positives_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                 weights: Any = None, metrics_collections: Any = None,
                                 updates_collections: Any = None,
                                 name: str | None = None) -> tuple:
    """True positives for each threshold."""
    return _count_at_thresholds("tp", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def false_positives_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                  weights: Any = None, metrics_collections: Any = None,
                                  updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    """False positives for each threshold."""
    return _count_at_thresholds("fp", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def true_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                 weights: Any = None, metrics_collections: Any = None,
                                 updates_collections: Any = None,
                                 name: str | None = None) -> tuple:
    """True negatives for each threshold."""
    return _count_at_thresholds("tn", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def false_negatives_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                                  weights: Any = None, metrics_collections: Any = None,
                                  updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    """False negatives for each threshold."""
    return _count_at_thresholds("fn", labels, predictions, thresholds, weights,
                                metrics_collections, updates_collections, name)


def _ratio_at_thresholds(default_name: str, other: str, labels: Any, predictions: Any,
                         thresholds: list, weights: Any, metrics_collections: Any,
                         updates_collections: Any, name: str | None) -> tuple:
    """tp / (1e-7 + tp + other) per threshold: precision (other = fp) or recall (fn)."""
    with vs.variable_scope(name, default_name, (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", other))
        prefix = default_name.split("_")[0]

        def compute(tp: Any, x: Any, suffix: str) -> Any:
            return math_ops.divide(tp, 1e-7 + tp + x, name=f"{prefix}_{suffix}")

        return _finish(compute(values["tp"], values[other], "value"),
                       compute(update_ops["tp"], update_ops[other], "update_op"),
                       metrics_collections, updates_collections)


def precision_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                            weights: Any = None, metrics_collections: Any = None,
                            updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """Precision for each threshold."""
    return _ratio_at_thresholds("precision_at_thresholds", "fp", labels, predictions,
                                thresholds, weights, metrics_collections,
                                updates_collections, name)


def recall_at_thresholds(labels: Any, predictions: Any, thresholds: list,
                         weights: Any = None, metrics_collections: Any = None,
                         updates_collections: Any = None, name: str | None = None) -> tuple:
    """Recall for each threshold."""
    return _ratio_at_thresholds("recall_at_thresholds", "fn", labels, predictions,
                                thresholds, weights, metrics_collections,
                                updates_collections, name)


def _even_thresholds(num_thresholds: int, last: float) -> list:
    """-eps, the num_thresholds - 2 interior points of [0, 1], then ``last``."""
    kepsilon = 1e-7
    interior = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - kepsilon] + interior + [last]


def auc(labels: Any, predictions: Any, weights: Any = None, num_thresholds: int = 200,
        metrics_collections: Any = None, updates_collections: Any = None, curve: str = "ROC",
        name: str | None = None, summation_method: str = "trapezoidal",
        thresholds: Any = None) -> tuple:
    """The area under the ROC or PR curve, by a Riemann sum over ``num_thresholds``
    thresholds ('trapezoidal', 'careful_interpolation' (PR), 'minoring', 'majoring')."""
    with vs.variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        kepsilon = 1e-7
        if thresholds is not None:
            num_thresholds = len(thresholds) + 2
            thresholds = [0.0 - kepsilon] + sorted(thresholds) + [1.0 + kepsilon]
        else:
            thresholds = _even_thresholds(num_thresholds, 1.0 + kepsilon)
        values, update_ops = _confusion_matrix_at_thresholds(labels, predictions, thresholds,
                                                             weights)
        epsilon = 1.0e-6
        n = num_thresholds

        def interpolate_pr_auc(tp: Any, fp: Any, fn: Any) -> Any:
            # Davis & Goadrich: precision interpolated along each recall step.
            dtp = tp[:n - 1] - tp[1:]
            p = tp + fp
            prec_slope = math_ops.div_no_nan(dtp, math_ops.maximum(p[:n - 1] - p[1:], 0),
                                             name="prec_slope")
            intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
            safe_p_ratio = array_ops.where(
                math_ops.logical_and(p[:n - 1] > 0, p[1:] > 0),
                math_ops.div_no_nan(p[:n - 1], math_ops.maximum(p[1:], 0),
                                    name="recall_relative_ratio"),
                array_ops.ones_like(p[1:]))
            return math_ops.reduce_sum(
                math_ops.div_no_nan(prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
                                    math_ops.maximum(tp[1:] + fn[1:], 0),
                                    name="pr_auc_increment"),
                name="interpolate_pr_auc")

        def compute_auc(tp: Any, fn: Any, tn: Any, fp: Any, name: str) -> Any:
            if curve == "PR" and summation_method == "careful_interpolation":
                return interpolate_pr_auc(tp, fp, fn)
            rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
            if curve == "ROC":
                x, y = math_ops.divide(fp, fp + tn + epsilon), rec
            else:
                x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
            width = x[:n - 1] - x[1:]
            if summation_method in ("trapezoidal", "careful_interpolation"):
                heights = (y[:n - 1] + y[1:]) / 2.0
            elif summation_method == "minoring":
                heights = math_ops.minimum(y[:n - 1], y[1:])
            elif summation_method == "majoring":
                heights = math_ops.maximum(y[:n - 1], y[1:])
            else:
                raise ValueError(f"Invalid summation_method: {summation_method} "
                                 "summation_method should be 'trapezoidal', "
                                 "'careful_interpolation', 'minoring', or 'majoring'.")
            return math_ops.reduce_sum(math_ops.multiply(width, heights), name=name)

        return _finish(
            compute_auc(values["tp"], values["fn"], values["tn"], values["fp"], "value"),
            compute_auc(update_ops["tp"], update_ops["fn"], update_ops["tn"], update_ops["fp"],
                        "update_op"),
            metrics_collections, updates_collections)


def sensitivity_at_specificity(labels: Any, predictions: Any, specificity: float,
                               weights: Any = None, num_thresholds: int = 200,
                               metrics_collections: Any = None,
                               updates_collections: Any = None,
                               name: str | None = None) -> tuple:
    """The sensitivity at the threshold whose specificity is closest to ``specificity``."""
    if specificity < 0 or specificity > 1:
        raise ValueError("`specificity` must be in the range [0, 1]. Currently, "
                         f"`specificity` got {specificity}.")
    with vs.variable_scope(name, "sensitivity_at_specificity",
                           (predictions, labels, weights)):
        kepsilon = 1e-7
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, _even_thresholds(num_thresholds, 1.0 + kepsilon), weights)

        def compute(tp: Any, tn: Any, fp: Any, fn: Any, name: str) -> Any:
            specificities = math_ops.divide(tn, tn + fp + kepsilon)
            tf_index = math_ops.argmin(math_ops.abs(specificities - specificity), 0)
            tf_index = math_ops.cast(tf_index, dtypes_lib.int32)
            return math_ops.divide(tp[tf_index], tp[tf_index] + fn[tf_index] + kepsilon, name)

        return _finish(
            compute(values["tp"], values["tn"], values["fp"], values["fn"], "value"),
            compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"],
                    "update_op"),
            metrics_collections, updates_collections)


def specificity_at_sensitivity(labels: Any, predictions: Any, sensitivity: float,
                               weights: Any = None, num_thresholds: int = 200,
                               metrics_collections: Any = None,
                               updates_collections: Any = None,
                               name: str | None = None) -> tuple:
    """The specificity at the (last) threshold whose sensitivity is closest to
    ``sensitivity``."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError("`sensitivity` must be in the range [0, 1]. Currently, "
                         f"`sensitivity` is {sensitivity}.")
    with vs.variable_scope(name, "specificity_at_sensitivity",
                           (predictions, labels, weights)):
        kepsilon = 1e-7
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, _even_thresholds(num_thresholds, 1.0 - kepsilon), weights)

        def compute(tp: Any, tn: Any, fp: Any, fn: Any, name: str) -> Any:
            sensitivities = math_ops.divide(tp, tp + fn + kepsilon)
            min_val = math_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
            indices_at_minval = math_ops.equal(math_ops.abs(sensitivities - sensitivity),
                                               min_val)
            indices_at_minval = math_ops.cumsum(math_ops.cast(indices_at_minval,
                                                              dtypes_lib.int64))
            tf_index = math_ops.cast(math_ops.argmax(indices_at_minval, 0), dtypes_lib.int32)
            return math_ops.divide(tn[tf_index], tn[tf_index] + fp[tf_index] + kepsilon, name)

        return _finish(
            compute(values["tp"], values["tn"], values["fp"], values["fn"], "value"),
            compute(update_ops["tp"], update_ops["tn"], update_ops["fp"], update_ops["fn"],
                    "update_op"),
            metrics_collections, updates_collections)


# -- per class -------------------------------------------------------------------------------

def _flat(t: Any) -> Any:
    return array_ops.reshape(t, [-1]) if t.get_shape().ndims > 1 else t


def mean_per_class_accuracy(labels: Any, predictions: Any, num_classes: int,
                            weights: Any = None, metrics_collections: Any = None,
                            updates_collections: Any = None,
                            name: str | None = None) -> tuple:
    """The mean over classes of each class's accuracy."""
    with vs.variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = _flat(math_ops.cast(labels, dtypes_lib.int64))
        predictions = _flat(convert_to_tensor(predictions))
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total = metric_variable([num_classes], _float32, name="total")
        count = metric_variable([num_classes], _float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], _float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), _float32)
        if weights is not None:
            weights = math_ops.cast(_flat(convert_to_tensor(weights)), _float32)
            is_correct *= weights
            ones *= weights
        update_total_op = scatter_ops.scatter_add(total, labels, ones)
        update_count_op = scatter_ops.scatter_add(count, labels, is_correct)
        per_class_accuracy = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        value = math_ops.reduce_mean(per_class_accuracy, name="mean_accuracy")
        return _finish(value, _ratio(update_count_op, update_total_op, "update_op"),
                       metrics_collections, updates_collections)


def mean_iou(labels: Any, predictions: Any, num_classes: int, weights: Any = None,
             metrics_collections: Any = None, updates_collections: Any = None,
             name: str | None = None) -> tuple:
    """The mean over classes of intersection / union, from a streaming confusion matrix
    (``total_confusion_matrix``, float64); the update op returns the matrix."""
    with vs.variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions.get_shape().assert_is_compatible_with(labels.get_shape())
        total_cm = metric_variable([num_classes, num_classes], dtypes_lib.float64,
                                   name="total_confusion_matrix")
        predictions = _flat(math_ops.cast(predictions, dtypes_lib.int64))
        labels = _flat(math_ops.cast(labels, dtypes_lib.int64))
        num_classes_t = math_ops.cast(num_classes, dtypes_lib.int64)
        if weights is not None:
            weights = _flat(convert_to_tensor(weights))
        current_cm = confusion_matrix_lib.confusion_matrix(
            labels, predictions, num_classes_t, weights=weights, dtype=dtypes_lib.float64)
        update_op = state_ops.assign_add(total_cm, current_cm)
        sum_over_row = math_ops.cast(math_ops.reduce_sum(total_cm, 0), _float32)
        sum_over_col = math_ops.cast(math_ops.reduce_sum(total_cm, 1), _float32)
        cm_diag = math_ops.cast(linalg_ops.diag_part(total_cm), _float32)
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid_entries = math_ops.reduce_sum(
            math_ops.cast(math_ops.not_equal(denominator, 0), dtype=_float32))
        denominator = array_ops.where(math_ops.greater(denominator, 0), denominator,
                                      array_ops.ones_like(denominator))
        iou = math_ops.divide(cm_diag, denominator)
        value = array_ops.where(math_ops.greater(num_valid_entries, 0),
                                math_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
                                0)
        return _finish(value, update_op, metrics_collections, updates_collections)
