"""CPU kernels of the lookup-table ops (:mod:`graphcore.ops.lookup_ops`). A table is a
:class:`TableResource` in the task's resource store, keyed by (container, shared_name) as
TF's lookup tables: a dict from keys (Python scalars, bytes for strings) to values
(scalars, or arrays of the table's value shape), behind a lock so concurrent steps see
whole updates."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib.io import file_io


def _shape_text(shape: Any) -> str:
    return "[" + ",".join(str(d) for d in shape) + "]"


class TableResource:
    """One table: its entries, dtypes and value shape; ``initializable`` for the static
    tables that one initializer fills once."""

    def __init__(self, name: str, key_dtype: np.dtype, value_dtype: np.dtype,
                 value_shape: tuple, initializable: bool, key_shape: tuple = ()):
        self.name, self.key_dtype, self.value_dtype = name, key_dtype, value_dtype
        self.value_shape, self.initializable = value_shape, initializable
        self.key_shape = key_shape
        self.entries: dict = {}
        self.initialized = not initializable
        self.lock = threading.Lock()

    def _key_batch_shape(self, keys: Any) -> tuple:
        shape = np.shape(keys)
        n = len(self.key_shape)
        if shape[len(shape) - n:] != self.key_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected key shape {_shape_text(self.key_shape)} in the last "
                            f"dimensions of keys, got {_shape_text(shape)}")
        return shape[:len(shape) - n]

    def _keys(self, keys: Any) -> list:
        arr = np.asarray(keys)
        if self.key_dtype == np.dtype(object):
            flat = [k if isinstance(k, bytes) else str(k).encode() for k in arr.reshape(-1)]
        else:
            flat = arr.astype(self.key_dtype, copy=False).reshape(-1).tolist()
        if not self.key_shape:
            return flat
        width = int(np.prod(self.key_shape))
        return [tuple(flat[i:i + width]) for i in range(0, len(flat), width)]

    def _values(self, keys: Any, values: Any) -> np.ndarray:
        keys_shape = self._key_batch_shape(keys)
        values = np.asarray(values)
        expected = keys_shape + self.value_shape
        if values.shape != expected:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_text(expected)} for value, got "
                            f"{_shape_text(values.shape)}")
        return values.reshape((-1,) + self.value_shape)

    def find(self, keys: Any, default: Any) -> np.ndarray:
        keys_shape = self._key_batch_shape(keys)
        default = np.asarray(default)
        per_key = default.shape == keys_shape + self.value_shape and default.shape != \
            self.value_shape
        if not per_key and default.shape != self.value_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_text(self.value_shape)} or "
                            f"{_shape_text(keys_shape + self.value_shape)} for argument "
                            f"default_value, got {_shape_text(default.shape)}")
        flat_default = default.reshape((-1,) + self.value_shape) if per_key else None
        out = np.empty((int(np.prod(keys_shape, dtype=np.int64)),) + self.value_shape,
                       dtype=self.value_dtype)
        with self.lock:
            if not self.initialized:
                raise errors.FailedPreconditionError(None, None, "Table not initialized.")
            for i, key in enumerate(self._keys(keys)):
                found = self.entries.get(key)
                if found is not None:
                    out[i] = found
                else:
                    out[i] = flat_default[i] if per_key else default
        return out.reshape(keys_shape + self.value_shape)

    def initialize(self, keys: Any, values: Any) -> None:
        """Fills an initializable table: a second run with the same data does nothing."""
        flat_keys, flat_values = self._keys(keys), self._values(keys, values)
        entries: dict = {}
        for key, value in zip(flat_keys, flat_values):
            if key in entries and not np.array_equal(entries[key], value):
                raise errors.FailedPreconditionError(
                    None, None, f"HashTable has different value for same key. Key "
                                f"{_key_text(key)} has {_value_text(entries[key])} and "
                                f"trying to add value {_value_text(value)}")
            entries[key] = _stored(value)
        with self.lock:
            if self.initialized:
                same = len(entries) == len(self.entries) and all(
                    k in self.entries and np.array_equal(self.entries[k], v)
                    for k, v in entries.items())
                if not same:
                    raise errors.FailedPreconditionError(
                        None, None, "Table was already initialized with different data.")
                return
            self.entries = entries
            self.initialized = True

    def insert(self, keys: Any, values: Any) -> None:
        flat_keys, flat_values = self._keys(keys), self._values(keys, values)
        with self.lock:
            for key, value in zip(flat_keys, flat_values):
                self.entries[key] = _stored(value)

    def import_values(self, keys: Any, values: Any) -> None:
        """LookupTableImportV2: fills an initializable table, replaces a mutable one's
        entries."""
        if self.initializable:
            self.initialize(keys, values)
            return
        flat_keys, flat_values = self._keys(keys), self._values(keys, values)
        with self.lock:
            self.entries = {k: _stored(v) for k, v in zip(flat_keys, flat_values)}

    def remove(self, keys: Any) -> None:
        flat_keys = self._keys(keys)
        with self.lock:
            for key in flat_keys:
                self.entries.pop(key, None)

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        with self.lock:
            items = list(self.entries.items())
        keys = np.empty((len(items),) + self.key_shape, dtype=self.key_dtype)
        values = np.empty((len(items),) + self.value_shape, dtype=self.value_dtype)
        for i, (key, value) in enumerate(items):
            keys[i], values[i] = key, value
        return keys, values

    def size(self) -> np.int64:
        with self.lock:
            return np.int64(len(self.entries) if self.initialized else 0)


def _stored(value: Any) -> Any:
    """A value as the table keeps it: a scalar for scalar tables, an own array otherwise."""
    if isinstance(value, np.ndarray):
        return value.item() if value.ndim == 0 else value.copy()
    return value.item() if isinstance(value, np.generic) else value


_MASK64 = 2**64 - 1


def _key_text(key: Any) -> str:
    return key.decode(errors="replace") if isinstance(key, bytes) else str(key)


def _value_text(value: Any) -> str:
    value = np.asarray(value)
    return _key_text(value.item() if value.ndim == 0 else value)


def _table_attrs(ctx: KernelContext) -> tuple:
    """A table op's (container, shared name: its node's name under
    use_node_name_sharing, key dtype, value dtype)."""
    attr = ctx.node_def.attr
    container = attr["container"].s.decode()
    shared = attr["shared_name"].s.decode()
    if not shared and attr["use_node_name_sharing"].b:
        shared = ctx.name
    return (container, shared, np.dtype(ctx.attr("key_dtype").as_numpy_dtype),
            np.dtype(ctx.attr("value_dtype").as_numpy_dtype))


def _table_op(initializable: bool):
    def factory(ctx: KernelContext):
        attr = ctx.node_def.attr
        container, shared, key_dtype, value_dtype = _table_attrs(ctx)
        value_shape = ()
        if "value_shape" in attr:
            value_shape = tuple(d.size for d in attr["value_shape"].shape.dim)
        node = ctx.name

        def create(unique_id: int) -> TableResource:
            return TableResource(shared or f"_{unique_id}_{node}", key_dtype, value_dtype,
                                 value_shape, initializable)

        store = ctx.resources
        # A table without a shared name is private to its kernel (TF: one per node).
        key = shared or f"{node}/_private_table"
        return lambda: (store.resource(container, key, create),)

    return factory


register_kernel("HashTableV2")(_table_op(initializable=True))
register_kernel("MutableHashTableV2")(_table_op(initializable=False))
register_kernel("MutableHashTableOfTensorsV2")(_table_op(initializable=False))


class DenseTableResource(TableResource):
    """A MutableDenseHashTable: a mutable table whose ``empty_key`` and ``deleted_key``
    cannot be keys, exporting all its buckets (empty ones hold ``empty_key``) as TF's
    open-addressing table does; the bucket count doubles past the load factor."""

    def __init__(self, name: str, key_dtype: np.dtype, value_dtype: np.dtype,
                 value_shape: tuple, empty_key: np.ndarray, deleted_key: np.ndarray,
                 num_buckets: int, max_load_factor: float):
        super().__init__(name, key_dtype, value_dtype, value_shape, False,
                         tuple(np.shape(empty_key)))
        self.empty_key, self.deleted_key = np.asarray(empty_key), np.asarray(deleted_key)
        self.num_buckets, self.max_load_factor = num_buckets, max_load_factor
        self._reserved = {self._keys(self.empty_key)[0]: "empty_key",
                          self._keys(self.deleted_key)[0]: "deleted_key"}

    def _check_reserved(self, keys: Any) -> None:
        for key in self._keys(keys):
            if key in self._reserved:
                raise errors.InvalidArgumentError(
                    None, None, f"Using the {self._reserved[key]} as a table key is not "
                                "allowed")

    def insert(self, keys: Any, values: Any) -> None:
        self._check_reserved(keys)
        incoming = len(self._keys(keys))
        with self.lock:  # TF grows before inserting, counting every incoming key
            while len(self.entries) + incoming > self.max_load_factor * self.num_buckets:
                self.num_buckets *= 2
        super().insert(keys, values)

    def remove(self, keys: Any) -> None:
        self._check_reserved(keys)
        super().remove(keys)

    def find(self, keys: Any, default: Any) -> np.ndarray:
        self._check_reserved(keys)
        return super().find(keys, default)

    def _bucket_hash(self, key: Any) -> int:
        """TF's HashKey: the integer itself for one-number keys, Hash64Combine over the
        numbers of a vector key; strings by Python's hash (TF's Hash64 is not here)."""
        words = key if isinstance(key, tuple) else (key,)
        if self.key_dtype == np.dtype(object):
            return hash(words) & _MASK64
        hashes = [int(w) & _MASK64 for w in words]
        if len(hashes) == 1:
            return hashes[0]
        result = 0
        for h in hashes:
            result = (result ^ (h + 0x9E3779B97F4A7800 + (result << 10) + (result >> 4))) \
                & _MASK64
        return result

    def export(self) -> tuple[np.ndarray, np.ndarray]:
        """Every bucket in TF's layout (open addressing, quadratic probing from the key's
        hash): keys [buckets, key_size] and values [buckets, value_size], scalars as
        size 1, empty buckets holding ``empty_key`` and zeros — what TF's import adopts."""
        with self.lock:
            items, buckets = list(self.entries.items()), self.num_buckets
        key_size = max(int(np.prod(self.key_shape)), 1)
        value_size = max(int(np.prod(self.value_shape)), 1)
        keys = np.empty((buckets, key_size), dtype=self.key_dtype)
        keys[:] = self.empty_key.astype(self.key_dtype).reshape(1, key_size)
        values = np.zeros((buckets, value_size), dtype=self.value_dtype)
        used = np.zeros(buckets, dtype=bool)
        for key, value in items:
            index, probes = self._bucket_hash(key) & (buckets - 1), 0
            while used[index]:
                probes += 1
                index = (index + probes) & (buckets - 1)
            used[index] = True
            keys[index] = np.asarray(key, dtype=self.key_dtype).reshape(key_size)
            values[index] = np.asarray(value, dtype=self.value_dtype).reshape(value_size)
        if self.key_shape:
            keys = keys.reshape((buckets,) + self.key_shape)
        if self.value_shape:
            values = values.reshape((buckets,) + self.value_shape)
        return keys, values

    def import_values(self, keys: Any, values: Any) -> None:
        """Replaces the entries by an export's (empty and deleted buckets skipped)."""
        keys = np.asarray(keys).reshape((-1,) + self.key_shape)
        values = np.asarray(values).reshape((-1,) + self.value_shape)
        live = [i for i, k in enumerate(self._keys(keys)) if k not in self._reserved]
        with self.lock:
            self.entries = {}
            self.num_buckets = max(self.num_buckets, len(keys))
        TableResource.insert(self, keys[live], values[live])


