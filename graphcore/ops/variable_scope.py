"""``tf.get_variable`` and ``tf.variable_scope``: variables shared by name.

Each graph has one variable store (full name -> Variable) and a current
VariableScope; ``variable_scope`` opens a variable scope and, by default, a name
scope of the same name; ``get_variable`` creates ``<scope>/<name>`` or, when the scope
reuses, returns the existing one (with TF's ValueErrors either way).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import threading
import traceback
from collections.abc import Iterator, Sequence
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_conversion
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import array_ops, init_ops
from graphcore.ops.variables import PartitionedVariable, SaveSliceInfo, Variable

__all__ = ["AUTO_REUSE", "VariableScope", "get_local_variable", "get_variable",
           "get_variable_scope", "variable_scope", "variable_op_scope", "no_regularizer"]


class _ReuseMode(enum.Enum):
    AUTO_REUSE = 1


AUTO_REUSE = _ReuseMode.AUTO_REUSE


def no_regularizer(_: Any) -> None:
    return None


class VariableScope:
    """A variable scope: a name prefix plus defaults for ``get_variable``."""

    def __init__(self, reuse: Any, name: str = "", initializer: Any = None,
                 regularizer: Any = None, caching_device: Any = None, partitioner: Any = None,
                 custom_getter: Any = None, name_scope: str = "", dtype: Any = dtypes_lib.float32,
                 use_resource: Any = None, constraint: Any = None):
        self._name = name
        self._reuse = reuse
        self._initializer = initializer
        self._regularizer = regularizer
        self._caching_device = caching_device
        self._partitioner = partitioner
        self._custom_getter = custom_getter
        self._name_scope = name_scope
        self._dtype = dtypes_lib.as_dtype(dtype)
        self._constraint = constraint
        self._use_resource = use_resource

    name = property(lambda self: self._name)
    original_name_scope = property(lambda self: self._name_scope)
    reuse = property(lambda self: self._reuse)
    initializer = property(lambda self: self._initializer)
    regularizer = property(lambda self: self._regularizer)
    caching_device = property(lambda self: self._caching_device)
    partitioner = property(lambda self: self._partitioner)
    custom_getter = property(lambda self: self._custom_getter)
    dtype = property(lambda self: self._dtype)
    constraint = property(lambda self: self._constraint)
    use_resource = property(lambda self: self._use_resource)

    def set_use_resource(self, use_resource: Any) -> None:
        self._use_resource = use_resource

    def reuse_variables(self) -> None:
        self._reuse = True

    def set_initializer(self, initializer: Any) -> None:
        self._initializer = initializer

    def set_regularizer(self, regularizer: Any) -> None:
        self._regularizer = regularizer

    def set_dtype(self, dtype: Any) -> None:
        self._dtype = dtypes_lib.as_dtype(dtype)

    def set_partitioner(self, partitioner: Any) -> None:
        self._partitioner = partitioner

    def set_caching_device(self, caching_device: Any) -> None:
        self._caching_device = caching_device

    def global_variables(self) -> list:
        return ops_lib.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES, self._prefix())

    def trainable_variables(self) -> list:
        return ops_lib.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES, self._prefix())

    def _prefix(self) -> str:
        return self._name + "/" if self._name else ""

    def _get_partitioned_variable(self, name: str | None, shape: Any = None, dtype: Any = None,
                                  initializer: Any = None, regularizer: Any = None,
                                  trainable: bool | None = None,
                                  collections: list | None = None,
                                  caching_device: Any = None, partitioner: Any = None,
                                  validate_shape: bool = True, use_resource: Any = None,
                                  constraint: Any = None) -> PartitionedVariable:
        """A PartitionedVariable named ``<scope>/<name>`` (the scope's own name when
        ``name`` is empty: ``create_partitioned_variables``)."""
        args = self._with_defaults(initializer=initializer, regularizer=regularizer,
                                   caching_device=caching_device, partitioner=partitioner,
                                   constraint=constraint, dtype=dtype,
                                   use_resource=use_resource)
        if self._custom_getter is not None:
            raise ValueError(
                "Private access to _get_partitioned_variable is not allowed when a custom "
                "getter is set.  Current custom getter: %s.  It is likely that you're using "
                "create_partitioned_variables.  If so, consider instead using get_variable "
                "with a non-empty partitioner parameter instead." % self._custom_getter)
        if args["partitioner"] is None:
            raise ValueError("No partitioner was specified")
        full_name = "/".join(n for n in (self.name, name) if n)
        with ops_lib.name_scope(None):
            return _store()._get_partitioned_variable(
                full_name, shape=shape, reuse=self.reuse, trainable=trainable,
                collections=collections, validate_shape=validate_shape, **args)

    def _with_defaults(self, **args: Any) -> dict:
        """``args`` with each None replaced by this scope's default of the same name."""
        out = {k: getattr(self, "_" + k) if v is None else v for k, v in args.items()}
        out["dtype"] = dtypes_lib.as_dtype(out["dtype"])
        return out

    def get_variable(self, name: str, shape: Any = None, dtype: Any = None,
                     initializer: Any = None, regularizer: Any = None, reuse: Any = None,
                     trainable: bool | None = None, collections: list | None = None,
                     caching_device: Any = None, partitioner: Any = None,
                     validate_shape: bool = True, use_resource: Any = None,
                     custom_getter: Any = None, constraint: Any = None, **kwargs: Any) -> Any:
        del kwargs
        full_name = f"{self._name}/{name}" if self._name else name
        reuse = self._reuse if reuse in (None, False) else reuse
        args = self._with_defaults(initializer=initializer, regularizer=regularizer,
                                   caching_device=caching_device, partitioner=partitioner,
                                   constraint=constraint, dtype=dtype,
                                   use_resource=use_resource)
        store = _store()
        getter = functools.partial(store.get_variable, reuse=reuse)
        custom = custom_getter if custom_getter is not None else self._custom_getter
        with ops_lib.name_scope(None):
            kwargs2 = dict(shape=shape, trainable=trainable, collections=collections,
                           validate_shape=validate_shape, **args)
            if custom is not None:
                return custom(getter, full_name, **kwargs2)
            return getter(full_name, **kwargs2)


