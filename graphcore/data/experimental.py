"""``tf.data.experimental`` (TF1's tf.compat.v1.data.experimental): the sentinels, the
option classes and the transformations that are plain Dataset methods in graphcore
(``unbatch``, ``enumerate_dataset``, ``shuffle_and_repeat``) plus ``get_structure``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphcore.data.dataset_ops import Dataset
from graphcore.data.options import (
    AutoShardPolicy,
    AutotuneAlgorithm,
    AutotuneOptions,
    DistributeOptions,
    ExternalStatePolicy,
    OptimizationOptions,
    ThreadingOptions,
)

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "AutoShardPolicy",
           "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions", "ExternalStatePolicy",
           "OptimizationOptions", "ThreadingOptions", "enumerate_dataset", "get_structure",
           "shuffle_and_repeat", "unbatch"]

# tf.data's sentinels: let the runtime choose; cardinalities of an endless and an unknown
# dataset.
AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def unbatch() -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.unbatch()``."""
    return lambda dataset: dataset.unbatch()


def enumerate_dataset(start: int = 0) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.enumerate(start)``."""
    return lambda dataset: dataset.enumerate(start)


def shuffle_and_repeat(buffer_size: Any, count: Any = None,
                       seed: int | None = None) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: shuffled (reshuffled each epoch), then
    repeated ``count`` times."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def get_structure(dataset_or_iterator: Any) -> Any:
    """The element structure (TensorSpecs) of a dataset or iterator."""
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        f"`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.") from None
