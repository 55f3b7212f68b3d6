"""Lookup tables (TF1's ``tf.lookup``): the table ops (HashTableV2, MutableHashTableV2,
LookupTableFindV2, LookupTableImportV2 ...) and the classes over them — StaticHashTable,
StaticVocabularyTable, MutableHashTable, the key/value and text-file initializers, and
``tables_initializer``. The tables themselves live in the task's resource store
(:mod:`graphcore.kernels.lookup_kernels`)."""

from __future__ import annotations

import uuid
from typing import Any

from graphcore.framework import common_shapes, op_registry
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.gradient_registry import NotDifferentiable
from graphcore.framework.graph_keys import GraphKeys
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.saveable_object import SaveableObject, SaveSpec
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import control_flow_ops, math_ops, string_ops

__all__ = ["initialize_all_tables", "tables_initializer"]

_TABLE_ATTRS = ("container: string = ''", "shared_name: string = ''",
                "use_node_name_sharing: bool = false", "key_dtype: type", "value_dtype: type")


def _register_table(op_type: str, *extra: str) -> None:
    builder = op_registry.register_op(op_type).output("table_handle: resource")
    for spec in _TABLE_ATTRS + extra:
        builder = builder.attr(spec)
    builder.stateful().shape_fn(common_shapes.scalar_shape)


def _find_shape(op: ops_lib.Operation) -> list:
    keys, default = op.inputs[1].shape, op.inputs[2].shape
    handle_op = op.inputs[0].op
    key_rank = 0
    if handle_op.type == "MutableDenseHashTableV2":
        key_rank = handle_op.inputs[0].shape.ndims
    if default.ndims == 0 and key_rank is not None and keys.ndims is not None:
        return [keys[:keys.ndims - key_rank]]
    return [shape_lib.unknown_shape()]


def _export_shape(op: ops_lib.Operation) -> list:
    return [shape_lib.TensorShape([None]), shape_lib.unknown_shape()]


_reg = op_registry.register_op
_register_table("HashTableV2")
_register_table("MutableHashTableV2")
_register_table("MutableHashTableOfTensorsV2", "value_shape: shape = []")
_reg("MutableDenseHashTableV2").input("empty_key: key_dtype") \
    .input("deleted_key: key_dtype").output("table_handle: resource") \
    .attr("container: string = ''").attr("shared_name: string = ''") \
    .attr("use_node_name_sharing: bool = false").attr("key_dtype: type") \
    .attr("value_dtype: type").attr("value_shape: shape = []") \
    .attr("initial_num_buckets: int = 131072").attr("max_load_factor: float = 0.8") \
    .stateful().shape_fn(common_shapes.scalar_shape)
_reg("LookupTableFindV2").input("table_handle: resource").input("keys: Tin") \
    .input("default_value: Tout").output("values: Tout").attr("Tin: type") \
    .attr("Tout: type").stateful().shape_fn(_find_shape)
for _op_type in ("LookupTableImportV2", "LookupTableInsertV2", "InitializeTableV2"):
    _k, _v = ("Tkey", "Tval") if _op_type == "InitializeTableV2" else ("Tin", "Tout")
    _reg(_op_type).input("table_handle: resource").input(f"keys: {_k}") \
        .input(f"values: {_v}").attr(f"{_k}: type").attr(f"{_v}: type").stateful() \
        .shape_fn(common_shapes.no_outputs)
_reg("LookupTableRemoveV2").input("table_handle: resource").input("keys: Tin") \
    .attr("Tin: type").stateful().shape_fn(common_shapes.no_outputs)
_reg("LookupTableExportV2").input("table_handle: resource").output("keys: Tkeys") \
    .output("values: Tvalues").attr("Tkeys: type").attr("Tvalues: type").stateful() \
    .shape_fn(_export_shape)
_reg("LookupTableSizeV2").input("table_handle: resource").output("size: int64").stateful() \
    .shape_fn(common_shapes.scalar_shape)
_reg("InitializeTableFromTextFileV2").input("table_handle: resource") \
    .input("filename: string").attr("key_index: int >= -2") \
    .attr("value_index: int >= -2").attr("vocab_size: int >= -1 = -1") \
    .attr("delimiter: string = '\t'").attr("offset: int = 0").stateful() \
    .shape_fn(common_shapes.no_outputs)
for _op_type in ("HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2",
                 "MutableDenseHashTableV2",
                 "LookupTableFindV2", "LookupTableImportV2", "LookupTableInsertV2",
                 "InitializeTableV2", "LookupTableRemoveV2", "LookupTableExportV2",
                 "LookupTableSizeV2", "InitializeTableFromTextFileV2"):
    NotDifferentiable(_op_type)