class _PartitionInfo:
    """Where the shard being initialized sits in the full variable: what initializers get
    as ``partition_info`` (``full_shape``, ``var_offset``)."""

    __slots__ = ["_full_shape", "_var_offset"]

    def __init__(self, full_shape: list, var_offset: list):
        for arg, value in (("full_shape", full_shape), ("var_offset", var_offset)):
            if not isinstance(value, (list, tuple)):
                raise TypeError(f"`{arg}` must be a sequence (like tuple or list) instead of "
                                + type(value).__name__)
        if len(var_offset) != len(full_shape):
            raise ValueError(f"Expected equal length, but `var_offset` is of length "
                             f"{len(var_offset)} while full_shape is of length "
                             f"{len(full_shape)}.")
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(f"Expected 0 <= offset < shape but found offset={offset}, "
                                 f"shape={size} for var_offset={var_offset}, "
                                 f"full_shape={full_shape}")
        self._full_shape = full_shape
        self._var_offset = var_offset

    @property
    def full_shape(self) -> list:
        return self._full_shape

    @property
    def var_offset(self) -> list:
        return self._var_offset

    def single_offset(self, shape: list) -> int:
        """The offset along the one sliced dimension (0 when unsliced)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self.var_offset[dim]

    def single_slice_dim(self, shape: list) -> int | None:
        """The one dimension where ``shape`` is smaller than the full shape, or None."""
        if not isinstance(shape, (tuple, list)):
            raise TypeError("`shape` must be a sequence (like tuple or list) instead of "
                            + type(shape).__name__)
        if len(shape) != len(self.full_shape):
            raise ValueError(f"Expected equal length, but received shape={shape} of length "
                             f"{len(shape)} while self.full_shape={self.full_shape} is of "
                             f"length {len(self.full_shape)}.")
        for i in range(len(shape)):
            if self.var_offset[i] + shape[i] > self.full_shape[i]:
                raise ValueError(f"With self.var_offset={self.var_offset}, a partition of "
                                 f"shape={shape} would exceed self.full_shape="
                                 f"{self.full_shape} in dimension {i}.")
        slice_dim = None
        for i in range(len(shape)):
            if shape[i] == self.full_shape[i]:
                continue
            if slice_dim is not None:
                raise ValueError(f"Cannot use single_slice_dim() with shape={shape} and "
                                 f"self.full_shape={self.full_shape} since slice dim could "
                                 f"be either dimension {i} or {slice_dim}.")
            slice_dim = i
        return slice_dim


def _call_partitioner(partitioner: Any, shape: shape_lib.TensorShape, dtype: Any) -> list:
    """The partitioner's shard counts per axis, checked as TF checks them."""
    if not shape.is_fully_defined():
        raise ValueError("Shape of a new partitioned variable must be fully defined, but "
                         f"instead was {shape}.")
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, Sequence):
        raise ValueError(f"Partitioner must return a sequence, but saw: {slicing}")
    if len(slicing) != shape.ndims:
        raise ValueError("Partitioner returned a partition list that does not match the "
                         f"Variable's rank: {slicing} vs. {shape}")
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError("Can only slice a variable along one dimension: shape: "
                         f"{shape}, partitioning: {slicing}")
    return slicing


