"""tf.data (tf.compat.v1.data) in graph mode: Dataset, Iterator, the file datasets and
make_one_shot_iterator / make_initializable_iterator."""

# ruff: noqa: F401
from graphcore.data.dataset_ops import Dataset
from graphcore.data.iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from graphcore.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from graphcore.data.structure import TensorSpec

# tf.data's sentinels: let the runtime choose; cardinalities of an endless and an unknown
# dataset.
AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "FixedLengthRecordDataset", "Iterator", "TFRecordDataset",
           "TensorSpec", "TextLineDataset", "get_output_classes", "get_output_shapes",
           "get_output_types", "make_initializable_iterator", "make_one_shot_iterator"]
