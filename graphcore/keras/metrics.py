"""tf.keras.metrics functions: the accuracies and errors ``compile(metrics=[...])`` takes by
name (``"accuracy"`` picks the binary, categorical or sparse accuracy from the loss and the
output's shape, as Keras does), each per sample and averaged over the batch."""

from __future__ import annotations

from typing import Any

from graphcore.keras import backend as K
from graphcore.keras import losses
from graphcore.ops import array_ops, math_ops

__all__ = ["binary_accuracy", "binary_crossentropy", "categorical_accuracy",
           "categorical_crossentropy", "categorical_hinge", "cosine", "cosine_proximity", "get",
           "hinge", "kl_divergence", "kld", "kullback_leibler_divergence", "log_cosh",
           "logcosh", "mae", "mape", "mean_absolute_error", "mean_absolute_percentage_error",
           "mean_squared_error", "mean_squared_logarithmic_error", "mse", "msle", "poisson",
           "sparse_categorical_accuracy", "sparse_categorical_crossentropy", "squared_hinge"]


def binary_accuracy(y_true: Any, y_pred: Any, threshold: float = 0.5) -> Any:
    y_pred = math_ops.cast(math_ops.greater(y_pred, threshold), y_pred.dtype)
    y_true = math_ops.cast(y_true, y_pred.dtype)
    return K.mean(math_ops.cast(math_ops.equal(y_true, y_pred), K.floatx()), axis=-1)


def categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    return math_ops.cast(math_ops.equal(math_ops.argmax(y_true, -1),
                                        math_ops.argmax(y_pred, -1)), K.floatx())


def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> Any:
    # One label per prediction: y_true shaped like y_pred without its class axis.
    y_pred_labels = math_ops.cast(math_ops.argmax(y_pred, -1), K.floatx())
    y_true = array_ops.reshape(y_true, array_ops.shape(y_pred_labels))
    return math_ops.cast(math_ops.equal(math_ops.cast(y_true, K.floatx()), y_pred_labels),
                         K.floatx())


mean_squared_error = mse = losses.mean_squared_error
mean_absolute_error = mae = losses.mean_absolute_error
mean_squared_logarithmic_error = msle = losses.mean_squared_logarithmic_error
mean_absolute_percentage_error = mape = losses.mean_absolute_percentage_error
kullback_leibler_divergence = kl_divergence = kld = losses.kl_divergence
hinge, squared_hinge, categorical_hinge = losses.hinge, losses.squared_hinge, \
    losses.categorical_hinge
logcosh = log_cosh = losses.log_cosh
poisson = losses.poisson
cosine_proximity = cosine = losses.cosine_similarity
binary_crossentropy = losses.binary_crossentropy
categorical_crossentropy = losses.categorical_crossentropy
sparse_categorical_crossentropy = losses.sparse_categorical_crossentropy

_BY_NAME = {
    "binary_accuracy": binary_accuracy, "categorical_accuracy": categorical_accuracy,
    "sparse_categorical_accuracy": sparse_categorical_accuracy,
    "mean_squared_error": mean_squared_error, "mse": mse,
    "mean_absolute_error": mean_absolute_error, "mae": mae,
    **{name: getattr(losses, name) for name in (
        "mean_squared_logarithmic_error", "msle", "mean_absolute_percentage_error", "mape",
        "kullback_leibler_divergence", "kl_divergence", "kld", "hinge", "squared_hinge",
        "categorical_hinge", "logcosh", "log_cosh", "poisson", "cosine_proximity", "cosine",
        "binary_crossentropy", "categorical_crossentropy",
        "sparse_categorical_crossentropy")},
}


def get(identifier: Any) -> Any:
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown metric function: '{identifier}'.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret metric identifier: {identifier}")


def resolve(metric: Any, loss_fn: Any, output: Any) -> tuple:
    """``(name, function)`` for one ``compile`` metric on ``output`` (v1 names: ``acc``)."""
    if metric in ("accuracy", "acc", "crossentropy", "ce"):
        loss_name = getattr(loss_fn, "__name__", "") or getattr(loss_fn, "name", "")
        fn_name = getattr(getattr(loss_fn, "fn", None), "__name__", loss_name)
        accuracy = metric in ("accuracy", "acc")
        if output.shape.as_list()[-1:] == [1] or "binary_crossentropy" in (loss_name, fn_name):
            fn = binary_accuracy if accuracy else losses.binary_crossentropy
        elif "sparse_categorical_crossentropy" in (loss_name, fn_name):
            fn = sparse_categorical_accuracy if accuracy \
                else losses.sparse_categorical_crossentropy
        else:
            fn = categorical_accuracy if accuracy else losses.categorical_crossentropy
        return ("acc" if accuracy else "ce"), fn
    fn = get(metric)
    # TF1 Keras names a metric by its function (``"mae"`` -> ``mean_absolute_error``) or a
    # Metric object's name (training_utils_v1.get_metric_name with TF2 behaviour off).
    return (getattr(fn, "name", None) or fn.__name__), fn
