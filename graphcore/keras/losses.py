"""tf.keras.losses: per-sample loss functions (``mse``, ``categorical_crossentropy``...) and
the Loss classes (``from_logits``), which reduce to the mean over the batch."""

from __future__ import annotations

from typing import Any

from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.keras import backend as K
from graphcore.keras import custom_objects as custom_lib
from graphcore.keras.losses_more import (
    categorical_hinge,
    cosine_similarity,
    hinge,
    huber,
    kl_divergence,
    log_cosh,
    mean_absolute_percentage_error,
    mean_squared_logarithmic_error,
    poisson,
    squared_hinge,
)
from graphcore.ops import math_ops

__all__ = [
    "CategoricalHinge", "CosineSimilarity", "Hinge", "Huber", "KLD", "KLDivergence", "LogCosh",
    "MAPE", "MSLE", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "Poisson",
    "SquaredHinge", "categorical_hinge", "cosine", "cosine_proximity", "cosine_similarity",
    "hinge", "huber", "kl_divergence", "kld", "kullback_leibler_divergence", "log_cosh",
    "logcosh", "mape", "mean_absolute_percentage_error", "mean_squared_logarithmic_error",
    "msle", "poisson", "squared_hinge",
    "BinaryCrossentropy", "CategoricalCrossentropy", "Loss", "MAE", "MSE",
    "MeanAbsoluteError", "MeanSquaredError", "SparseCategoricalCrossentropy",
    "binary_crossentropy", "categorical_crossentropy", "deserialize", "get", "mae", "mean_absolute_error",
    "mean_squared_error", "mse", "serialize", "sparse_categorical_crossentropy",
]


def _pair(y_true: Any, y_pred: Any) -> tuple:
    y_pred = convert_to_tensor(y_pred)
    return math_ops.cast(convert_to_tensor(y_true), y_pred.dtype), y_pred


def mean_squared_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.square(y_pred - y_true), -1)


def mean_absolute_error(y_true: Any, y_pred: Any) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    return math_ops.reduce_mean(math_ops.abs(y_pred - y_true), -1)


def categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                             label_smoothing: float = 0.0) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        num_classes = math_ops.cast(K.shape(y_true)[-1], y_pred.dtype)
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / num_classes
    return K.categorical_crossentropy(y_true, y_pred, from_logits=from_logits)


def sparse_categorical_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                                    axis: int = -1) -> Any:
    return K.sparse_categorical_crossentropy(y_true, y_pred, from_logits=from_logits,
                                             axis=axis)


def binary_crossentropy(y_true: Any, y_pred: Any, from_logits: bool = False,
                        label_smoothing: float = 0.0) -> Any:
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return K.mean(K.binary_crossentropy(y_true, y_pred, from_logits=from_logits), axis=-1)


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
msle = MSLE = mean_squared_logarithmic_error
mape = MAPE = mean_absolute_percentage_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh
cosine_proximity = cosine = cosine_similarity


class Loss:
    """A loss object: ``fn(y_true, y_pred, **kwargs)`` per sample, averaged on call."""

    def __init__(self, fn: Any, name: str | None = None, reduction: str = "auto",
                 **kwargs: Any) -> None:
        if reduction not in ("auto", "sum_over_batch_size"):
            raise NotImplementedError(f"Loss reduction {reduction!r} is not implemented "
                                      "in graphcore")
        self.fn = fn
        self.name = name
        self.reduction = reduction
        self._fn_kwargs = kwargs

    def get_config(self) -> dict:
        return {"reduction": self.reduction, "name": self.name, "fn": self.fn.__name__,
                **self._fn_kwargs}

    @classmethod
    def from_config(cls, config: dict) -> Loss:
        config = dict(config)
        config.pop("fn", None)
        # Keras' defaults for arguments graphcore's losses do not take.
        if config.get("axis", -1) == -1:
            config.pop("axis", None)
        if config.get("ignore_class") is None:
            config.pop("ignore_class", None)
        return cls(**config)

    def call(self, y_true: Any, y_pred: Any) -> Any:
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def __call__(self, y_true: Any, y_pred: Any, sample_weight: Any = None) -> Any:
        if sample_weight is not None:
            raise NotImplementedError("Loss(sample_weight=...) is not implemented in "
                                      "graphcore")
        with K.name_scope(self.name or "loss"):
            return math_ops.reduce_mean(self.call(y_true, y_pred))


class MeanSquaredError(Loss):
    def __init__(self, reduction: str = "auto", name: str = "mean_squared_error") -> None:
        super().__init__(mean_squared_error, name=name, reduction=reduction)


class MeanAbsoluteError(Loss):
    def __init__(self, reduction: str = "auto", name: str = "mean_absolute_error") -> None:
        super().__init__(mean_absolute_error, name=name, reduction=reduction)


class CategoricalCrossentropy(Loss):
    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 reduction: str = "auto", name: str = "categorical_crossentropy") -> None:
        super().__init__(categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing)


