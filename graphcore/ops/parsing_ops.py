"""Parsing ops (TF's parsing_ops): tf.train.Example protos (ParseExampleV2 with
FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, SparseFeature), DecodeRaw,
DecodeCSV, DecodeCompressed, DecodeJSONExample, SerializeTensor and ParseTensor. Kernels:
:mod:`graphcore.kernels.parsing_kernels`. SequenceExamples:
:mod:`graphcore.ops.sequence_example_ops`.

Not built: RaggedFeature (graphcore has no RaggedTensor).
"""

from __future__ import annotations

import collections
import re
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, math_ops, sparse_ops
from graphcore.platform import tf_logging as logging
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "SparseFeature", "VarLenFeature",
           "decode_compressed", "decode_csv", "decode_json_example", "decode_raw",
           "parse_example", "parse_single_example", "parse_tensor", "serialize_tensor"]

_PARSE_TYPES = "{float, int64, string}"


def _parse_example_v2_shape(op: ops_lib.Operation) -> list:
    """TF's shape fn: rank-0 ``serialized`` parses one Example (no batch dimension); a
    dense output is ``[batch] + dense_shape``, its -1 first dim a padded length."""
    serialized = op._inputs[0].shape
    num_sparse = op._attrs["num_sparse"].i
    dense_shapes = [shape_lib.TensorShape(s) for s in op._attrs["dense_shapes"].list.shape]
    if serialized.ndims is None:
        return [shape_lib.unknown_shape()] * (3 * num_sparse + len(dense_shapes))
    rank = serialized.ndims
    sparse = ([shape_lib.TensorShape([None, rank + 1])] * num_sparse
              + [shape_lib.TensorShape([None])] * num_sparse
              + [shape_lib.TensorShape([rank + 1])] * num_sparse)
    return sparse + [serialized.concatenate(s) for s in dense_shapes]


def _decode_raw_shape(op: ops_lib.Operation) -> list:
    return [op._inputs[0].shape.concatenate([None])]


def _decode_csv_shape(op: ops_lib.Operation) -> list:
    for default in op._inputs[1:]:
        if default.shape.ndims is not None and default.shape.ndims > 1:
            raise ValueError(f"Shape must be at most rank 1 but is rank {default.shape.ndims}"
                             f" for '{op.name}' (op: 'DecodeCSV').")
    return [op._inputs[0].shape] * (len(op._inputs) - 1)


op_registry.register_op("ParseExampleV2").input("serialized: string") \
    .input("names: string").input("sparse_keys: string").input("dense_keys: string") \
    .input("ragged_keys: string").input("dense_defaults: Tdense") \
    .output("sparse_indices: num_sparse * int64").output("sparse_values: sparse_types") \
    .output("sparse_shapes: num_sparse * int64").output("dense_values: Tdense") \
    .output("ragged_values: ragged_value_types") \
    .output("ragged_row_splits: ragged_split_types") \
    .attr(f"Tdense: list({_PARSE_TYPES}) >= 0").attr("num_sparse: int >= 0") \
    .attr(f"sparse_types: list({_PARSE_TYPES}) >= 0") \
    .attr(f"ragged_value_types: list({_PARSE_TYPES}) >= 0") \
    .attr("ragged_split_types: list({int32, int64}) >= 0") \
    .attr("dense_shapes: list(shape) >= 0").shape_fn(_parse_example_v2_shape)

op_registry.register_op("DecodeRaw").input("bytes: string").output("output: out_type") \
    .attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, "
          "complex64, complex128, bool, bfloat16}") \
    .attr("little_endian: bool = true").shape_fn(_decode_raw_shape)

op_registry.register_op("DecodeCSV").input("records: string") \
    .input("record_defaults: OUT_TYPE").output("output: OUT_TYPE") \
    .attr("OUT_TYPE: list({float, double, int32, int64, string}) >= 1") \
    .attr("field_delim: string = ','").attr("use_quote_delim: bool = true") \
    .attr("na_value: string = ''").attr("select_cols: list(int) = []") \
    .shape_fn(_decode_csv_shape)

op_registry.register_op("DecodeJSONExample").input("json_examples: string") \
    .output("binary_examples: string").shape_fn(lambda op: [op._inputs[0].shape])
op_registry.register_op("SerializeTensor").input("tensor: T").output("serialized: string") \
    .attr("T: type").shape_fn(lambda op: [shape_lib.TensorShape([])])

