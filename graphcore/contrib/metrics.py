"""``tf.contrib.metrics`` (TF 1.15, also ``slim.metrics``): the ``streaming_*`` metrics,
each the tf.metrics metric of the same meaning under contrib's argument order (predictions
first), returning ``(value, update_op)``; and ``aggregate_metrics`` /
``aggregate_metric_map``, which split lists or dicts of those pairs."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.metrics import at_k
from graphcore.metrics import metrics_impl as core
from graphcore.ops import math_ops, nn_ops

__all__ = ["aggregate_metric_map", "aggregate_metrics", "streaming_accuracy", "streaming_auc",
           "streaming_false_negatives", "streaming_false_positives", "streaming_mean",
           "streaming_mean_absolute_error", "streaming_mean_cosine_distance",
           "streaming_mean_iou", "streaming_mean_relative_error",
           "streaming_mean_squared_error", "streaming_mean_tensor",
           "streaming_percentage_less", "streaming_precision",
           "streaming_precision_at_thresholds", "streaming_recall", "streaming_recall_at_k",
           "streaming_recall_at_thresholds", "streaming_root_mean_squared_error",
           "streaming_sensitivity_at_specificity", "streaming_sparse_precision_at_k",
           "streaming_sparse_recall_at_k", "streaming_specificity_at_sensitivity",
           "streaming_true_negatives", "streaming_true_positives"]


def _predictions_first(metric: Any, name: str) -> Any:
    """``metric(labels=..., predictions=...)`` as ``fn(predictions, labels, ...)``."""
    def streaming(predictions: Any, labels: Any, weights: Any = None,
                  metrics_collections: Any = None, updates_collections: Any = None,
                  name: str | None = None) -> tuple:
        return metric(labels=labels, predictions=predictions, weights=weights,
                      metrics_collections=metrics_collections,
                      updates_collections=updates_collections, name=name)

    streaming.__name__ = streaming.__qualname__ = name
    streaming.__doc__ = f"``tf.metrics.{metric.__name__}`` with predictions first."
    return streaming


streaming_accuracy = _predictions_first(core.accuracy, "streaming_accuracy")
streaming_precision = _predictions_first(core.precision, "streaming_precision")
streaming_recall = _predictions_first(core.recall, "streaming_recall")
streaming_true_positives = _predictions_first(core.true_positives, "streaming_true_positives")
streaming_true_negatives = _predictions_first(core.true_negatives, "streaming_true_negatives")
streaming_false_positives = _predictions_first(core.false_positives,
                                               "streaming_false_positives")
streaming_false_negatives = _predictions_first(core.false_negatives,
                                               "streaming_false_negatives")
streaming_mean_absolute_error = _predictions_first(core.mean_absolute_error,
                                                   "streaming_mean_absolute_error")
streaming_mean_squared_error = _predictions_first(core.mean_squared_error,
                                                  "streaming_mean_squared_error")
streaming_root_mean_squared_error = _predictions_first(core.root_mean_squared_error,
                                                       "streaming_root_mean_squared_error")


def streaming_mean(values: Any, weights: Any = None, metrics_collections: Any = None,
                   updates_collections: Any = None, name: str | None = None) -> tuple:
    return core.mean(values, weights, metrics_collections, updates_collections, name)


def streaming_mean_tensor(values: Any, weights: Any = None, metrics_collections: Any = None,
                          updates_collections: Any = None, name: str | None = None) -> tuple:
    return core.mean_tensor(values, weights, metrics_collections, updates_collections, name)


def streaming_auc(predictions: Any, labels: Any, weights: Any = None,
                  num_thresholds: int = 200, metrics_collections: Any = None,
                  updates_collections: Any = None, curve: str = "ROC",
                  name: str | None = None, summation_method: str = "trapezoidal") -> tuple:
    return core.auc(labels=labels, predictions=predictions, weights=weights,
                    num_thresholds=num_thresholds, metrics_collections=metrics_collections,
                    updates_collections=updates_collections, curve=curve, name=name,
                    summation_method=summation_method)


def streaming_specificity_at_sensitivity(predictions: Any, labels: Any, sensitivity: float,
                                         weights: Any = None, num_thresholds: int = 200,
                                         metrics_collections: Any = None,
                                         updates_collections: Any = None,
                                         name: str | None = None) -> tuple:
    return core.specificity_at_sensitivity(
        labels=labels, predictions=predictions, sensitivity=sensitivity, weights=weights,
        num_thresholds=num_thresholds, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


def streaming_sensitivity_at_specificity(predictions: Any, labels: Any, specificity: float,
                                         weights: Any = None, num_thresholds: int = 200,
                                         metrics_collections: Any = None,
                                         updates_collections: Any = None,
                                         name: str | None = None) -> tuple:
    return core.sensitivity_at_specificity(
        labels=labels, predictions=predictions, specificity=specificity, weights=weights,
        num_thresholds=num_thresholds, metrics_collections=metrics_collections,
        updates_collections=updates_collections, name=name)


def streaming_precision_at_thresholds(predictions: Any, labels: Any, thresholds: list,
                                      weights: Any = None, metrics_collections: Any = None,
                                      updates_collections: Any = None,
                                      name: str | None = None) -> tuple:
    return core.precision_at_thresholds(
        labels=labels, predictions=predictions, thresholds=thresholds, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def streaming_recall_at_thresholds(predictions: Any, labels: Any, thresholds: list,
                                   weights: Any = None, metrics_collections: Any = None,
                                   updates_collections: Any = None,
                                   name: str | None = None) -> tuple:
    return core.recall_at_thresholds(
        labels=labels, predictions=predictions, thresholds=thresholds, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def streaming_recall_at_k(predictions: Any, labels: Any, k: int, weights: Any = None,
                          metrics_collections: Any = None, updates_collections: Any = None,
                          name: str | None = None) -> tuple:
    """The streaming mean of ``in_top_k(predictions, labels, k)`` (``recall_at_<k>``)."""
    in_top_k = math_ops.cast(nn_ops.in_top_k(predictions, labels, k), dtypes_lib.float32)
    return core.mean(in_top_k, weights, metrics_collections, updates_collections,
                     name or f"recall_at_{k}")


def streaming_sparse_recall_at_k(predictions: Any, labels: Any, k: int,
                                 class_id: int | None = None, weights: Any = None,
                                 metrics_collections: Any = None,
                                 updates_collections: Any = None,
                                 name: str | None = None) -> tuple:
    return at_k.recall_at_k(labels=labels, predictions=predictions, k=k, class_id=class_id,
                            weights=weights, metrics_collections=metrics_collections,
                            updates_collections=updates_collections, name=name)


def streaming_sparse_precision_at_k(predictions: Any, labels: Any, k: int,
                                    class_id: int | None = None, weights: Any = None,
                                    metrics_collections: Any = None,
                                    updates_collections: Any = None,
                                    name: str | None = None) -> tuple:
    return at_k.precision_at_k(labels=labels, predictions=predictions, k=k,
                               class_id=class_id, weights=weights,
                               metrics_collections=metrics_collections,
                               updates_collections=updates_collections, name=name)


def streaming_mean_relative_error(predictions: Any, labels: Any, normalizer: Any,
                                  weights: Any = None, metrics_collections: Any = None,
                                  updates_collections: Any = None,
                                  name: str | None = None) -> tuple:
    return core.mean_relative_error(
        labels=labels, predictions=predictions, normalizer=normalizer, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def streaming_mean_cosine_distance(predictions: Any, labels: Any, dim: int,
                                   weights: Any = None, metrics_collections: Any = None,
                                   updates_collections: Any = None,
                                   name: str | None = None) -> tuple:
    return core.mean_cosine_distance(
        labels=labels, predictions=predictions, dim=dim, weights=weights,
        metrics_collections=metrics_collections, updates_collections=updates_collections,
        name=name)


def streaming_percentage_less(values: Any, threshold: Any, weights: Any = None,
                              metrics_collections: Any = None,
                              updates_collections: Any = None,
                              name: str | None = None) -> tuple:
    return core.percentage_below(values=values, threshold=threshold, weights=weights,
                                 metrics_collections=metrics_collections,
                                 updates_collections=updates_collections, name=name)


def streaming_mean_iou(predictions: Any, labels: Any, num_classes: int, weights: Any = None,
                       metrics_collections: Any = None, updates_collections: Any = None,
                       name: str | None = None) -> tuple:
    return core.mean_iou(labels=labels, predictions=predictions, num_classes=num_classes,
                         weights=weights, metrics_collections=metrics_collections,
                         updates_collections=updates_collections, name=name)


def aggregate_metrics(*value_update_tuples: tuple) -> tuple:
    """([values], [update ops]) of several ``(value, update_op)`` pairs."""
    if not value_update_tuples:
        raise ValueError("Expected at least one value_tensor/update_op pair")
    value_ops, update_ops = zip(*value_update_tuples)
    return list(value_ops), list(update_ops)


def aggregate_metric_map(names_to_tuples: dict) -> tuple:
    """({name: value}, {name: update op}) of a dict of ``(value, update_op)`` pairs."""
    names = list(names_to_tuples.keys())
    value_ops, update_ops = zip(*names_to_tuples.values())
    return dict(zip(names, value_ops)), dict(zip(names, update_ops))
