"""``tf.Variable`` (TF1 ref variables) and the variable collections and initializers."""

from __future__ import annotations

import contextlib
import enum
from collections.abc import Iterator
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_conversion
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.ops import array_ops, control_flow_ops, state_ops
from graphcore.protobuf import attr_value_pb2

__all__ = [
    "Variable",
    "VariableAggregation",
    "VariableSynchronization",
    "all_variables",
    "assert_variables_initialized",
    "variable_creator_scope",
    "global_variables",
    "global_variables_initializer",
    "initialize_all_variables",
    "initialize_local_variables",
    "initialize_variables",
    "local_variables",
    "local_variables_initializer",
    "model_variables",
    "moving_average_variables",
    "report_uninitialized_variables",
    "trainable_variables",
    "variables_initializer",
]


class VariableSynchronization(enum.Enum):
    """When a distributed variable is aggregated (accepted; graphcore's variables live on
    one task)."""

    AUTO = 0
    NONE = 1
    ON_WRITE = 2
    ON_READ = 3


class VariableAggregation(enum.Enum):
    """How a distributed variable's updates combine (accepted, as above)."""

    NONE = 0
    SUM = 1
    MEAN = 2
    ONLY_FIRST_REPLICA = 3
    ONLY_FIRST_TOWER = 3


# Set by graphcore.ops.resource_variable_ops: its class, and whether a ``use_resource``
# argument (None: the enable_resource_variables() default) asks for it.
_resource_variable_type: type | None = None
_use_resource: Any = None


def register_resource_variable_type(cls: type, use_resource: Any) -> None:
    """Makes ``Variable(...)`` build ``cls`` when ``use_resource(use_resource_arg)``."""
    global _resource_variable_type, _use_resource
    _resource_variable_type, _use_resource = cls, use_resource


def _collections_for(collections: list | None, trainable: bool) -> list:
    """The collections a new variable joins (TF's checks and defaults)."""
    if collections is None:
        collections = [ops_lib.GraphKeys.GLOBAL_VARIABLES]
    if not isinstance(collections, (list, tuple, set)):
        raise ValueError(f"collections argument to Variable constructor must be a list, "
                         f"tuple, or set. Got {collections} of type {type(collections)}")
    collections = list(collections)
    if trainable and ops_lib.GraphKeys.TRAINABLE_VARIABLES not in collections:
        collections.append(ops_lib.GraphKeys.TRAINABLE_VARIABLES)
    return collections


_CREATOR_ARGS = ("initial_value", "trainable", "collections", "validate_shape",
                 "caching_device", "name", "variable_def", "dtype", "expected_shape",
                 "import_scope", "constraint", "use_resource", "synchronization",
                 "aggregation", "shape")


def _creator_stack(graph: ops_lib.Graph) -> list:
    """The graph's variable creators, outermost first (``variable_creator_scope``)."""
    stack = getattr(graph, "_variable_creator_stack", None)
    if stack is None:
        stack = graph._variable_creator_stack = []
    return stack


def _default_variable_creator(**kwargs: Any) -> Variable:
    kwargs.pop("experimental_enable_variable_lifting", None)
    if kwargs.get("trainable") is None:
        kwargs["trainable"] = kwargs.get("synchronization") != VariableSynchronization.ON_READ
    if kwargs.get("aggregation") is None:
        kwargs["aggregation"] = VariableAggregation.NONE
    return type.__call__(Variable, **kwargs)


class _VariableMeta(type):
    """``Variable(...)`` goes through the graph's variable creators when there are any
    (TF's VariableV1 metaclass); subclasses are built directly."""

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if cls is not Variable:
            return super().__call__(*args, **kwargs)
        stack = _creator_stack(ops_lib.get_default_graph())
        if not stack:
            return super().__call__(*args, **kwargs)
        call = dict(zip(_CREATOR_ARGS, args))
        call.update(kwargs)
        full = {"initial_value": None, "trainable": None, "validate_shape": True,
                "caching_device": None, "name": None, "variable_def": None, "dtype": None,
                "import_scope": None, "constraint": None,
                "synchronization": VariableSynchronization.AUTO,
                "aggregation": VariableAggregation.NONE, "shape": None,
                "experimental_enable_variable_lifting": None, "expected_shape": None,
                "collections": None, "use_resource": None}
        full.update(call)
        if full["aggregation"] is None:
            full["aggregation"] = VariableAggregation.NONE
        getter = _default_variable_creator
        for creator in stack:
            getter = _chain(creator, getter)
        return getter(**full)