def _slice_dim_and_num_slices(slicing: list) -> tuple[int, int]:
    for slice_dim, num_slices in enumerate(slicing):
        if num_slices > 1:
            return slice_dim, num_slices
    return 0, 1


def _iter_slices(full_shape: list, num_slices: int, slice_dim: int) -> Iterator[tuple]:
    """(offset, shape) of each shard: the first ``size % num_slices`` one larger."""
    num_slices_with_excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_slice_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = full_shape[:]
        shape[slice_dim] = min_slice_len + bool(i < num_slices_with_excess)
        yield offset[:], shape
        offset[slice_dim] += shape[slice_dim]


class _VariableStore:
    """Variables created by ``get_variable`` in one graph, by full name (and the
    partitioned ones, whose shards are ``<name>/part_<i>`` among the variables)."""

    def __init__(self) -> None:
        self.vars: dict[str, Any] = {}
        self.partitioned_vars: dict[str, PartitionedVariable] = {}
        self.scope_counts: dict[str, int] = {}
        self.lock = threading.RLock()
        self.current = VariableScope(False)

    def unique_scope_name(self, parent: str, default_name: str) -> str:
        """``default_name``, or ``default_name_<i>`` with the smallest ``i`` whose scope
        is not open, under ``parent`` (TF's _get_unique_variable_scope)."""
        with self.lock:
            prefix = f"{parent}/{default_name}" if parent else default_name
            if not self.scope_counts.get(prefix):
                return default_name
            i = 1
            while self.scope_counts.get(f"{prefix}_{i}"):
                i += 1
            return f"{default_name}_{i}"

    def open_scope(self, name: str, by_object: bool) -> dict | None:
        """Counts ``name`` as opened; a scope entered by its object returns the counts to
        restore when it is left."""
        with self.lock:
            self.scope_counts[name] = self.scope_counts.get(name, 0) + 1
            return dict(self.scope_counts) if by_object else None

    def close_scope(self, name: str, saved_counts: dict | None) -> None:
        """Leaving ``name``: its sub-scopes' counts are forgotten, or, for a scope entered
        by its object, the counts found on entry are restored."""
        with self.lock:
            if saved_counts is not None:
                self.scope_counts = saved_counts
                return
            prefix = name + "/"
            for key in self.scope_counts:
                if key.startswith(prefix):
                    self.scope_counts[key] = 0

    def get_variable(self, name: str, shape: Any = None, dtype: Any = dtypes_lib.float32,
                     initializer: Any = None, regularizer: Any = None, reuse: Any = None,
                     trainable: bool | None = None, collections: list | None = None,
                     caching_device: Any = None, partitioner: Any = None,
                     validate_shape: bool = True, use_resource: Any = None,
                     constraint: Any = None) -> Any:
        is_scalar = shape is not None and isinstance(shape, Sequence) and not shape
        if partitioner is not None and not is_scalar:
            if not callable(partitioner):
                raise ValueError(f"Partitioner must be callable, but received: {partitioner}")
            with ops_lib.name_scope(None):
                return self._get_partitioned_variable(
                    name, partitioner, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, reuse=reuse, trainable=trainable,
                    collections=collections, caching_device=caching_device,
                    validate_shape=validate_shape, use_resource=use_resource,
                    constraint=constraint)
        return self._get_single_variable(
            name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
            reuse=reuse, trainable=trainable, collections=collections,
            caching_device=caching_device, validate_shape=validate_shape,
            use_resource=use_resource, constraint=constraint)

    def _get_partitioned_variable(self, name: str, partitioner: Any, shape: Any = None,
                                  dtype: Any = dtypes_lib.float32, initializer: Any = None,
                                  regularizer: Any = None, reuse: Any = None,
                                  trainable: bool | None = None,
                                  collections: list | None = None,
                                  caching_device: Any = None, validate_shape: bool = True,
                                  use_resource: Any = None,
                                  constraint: Any = None) -> PartitionedVariable:
        """The shards ``<name>/part_<i>`` of a variable, each a variable of its own with
        its slice of the full initial value and its SaveSliceInfo."""
        dtype = dtypes_lib.as_dtype(dtype)
        from_tensor = isinstance(initializer, ops_lib.Tensor)
        if name in self.vars:
            raise ValueError(
                "A partitioner was provided, but an unpartitioned version of the variable "
                f"was found: {name}.  Perhaps a variable of the same name was already "
                "created without partitioning?")
        shape = shape_lib.as_shape(shape)
        if from_tensor:
            shape = shape.merge_with(initializer.get_shape())
        partitions = None
        if not reuse or partitioner:
            partitions = _call_partitioner(partitioner, shape, dtype)
        existing = self.partitioned_vars.get(name)
        if existing is not None:
            if reuse is False or reuse is None:
                raise ValueError(f"Partitioned variable with name {name} already exists. Did "
                                 "you mean to set reuse=True or reuse=tf.AUTO_REUSE in "
                                 "VarScope?")
            if not shape.is_compatible_with(existing.get_shape()):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                                 f"shape {shape} and found shape {existing.get_shape()}.")
            if not dtype.is_compatible_with(existing.dtype):
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                                 f"dtype {dtype.name} and found dtype "
                                 f"{existing.dtype.name}.")
            if partitions is not None and existing._get_partitions() != partitions:
                raise ValueError(f"Trying to reuse partitioned variable {name}, but specified "
                                 f"partitions {partitions} and found partitions "
                                 f"{existing._get_partitions()}.")
            return existing
        if reuse is True:
            raise ValueError(f"PartitionedVariable {name} does not exist, or was not created "
                             "with tf.get_variable(). Did you mean to set reuse=False or "
                             "reuse=tf.AUTO_REUSE in VarScope?")
        slice_dim, num_slices = _slice_dim_and_num_slices(partitions)
        if f"{name}/part_0" in self.vars:
            if f"{name}/part_{num_slices - 1}" not in self.vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already "
                    f"found.  Partitioner returned {num_slices} shards, and shard "
                    f"{name}/part_0 was found, but {name}/part_{num_slices - 1} was not.")
            if f"{name}/part_{num_slices}" in self.vars:
                raise ValueError(
                    "Partitioner returned a different partitioning than what was already "
                    f"found.  Partitioner returned {num_slices} shards, and shard "
                    f"{name}/part_0 was found, but so was the extra shard "
                    f"{name}/part_{num_slices}.")
        full_shape = shape.as_list()
        shards = []
        for i, (var_offset, var_shape) in enumerate(_iter_slices(full_shape, num_slices,
                                                                 slice_dim)):
            partition_info = _PartitionInfo(full_shape=full_shape, var_offset=var_offset)
            var_full_name = f"{name}/part_{i}"
            with ops_lib.name_scope(var_full_name + "/PartitionedInitializer"):
                if initializer is None or callable(initializer):
                    init, init_shape = initializer, var_shape
                elif from_tensor:
                    init = array_ops.slice(initializer, var_offset, var_shape)
                    dtype = init.dtype.base_dtype
                    init_shape = None
                else:
                    init = tensor_conversion.convert_to_tensor(initializer, dtype=dtype)
                    init = array_ops.slice(init, var_offset, var_shape)
                    init_shape = None
            with ops_lib.name_scope(None):
                var = self._get_single_variable(
                    var_full_name, shape=init_shape, dtype=dtype, initializer=init,
                    partition_info=partition_info, regularizer=regularizer, reuse=reuse,
                    trainable=trainable, collections=collections,
                    caching_device=caching_device, validate_shape=validate_shape,
                    use_resource=use_resource, constraint=constraint)
            var._set_save_slice_info(SaveSliceInfo(name, full_shape, var_offset, var_shape))
            shards.append(var)
        partitioned = PartitionedVariable(name=name, shape=shape, dtype=dtype,
                                          variable_list=shards, partitions=partitions)
        self.partitioned_vars[name] = partitioned
        return partitioned

    def _get_single_variable(self, name: str, shape: Any = None,
                             dtype: Any = dtypes_lib.float32, initializer: Any = None,
                             regularizer: Any = None, partition_info: Any = None,
                             reuse: Any = None, trainable: bool | None = None,
                             collections: list | None = None, caching_device: Any = None,
                             validate_shape: bool = True, use_resource: Any = None,
                             constraint: Any = None) -> Any:
        dtype = dtypes_lib.as_dtype(dtype)
        shape = shape_lib.as_shape(shape) if shape is not None else None
        with self.lock:
            found = self.vars.get(name)
            if found is not None:
                if reuse is False or reuse is None:
                    raise ValueError(f"Variable {name} already exists, disallowed. Did you mean "
                                     "to set reuse=True or reuse=tf.AUTO_REUSE in VarScope? "
                                     f"Originally defined at:\n\n{_defined_at(found)}")
                if shape is not None and not shape.is_compatible_with(found.get_shape()):
                    raise ValueError(f"Trying to share variable {name}, but specified shape "
                                     f"{shape} and found shape {found.get_shape()}.")
                if dtype != found.dtype.base_dtype:
                    raise ValueError(f"Trying to share variable {name}, but specified dtype "
                                     f"{dtype.name} and found dtype "
                                     f"{found.dtype.base_dtype.name}.")
                return found
            if reuse is True:
                raise ValueError(f"Variable {name} does not exist, or was not created with "
                                 "tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE "
                                 "in VarScope?")
            var = self._create(name, shape, dtype, initializer, trainable, collections,
                               caching_device, validate_shape, constraint, use_resource,
                               partition_info)
            self.vars[name] = var
        if regularizer is not None:
            with ops_lib.name_scope(name + "/Regularizer/"):
                loss = regularizer(var)
            if loss is not None:
                ops_lib.add_to_collection(ops_lib.GraphKeys.REGULARIZATION_LOSSES, loss)
        return var

    def _create(self, name: str, shape: Any, dtype: dtypes_lib.DType, initializer: Any,
                trainable: bool | None, collections: list | None, caching_device: Any,
                validate_shape: bool, constraint: Any, use_resource: Any,
                partition_info: _PartitionInfo | None) -> Variable:
        if initializer is None:
            if dtype.is_floating:
                initializer = init_ops.glorot_uniform_initializer()
            elif dtype.is_integer or dtype.is_unsigned or dtype.is_bool or dtype == dtypes_lib.string:
                initializer = init_ops.zeros_initializer()
            else:
                raise ValueError(f"An initializer for variable {name} of {dtype.name} is "
                                 "required")
        if isinstance(initializer, type):
            initializer = initializer()
        if callable(initializer):
            if shape is None or not shape.is_fully_defined():
                raise ValueError(f"Shape of a new variable ({name}) must be fully defined, but "
                                 f"instead was {shape}.")
            init_val = functools.partial(initializer, shape.as_list(), dtype=dtype,
                                         partition_info=partition_info)
            variable_dtype = dtype
        else:
            init_val = initializer
            variable_dtype = None
            if shape is not None and validate_shape:
                init_shape = shape_lib.as_shape(getattr(initializer, "shape", None)
                                                if hasattr(initializer, "shape")
                                                else _np_shape(initializer))
                if not shape.is_compatible_with(init_shape):
                    raise ValueError(f"The initializer passed is not valid. It should be a "
                                     f"callable with no arguments and the shape should not be "
                                     f"provided or an instance of `tf.keras.initializers.*' "
                                     f"and `shape` should be fully defined. ({name})")
        return Variable(initial_value=init_val, name=name, trainable=True if trainable is None
                        else trainable, collections=collections, caching_device=caching_device,
                        dtype=variable_dtype, validate_shape=validate_shape,
                        constraint=constraint, use_resource=use_resource)


