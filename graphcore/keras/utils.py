"""tf.keras.utils: ``to_categorical``, ``normalize`` and the custom object scopes."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.keras.custom_objects import (
    CustomObjectScope,
    custom_object_scope,
    get_custom_objects,
)
from graphcore.keras.preprocessing.sequence import pad_sequences
from graphcore.keras.training_generator import Sequence

__all__ = ["Sequence", "CustomObjectScope", "custom_object_scope", "get_custom_objects", "normalize",
           "pad_sequences", "to_categorical"]


def to_categorical(y: Any, num_classes: int | None = None, dtype: str = "float32") -> Any:
    """Class vector ``y`` (integers from 0) as a one-hot matrix of ``num_classes``."""
    y = np.array(y, dtype="int")
    input_shape = y.shape
    if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
        input_shape = tuple(input_shape[:-1])
    y = y.ravel()
    if not num_classes:
        num_classes = int(np.max(y)) + 1
    n = y.shape[0]
    categorical = np.zeros((n, num_classes), dtype=dtype)
    categorical[np.arange(n), y] = 1
    return np.reshape(categorical, input_shape + (num_classes,))


def normalize(x: Any, axis: int = -1, order: int = 2) -> Any:
    """``x`` divided by its L-``order`` norm along ``axis`` (zero norms left as 1)."""
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)
