"""``tf.contrib.losses`` (TF 1.15, what ``slim.losses`` is): the tf.losses functions under
contrib's argument order (predictions / logits first) and the loss-collection helpers; each
reduces to the tf.losses function of the same name (mean over the non-zero weights)."""

from __future__ import annotations

from typing import Any

from graphcore.losses import losses_impl as core

# ruff: noqa: F401
from graphcore.losses.losses_impl import (
    add_loss,
    compute_weighted_loss,
    get_losses,
    get_regularization_losses,
    get_total_loss,
)

__all__ = ["absolute_difference", "add_loss", "compute_weighted_loss",
           "get_losses", "get_regularization_losses", "get_total_loss", "hinge_loss",
           "log_loss", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]


def softmax_cross_entropy(logits: Any, onehot_labels: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None) -> Any:
    return core.softmax_cross_entropy(onehot_labels, logits, weights=weights,
                                      label_smoothing=label_smoothing, scope=scope)


def sparse_softmax_cross_entropy(logits: Any, labels: Any, weights: Any = 1.0,
                                 scope: str | None = None) -> Any:
    return core.sparse_softmax_cross_entropy(labels, logits, weights=weights, scope=scope)


def sigmoid_cross_entropy(logits: Any, multi_class_labels: Any, weights: Any = 1.0,
                          label_smoothing: float = 0, scope: str | None = None) -> Any:
    return core.sigmoid_cross_entropy(multi_class_labels, logits, weights=weights,
                                      label_smoothing=label_smoothing, scope=scope)


def mean_squared_error(predictions: Any, labels: Any = None, weights: Any = 1.0,
                       scope: str | None = None) -> Any:
    return core.mean_squared_error(labels, predictions, weights=weights, scope=scope)


def absolute_difference(predictions: Any, labels: Any = None, weights: Any = 1.0,
                        scope: str | None = None) -> Any:
    return core.absolute_difference(labels, predictions, weights=weights, scope=scope)


def log_loss(predictions: Any, labels: Any = None, weights: Any = 1.0, epsilon: float = 1e-7,
             scope: str | None = None) -> Any:
    return core.log_loss(labels, predictions, weights=weights, epsilon=epsilon, scope=scope)


def hinge_loss(logits: Any, labels: Any = None, scope: str | None = None) -> Any:
    """The unreduced ``relu(1 - (2 * labels - 1) * logits)``, not added to LOSSES (contrib's
    hinge_loss neither weighted nor reduced)."""
    return core.hinge_loss(labels, logits, scope=scope, loss_collection=None,
                           reduction=core.Reduction.NONE)