def _np_shape(value: Any) -> list:
    import numpy as np

    return list(np.shape(value))


def _defined_at(var: Any) -> str:
    tb = var.op.traceback
    return "".join(traceback.format_list(tb[-3:])) if tb else "<unknown>"


_store_lock = threading.Lock()


def _store(graph: ops_lib.Graph | None = None) -> _VariableStore:
    graph = graph or ops_lib.get_default_graph()
    store = getattr(graph, "_variable_store", None)
    if store is None:
        with _store_lock:
            store = getattr(graph, "_variable_store", None)
            if store is None:
                store = _VariableStore()
                graph._variable_store = store
    return store


def get_variable_scope() -> VariableScope:
    """The current variable scope of the default graph."""
    return _store().current


def get_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                 regularizer: Any = None, trainable: bool | None = None,
                 collections: list | None = None, caching_device: Any = None,
                 partitioner: Any = None, validate_shape: bool = True, use_resource: Any = None,
                 custom_getter: Any = None, constraint: Any = None, **kwargs: Any) -> Any:
    """Gets an existing variable ``<scope>/<name>`` or creates a new one (TF1 semantics)."""
    return get_variable_scope().get_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        custom_getter=custom_getter, constraint=constraint, **kwargs)


def _get_partitioned_variable(name: str | None, shape: Any = None, dtype: Any = None,
                              initializer: Any = None, regularizer: Any = None,
                              trainable: bool = True, collections: list | None = None,
                              caching_device: Any = None, partitioner: Any = None,
                              validate_shape: bool = True, use_resource: Any = None,
                              constraint: Any = None) -> PartitionedVariable:
    """A PartitionedVariable in the current variable scope (TF's private helper of
    ``create_partitioned_variables``)."""
    return get_variable_scope()._get_partitioned_variable(
        name, shape=shape, dtype=dtype, initializer=initializer, regularizer=regularizer,
        trainable=trainable, collections=collections, caching_device=caching_device,
        partitioner=partitioner, validate_shape=validate_shape, use_resource=use_resource,
        constraint=constraint)


