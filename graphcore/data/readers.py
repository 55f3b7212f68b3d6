"""File datasets of tf.data: TFRecordDataset, TextLineDataset, FixedLengthRecordDataset
(one op each, reading its files in order; see graphcore.kernels.dataset_kernels)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.data.dataset_ops import Dataset, TensorSpec
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops

__all__ = ["FixedLengthRecordDataset", "TFRecordDataset", "TextLineDataset"]


def _filenames(filenames: Any) -> ops_lib.Tensor:
    if isinstance(filenames, Dataset):
        raise TypeError("graphcore's file datasets take file names as a string tensor, "
                        "not a dataset of them")
    tensor = convert_to_tensor(np.asarray(filenames, dtype=object)
                               if not isinstance(filenames, ops_lib.Tensor) else filenames,
                               dtype=dtypes_lib.string)
    return array_ops.reshape(tensor, [-1], name="flat_filenames")


def _string(value: Any, name: str) -> ops_lib.Tensor:
    return convert_to_tensor(value or "", dtype=dtypes_lib.string, name=name)


def _int64(value: Any, name: str) -> ops_lib.Tensor:
    return convert_to_tensor(value, dtype=dtypes_lib.int64, name=name)


def _records(op_type: str, **inputs: Any) -> tuple[ops_lib.Tensor, TensorSpec]:
    return apply_op(op_type, **inputs).outputs[0], TensorSpec([], dtypes_lib.string)


class TFRecordDataset(Dataset):
    """The records of TFRecord files, file after file."""

    def __init__(self, filenames: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None):
        del num_parallel_reads, name
        super().__init__(*_records(
            "TFRecordDataset", filenames=_filenames(filenames),
            compression_type=_string(compression_type, "compression_type"),
            buffer_size=_int64(-1 if buffer_size is None else buffer_size, "buffer_size")))


class TextLineDataset(Dataset):
    """The lines of text files (newlines stripped), file after file."""

    def __init__(self, filenames: Any, compression_type: str | None = None,
                 buffer_size: int | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None):
        del num_parallel_reads, name
        super().__init__(*_records(
            "TextLineDataset", filenames=_filenames(filenames),
            compression_type=_string(compression_type, "compression_type"),
            buffer_size=_int64(256 * 1024 if buffer_size is None else buffer_size,
                               "buffer_size")))


class FixedLengthRecordDataset(Dataset):
    """The ``record_bytes``-long records between each file's header and footer."""

    def __init__(self, filenames: Any, record_bytes: int, header_bytes: int | None = None,
                 footer_bytes: int | None = None, buffer_size: int | None = None,
                 compression_type: str | None = None, num_parallel_reads: int | None = None,
                 name: str | None = None):
        del num_parallel_reads, name
        super().__init__(*_records(
            "FixedLengthRecordDatasetV2", filenames=_filenames(filenames),
            header_bytes=_int64(header_bytes or 0, "header_bytes"),
            record_bytes=_int64(record_bytes, "record_bytes"),
            footer_bytes=_int64(footer_bytes or 0, "footer_bytes"),
            buffer_size=_int64(256 * 1024 if buffer_size is None else buffer_size,
                               "buffer_size"),
            compression_type=_string(compression_type, "compression_type")))