op_registry.register_op("ParseTensor").input("serialized: string").output("output: out_type") \
    .attr("out_type: type").shape_fn(lambda op: [shape_lib.unknown_shape()])

op_registry.register_op("DecodeCompressed").input("bytes: string").output("output: string") \
    .attr("compression_type: string = ''").shape_fn(lambda op: [op._inputs[0].shape])

for _op in ("ParseExampleV2", "DecodeRaw", "DecodeCSV", "DecodeCompressed", "DecodeJSONExample",
            "SerializeTensor", "ParseTensor"):
    NotDifferentiable(_op)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A variable-length feature, parsed into a SparseTensor."""


class FixedLenFeature(collections.namedtuple(
        "FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed ``shape``, parsed into a dense Tensor; without a
    ``default_value`` every Example must have it."""

    def __new__(cls, shape: Any, dtype: Any, default_value: Any = None) -> FixedLenFeature:
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """A sequence of items of ``shape``, parsed into a dense Tensor padded (with
    ``default_value``) to the longest sequence of the batch."""

    def __new__(cls, shape: Any, dtype: Any, allow_missing: bool = False,
                default_value: Any = None) -> FixedLenSequenceFeature:
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class SparseFeature(collections.namedtuple(
        "SparseFeature", ["index_key", "value_key", "dtype", "size", "already_sorted"])):
    """A SparseTensor of ``size`` (a list for several index keys) assembled from an
    index feature (or several) and a value feature of each Example."""

    def __new__(cls, index_key: Any, value_key: str, dtype: Any, size: Any,
                already_sorted: bool = False) -> SparseFeature:
        return super().__new__(cls, index_key, value_key, dtype, size, already_sorted)


def _key_name(prefix: str, key: str) -> str:
    return prefix + re.sub("[^A-Za-z0-9_.\\-/]", "_", key)


class _ParseOpParams:
    """The op's keys, types, shapes and defaults, features taken in sorted key order."""

    def __init__(self, features: dict | None):
        features = features or {}
        self.sparse_keys: list[str] = []
        self.sparse_types: list[dtypes_lib.DType] = []
        self.dense_keys: list[str] = []
        self.dense_types: list[dtypes_lib.DType] = []
        self.dense_shapes: list[shape_lib.TensorShape] = []
        self.dense_defaults: dict[str, Any] = {}
        for key in sorted(features):
            self._add_feature(key, features[key])
        overlap = set(self.dense_keys) & set(self.sparse_keys)
        if overlap:
            raise ValueError(
                f"Dense and sparse keys must not intersect; dense_keys: {self.dense_keys}, "
                f"sparse_keys: {self.sparse_keys}, intersection: {overlap}")

    def _add_sparse_key(self, key: str, dtype: dtypes_lib.DType) -> None:
        if key in self.sparse_keys:
            original = self.sparse_types[self.sparse_keys.index(key)]
            if original != dtype:
                raise ValueError(f"Conflicting type {original} vs {dtype} for feature {key}.")
            return
        self.sparse_keys.append(key)
        self.sparse_types.append(dtype)

    def _add_feature(self, key: str, feature: Any) -> None:
        if isinstance(feature, SparseFeature):
            if not feature.index_key:
                raise ValueError(f"Missing index_key for SparseFeature {feature}.")
            if not feature.value_key:
                raise ValueError(f"Missing value_key for SparseFeature {feature}.")
            if not feature.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature="
                                 f"{feature}.")
            index_keys = feature.index_key
            if isinstance(index_keys, str):
                index_keys = [index_keys]
            elif len(index_keys) > 1:
                logging.warning("SparseFeature is a complicated feature config and should "
                                "only be used after careful consideration of VarLenFeature.")
            for index_key in sorted(index_keys):
                self._add_sparse_key(index_key, dtypes_lib.int64)
            self._add_sparse_key(feature.value_key, dtypes_lib.as_dtype(feature.dtype))
            return
        if isinstance(feature, VarLenFeature):
            if not feature.dtype:
                raise ValueError(f"Missing type for feature {key}. Received feature={feature}")
            self._add_sparse_key(key, dtypes_lib.as_dtype(feature.dtype))
            return
        if not isinstance(feature, (FixedLenFeature, FixedLenSequenceFeature)):
            raise ValueError(f"Invalid feature {key}:{feature}.")
        self._add_dense(key, feature)

    def _add_dense(self, key: str, feature: Any) -> None:
        if not feature.dtype:
            raise ValueError(f"Missing type for feature {key}. Received feature={feature}.")
        if feature.shape is None:
            raise ValueError(f"Missing shape for feature {key}. Received feature={feature}.")
        shape = shape_lib.as_shape(feature.shape)
        if isinstance(feature, FixedLenFeature):
            if feature.shape and shape.ndims and shape.dims[0].value is None:
                raise ValueError(f"First dimension of shape for feature {key} unknown. "
                                 "Consider using FixedLenSequenceFeature. Received "
                                 f"feature={feature}.")
            if not shape.is_fully_defined():
                raise ValueError(f"All dimensions of shape for feature {key} need to be "
                                 f"known but received {feature.shape!s}.")
        self.dense_keys.append(key)
        self.dense_shapes.append(shape)
        self.dense_types.append(dtypes_lib.as_dtype(feature.dtype))
        if feature.default_value is not None:
            self.dense_defaults[key] = feature.default_value

    def dense_defaults_vec(self) -> list[ops_lib.Tensor]:
        """One default per dense key: its value reshaped to the feature's shape, a scalar
        padding value for a sequence feature, or an empty tensor for a required one."""
        out = []
        for key, shape, dtype in zip(self.dense_keys, self.dense_shapes, self.dense_types):
            default = self.dense_defaults.get(key)
            if shape.ndims is not None and shape.ndims > 0 and shape.dims[0].value is None:
                if default is None:
                    default = convert_to_tensor("" if dtype == dtypes_lib.string else 0,
                                                dtype=dtype)
                else:
                    default = array_ops.reshape(convert_to_tensor(
                        default, dtype=dtype, name=_key_name("padding_", key)), [])
            elif default is None:
                default = array_ops.constant([], dtype=dtype)
            elif not isinstance(default, ops_lib.Tensor):
                default = array_ops.reshape(convert_to_tensor(
                    default, dtype=dtype, name=_key_name("key_", key)), shape)
            out.append(default)
        return out


