"""The top-k streaming metrics of TF1's ``tf.metrics``: precision and recall at k (of
logits, or of the top-k class ids), for one class or all, and average precision at k.

Labels are class ids, dense ``[D1..DN, num_labels]`` (or ``[D1..DN]``: one label) or a
SparseTensor; negative ids are no label. Per row, true positives are the predicted ids
that are labels, false positives the predicted ids that are not, false negatives the
labels not predicted (the set ops of :mod:`graphcore.ops.sets_ops`), summed into float64
local variables ``<metric>/true_positive_at_<k>`` ... as TF names them."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes
from graphcore.framework import ops as ops_lib
from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.losses import util as weights_util
from graphcore.metrics.metrics_impl import _finish, metric_variable
from graphcore.ops import array_ops, control_flow_ops, math_ops, sparse_ops, state_ops
from graphcore.ops.sets_ops import set_difference, set_intersection, set_size
from graphcore.ops.sort_ops import top_k

__all__ = ["average_precision_at_k", "precision_at_k", "precision_at_top_k", "recall_at_k",
           "recall_at_top_k", "sparse_average_precision_at_k", "sparse_precision_at_k"]

_f64 = dtypes.float64


def _name(metric: str, k: int | None, class_id: int | None = None) -> str:
    name = f"{metric}_at_{k}" if k is not None else f"{metric}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _as_tensor_or_sparse(x: Any) -> Any:
    if isinstance(x, SparseTensorValue):
        return SparseTensor.from_value(x)
    return x if isinstance(x, SparseTensor) else convert_to_tensor(x)


def _only_class(ids: Any, class_id: int) -> SparseTensor:
    """The entries of ``ids`` equal to ``class_id``, as a SparseTensor of ids' shape."""
    ids = _as_tensor_or_sparse(ids)
    if isinstance(ids, SparseTensor):
        return sparse_ops.sparse_retain(ids, math_ops.equal(ids.values, class_id))
    shape = array_ops.shape(ids, out_type=dtypes.int64)
    last = array_ops.size(shape) - 1
    row_shape = math_ops.reduced_shape(shape, array_ops.reshape(last, [1]))
    kept = set_intersection(array_ops.fill(row_shape, math_ops.cast(class_id, dtypes.int64)),
                            ids)
    return SparseTensor(kept.indices, kept.values, shape)


def _weighted(counts: Any, weights: Any) -> Any:
    counts = math_ops.cast(counts, _f64)
    if weights is None:
        return counts
    with weights_util.after(weights_util.assert_broadcastable(weights, counts)):
        return math_ops.multiply(counts, math_ops.cast(weights, _f64))


def _per_row(kind: str, labels: Any, predictions_idx: Any, class_id: int | None,
             weights: Any, name: str | None = None) -> Any:
    """Per-row true positive, false positive or false negative counts (float64)."""
    default = {"tp": "true_positives", "fp": "false_positives", "fn": "false_negatives"}
    with ops_lib.name_scope(name, default[kind], (predictions_idx, labels, weights)):
        if class_id is not None:
            labels = _only_class(labels, class_id)
            predictions_idx = _only_class(predictions_idx, class_id)
        if kind == "tp":
            found = set_intersection(predictions_idx, labels)
        else:
            found = set_difference(predictions_idx, labels, aminusb=kind == "fp")
        return _weighted(set_size(found), weights)


def _streaming_count(kind: str, labels: Any, predictions_idx: Any, k: int | None,
                     class_id: int | None, weights: Any) -> tuple:
    metric = {"tp": "true_positive", "fp": "false_positive", "fn": "false_negative"}[kind]
    with ops_lib.name_scope(None, _name(metric, k, class_id),
                            (predictions_idx, labels, weights)) as scope:
        batch = math_ops.cast(math_ops.reduce_sum(
            _per_row(kind, labels, predictions_idx, class_id, weights)), _f64)
        total = metric_variable([], _f64, name=scope)
        return total, state_ops.assign_add(total, batch, name="update")


