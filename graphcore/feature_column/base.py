"""What every feature column shares (TF's v1 ``_FeatureColumn`` protocol): the column base
classes, the ``_LazyBuilder`` that turns a features dict into (cached) transformed
tensors, and the checks and conversions the columns have in common."""

from __future__ import annotations

import abc
import collections
import collections.abc
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.sparse_tensor import SparseTensor, convert_to_tensor_or_sparse_tensor
from graphcore.ops import array_ops, check_ops, control_flow_ops, math_ops, scatter_ops, sparse_ops


class _FeatureColumn(abc.ABC):
    """A feature column: a ``name``, how it parses (``_parse_example_spec``) and how it
    transforms its inputs (``_transform_feature``, called through a ``_LazyBuilder``)."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """The column's name, also its variable scope's unless ``_var_scope_name``."""

    def __lt__(self, other: Any) -> bool:
        return str(self) < str(other)

    def __gt__(self, other: Any) -> bool:
        return str(self) > str(other)

    @property
    def _var_scope_name(self) -> str:
        return self.name

    @abc.abstractmethod
    def _transform_feature(self, inputs: _LazyBuilder) -> Any:
        """The column's transformed input, built from ``inputs``."""

    @property
    @abc.abstractmethod
    def _parse_example_spec(self) -> dict:
        """{feature key: FixedLenFeature or VarLenFeature} that this column reads."""

    @property
    def parse_example_spec(self) -> dict:
        return self._parse_example_spec


class _DenseColumn(_FeatureColumn):
    """A column that gives a dense float Tensor of ``_variable_shape`` per example."""

    @property
    @abc.abstractmethod
    def _variable_shape(self) -> shape_lib.TensorShape:
        """The shape of one example's dense tensor."""

    @property
    def variable_shape(self) -> shape_lib.TensorShape:
        return self._variable_shape

    @abc.abstractmethod
    def _get_dense_tensor(self, inputs: _LazyBuilder, weight_collections: Any = None,
                          trainable: Any = None) -> ops_lib.Tensor:
        """The [batch, ...] dense tensor of this column."""


IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])


class _CategoricalColumn(_FeatureColumn):
    """A column that gives ids (a SparseTensor of int64 in [0, ``_num_buckets``)) and
    optionally their weights."""

    IdWeightPair = IdWeightPair

    @property
    @abc.abstractmethod
    def _num_buckets(self) -> int:
        """How many distinct ids the column gives."""

    @property
    def num_buckets(self) -> int:
        return self._num_buckets

    @abc.abstractmethod
    def _get_sparse_tensors(self, inputs: _LazyBuilder, weight_collections: Any = None,
                            trainable: Any = None) -> IdWeightPair:
        """The column's ids and weights (None: every weight is 1)."""


TensorSequenceLengthPair = collections.namedtuple("TensorSequenceLengthPair",
                                                  ["dense_tensor", "sequence_length"])


class _SequenceDenseColumn(_FeatureColumn):
    """A column that gives a [batch, time, ...] dense tensor and the sequence lengths."""

    TensorSequenceLengthPair = TensorSequenceLengthPair

    @abc.abstractmethod
    def _get_sequence_dense_tensor(self, inputs: _LazyBuilder,
                                   weight_collections: Any = None,
                                   trainable: Any = None) -> TensorSequenceLengthPair:
        """The dense sequence tensor and the [batch] sequence lengths."""


class _LazyBuilder:
    """The features dict seen through the columns: a string key gives its raw feature (as
    a Tensor or SparseTensor of rank >= 2), a column its transformed feature, each built
    once and cached, so that columns sharing an input (a bucketized column and a cross
    of it) share its ops."""

    def __init__(self, features: dict):
        self._features = features.copy()
        self._feature_tensors: dict = {}

    def get(self, key: Any) -> Any:
        if key in self._feature_tensors:
            return self._feature_tensors[key]
        if key in self._features:
            tensor = self._get_raw_feature_as_tensor(key)
            self._feature_tensors[key] = tensor
            return tensor
        if isinstance(key, str):
            raise ValueError(f"Feature {key} is not in features dictionary.")
        if not isinstance(key, _FeatureColumn):
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: '
                            f"{key}")
        transformed = key._transform_feature(self)
        if transformed is None:
            raise ValueError(f"Column {key.name} is not supported.")
        self._feature_tensors[key] = transformed
        return transformed

    def _get_raw_feature_as_tensor(self, key: str) -> Any:
        """The raw feature as a (Sparse)Tensor, rank 1 expanded to [batch, 1]."""
        tensor = convert_to_tensor_or_sparse_tensor(self._features[key])

        def expand_dims(t: Any) -> Any:
            if isinstance(t, SparseTensor):
                return sparse_ops.sparse_reshape(t, [array_ops.shape(t)[0], 1])
            return array_ops.expand_dims(t, -1)

        rank = tensor.get_shape().ndims
        if rank is not None:
            if rank == 0:
                raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {tensor}")
            return tensor if rank != 1 else expand_dims(tensor)
        message = f"Feature (key: {key}) cannot have rank 0. Given: {tensor}"
        with ops_lib.control_dependencies([check_ops.assert_positive(
                array_ops.rank(tensor), message=message)]):
            return control_flow_ops.cond(math_ops.equal(1, array_ops.rank(tensor)),
                                         lambda: expand_dims(tensor), lambda: tensor)