def _prepend_none_dimension(features: dict) -> dict:
    """``features`` with each FixedLenSequenceFeature's shape led by a None (the
    sequence length)."""
    out = dict(features)
    for key, feature in features.items():
        if isinstance(feature, FixedLenSequenceFeature):
            if not feature.allow_missing:
                raise ValueError("Unsupported: FixedLenSequenceFeature requires "
                                 "allow_missing to be True.")
            out[key] = FixedLenSequenceFeature([None] + list(feature.shape), feature.dtype,
                                               feature.allow_missing, feature.default_value)
    return out


def parse_example(serialized: Any, features: dict, name: str | None = None,
                  example_names: Any = None) -> dict:
    """The ``features`` of a batch of serialized Example protos: a dict of dense Tensors
    (FixedLenFeature, FixedLenSequenceFeature) and SparseTensors (VarLenFeature)."""
    if not features:
        raise ValueError(f"Argument `features` cannot be None or falsy. Got {features}")
    params = _ParseOpParams(_prepend_none_dimension(features))
    with ops_lib.name_scope(name, "ParseExample", [serialized, example_names]):
        names = [] if example_names is None else example_names
        serialized = convert_to_tensor(serialized, name="serialized")
        op = apply_op(
            "ParseExampleV2", name=name, serialized=serialized, names=names,
            sparse_keys=params.sparse_keys, dense_keys=params.dense_keys, ragged_keys=[],
            dense_defaults=params.dense_defaults_vec(), num_sparse=len(params.sparse_keys),
            sparse_types=params.sparse_types, ragged_value_types=[], ragged_split_types=[],
            dense_shapes=params.dense_shapes)
    n = len(params.sparse_keys)
    outs = op.outputs
    sparse = [SparseTensor(outs[i], outs[n + i], outs[2 * n + i]) for i in range(n)]
    return _construct_sparse_features(
        features, dict(zip(params.sparse_keys + params.dense_keys, sparse + outs[3 * n:])))


def _construct_sparse_features(features: dict, tensor_dict: dict) -> dict:
    """Each SparseFeature assembled from its parsed index and value SparseTensors (TF's
    sparse_merge); only the keys of ``features`` are returned."""
    tensor_dict = dict(tensor_dict)
    updates = {}
    for key in sorted(features):
        feature = features[key]
        if isinstance(feature, SparseFeature):
            if isinstance(feature.index_key, str):
                sp_ids = tensor_dict[feature.index_key]
            else:
                sp_ids = [tensor_dict[index_key] for index_key in feature.index_key]
            updates[key] = sparse_ops.sparse_merge(sp_ids, tensor_dict[feature.value_key],
                                                   vocab_size=feature.size,
                                                   already_sorted=feature.already_sorted)
    tensor_dict.update(updates)
    return {k: v for k, v in tensor_dict.items() if k in features}