def _expand_labels(labels: Any, predictions: Any) -> Any:
    """``labels`` with a last axis of size 1 added when it has one axis fewer than
    ``predictions``."""
    with ops_lib.name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = _as_tensor_or_sparse(labels)
        if isinstance(labels, SparseTensor):
            return control_flow_ops.cond(
                math_ops.equal(array_ops.rank(predictions),
                               array_ops.size(labels.dense_shape) + 1),
                lambda: sparse_ops.sparse_reshape(
                    labels, array_ops.concat((labels.dense_shape, (1,)), 0), name=scope),
                lambda: labels)
        labels_rank, predictions_rank = labels.shape.ndims, predictions.shape.ndims
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank == labels_rank:
                return labels
            if predictions_rank == labels_rank + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(f"Unexpected labels shape {labels.shape} for predictions shape "
                             f"{predictions.shape}. Predictions rank should be the same rank "
                             "as labels rank or labels rank plus one .")
        return control_flow_ops.cond(
            math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
            lambda: array_ops.expand_dims(labels, -1, name=scope), lambda: labels)


def _ratio_metric(metric: str, other: str, labels: Any, predictions_idx: Any,
                  k: int | None, class_id: int | None, weights: Any,
                  metrics_collections: Any, updates_collections: Any,
                  name: str | None) -> tuple:
    """tp / (tp + other) of the top-k ids: precision (other fp) or recall (other fn)."""
    with ops_lib.name_scope(name, _name(metric, k, class_id),
                            (predictions_idx, labels, weights)) as scope:
        labels = _expand_labels(labels, predictions_idx)
        ids = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count("tp", labels, ids, k, class_id, weights)
        rest, rest_update = _streaming_count(other, labels, ids, k, class_id, weights)
        value = math_ops.divide(tp, math_ops.add(tp, rest), name=scope)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, rest_update),
                                 name="update")
        return _finish(value, update, metrics_collections, updates_collections)


def precision_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None,
                       class_id: int | None = None, weights: Any = None,
                       metrics_collections: Any = None, updates_collections: Any = None,
                       name: str | None = None) -> tuple:
    """Precision of the given top-k class ids (``predictions_idx``) against ``labels``."""
    return _ratio_metric("precision", "fp", labels, predictions_idx, k, class_id, weights,
                         metrics_collections, updates_collections, name)


def recall_at_top_k(labels: Any, predictions_idx: Any, k: int | None = None,
                    class_id: int | None = None, weights: Any = None,
                    metrics_collections: Any = None, updates_collections: Any = None,
                    name: str | None = None) -> tuple:
    """Recall of the given top-k class ids (``predictions_idx``) against ``labels``."""
    return _ratio_metric("recall", "fn", labels, predictions_idx, k, class_id, weights,
                         metrics_collections, updates_collections, name)


def _of_logits(at_top_k: Any, metric: str):
    def metric_fn(labels: Any, predictions: Any, k: int, class_id: int | None = None,
                  weights: Any = None, metrics_collections: Any = None,
                  updates_collections: Any = None, name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, _name(metric, k, class_id),
                                (predictions, labels, weights)) as scope:
            _, ids = top_k(predictions, k)
            return at_top_k(labels, ids, k=k, class_id=class_id, weights=weights,
                            metrics_collections=metrics_collections,
                            updates_collections=updates_collections, name=scope)

    metric_fn.__name__ = f"{metric}_at_k"
    metric_fn.__doc__ = (f"{metric.capitalize()} of the top ``k`` classes of the logits "
                         "``predictions`` against ``labels`` (for ``class_id`` only, if "
                         "given).")
    return metric_fn


precision_at_k = _of_logits(precision_at_top_k, "precision")
sparse_precision_at_k = precision_at_k
recall_at_k = _of_logits(recall_at_top_k, "recall")