def to_sparse_input_and_drop_ignore_values(input_tensor: Any,
                                           ignore_value: Any = None) -> SparseTensor:
    """``input_tensor`` as a SparseTensor without the cells equal to ``ignore_value``
    ('' for strings, -1 for integers, 0 for floats by default); a SparseTensor as is."""
    input_tensor = convert_to_tensor_or_sparse_tensor(input_tensor)
    if isinstance(input_tensor, SparseTensor):
        return input_tensor
    with ops_lib.name_scope(None, "to_sparse_input", (input_tensor,)):
        dtype = input_tensor.dtype
        if ignore_value is None:
            if dtype == dtypes_lib.string:
                ignore_value = ""
            elif dtype.is_integer:
                ignore_value = -1  # TF's marker of a missing id
            else:
                ignore_value = dtype.as_numpy_dtype()
        ignore_value = math_ops.cast(ignore_value, dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(input_tensor, ignore_value),
                                  name="indices")
        return SparseTensor(
            indices=indices,
            values=scatter_ops.gather_nd(input_tensor, indices, name="values"),
            dense_shape=array_ops.shape(input_tensor, out_type=dtypes_lib.int64,
                                        name="dense_shape"))


def normalize_feature_columns(feature_columns: Any) -> list:
    """``feature_columns`` as a non-empty list of columns with distinct names."""
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given "
                             f"(type {type(column)}): {column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name: dict = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(
                f"Duplicate feature column name found for columns: {column} and "
                f"{by_name[column.name]}. This usually means that these columns refer to "
                "same base feature. Either one must be discarded or a duplicated but "
                "renamed item must be inserted in features dict.")
        by_name[column.name] = column
    return list(feature_columns)


def verify_static_batch_size_equality(tensors: list, columns: list) -> None:
    """Raises when two of ``tensors`` have known, different batch sizes."""
    expected, first = None, 0
    for i, tensor in enumerate(tensors):
        batch = shape_lib.Dimension(shape_lib.dimension_value(tensor.shape[0]))
        if batch.value is None:
            continue
        if expected is None:
            expected, first = batch, i
        elif not expected.is_compatible_with(batch):
            raise ValueError(
                f"Batch size (first dimension) of each feature must be same. Batch size of "
                f"columns ({columns[first].name}, {columns[i].name}): ({expected}, {batch})")


def check_shape(shape: Any, key: str) -> tuple:
    """``shape`` as a tuple of positive ints."""
    if not isinstance(shape, (list, tuple)):
        shape = [shape]
    shape = tuple(shape)
    for dimension in shape:
        if not isinstance(dimension, int):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if dimension < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return shape


def assert_string_or_int(dtype: dtypes_lib.DType, prefix: str) -> None:
    if dtype != dtypes_lib.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def assert_key_is_string(key: Any) -> None:
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")


def check_default_value(shape: tuple, default_value: Any, dtype: dtypes_lib.DType,
                        key: str) -> Any:
    """``default_value`` as a nested tuple of ``shape``, checked against ``dtype``."""
    if default_value is None:
        return None
    if isinstance(default_value, int) or (isinstance(default_value, float)
                                          and dtype.is_floating):
        return _filled(shape, default_value)
    if callable(getattr(default_value, "tolist", None)):  # numpy arrays
        default_value = default_value.tolist()
    if isinstance(default_value, (list, tuple)):
        if not _fits(default_value, shape):
            raise ValueError(f"The shape of default_value must be equal to given shape. "
                             f"default_value: {default_value}, shape: {shape}, key: {key}")
        flat = _flatten(default_value)
        if all(isinstance(v, int) for v in flat) or (
                any(isinstance(v, float) for v in flat) and dtype.is_floating):
            return _as_tuple(default_value)
    raise TypeError(f"default_value must be compatible with dtype. default_value: "
                    f"{default_value}, dtype: {dtype}, key: {key}")


def _filled(shape: tuple, value: Any) -> Any:
    return tuple(_filled(shape[1:], value) for _ in range(shape[0])) if shape else value


def _as_tuple(value: Any) -> Any:
    return tuple(_as_tuple(v) for v in value) if isinstance(value, (list, tuple)) else value


def _flatten(value: Any) -> list:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _flatten(v)]
    return [value]


def _fits(value: Any, shape: tuple) -> bool:
    if isinstance(value, (list, tuple)) != bool(shape):
        return False
    if not shape:
        return True
    return len(value) == shape[0] and all(_fits(v, shape[1:]) for v in value)