def tables_initializer(name: str = "init_all_tables") -> ops_lib.Operation:
    """One op running every table initializer of the default graph (a NoOp if none)."""
    initializers = ops_lib.get_collection(GraphKeys.TABLE_INITIALIZERS)
    if initializers:
        return control_flow_ops.group(*initializers, name=name)
    return control_flow_ops.no_op(name=name)


def initialize_all_tables(name: str = "init_all_tables") -> ops_lib.Operation:
    """Deprecated name of :func:`tables_initializer`."""
    return tables_initializer(name)


def check_table_dtypes(table: Any, key_dtype: Any, value_dtype: Any) -> None:
    key_dtype, value_dtype = dtypes_lib.as_dtype(key_dtype), dtypes_lib.as_dtype(value_dtype)
    if key_dtype.base_dtype != table.key_dtype:
        raise TypeError(f"Invalid key dtype for table, expected {table.key_dtype} but got "
                        f"{key_dtype}.")
    if value_dtype.base_dtype != table.value_dtype:
        raise TypeError(f"Invalid value dtype for table, expected {table.value_dtype} but "
                        f"got {value_dtype}.")


def _outside_control_flow():
    """TF's init_scope in graph mode: tables and their initializers are made outside any
    control-flow context and control dependencies."""
    graph = ops_lib.get_default_graph()

    class _Scope:
        def __enter__(self):
            self._saved = graph._get_control_flow_context()
            graph._set_control_flow_context(None)
            self._deps = graph.control_dependencies(None)
            self._deps.__enter__()

        def __exit__(self, *exc):
            self._deps.__exit__(*exc)
            graph._set_control_flow_context(self._saved)

    return _Scope()


def _split_keys(keys: Any) -> tuple:
    """(the keys' values tensor, a function putting looked-up values back in their shape):
    a SparseTensor's values keep its indices and dense shape."""
    from graphcore.framework.sparse_tensor import SparseTensor

    if isinstance(keys, SparseTensor):
        return keys.values, lambda v: SparseTensor(keys.indices, v, keys.dense_shape)
    return keys, lambda v: v


class _KeyValueTypes:
    """The key and value dtypes of a table or a table initializer."""

    def __init__(self, key_dtype: Any, value_dtype: Any):
        self._key_dtype = dtypes_lib.as_dtype(key_dtype)
        self._value_dtype = dtypes_lib.as_dtype(value_dtype)

    @property
    def key_dtype(self) -> dtypes_lib.DType:
        return self._key_dtype

    @property
    def value_dtype(self) -> dtypes_lib.DType:
        return self._value_dtype


