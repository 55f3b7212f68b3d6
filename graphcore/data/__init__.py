"""tf.data (tf.compat.v1.data) in graph mode: Dataset, Iterator, the file datasets and
make_one_shot_iterator / make_initializable_iterator."""

# ruff: noqa: F401
from graphcore.data import experimental
from graphcore.data.dataset_ops import Dataset, DatasetSpec
from graphcore.data.experimental import AUTOTUNE, INFINITE_CARDINALITY, UNKNOWN_CARDINALITY
from graphcore.data.iterator_ops import (
    Iterator,
    get_output_classes,
    get_output_shapes,
    get_output_types,
    make_initializable_iterator,
    make_one_shot_iterator,
)
from graphcore.data.options import Options, ThreadingOptions
from graphcore.data.readers import FixedLengthRecordDataset, TextLineDataset, TFRecordDataset
from graphcore.data.structure import TensorSpec

__all__ = ["AUTOTUNE", "INFINITE_CARDINALITY", "UNKNOWN_CARDINALITY", "Dataset", "DatasetSpec",
           "FixedLengthRecordDataset", "Iterator", "Options", "TFRecordDataset",
           "ThreadingOptions", "experimental",
           "TensorSpec", "TextLineDataset", "get_output_classes", "get_output_shapes",
           "get_output_types", "make_initializable_iterator", "make_one_shot_iterator"]