def _expand_and_tile(tensor: Any, multiple: int, name: str) -> Any:
    """``tensor`` with a new axis before its last, tiled ``multiple`` times."""
    with ops_lib.name_scope(None, name, (tensor,)) as scope:
        tensor = _as_tensor_or_sparse(tensor)
        if isinstance(tensor, SparseTensor):
            last = array_ops.reshape(array_ops.size(tensor.dense_shape) - 1, [1])
            shape = array_ops.concat((array_ops.slice(tensor.dense_shape, [0], last), [1],
                                      array_ops.slice(tensor.dense_shape, last, [-1])), 0,
                                     name="expanded_shape")
            expanded = sparse_ops.sparse_reshape(tensor, shape, name="expand")
            return expanded if multiple == 1 else sparse_ops.sparse_concat(
                -2, [expanded] * multiple, name=scope)
        expanded = array_ops.expand_dims(tensor, -2, name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        multiples = array_ops.concat((ones[:-1], (multiple,), ones[-1:]), 0, name="multiples")
        return array_ops.tile(expanded, multiples, name=scope)


def _num_relevant(labels: Any, k: int) -> Any:
    """Per row, min(number of labels, k)."""
    with ops_lib.name_scope(None, "num_relevant", (labels,)) as scope:
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(set_size(labels), k, name=scope)
        count = math_ops.reduce_sum(math_ops.where_v2(
            math_ops.greater_equal(labels, 0), array_ops.ones_like(labels),
            array_ops.zeros_like(labels)), axis=-1)
        return math_ops.minimum(count, k, name=scope)


def _average_precision_per_row(labels: Any, predictions_idx: Any) -> Any:
    """Per row: sum over i <= k of precision@i where the i-th id is a label, divided by
    min(labels, k)."""
    with ops_lib.name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        ids = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if ids.shape.ndims == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = ids.shape.as_list()[-1]
        if k is None:
            raise ValueError("The last dimension of predictions_idx must be set. Currently, "
                             "it is None.")
        labels = _expand_labels(labels, ids)
        ids_per_k = array_ops.expand_dims(ids, -1, name="predictions_idx_per_k")
        labels_per_k = _expand_and_tile(labels, k, "labels_per_k")
        relevant = _per_row("tp", labels_per_k, ids_per_k, None, None, name="relevant_per_k")
        hits = math_ops.cumsum(relevant, axis=-1, name="tp_per_k")
        seen = math_ops.cumsum(array_ops.ones_like(relevant), axis=-1, name="retrieved_per_k")
        precision = math_ops.divide(math_ops.cast(hits, _f64), math_ops.cast(seen, _f64),
                                    name="precision_per_k")
        relevant_precision = math_ops.multiply(precision, math_ops.cast(relevant, _f64),
                                               name="relevant_precision_per_k")
        total = math_ops.reduce_sum(relevant_precision, axis=(-1,), name="precision_sum")
        return math_ops.divide(total, math_ops.cast(_num_relevant(labels, k), _f64),
                               name=scope)


def _without_out_of_range(labels: Any, num_classes: Any) -> Any:
    """``labels`` with ids >= num_classes replaced by -1 (no label)."""
    labels = _as_tensor_or_sparse(labels)
    values = labels.values if isinstance(labels, SparseTensor) else labels

    def cleaned() -> Any:
        kept = math_ops.where_v2(math_ops.greater_equal(values, num_classes),
                                  -1 * array_ops.ones_like(values), values)
        return SparseTensor(labels.indices, kept, labels.dense_shape) \
            if isinstance(labels, SparseTensor) else kept

    return control_flow_ops.cond(
        math_ops.greater_equal(math_ops.reduce_max(values), num_classes), cleaned,
        lambda: labels)


def average_precision_at_k(labels: Any, predictions: Any, k: int, weights: Any = None,
                           metrics_collections: Any = None, updates_collections: Any = None,
                           name: str | None = None) -> tuple:
    """Mean over rows (weighted) of the average precision of the top ``k`` classes of
    the logits ``predictions``; variables ``.../total`` and ``.../max``."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    with ops_lib.name_scope(name, _name("average_precision", k),
                            (predictions, labels, weights)) as scope:
        _, ids = top_k(predictions, k)
        labels = _without_out_of_range(labels, math_ops.cast(
            array_ops.shape(predictions)[-1], dtypes.int64))
        with ops_lib.name_scope(scope, "average_precision_at_top_k",
                                (ids, labels, weights)) as inner:
            per_row = _average_precision_per_row(labels, ids)
            if weights is not None:
                weights = weights_util.broadcast_weights(math_ops.cast(weights, _f64), per_row)
                per_row = math_ops.multiply(per_row, weights)
            with ops_lib.name_scope(None, "max", (per_row,)) as max_scope:
                max_var = metric_variable([], _f64, name=max_scope)
                batch_max = math_ops.cast(array_ops.size(per_row, name="batch_max"), _f64) \
                    if weights is None else math_ops.reduce_sum(weights, name="batch_max")
                max_update = state_ops.assign_add(max_var, batch_max, name="update")
            with ops_lib.name_scope(None, "total", (per_row,)) as total_scope:
                total_var = metric_variable([], _f64, name=total_scope)
                total_update = state_ops.assign_add(
                    total_var, math_ops.reduce_sum(per_row, name="batch_total"),
                    name="update")
            value = math_ops.div_no_nan(total_var, max_var, name="mean")
            update = math_ops.div_no_nan(total_update, max_update, name=inner)
            return _finish(value, update, metrics_collections, updates_collections)


sparse_average_precision_at_k = average_precision_at_k
