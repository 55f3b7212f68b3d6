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
           "bucket_by_sequence_length",
           "OptimizationOptions", "ThreadingOptions", "enumerate_dataset", "get_structure",
           "group_by_window", "map_and_batch", "parallel_interleave", "shuffle_and_repeat", "unbatch"]

# tf.data's sentinels: let the runtime choose; cardinalities of an endless and an unknown
# dataset.
AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2


def unbatch() -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.unbatch()``."""
    return lambda dataset: dataset.unbatch()


def group_by_window(key_func: Callable[..., Any], reduce_func: Callable[..., Any],
                    window_size: Any = None,
                    window_size_func: Any = None) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.group_by_window(...)``."""
    return lambda dataset: dataset.group_by_window(key_func, reduce_func, window_size,
                                                   window_size_func)


def bucket_by_sequence_length(element_length_func: Callable[..., Any], bucket_boundaries: list,
                              bucket_batch_sizes: list, padded_shapes: Any = None,
                              padding_values: Any = None, pad_to_bucket_boundary: bool = False,
                              no_padding: bool = False,
                              drop_remainder: bool = False) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.bucket_by_sequence_length(...)``."""
    return lambda dataset: dataset.bucket_by_sequence_length(
        element_length_func, bucket_boundaries, bucket_batch_sizes, padded_shapes,
        padding_values, pad_to_bucket_boundary, no_padding, drop_remainder)


def enumerate_dataset(start: int = 0) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.enumerate(start)``."""
    return lambda dataset: dataset.enumerate(start)


def shuffle_and_repeat(buffer_size: Any, count: Any = None,
                       seed: int | None = None) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: shuffled (reshuffled each epoch), then
    repeated ``count`` times."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func: Callable[..., Any], batch_size: Any,
                  num_parallel_batches: Any = None, drop_remainder: bool = False,
                  num_parallel_calls: Any = None) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.map(map_func).batch(batch_size,
    drop_remainder)`` (the fused form of TF, same elements)."""
    if num_parallel_batches is not None and num_parallel_calls is not None:
        raise ValueError("`map_and_batch` allows only one of `num_parallel_batches` and "
                         "`num_parallel_calls` to be set, but "
                         f"`num_parallel_batches` was set to {num_parallel_batches} and "
                         f"`num_parallel_calls` as set to {num_parallel_calls}.")
    return lambda dataset: dataset.map(map_func, num_parallel_calls).batch(
        batch_size, drop_remainder=drop_remainder)


def parallel_interleave(map_func: Callable[..., Any], cycle_length: Any,
                        block_length: Any = 1, sloppy: bool = False,
                        buffer_output_elements: Any = None,
                        prefetch_input_elements: Any = None) -> Callable[[Dataset], Dataset]:
    """A transformation for ``Dataset.apply``: ``dataset.interleave(map_func,
    cycle_length, block_length)``; elements come in the deterministic interleave order,
    which ``sloppy=True`` allows but does not require."""
    del sloppy, buffer_output_elements, prefetch_input_elements
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def get_structure(dataset_or_iterator: Any) -> Any:
    """The element structure (TensorSpecs) of a dataset or iterator."""
    try:
        return dataset_or_iterator.element_spec
    except AttributeError:
        raise TypeError(f"Invalid `dataset_or_iterator`. `dataset_or_iterator` must be a "
                        f"`tf.data.Dataset` or tf.data.Iterator object, but got "
                        f"{type(dataset_or_iterator)}.") from None