@register_kernel("MutableDenseHashTableV2")
def _dense_table_op(ctx: KernelContext):
    attr = ctx.node_def.attr
    container, shared, key_dtype, value_dtype = _table_attrs(ctx)
    value_shape = tuple(d.size for d in attr["value_shape"].shape.dim)
    buckets, load = attr["initial_num_buckets"].i, attr["max_load_factor"].f
    node, store = ctx.name, ctx.resources
    if buckets <= 0 or buckets & (buckets - 1):
        raise errors.InvalidArgumentError(None, None,
                                          "Number of buckets must be at least 1 and a power of 2")
    if not 0 < load < 1:
        raise errors.InvalidArgumentError(None, None, "max_load_factor must be between 0 and 1")

    def compute(empty_key, deleted_key):
        if np.shape(empty_key) != np.shape(deleted_key):
            raise errors.InvalidArgumentError(
                None, None, "Empty and deleted keys must have same shape, got shapes: "
                            f"{_shape_text(np.shape(empty_key))} and "
                            f"{_shape_text(np.shape(deleted_key))}")
        if np.array_equal(empty_key, deleted_key):
            raise errors.InvalidArgumentError(None, None,
                                              "Empty and deleted keys cannot be equal")

        def create(unique_id: int) -> DenseTableResource:
            return DenseTableResource(shared or f"_{unique_id}_{node}", key_dtype,
                                      value_dtype, value_shape, np.asarray(empty_key),
                                      np.asarray(deleted_key), buckets, load)

        return (store.resource(container, shared or f"{node}/_private_table", create),)

    return compute