def _chain(creator: Any, next_creator: Any) -> Any:
    return lambda **kwargs: creator(next_creator, **kwargs)


class Variable(metaclass=_VariableMeta):
    """A TF1 ref variable: a VariableV2 op holding state across ``Session.run`` calls.

    ``tf.Variable(0, name="counter")`` builds ``counter/initial_value`` (Const),
    ``counter`` (VariableV2), ``counter/Assign`` (the initializer) and ``counter/read``
    (an Identity colocated with the variable, the value used when it is read).
    ``use_resource=True`` (or ``tf.enable_resource_variables()``) makes a ResourceVariable.
    """

    def __new__(cls, *args: Any, use_resource: bool | None = None,
                variable_def: Any = None, **kwargs: Any) -> Variable:
        if cls is Variable and _resource_variable_type is not None and (
                variable_def.is_resource if variable_def is not None
                else _use_resource(use_resource)):
            cls = _resource_variable_type
        return object.__new__(cls)

    def __init__(self, initial_value: Any = None, trainable: bool = True,
                 collections: list | None = None, validate_shape: bool = True,
                 caching_device: Any = None, name: str | None = None,
                 variable_def: Any = None, dtype: Any = None, expected_shape: Any = None,
                 import_scope: str | None = None, constraint: Any = None,
                 use_resource: bool | None = None, synchronization: Any = None,
                 aggregation: Any = None, shape: Any = None):
        del expected_shape, use_resource, synchronization, aggregation
        if variable_def is not None:
            if initial_value is not None:
                raise ValueError("variable_def and initial_value are mutually exclusive.")
            self._init_from_proto(variable_def, import_scope)
            return
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if constraint is not None and not callable(constraint):
            raise ValueError("The `constraint` argument must be a callable.")
        self._constraint = constraint
        self._trainable = trainable
        self._caching_device = caching_device
        self._save_slice_info: SaveSliceInfo | None = None
        collections = _collections_for(collections, trainable)
        graph = ops_lib.get_default_graph()
        # As TF's init_scope: a variable made in a while loop or cond (an RNN cell's
        # first call) lives outside it, without the caller's control dependencies.
        with graph.name_scope(name or "Variable") as scope, \
                graph.control_dependencies(None):
            self._init_from_args(graph, scope, initial_value, validate_shape, caching_device,
                                 dtype, shape)
        graph.add_to_collections(collections, self)

    def _initial_value_and_shape(self, graph: ops_lib.Graph, initial_value: Any,
                                 validate_shape: bool, dtype: Any,
                                 shape: Any) -> shape_lib.TensorShape:
        """Sets ``_initial_value``, built as ``<name>/Initializer/initial_value`` (on no
        device, as TF's), and returns the variable's shape."""
        with graph.name_scope("Initializer"), graph.device(None):
            value = initial_value() if callable(initial_value) else initial_value
            self._initial_value = tensor_conversion.convert_to_tensor(
                value, name="initial_value", dtype=dtype)
        var_shape = self._initial_value.shape if validate_shape else shape_lib.unknown_shape()
        return shape_lib.as_shape(shape) if shape is not None else var_shape

    def _init_from_args(self, graph: ops_lib.Graph, scope: str, initial_value: Any,
                        validate_shape: bool, caching_device: Any, dtype: Any,
                        shape: Any) -> None:
        """Builds the ref variable's ops inside its name ``scope``."""
        true_name = ops_lib.name_from_scope_name(scope)
        if callable(initial_value):
            cls_attr = attr_value_pb2.AttrValue(list=attr_value_pb2.AttrValue.ListValue(
                s=[f"loc:@{true_name}".encode()]))
            with graph._attr_scope({"_class": cls_attr}):
                var_shape = self._initial_value_and_shape(graph, initial_value, validate_shape,
                                                          dtype, shape)
                self._variable = state_ops.variable_op_v2(
                    var_shape, self._initial_value.dtype.base_dtype, name=scope)
        else:
            self._initial_value = tensor_conversion.convert_to_tensor(
                initial_value, name="initial_value", dtype=dtype)
            var_shape = (self._initial_value.shape if validate_shape
                         else shape_lib.unknown_shape())
            if shape is not None:
                var_shape = shape_lib.as_shape(shape)
            self._variable = state_ops.variable_op_v2(
                var_shape, self._initial_value.dtype.base_dtype, name=scope)
        if validate_shape and not self._initial_value.shape.is_fully_defined():
            raise ValueError(f"initial_value must have a shape specified: "
                             f"{self._initial_value}")
        self._initializer_op = state_ops.assign(
            self._variable, self._initial_value, validate_shape=validate_shape).op
        if caching_device is not None:
            with graph.device(caching_device):
                self._snapshot = array_ops.identity(self._variable, name="read")
        else:
            with graph.colocate_with(self._variable.op):
                self._snapshot = array_ops.identity(self._variable, name="read")

    def _init_from_proto(self, variable_def: Any, import_scope: str | None) -> None:
        """A Variable over ops already in the default graph (a MetaGraphDef's)."""
        graph = ops_lib.get_default_graph()

        def element(name: str) -> Any:
            return graph.as_graph_element(f"{import_scope}/{name}" if import_scope else name)

        self._variable = element(variable_def.variable_name)
        self._initializer_op = element(variable_def.initializer_name)
        self._snapshot = element(variable_def.snapshot_name)
        self._initial_value = (element(variable_def.initial_value_name)
                               if variable_def.initial_value_name else None)
        self._trainable = variable_def.trainable
        self._constraint = None
        self._caching_device = None
        self._save_slice_info = _slice_info_from_def(variable_def, import_scope)

    def to_proto(self, export_scope: str | None = None) -> Any:
        """This variable's VariableDef (names relative to ``export_scope``)."""
        from graphcore.protobuf import variable_pb2

        def strip(name: str) -> str:
            if export_scope and name.startswith(export_scope + "/"):
                return name[len(export_scope) + 1:]
            return name

        vdef = variable_pb2.VariableDef(
            variable_name=strip(self._variable.name),
            initializer_name=strip(self._initializer_op.name),
            snapshot_name=strip(self._snapshot.name), is_resource=False,
            trainable=self._trainable)
        if self._initial_value is not None:
            vdef.initial_value_name = strip(self._initial_value.name)
        if self._save_slice_info is not None:
            slice_def = self._save_slice_info.to_proto(export_scope)
            if slice_def is not None:
                vdef.save_slice_info_def.MergeFrom(slice_def)
        return vdef

    # -- slices of a partitioned variable -------------------------------------------------
    def _set_save_slice_info(self, save_slice_info: SaveSliceInfo) -> None:
        self._save_slice_info = save_slice_info

    def _get_save_slice_info(self) -> SaveSliceInfo | None:
        return self._save_slice_info

    @staticmethod
    def from_proto(variable_def: Any, import_scope: str | None = None) -> Variable:
        return Variable(variable_def=variable_def, import_scope=import_scope)

    # -- identity ---------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._variable.name

    @property
    def op(self) -> ops_lib.Operation:
        return self._variable.op

    @property
    def graph(self) -> ops_lib.Graph:
        return self._variable.graph

    @property
    def device(self) -> str:
        return self._variable.device

    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._variable.dtype

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self._variable.shape

    def get_shape(self) -> shape_lib.TensorShape:
        return self._variable.shape

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self) -> Any:
        return self._constraint

    @property
    def initializer(self) -> ops_lib.Operation:
        return self._initializer_op

    @property
    def initial_value(self) -> ops_lib.Tensor:
        return self._initial_value

    def load(self, value: Any, session: Any = None) -> None:
        """Stores ``value`` in the variable by running its initializer with the initial
        value fed (no new op), in ``session`` or the default session."""
        from graphcore.framework import session_stack

        session = session or session_stack.get_default_session()
        if session is None:
            raise ValueError("Either session argument should be provided or default session "
                             "should be established")
        session.run(self.initializer, {self.initializer.inputs[1]: value})

    # -- reading ----------------------------------------------------------------------
    def value(self) -> ops_lib.Tensor:
        """The snapshot (``<name>/read``) through which the variable is read."""
        return self._snapshot

    def read_value(self) -> ops_lib.Tensor:
        """A fresh Identity of the variable's current value."""
        return array_ops.identity(self._variable, name="read")

    def initialized_value(self) -> ops_lib.Tensor:
        """The variable's value, or its initial value while it is uninitialized (a
        ``cond`` on IsVariableInitialized); safe for initializing other variables."""
        graph = self.graph
        saved = graph._get_control_flow_context()
        graph._set_control_flow_context(None)  # as TF's init_scope: outside any cond
        try:
            with graph.as_default(), ops_lib.control_dependencies(None):
                return control_flow_ops.cond(state_ops.is_variable_initialized(self),
                                             self.read_value, lambda: self.initial_value)
        finally:
            graph._set_control_flow_context(saved)

    def _ref(self) -> ops_lib.Tensor:
        return self._variable

    def _as_graph_element(self) -> ops_lib.Tensor:
        return self._variable

    def eval(self, session: Any = None) -> Any:
        """The variable's value in ``session`` (default: the default session)."""
        return self._variable.eval(session=session)

    # -- writing ----------------------------------------------------------------------
    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> Any:
        t = state_ops.assign(self._variable, value, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_add(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        t = state_ops.assign_add(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def assign_sub(self, delta: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> Any:
        t = state_ops.assign_sub(self._variable, delta, use_locking=use_locking, name=name)
        return t if read_value else t.op

    def set_shape(self, shape: Any) -> None:
        self._variable.set_shape(shape)
        self._snapshot.set_shape(shape)

    def __repr__(self) -> str:
        return (f"<tf.Variable '{self.name}' shape={self.shape} "
                f"dtype={self.dtype.name}>")

    def __hash__(self) -> int:
        return id(self)

    def __bool__(self) -> bool:
        raise TypeError("Using a `tf.Variable` as a Python `bool` is not allowed.")

    @classmethod
    def _overload_all_operators(cls) -> None:
        """Gives Variable every Tensor operator, applied to its read value; the Tensor
        method is looked up at call time, so operators added later work too."""
        for operator in _OVERLOADABLE:

            def method(self: Variable, *args: Any, _operator: str = operator) -> Any:
                return getattr(ops_lib.Tensor, _operator)(self.value(), *args)

            method.__name__ = operator
            setattr(cls, operator, method)


_OVERLOADABLE = {
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__",
    "__rpow__", "__matmul__", "__rmatmul__", "__lt__", "__le__", "__gt__", "__ge__",
    "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__abs__",
    "__invert__", "__getitem__",
}

Variable._overload_all_operators()
RefVariable = Variable


class SaveSliceInfo:
    """Where a variable sits in the full variable it is a slice (shard) of:
    ``full_name``, ``full_shape``, ``var_offset``, ``var_shape`` (TF's
    ``Variable.SaveSliceInfo``); ``spec`` is the Saver's ``shape_and_slices`` string."""

    def __init__(self, full_name: str | None = None, full_shape: list | None = None,
                 var_offset: list | None = None, var_shape: list | None = None,
                 save_slice_info_def: Any = None, import_scope: str | None = None):
        if save_slice_info_def:
            self.full_name = (f"{import_scope}/{save_slice_info_def.full_name}"
                              if import_scope else save_slice_info_def.full_name)
            self.full_shape = list(save_slice_info_def.full_shape)
            self.var_offset = list(save_slice_info_def.var_offset)
            self.var_shape = list(save_slice_info_def.var_shape)
        else:
            self.full_name = full_name
            self.full_shape = full_shape
            self.var_offset = var_offset
            self.var_shape = var_shape

    @property
    def spec(self) -> str:
        """``"<full shape> off,len:off,len"``, e.g. ``"7 3 3,2:0,3"``."""
        full_shape = " ".join(f"{d:d}" for d in self.full_shape) + " "
        return full_shape + ":".join(f"{o:d},{s:d}"
                                     for o, s in zip(self.var_offset, self.var_shape))

    def to_proto(self, export_scope: str | None = None) -> Any:
        """A SaveSliceInfoDef, or None when the full variable is outside ``export_scope``."""
        from graphcore.protobuf import variable_pb2

        if export_scope is not None and not self.full_name.startswith(export_scope):
            return None
        full_name = self.full_name
        if export_scope and full_name.startswith(export_scope + "/"):
            full_name = full_name[len(export_scope) + 1:]
        return variable_pb2.SaveSliceInfoDef(
            full_name=full_name,
            full_shape=self.full_shape, var_offset=self.var_offset, var_shape=self.var_shape)


Variable.SaveSliceInfo = SaveSliceInfo


def _slice_info_from_def(variable_def: Any, import_scope: str | None) -> SaveSliceInfo | None:
    if not variable_def.HasField("save_slice_info_def"):
        return None
    return SaveSliceInfo(save_slice_info_def=variable_def.save_slice_info_def,
                         import_scope=import_scope)


class PartitionedVariable:
    """The shards of one variable split along one axis (what ``get_variable`` with a
    ``partitioner`` returns): iterates over the shards in offset order, converts to
    their concatenation (``<name>/ConcatPartitions/concat``), assigns by splitting."""

    def __init__(self, name: str, shape: Any, dtype: Any, variable_list: list,
                 partitions: list):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        for v in variable_list:
            if not all(v._get_save_slice_info() is not None for v in variable_list):
                raise ValueError("All variables must have a save_slice_info available: "
                                 f"{[v.name for v in variable_list]}")
            if len(shape) != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._get_save_slice_info().full_shape != shape:
                raise ValueError(f"All variables' full shapes must match shape: {shape}; but "
                                 f"full shapes were: {[v._get_save_slice_info().full_shape]}")
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtype
        self._partitions = partitions

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self) -> int:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length for {len(axes)} > 1 partition axes")
        return len(self._variable_list)

    def _partition_axes(self) -> list[int]:
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self) -> ops_lib.Tensor:
        """The full value: an Identity named as the variable over a ConcatV2 of the
        shards (or over the only shard)."""
        if len(self._variable_list) == 1:
            with ops_lib.name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                "partition concat is not supported")
        with ops_lib.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = array_ops.concat(self._variable_list, axes[0])
        with ops_lib.name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self) -> ops_lib.Tensor:
        """The concatenated value, outside the caller's control dependencies."""
        with ops_lib.control_dependencies(None):
            return self._concat()

    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> dtypes_lib.DType:
        return self._dtype

    @property
    def shape(self) -> shape_lib.TensorShape:
        return self.get_shape()

    def get_shape(self) -> shape_lib.TensorShape:
        return self._shape

    def _get_variable_list(self) -> list:
        return self._variable_list

    def _get_partitions(self) -> list:
        return self._partitions

    def _apply_assign_fn(self, assign_fn: Any, value: Any) -> list:
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {axes}.  "
                "Multi-axis partition assign action is not supported ")
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(f"Expected {len(self._variable_list)} values, one per "
                                 f"partition, got {len(value)}")
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [shape_lib.dimension_value(v.shape[axes[0]]) for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, values[i]) for i, v in enumerate(self._variable_list)]

    def _assign_with(self, method: str, value: Any, use_locking: bool, name: str | None,
                     read_value: bool) -> list:
        assigns = self._apply_assign_fn(
            lambda var, part: getattr(var, method)(part, use_locking=use_locking, name=name,
                                                   read_value=read_value), value)
        return assigns if read_value else [getattr(a, "op", a) for a in assigns]

    def assign(self, value: Any, use_locking: bool = False, name: str | None = None,
               read_value: bool = True) -> list:
        return self._assign_with("assign", value, use_locking, name, read_value)

    def assign_add(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list:
        return self._assign_with("assign_add", value, use_locking, name, read_value)

    def assign_sub(self, value: Any, use_locking: bool = False, name: str | None = None,
                   read_value: bool = True) -> list:
        return self._assign_with("assign_sub", value, use_locking, name, read_value)

    def __repr__(self) -> str:
        return (f"<tf.PartitionedVariable '{self._name}' shape={self._shape} "
                f"dtype={self._dtype.name} partitions={self._partitions}>")


def _variable_conversion(v: Variable, dtype: Any = None, name: str | None = None,
                         as_ref: bool = False) -> ops_lib.Tensor:
    if dtype is not None and not dtypes_lib.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    return v._ref() if as_ref else v.value()


tensor_conversion.register_tensor_conversion_function(Variable, _variable_conversion, 0)


def _partitioned_conversion(v: PartitionedVariable, dtype: Any = None, name: str | None = None,
                            as_ref: bool = False) -> ops_lib.Tensor:
    del name
    if dtype is not None and not dtypes_lib.as_dtype(dtype).is_compatible_with(v.dtype):
        raise ValueError(f"Incompatible type conversion requested to type '{dtype.name}' for "
                         f"variable of type '{v.dtype.name}'")
    if as_ref:
        raise NotImplementedError(
            "PartitionedVariable doesn't support being used as a reference.")
    return v.as_tensor()


tensor_conversion.register_tensor_conversion_function(PartitionedVariable,
                                                      _partitioned_conversion, 0)


# -- collections and initializers -----------------------------------------------------

def global_variables(scope: str | None = None) -> list[Variable]:
    return ops_lib.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope: str | None = None) -> list[Variable]:
    return ops_lib.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES, scope)


