"""``tf.contrib.data`` (TF 1.15): the ``Dataset.apply`` transformations it re-exported from
``tf.data.experimental`` and its own ``batch_and_drop_remainder`` /
``padded_batch_and_drop_remainder`` (``batch(..., drop_remainder=True)``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# ruff: noqa: F401
from graphcore.data.dataset_ops import Dataset
from graphcore.data.experimental import (
    enumerate_dataset,
    get_structure,
    map_and_batch,
    parallel_interleave,
    shuffle_and_repeat,
    unbatch,
)

__all__ = ["batch_and_drop_remainder", "enumerate_dataset", "map_and_batch",
           "padded_batch_and_drop_remainder", "parallel_interleave", "shuffle_and_repeat",
           "unbatch"]


def batch_and_drop_remainder(batch_size: Any) -> Callable[[Dataset], Dataset]:
    """Batches of exactly ``batch_size`` (a last, smaller batch is dropped)."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def padded_batch_and_drop_remainder(batch_size: Any, padded_shapes: Any,
                                    padding_values: Any = None) -> Callable[[Dataset], Dataset]:
    """Padded batches of exactly ``batch_size`` (a last, smaller batch is dropped)."""
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values,
                                                drop_remainder=True)