class TableInitializerBase(_KeyValueTypes):
    """Base of the table initializers: the key and value dtypes and ``initialize``."""

    def initialize(self, table: Any) -> ops_lib.Operation:
        raise NotImplementedError

    def _trackable_children(self) -> dict:
        """No checkpoint dependencies (a static table's ``_initializer`` holds no value)."""
        return {}

    @property
    def _shared_name(self) -> str:
        return ""


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a ``keys`` and a ``values`` tensor (LookupTableImportV2)."""

    def __init__(self, keys: Any, values: Any, key_dtype: Any = None, value_dtype: Any = None,
                 name: str | None = None):
        with _outside_control_flow():
            self._keys = convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name if name is not None else "key_value_init"
        super().__init__(self._keys.dtype, self._values.dtype)

    def initialize(self, table: Any) -> ops_lib.Operation:
        check_table_dtypes(table, self._keys.dtype, self._values.dtype)
        with ops_lib.name_scope(self._name, values=(table.resource_handle, self._keys,
                                                    self._values)):
            init_op = apply_op("LookupTableImportV2", table_handle=table.resource_handle,
                               keys=self._keys, values=self._values)
        ops_lib.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        return init_op


class TextFileIndex:
    """Which part of a vocabulary file's line a key or value is: a column number, or
    these."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class _FileAsset:
    """A text file a table initializer reads: a checkpoint dependency that saves nothing
    (TF's ``Asset`` in the object graph)."""

    def __init__(self, path: ops_lib.Tensor):
        self.asset_path = path

    def _trackable_children(self) -> dict:
        return {}


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file, one entry per line (InitializeTableFromTextFileV2):
    key and value are columns split at ``delimiter``, the whole line or the line number."""

    def __init__(self, filename: Any, key_dtype: Any, key_index: int, value_dtype: Any,
                 value_index: int, vocab_size: int | None = None, delimiter: str = "\t",
                 name: str | None = None, value_index_offset: int = 0):
        if not isinstance(filename, ops_lib.Tensor) and not filename:
            raise ValueError("`filename` argument required for tf.lookup.TextFileInitializer")
        key_dtype, value_dtype = dtypes_lib.as_dtype(key_dtype), dtypes_lib.as_dtype(value_dtype)
        for what, index, dtype in (("key", key_index, key_dtype),
                                   ("value", value_index, value_dtype)):
            if index < -2:
                raise ValueError(f"`{what}_index` should be >= -2, received: {index}.")
            if index == TextFileIndex.LINE_NUMBER and dtype != dtypes_lib.int64:
                raise ValueError(f"`{what}_dtype` must be int64 "
                                 f"{'if `key_index` is' if what == 'key' else 'for `value_index`'}"
                                 f" {TextFileIndex.LINE_NUMBER}, received: {dtype}")
            if (index == TextFileIndex.WHOLE_LINE and not dtype.is_integer
                    and dtype != dtypes_lib.string):
                raise ValueError(f"`{what}_dtype` should be either integer or string for "
                                 f"`{what}_index` {TextFileIndex.WHOLE_LINE}, received: "
                                 f"{dtype}")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"`vocab_size` should be > 0, received: {vocab_size}")
        self._filename_arg = filename
        # TF tracks the file as an Asset, whose path is a Const made here.
        self._filename = (filename if isinstance(filename, ops_lib.Tensor) else
                          convert_to_tensor(filename, dtypes_lib.string, name="asset_path"))
        self._key_index, self._value_index = key_index, value_index
        self._vocab_size, self._delimiter = vocab_size, delimiter
        self._name, self._offset = name, value_index_offset
        self._asset = _FileAsset(self._filename)
        super().__init__(key_dtype, value_dtype)

    def _trackable_children(self) -> dict:
        """Checkpoint dependencies: the file, as TF's Asset ``_filename`` (no value)."""
        return {"_filename": self._asset}

    def initialize(self, table: Any) -> ops_lib.Operation:
        check_table_dtypes(table, self.key_dtype, self.value_dtype)
        with ops_lib.name_scope(self._name, "text_file_init", (table.resource_handle,)):
            filename = convert_to_tensor(self._filename, dtypes_lib.string,
                                         name="asset_filepath")
            init_op = apply_op("InitializeTableFromTextFileV2",
                               table_handle=table.resource_handle, filename=filename,
                               key_index=self._key_index, value_index=self._value_index,
                               vocab_size=-1 if self._vocab_size is None else self._vocab_size,
                               delimiter=self._delimiter, offset=self._offset)
        ops_lib.add_to_collection(GraphKeys.TABLE_INITIALIZERS, init_op)
        if filename.op.type == "Const":
            ops_lib.add_to_collection(GraphKeys.ASSET_FILEPATHS, filename)
        return init_op

    @property
    def _shared_name(self) -> str:
        parts = [self._filename_arg]
        if self._vocab_size:
            parts.append(f"{self._vocab_size:d}")
        parts += [self._key_index, self._value_index]
        if self._offset:
            parts.append(self._offset)
        return "hash_table_" + "_".join(str(p) for p in parts)


class LookupInterface(_KeyValueTypes):
    """What every table has: key and value dtypes, a name, ``size`` and ``lookup``."""

    @property
    def name(self) -> str | None:
        return self._table_name

    @property
    def resource_handle(self) -> ops_lib.Tensor:
        return self._resource_handle

    def __getitem__(self, keys: Any) -> Any:
        return self.lookup(keys)

    def _check_keys(self, keys: Any) -> None:
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Dtype of argument `keys` must be {self._key_dtype}, received: "
                            f"{keys.dtype}")