def local_variables(scope: str | None = None) -> list[Variable]:
    return ops_lib.get_collection(ops_lib.GraphKeys.LOCAL_VARIABLES, scope)


def model_variables(scope: str | None = None) -> list[Variable]:
    return ops_lib.get_collection(ops_lib.GraphKeys.MODEL_VARIABLES, scope)


def moving_average_variables(scope: str | None = None) -> list[Variable]:
    return ops_lib.get_collection(ops_lib.GraphKeys.MOVING_AVERAGE_VARIABLES, scope)


def variables_initializer(var_list: list, name: str = "init") -> ops_lib.Operation:
    """One op running every variable's initializer (a NoOp when the list is empty)."""
    if var_list:
        return control_flow_ops.group(*[v.initializer for v in var_list], name=name)
    return control_flow_ops.no_op(name=name)


def global_variables_initializer() -> ops_lib.Operation:
    """``init``: runs the initializer of every variable in GLOBAL_VARIABLES."""
    return variables_initializer(global_variables())


def local_variables_initializer() -> ops_lib.Operation:
    return variables_initializer(local_variables())


def initialize_all_variables() -> ops_lib.Operation:
    """Deprecated alias of ``global_variables_initializer``."""
    return global_variables_initializer()


initialize_variables = variables_initializer
initialize_local_variables = local_variables_initializer


