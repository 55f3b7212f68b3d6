"""tf.math.confusion_matrix and remove_squeezable_dimensions (TF's
``confusion_matrix.py``): a ScatterNd of ones (or weights) at (label, prediction)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops, scatter_ops

__all__ = ["confusion_matrix"]


def remove_squeezable_dimensions(labels: Any, predictions: Any, expected_rank_diff: int = 0,
                                 name: str | None = None) -> tuple:
    """Squeezes a last dimension of size 1 from ``labels`` or ``predictions`` so that
    rank(predictions) - rank(labels) == expected_rank_diff (with a cond on the ranks
    when they are unknown)."""
    with ops_lib.name_scope(name, "remove_squeezable_dimensions", [labels, predictions]):
        predictions = convert_to_tensor(predictions)
        labels = convert_to_tensor(labels)
        predictions_shape = predictions.get_shape()
        predictions_rank = predictions_shape.ndims
        labels_shape = labels.get_shape()
        labels_rank = labels_shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            rank_diff = predictions_rank - labels_rank
            if rank_diff == expected_rank_diff + 1 and \
                    predictions_shape.dims[-1].is_compatible_with(1):
                predictions = array_ops.squeeze(predictions, [-1])
            elif rank_diff == expected_rank_diff - 1 and \
                    labels_shape.dims[-1].is_compatible_with(1):
                labels = array_ops.squeeze(labels, [-1])
            return labels, predictions
        rank_diff = array_ops.rank(predictions) - array_ops.rank(labels)
        if predictions_rank is None or predictions_shape.dims[-1].is_compatible_with(1):
            predictions = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff + 1, rank_diff),
                lambda: array_ops.squeeze(predictions, [-1]), lambda: predictions)
        if labels_rank is None or labels_shape.dims[-1].is_compatible_with(1):
            labels = control_flow_ops.cond(
                math_ops.equal(expected_rank_diff - 1, rank_diff),
                lambda: array_ops.squeeze(labels, [-1]), lambda: labels)
        return labels, predictions


def confusion_matrix(labels: Any, predictions: Any, num_classes: Any = None,
                     dtype: Any = dtypes_lib.int32, name: str | None = None,
                     weights: Any = None) -> ops_lib.Tensor:
    """The [num_classes, num_classes] matrix counting (or weighing) each (label,
    prediction) pair; TF1's argument order."""
    with ops_lib.name_scope(name, "confusion_matrix",
                            (predictions, labels, num_classes, weights)) as name:
        labels, predictions = remove_squeezable_dimensions(
            convert_to_tensor(labels, name="labels"),
            convert_to_tensor(predictions, name="predictions"))
        predictions = math_ops.cast(predictions, dtypes_lib.int64)
        labels = math_ops.cast(labels, dtypes_lib.int64)
        labels = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(labels, message="`labels` contains negative "
                                                           "values")], labels)
        predictions = control_flow_ops.with_dependencies(
            [check_ops.assert_non_negative(predictions, message="`predictions` contains "
                                                                "negative values")],
            predictions)
        if num_classes is None:
            num_classes = math_ops.maximum(math_ops.reduce_max(predictions),
                                           math_ops.reduce_max(labels)) + 1
        else:
            num_classes_int64 = math_ops.cast(num_classes, dtypes_lib.int64)
            labels = control_flow_ops.with_dependencies(
                [check_ops.assert_less(labels, num_classes_int64,
                                       message="`labels` out of bound")], labels)
            predictions = control_flow_ops.with_dependencies(
                [check_ops.assert_less(predictions, num_classes_int64,
                                       message="`predictions` out of bound")], predictions)
        if weights is not None:
            weights = convert_to_tensor(weights, name="weights")
            predictions.get_shape().assert_is_compatible_with(weights.get_shape())
            weights = math_ops.cast(weights, dtype)
        shape = array_ops.stack([num_classes, num_classes])
        indices = array_ops.stack([labels, predictions], axis=1)
        values = array_ops.ones_like(predictions, dtype) if weights is None else weights
        return scatter_ops.scatter_nd(indices=indices, updates=values,
                                      shape=math_ops.cast(shape, dtypes_lib.int64))