class SparseCategoricalCrossentropy(Loss):
    def __init__(self, from_logits: bool = False, reduction: str = "auto",
                 name: str = "sparse_categorical_crossentropy") -> None:
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits)


class BinaryCrossentropy(Loss):
    def __init__(self, from_logits: bool = False, label_smoothing: float = 0.0,
                 reduction: str = "auto", name: str = "binary_crossentropy") -> None:
        super().__init__(binary_crossentropy, name=name, reduction=reduction,
                         from_logits=from_logits, label_smoothing=label_smoothing)


class MeanSquaredLogarithmicError(Loss):
    def __init__(self, reduction: str = "auto",
                 name: str = "mean_squared_logarithmic_error") -> None:
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction)


class MeanAbsolutePercentageError(Loss):
    def __init__(self, reduction: str = "auto",
                 name: str = "mean_absolute_percentage_error") -> None:
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction)


class Hinge(Loss):
    def __init__(self, reduction: str = "auto", name: str = "hinge") -> None:
        super().__init__(hinge, name=name, reduction=reduction)


class SquaredHinge(Loss):
    def __init__(self, reduction: str = "auto", name: str = "squared_hinge") -> None:
        super().__init__(squared_hinge, name=name, reduction=reduction)


class CategoricalHinge(Loss):
    def __init__(self, reduction: str = "auto", name: str = "categorical_hinge") -> None:
        super().__init__(categorical_hinge, name=name, reduction=reduction)


class Huber(Loss):
    def __init__(self, delta: float = 1.0, reduction: str = "auto",
                 name: str = "huber_loss") -> None:
        super().__init__(huber, name=name, reduction=reduction, delta=delta)


class LogCosh(Loss):
    def __init__(self, reduction: str = "auto", name: str = "log_cosh") -> None:
        super().__init__(log_cosh, name=name, reduction=reduction)


class KLDivergence(Loss):
    def __init__(self, reduction: str = "auto", name: str = "kl_divergence") -> None:
        super().__init__(kl_divergence, name=name, reduction=reduction)


class Poisson(Loss):
    def __init__(self, reduction: str = "auto", name: str = "poisson") -> None:
        super().__init__(poisson, name=name, reduction=reduction)


class CosineSimilarity(Loss):
    def __init__(self, axis: int = -1, reduction: str = "auto",
                 name: str = "cosine_similarity") -> None:
        super().__init__(cosine_similarity, name=name, reduction=reduction, axis=axis)


_BY_NAME = {
    "mean_squared_error": mean_squared_error, "mse": mse, "MSE": mse,
    "mean_absolute_error": mean_absolute_error, "mae": mae, "MAE": mae,
    "categorical_crossentropy": categorical_crossentropy,
    "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
    "binary_crossentropy": binary_crossentropy,
    **{f.__name__: f for f in (mean_squared_logarithmic_error, mean_absolute_percentage_error,
                               hinge, squared_hinge, categorical_hinge, huber, log_cosh,
                               kl_divergence, poisson, cosine_similarity)},
    "msle": msle, "MSLE": msle, "mape": mape, "MAPE": mape, "kld": kld, "KLD": kld,
    "kullback_leibler_divergence": kld, "logcosh": logcosh, "cosine_proximity": cosine,
    "cosine": cosine,
}


_CLASSES = {cls.__name__: cls for cls in (
    MeanSquaredError, MeanAbsoluteError, CategoricalCrossentropy,
    SparseCategoricalCrossentropy, BinaryCrossentropy, MeanSquaredLogarithmicError,
    MeanAbsolutePercentageError, Hinge, SquaredHinge, CategoricalHinge, Huber, LogCosh,
    KLDivergence, Poisson, CosineSimilarity)}


def get(identifier: Any) -> Any:
    """A loss function from its name, or the callable itself."""
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown loss function: '{identifier}'. Please ensure you are "
                             "using a `keras.utils.custom_object_scope` and that this object "
                             "is included in the scope.")
        return _BY_NAME[identifier]
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss function identifier: {identifier}")


def serialize(loss: Any) -> Any:
    """A loss as Keras' training config holds it: a name, or a Loss object's config."""
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    if isinstance(loss, str) or loss is None:
        return loss
    return loss.__name__


def deserialize(config: Any, custom_objects: dict | None = None) -> Any:
    if isinstance(config, dict):
        name = config["class_name"]
        cls = (custom_objects or {}).get(name) or custom_lib.lookup(name) or \
            _CLASSES.get(name)
        if cls is None:
            raise ValueError(f"Unknown loss function: '{name}'. Please ensure you are "
                             "using a `keras.utils.custom_object_scope` and that this object "
                             "is included in the scope.")
        return cls.from_config(config.get("config", {}))
    custom = (custom_objects or {}).get(config) or custom_lib.lookup(config)
    return custom if custom is not None else get(config)


def per_sample(loss: Any) -> Any:
    """The per-sample function of a loss name, function or Loss object."""
    loss = get(loss)
    return loss.call if isinstance(loss, Loss) else loss