def is_variable_initialized(variable: Variable) -> ops_lib.Tensor:
    return state_ops.is_variable_initialized(variable)


def assert_variables_initialized(var_list: list | None = None) -> ops_lib.Tensor | None:
    """A tensor whose evaluation fails (FailedPreconditionError) unless every variable of
    ``var_list`` (default: all global and local ones) is initialized: the Rank of each,
    stacked when more than one; None without variables."""
    if var_list is None:
        var_list = global_variables() + local_variables()
    if not var_list:
        var_list = [op.outputs[0] for op in ops_lib.get_default_graph().get_operations()
                    if op.type in ("Variable", "VariableV2", "AutoReloadVariable")]
    if not var_list:
        return None
    ranks = []
    for var in var_list:
        with ops_lib.colocate_with(var.op):
            ranks.append(_rank_of_value(var))
    if len(ranks) == 1:
        return ranks[0]
    return array_ops.stack(ranks)


def _rank_of_value(var: Any) -> ops_lib.Tensor:
    """A Rank op reading ``var`` (never folded to a constant: the read is the check)."""
    with ops_lib.name_scope(None, "Rank", [var]) as scope:
        value = tensor_conversion.convert_to_tensor(var)
        return apply_op("Rank", name=scope, input=value).outputs[0]


@contextlib.contextmanager
def variable_creator_scope(variable_creator: Any) -> Iterator[None]:
    """Within it, ``tf.Variable(...)`` (and so ``get_variable``) calls
    ``variable_creator(next_creator, **kwargs)``; the innermost scope's creator first."""
    stack = _creator_stack(ops_lib.get_default_graph())
    stack.append(variable_creator)
    try:
        yield
    finally:
        stack.pop()


def report_uninitialized_variables(var_list: list | None = None,
                                   name: str = "report_uninitialized_variables"
                                   ) -> ops_lib.Tensor:
    """A 1-D string tensor of the names of the variables not yet initialized
    (all global and local variables by default); empty when all are."""
    from graphcore.ops import math_ops

    if var_list is None:
        var_list = global_variables() + local_variables()
    with ops_lib.name_scope(name):
        init_vars = [state_ops.is_variable_initialized(v) for v in var_list]
        with ops_lib.device("/cpu:0"):
            if not var_list:
                return array_ops.constant([], dtype=dtypes_lib.string)
            mask = math_ops.logical_not(array_ops.stack(init_vars))
            names = array_ops.constant([v.op.name for v in var_list])
            return array_ops.boolean_mask(names, mask)