@register_kernel("LookupTableFindV2")
def _find(ctx: KernelContext):
    return lambda table, keys, default: (table.find(keys, default),)


def _table_update(method: str):
    """A kernel calling ``table.<method>(*inputs)``, with no outputs."""

    def factory(ctx: KernelContext):
        def compute(table, *inputs):
            getattr(table, method)(*inputs)
            return ()

        return compute

    return factory


register_kernel("LookupTableImportV2")(_table_update("import_values"))
register_kernel("InitializeTableV2")(_table_update("initialize"))
register_kernel("LookupTableInsertV2")(_table_update("insert"))
register_kernel("LookupTableRemoveV2")(_table_update("remove"))


@register_kernel("LookupTableExportV2")
def _export(ctx: KernelContext):
    return lambda table: table.export()


@register_kernel("LookupTableSizeV2")
def _size(ctx: KernelContext):
    return lambda table: (table.size(),)


_WHOLE_LINE, _LINE_NUMBER = -2, -1


def _parse(text: str, dtype: np.dtype, filename: str, line_no: int, line: str) -> Any:
    if dtype == np.dtype(object):
        return text.encode()
    try:
        if dtype.kind in "iu":
            return int(text)
        if dtype.kind == "f":
            return float(text)
    except ValueError:
        pass
    kind = "int" if dtype.kind in "iu" else "float"
    raise errors.InvalidArgumentError(
        None, None, f"Field {text} in line {line_no} is not a valid {kind}. ({filename} line "
                    f"{line_no}: {line})")