def _assert_scalar(value: ops_lib.Tensor, name: str) -> ops_lib.Tensor:
    """``value``, checked to be a scalar (at run time when its rank is unknown)."""
    rank = value.shape.ndims
    if rank == 0:
        return value
    if rank is not None:
        raise ValueError(f"Input {name} must be a scalar")
    check = control_flow_ops.Assert(
        math_ops.equal(array_ops.rank(value), 0), [f"Input {name} must be a scalar"],
        name=f"{name.capitalize()}IsScalar")
    result = control_flow_ops.with_dependencies([check], value, name=f"{name}Dependencies")
    result.set_shape([])
    return result


def parse_single_example(serialized: Any, features: dict, name: str | None = None,
                         example_names: Any = None) -> dict:
    """``parse_example`` of one serialized Example (a scalar): no batch dimension."""
    if features is None:
        raise ValueError("Invalid argument: features cannot be None.")
    if not features:
        raise ValueError("Invalid argument: features cannot be empty.")
    with ops_lib.name_scope(name, "ParseSingleExample", [serialized, example_names]):
        serialized = convert_to_tensor(serialized, name="serialized")
        serialized = _assert_scalar(serialized, "serialized")
        return parse_example(serialized, features, name, example_names)


def decode_raw(input_bytes: Any = None, out_type: Any = None, little_endian: bool = True,
               name: str | None = None, bytes: Any = None) -> ops_lib.Tensor:  # noqa: A002
    """The bytes of each string of ``input_bytes`` as a vector of ``out_type`` (a new last
    dimension); ``bytes`` is the deprecated name of ``input_bytes``."""
    input_bytes = deprecated_argument_lookup("input_bytes", input_bytes, "bytes", bytes)
    if out_type is None:
        raise ValueError("decode_raw_v1() missing 1 positional argument: 'out_type'")
    return apply_op("DecodeRaw", name=name, bytes=input_bytes, out_type=out_type,
                    little_endian=little_endian).outputs[0]


def decode_csv(records: Any, record_defaults: list, field_delim: str = ",",
               use_quote_delim: bool = True, name: str | None = None, na_value: str = "",
               select_cols: list | None = None) -> list[ops_lib.Tensor]:
    """The columns of the CSV lines ``records``, one Tensor per ``record_defaults``
    entry (a scalar default, or an empty vector for a required column)."""
    if select_cols is not None and any(select_cols[i] >= select_cols[i + 1]
                                       for i in range(len(select_cols) - 1)):
        raise ValueError("select_cols is not strictly increasing.")
    if select_cols is not None and select_cols[0] < 0:
        raise ValueError("select_cols contains negative values.")
    if select_cols is not None and len(select_cols) != len(record_defaults):
        raise ValueError("Length of select_cols and record_defaults do not match.")
    return apply_op("DecodeCSV", name=name, records=records,
                    record_defaults=list(record_defaults), field_delim=field_delim,
                    use_quote_delim=use_quote_delim, na_value=na_value,
                    select_cols=list(select_cols or [])).outputs


def decode_compressed(bytes: Any, compression_type: str = "",  # noqa: A002 - TF's name
                      name: str | None = None) -> ops_lib.Tensor:
    """Each string of ``bytes`` inflated per ``compression_type`` ("", "ZLIB", "GZIP")."""
    return apply_op("DecodeCompressed", name=name, bytes=bytes,
                    compression_type=compression_type).outputs[0]


def decode_json_example(json_examples: Any, name: str | None = None) -> ops_lib.Tensor:
    """Each JSON-encoded Example (protobuf's JSON mapping) as a binary-serialized Example
    (DecodeJSONExample)."""
    return apply_op("DecodeJSONExample", name=name, json_examples=json_examples).outputs[0]


def serialize_tensor(tensor: Any, name: str | None = None) -> ops_lib.Tensor:
    """``tensor`` as a serialized TensorProto (a string scalar)."""
    return apply_op("SerializeTensor", name=name, tensor=tensor).outputs[0]


def parse_tensor(serialized: Any, out_type: Any, name: str | None = None) -> ops_lib.Tensor:
    """The tensor of ``out_type`` in the serialized TensorProto ``serialized``."""
    return apply_op("ParseTensor", name=name, serialized=serialized,
                    out_type=out_type).outputs[0]