def get_local_variable(name: str, shape: Any = None, dtype: Any = None,
                       initializer: Any = None, regularizer: Any = None,
                       trainable: bool = False, collections: list | None = None,
                       **kwargs: Any) -> Any:
    """``get_variable`` into LOCAL_VARIABLES (and ``collections``), not trainable."""
    collections = list(collections or []) + [ops_lib.GraphKeys.LOCAL_VARIABLES]
    return get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                        regularizer=regularizer, trainable=False, collections=collections,
                        **kwargs)


@contextlib.contextmanager
def variable_scope(name_or_scope: Any, default_name: str | None = None, values: Any = None,
                   initializer: Any = None, regularizer: Any = None, caching_device: Any = None,
                   partitioner: Any = None, custom_getter: Any = None, reuse: Any = None,
                   dtype: Any = None, use_resource: Any = None, constraint: Any = None,
                   auxiliary_name_scope: bool = True) -> Iterator[VariableScope]:
    """Opens a variable scope (and a name scope); see TF1's ``tf.variable_scope``."""
    if name_or_scope is None and default_name is None:
        raise TypeError("If default_name is None then name_or_scope is required")
    if values is not None:
        graph = ops_lib._get_graph_from_inputs(list(values))
    else:
        graph = ops_lib.get_default_graph()
    with graph.as_default():
        store = _store(graph)
        parent = store.current
        if isinstance(name_or_scope, VariableScope):
            var_name = name_or_scope.name
            # TF opens a new name scope named after the scope's last part; the
            # variable scope keeps the name scope it was created in.
            name_scope_arg = var_name.split("/")[-1]
            base = name_or_scope
        else:
            rel = name_or_scope if name_or_scope is not None else \
                store.unique_scope_name(parent.name, default_name)
            var_name = f"{parent.name}/{rel}" if parent.name else rel
            name_scope_arg = rel
            base = parent
        # TF's counts: opening a scope counts its name; leaving a scope by name forgets
        # its sub-scopes (so a reused scope names its default-named children as the first
        # time), leaving a scope object restores the counts it found.
        saved_counts = store.open_scope(var_name, isinstance(name_or_scope, VariableScope))
        new_reuse = reuse if reuse not in (None, False) else (
            base.reuse if isinstance(name_or_scope, VariableScope) else parent.reuse)
        if not auxiliary_name_scope:
            ctx = contextlib.nullcontext(parent.original_name_scope)
        elif name_scope_arg == "":  # TF opens no name scope for variable_scope("")
            ctx = contextlib.nullcontext("")
        else:
            ctx = graph.name_scope(name_scope_arg)
        with ctx as ns:
            scope = VariableScope(
                new_reuse, name=var_name,
                initializer=initializer if initializer is not None else base.initializer,
                regularizer=regularizer if regularizer is not None else base.regularizer,
                caching_device=caching_device if caching_device is not None
                else base.caching_device,
                partitioner=partitioner if partitioner is not None else base.partitioner,
                custom_getter=custom_getter if custom_getter is not None
                else base.custom_getter,
                name_scope=ns if isinstance(ns, str) else "",
                dtype=dtype if dtype is not None else base.dtype,
                use_resource=use_resource if use_resource is not None else base.use_resource,
                constraint=constraint if constraint is not None else base.constraint)
            if isinstance(name_or_scope, VariableScope) and name_or_scope.original_name_scope:
                scope._name_scope = name_or_scope.original_name_scope
            store.current = scope
            try:
                yield scope
            finally:
                store.current = parent
                store.close_scope(var_name, saved_counts)


def variable_op_scope(values: Any, name_or_scope: Any, default_name: str | None = None,
                      **kwargs: Any):
    """Deprecated argument order of ``variable_scope``."""
    return variable_scope(name_or_scope, default_name=default_name, values=values, **kwargs)