def vocab_lines(filename: str, vocab_size: int = -1) -> list[str]:
    """The lines of a vocabulary file (no trailing empty line, "\\r\\n" ends taken as
    "\\n"), the first ``vocab_size`` of them when it is positive (InvalidArgument when the
    file has fewer)."""
    lines = file_io.read_file_to_string(filename).split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if vocab_size > 0:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid vocab_size in {filename}: expected {vocab_size} "
                            f"but got {len(lines)}")
        lines = lines[:vocab_size]
    return lines


@register_kernel("InitializeTableFromTextFileV2")
def _initialize_from_text_file(ctx: KernelContext):
    attr = ctx.node_def.attr
    key_index, value_index = attr["key_index"].i, attr["value_index"].i
    vocab_size, offset = attr["vocab_size"].i, attr["offset"].i
    delimiter = attr["delimiter"].s.decode()

    def column(fields: list, index: int, line_no: int, line: str, dtype: np.dtype,
               filename: str) -> Any:
        if index == _LINE_NUMBER:
            return line_no + offset
        if index == _WHOLE_LINE:
            return _parse(line, dtype, filename, line_no, line)
        if index >= len(fields):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid number of columns in {filename} line {line_no} "
                            f"({line}) : expected {max(key_index, value_index) + 1} got "
                            f"{len(fields)}")
        return _parse(fields[index], dtype, filename, line_no, line)

    def compute(table, filename):
        filename = filename.item() if isinstance(filename, np.ndarray) else filename
        filename = filename.decode() if isinstance(filename, bytes) else str(filename)
        lines = vocab_lines(filename, vocab_size)
        keys, values = [], []
        for line_no, line in enumerate(lines):
            fields = line.split(delimiter) if delimiter else list(line)
            keys.append(column(fields, key_index, line_no, line, table.key_dtype, filename))
            values.append(column(fields, value_index, line_no, line, table.value_dtype,
                                 filename))
        key_arr = np.array(keys, dtype=table.key_dtype).reshape(-1)
        value_arr = np.array(values, dtype=table.value_dtype).reshape(-1)
        table.initialize(key_arr, value_arr)
        return ()

    return compute