class StaticHashTable(LookupInterface):
    """A hash table filled once by its initializer (run ``tables_initializer`` first);
    keys not in it look up ``default_value``."""

    def __init__(self, initializer: TableInitializerBase, default_value: Any,
                 name: str | None = None, experimental_is_anonymous: bool = False):
        if experimental_is_anonymous:
            raise ValueError("experimental_is_anonymous tables are not supported in graph "
                             "mode by graphcore")
        super().__init__(initializer.key_dtype, initializer.value_dtype)
        self._initializer = initializer
        # TF1's HashTable (contrib.lookup) may name the shared table itself.
        self._shared_name = (getattr(self, "_requested_shared_name", None)
                             or initializer._shared_name or f"hash_table_{uuid.uuid4()}")
        self._name = name or "hash_table"
        self._default_value = convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.shape.merge_with(shape_lib.TensorShape([]))
        with _outside_control_flow():
            self._resource_handle = apply_op(
                "HashTableV2", name=self._name, shared_name=self._shared_name,
                key_dtype=initializer.key_dtype,
                value_dtype=initializer.value_dtype).outputs[0]
        self._table_name = self._resource_handle.op.name.split("/")[-1]
        if ops_lib.get_default_graph()._get_control_flow_context() is not None:
            with _outside_control_flow():
                self._init_op = initializer.initialize(self)
        else:
            self._init_op = initializer.initialize(self)
        self._value_shape = self._default_value.shape

    def _trackable_children(self) -> dict:
        """Checkpoint dependencies: the initializer, which saves nothing (TF's)."""
        return {"_initializer": self._initializer}

    @property
    def initializer(self) -> ops_lib.Operation:
        return self._init_op

    @property
    def default_value(self) -> ops_lib.Tensor:
        return self._default_value

    def size(self, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            return apply_op("LookupTableSizeV2", table_handle=self.resource_handle).outputs[0]

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The values of ``keys`` (a Tensor or SparseTensor), ``default_value`` for those
        missing."""
        key_tensor, rebuild = _split_keys(keys)
        self._check_keys(keys)
        with ops_lib.name_scope(name, f"{self.name}_Lookup",
                                (self.resource_handle, key_tensor, self._default_value)):
            values = apply_op("LookupTableFindV2", table_handle=self.resource_handle,
                              keys=key_tensor, default_value=self._default_value).outputs[0]
        values.set_shape(key_tensor.shape)
        return rebuild(values)

    def export(self, name: str | None = None) -> tuple:
        """(keys, values) of every entry."""
        with ops_lib.name_scope(name, f"{self.name}_Export", [self.resource_handle]):
            keys, values = apply_op("LookupTableExportV2", table_handle=self.resource_handle,
                                    Tkeys=self._key_dtype,
                                    Tvalues=self._value_dtype).outputs
        values.set_shape(keys.shape.concatenate(self._value_shape))
        return keys, values


class StaticVocabularyTable(LookupInterface):
    """Ids of a vocabulary: keys in the initializer's table get its int64 values, others
    one of ``num_oov_buckets`` ids after them, by their string's Fingerprint64."""

    def __init__(self, initializer: TableInitializerBase | None, num_oov_buckets: int,
                 lookup_key_dtype: Any = None, name: str | None = None,
                 experimental_is_anonymous: bool = False):
        if num_oov_buckets <= 0:
            raise ValueError("`num_oov_buckets` must be > 0; use StaticHashTable.")
        if name:
            name = name.rstrip("/")
        if initializer:
            lookup_key_dtype = dtypes_lib.as_dtype(lookup_key_dtype or initializer.key_dtype)
            supported = (dtypes_lib.int64, dtypes_lib.string)
            if initializer.key_dtype not in supported:
                raise TypeError(f"Invalid `key_dtype`, expected one of {supported}, but got "
                                f"{initializer.key_dtype}.")
            if initializer.key_dtype.is_integer != lookup_key_dtype.is_integer:
                raise TypeError(f"Invalid `key_dtype`, expected "
                                f"{'integer' if lookup_key_dtype.is_integer else 'non-integer'}"
                                f" but got {initializer.key_dtype}.")
            if initializer.value_dtype != dtypes_lib.int64:
                raise TypeError(f"Invalid `value_dtype`, expected {dtypes_lib.int64} but got "
                                f"{initializer.value_dtype}.")
            self._table = StaticHashTable(initializer, default_value=-1,
                                          experimental_is_anonymous=experimental_is_anonymous)
            name = name or self._table.name
        else:
            lookup_key_dtype = dtypes_lib.string
            self._table = None
            name = name or "hash_bucket"
        if not lookup_key_dtype.is_integer and lookup_key_dtype != dtypes_lib.string:
            raise TypeError(f"Invalid `key_dtype`, expected integer or string, got "
                            f"{lookup_key_dtype}")
        self._num_oov_buckets = num_oov_buckets
        self._table_name = name.split("/")[-1]
        super().__init__(lookup_key_dtype, dtypes_lib.int64)

    @property
    def resource_handle(self) -> ops_lib.Tensor | None:
        return self._table.resource_handle if self._table is not None else None

    @property
    def initializer(self) -> ops_lib.Operation:
        if self._table is not None:
            return self._table.initializer
        with ops_lib.name_scope(None, "init"):
            return control_flow_ops.no_op()

    def size(self, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, f"{self.name}_Size"):
            if self._table is not None:
                tsize = self._table.size()
            else:
                tsize = convert_to_tensor(0, dtype=dtypes_lib.int64)
            return tsize + self._num_oov_buckets

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        self._check_keys(keys)
        values, rebuild = _split_keys(keys)
        if self._table is not None and self._table.key_dtype.base_dtype == dtypes_lib.int64:
            values = math_ops.cast(values, dtypes_lib.int64)
        with ops_lib.name_scope(name, f"{self.name}_Lookup"):
            as_string = (string_ops.as_string(values) if values.dtype.is_integer
                         else values)
            buckets = string_ops.string_to_hash_bucket_fast(
                as_string, num_buckets=self._num_oov_buckets, name="hash_bucket")
            if self._table is not None:
                ids = self._table.lookup(values)
                buckets = math_ops.add(buckets, self._table.size())
                is_id_non_default = math_ops.not_equal(ids, self._table.default_value)
                ids = math_ops.where_v2(is_id_non_default, ids, buckets)
            else:
                ids = buckets
        return rebuild(ids)


class _TableSaveable(SaveableObject):
    """A mutable table in checkpoints: its exported keys and values under
    ``<name>-keys`` / ``<name>-values``, restored by LookupTableImportV2."""

    def __init__(self, table: Any, name: str, table_name: str | None = None):
        keys, values = table.export()
        super().__init__(table, [SaveSpec(keys, "", name + "-keys"),
                                 SaveSpec(values, "", name + "-values")], name)
        self.table_name = table_name or name

    def restore(self, restored_tensors: list, restored_shapes: Any) -> ops_lib.Operation:
        del restored_shapes
        with ops_lib.name_scope(f"{self.table_name}_table_restore"):
            with ops_lib.colocate_with(self.op.resource_handle):
                return apply_op("LookupTableImportV2", table_handle=self.op.resource_handle,
                                keys=restored_tensors[0], values=restored_tensors[1])


class MutableHashTable(LookupInterface):
    """A table that ``insert``/``remove`` change at run time (MutableHashTableV2, or
    MutableHashTableOfTensorsV2 for vector values); with ``checkpoint`` the Saver saves
    and restores its entries."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any,
                 name: str = "MutableHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False):
        if experimental_is_anonymous:
            raise ValueError("experimental_is_anonymous tables are not supported in graph "
                             "mode by graphcore")
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.shape
        self._checkpoint = checkpoint
        self._name = name
        super().__init__(key_dtype, value_dtype)
        attrs = {"shared_name": "", "use_node_name_sharing": checkpoint,
                 "key_dtype": self._key_dtype, "value_dtype": self._value_dtype}
        if self._value_shape.ndims == 0:
            op = apply_op("MutableHashTableV2", name=name, **attrs)
        else:
            op = apply_op("MutableHashTableOfTensorsV2", name=name,
                          value_shape=self._value_shape, **attrs)
        self._resource_handle = op.outputs[0]
        self._table_name = op.name.split("/")[-1]
        if checkpoint:
            ops_lib.add_to_collection(GraphKeys.SAVEABLE_OBJECTS,
                                      _TableSaveable(self, name, self._table_name))

    # tf.train.Checkpoint saves the entries as the attribute "table" (its -keys and
    # -values), whatever ``checkpoint`` says, as TF's.
    _checkpoint_attribute = "table"

    def _trackable_children(self) -> dict:
        return {}

    def _checkpoint_saveable(self, key: str) -> SaveableObject:
        cache = self.__dict__.setdefault("_checkpoint_saveables", {})
        if key not in cache:
            cache[key] = _TableSaveable(self, key, self._table_name)
        return cache[key]

    @property
    def default_value(self) -> ops_lib.Tensor:
        return self._default_value

    def size(self, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, f"{self.name}_Size", [self.resource_handle]):
            with ops_lib.colocate_with(self.resource_handle):
                return apply_op("LookupTableSizeV2",
                                table_handle=self.resource_handle).outputs[0]

    def _keys(self, keys: Any) -> ops_lib.Tensor:
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        self._check_keys(keys)
        return keys

    def remove(self, keys: Any, name: str | None = None) -> ops_lib.Operation:
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_remove",
                                (self.resource_handle, keys, self._default_value)):
            return apply_op("LookupTableRemoveV2", table_handle=self.resource_handle,
                            keys=self._keys(keys))

    def lookup(self, keys: Any, dynamic_default_values: Any = None,
               name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_find",
                                (self.resource_handle, keys, self._default_value)):
            keys = self._keys(keys)
            default = (self._default_value if dynamic_default_values is None
                       else convert_to_tensor(dynamic_default_values, dtype=self._value_dtype))
            with ops_lib.colocate_with(self.resource_handle):
                return apply_op("LookupTableFindV2", table_handle=self.resource_handle,
                                keys=keys, default_value=default).outputs[0]

    def insert(self, keys: Any, values: Any, name: str | None = None) -> ops_lib.Operation:
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_insert",
                                [self.resource_handle, keys, values]):
            keys = self._keys(keys)
            values = convert_to_tensor(values, self._value_dtype, name="values")
            with ops_lib.colocate_with(self.resource_handle):
                return apply_op("LookupTableInsertV2", table_handle=self.resource_handle,
                                keys=keys, values=values)

    def export(self, name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_export_values",
                                [self.resource_handle]):
            with ops_lib.colocate_with(self.resource_handle):
                keys, values = apply_op("LookupTableExportV2",
                                        table_handle=self.resource_handle,
                                        Tkeys=self._key_dtype,
                                        Tvalues=self._value_dtype).outputs
        return keys, values


class DenseHashTable(MutableHashTable):
    """A mutable table over TF's open-addressing MutableDenseHashTableV2: ``empty_key``
    and ``deleted_key`` are reserved (never keys); ``export`` returns every bucket."""

    def __init__(self, key_dtype: Any, value_dtype: Any, default_value: Any, empty_key: Any,
                 deleted_key: Any, initial_num_buckets: int | None = None,
                 name: str = "MutableDenseHashTable", checkpoint: bool = True,
                 experimental_is_anonymous: bool = False):
        if experimental_is_anonymous:
            raise ValueError("experimental_is_anonymous tables are not supported in graph "
                             "mode by graphcore")
        self._default_value = convert_to_tensor(default_value, dtype=value_dtype,
                                                name="default_value")
        self._value_shape = self._default_value.shape
        self._checkpoint, self._name = checkpoint, name
        self._empty_key, self._deleted_key = empty_key, deleted_key
        self._initial_num_buckets = initial_num_buckets
        LookupInterface.__init__(self, key_dtype, value_dtype)
        empty = convert_to_tensor(empty_key, dtype=self._key_dtype, name="empty_key")
        deleted = convert_to_tensor(deleted_key, dtype=self._key_dtype, name="deleted_key")
        attrs = {"shared_name": "", "use_node_name_sharing": checkpoint,
                 "value_dtype": self._value_dtype, "value_shape": self._value_shape}
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = initial_num_buckets
        op = apply_op("MutableDenseHashTableV2", name=name, empty_key=empty,
                      deleted_key=deleted, **attrs)
        self._resource_handle = op.outputs[0]
        self._table_name = op.name.split("/")[-1]
        if checkpoint:
            ops_lib.add_to_collection(GraphKeys.SAVEABLE_OBJECTS,
                                      _TableSaveable(self, name, self._table_name))

    def lookup(self, keys: Any, name: str | None = None) -> ops_lib.Tensor:
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_find",
                                [self.resource_handle, keys]):
            keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            with ops_lib.colocate_with(self.resource_handle):
                return apply_op("LookupTableFindV2", table_handle=self.resource_handle,
                                keys=keys, default_value=self._default_value).outputs[0]

    def insert_or_assign(self, keys: Any, values: Any,
                         name: str | None = None) -> ops_lib.Operation:
        return MutableHashTable.insert(self, keys, values, name=name)

    def insert(self, keys: Any, values: Any, name: str | None = None) -> ops_lib.Operation:
        return self.insert_or_assign(keys, values, name=name)

    def erase(self, keys: Any, name: str | None = None) -> ops_lib.Operation:
        keys = convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
        if keys.dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{keys.dtype}.")
        with ops_lib.name_scope(name, f"{self.name}_lookup_table_remove",
                                (self.resource_handle, keys, self._default_value)):
            return apply_op("LookupTableRemoveV2", table_handle=self.resource_handle,
                            keys=keys)

    def remove(self, keys: Any, name: str | None = None) -> ops_lib.Operation:
        return self.erase(keys, name=name)
