"""Session, InteractiveSession and the mapping of fetch/feed structures.

The session sends its graph to an engine as GraphDef bytes (then only the ops added
since, TF's Extend), turns fetches and feeds into tensor names, and asks the engine
for a cached plan per (feeds, fetches, targets).  Values come back in the structure
of the fetches.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from graphcore.client.session_handle import TensorHandle
from graphcore.framework import errors, nest, session_stack
from graphcore.framework import ops as ops_lib
from graphcore.framework.indexed_slices import IndexedSlices, IndexedSlicesValue
from graphcore.framework.sparse_tensor import SparseTensor, SparseTensorValue
from graphcore.ops.ragged_tensor import RaggedTensor, RaggedTensorValue
from graphcore.protobuf import config_pb2
from graphcore.runtime import context, engines

# -- fetches ------------------------------------------------------------------------------


class _FetchMapper:
    """A fetch structure flattened to graph elements, and how to rebuild it."""

    def __init__(self, graph: ops_lib.Graph, fetches: Any, session: Any = None):
        self.session = session  # the owner of the TensorHandles this fetch returns
        self.tensors: list[str] = []  # unique tensor names, in first-seen order
        self.targets: list[str] = []  # unique op names
        self._tensor_index: dict[str, int] = {}
        self._builder = self._map(graph, fetches)

    def _leaf(self, graph: ops_lib.Graph, fetch: Any) -> Callable[[list], Any]:
        if fetch is None:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}")
        try:
            element = graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be "
                            f"a string or Tensor. ({e})") from None
        except ValueError as e:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. "
                             f"({e})") from None
        except KeyError as e:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. "
                             f"({e.args[0]})") from None
        if isinstance(element, ops_lib.Operation):
            if element.name not in self.targets:
                self.targets.append(element.name)
            return lambda values: None
        if not graph.is_fetchable(element):
            raise errors.InvalidArgumentError(None, None, f"Tensor {element.name} may not be "
                                                          "fetched.")
        name = element.name
        index = self._tensor_index.get(name)
        if index is None:
            index = self._tensor_index[name] = len(self.tensors)
            self.tensors.append(name)
        if element.op.type == "GetSessionHandle":
            dtype = element.op.inputs[0].dtype
            return lambda values: TensorHandle(values[index], dtype, self.session)
        return lambda values: values[index]

    def _map(self, graph: ops_lib.Graph, fetch: Any) -> Callable[[list], Any]:
        if isinstance(fetch, RaggedTensor):
            parts = self._map(graph, [fetch.values, fetch.row_splits])
            return lambda values: RaggedTensorValue(*parts(values))
        if isinstance(fetch, (SparseTensor, IndexedSlices)):
            return self._map_composite(graph, fetch)
        if isinstance(fetch, (list, tuple)) and not hasattr(fetch, "_as_graph_element"):
            parts = [self._map(graph, f) for f in fetch]
            if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):  # namedtuple
                cls = type(fetch)
                return lambda values: cls(*[p(values) for p in parts])
            if isinstance(fetch, tuple):
                return lambda values: tuple(p(values) for p in parts)
            return lambda values: [p(values) for p in parts]
        if isinstance(fetch, Mapping):
            keys = list(fetch.keys())
            parts = [self._map(graph, fetch[k]) for k in keys]
            cls = type(fetch)

            def build(values: list) -> Any:
                out = {k: p(values) for k, p in zip(keys, parts)}
                return out if cls is dict else cls(out)

            return build
        return self._leaf(graph, fetch)

    def _map_composite(self, graph: ops_lib.Graph, fetch: Any) -> Callable[[list], Any]:
        """A SparseTensor fetches as a SparseTensorValue, IndexedSlices as an
        IndexedSlicesValue (its dense_shape None when it has none), as TF's."""
        if isinstance(fetch, SparseTensor):
            parts = self._map(graph, [fetch.indices, fetch.values, fetch.dense_shape])
            return lambda values: SparseTensorValue(*parts(values))
        if fetch.dense_shape is None:
            parts = self._map(graph, [fetch.values, fetch.indices])
            return lambda values: IndexedSlicesValue(*parts(values), None)
        parts = self._map(graph, [fetch.values, fetch.indices, fetch.dense_shape])
        return lambda values: IndexedSlicesValue(*parts(values))

    def build(self, values: list) -> Any:
        return self._builder(values)


def _fetch_value(value: Any) -> Any:
    """An engine value as Session.run returns it: numpy, 0-d as numpy scalars, never
    a read-only view of engine state."""
    if isinstance(value, np.ndarray):
        if value.ndim == 0:
            return value[()]
        if not value.flags.writeable:
            return value.copy()
        return value
    if hasattr(value, "read"):  # a ref that reached a fetch without being read
        return _fetch_value(value.read())
    if hasattr(value, "get") and type(value).__module__.startswith("cupy"):
        return _fetch_value(value.get())
    return value


# -- feeds --------------------------------------------------------------------------------


def _feed_value(tensor: ops_lib.Tensor, value: Any) -> np.ndarray:
    dtype = tensor.dtype.base_dtype
    np_dtype = dtype.as_numpy_dtype
    if isinstance(value, TensorHandle):
        # A handle fed to a string tensor is its handle; to any other, its stored value.
        value = value.handle if dtype.name == "string" else value.eval()
    if isinstance(value, ops_lib.Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed "
                        "values include Python scalars, strings, lists, numpy ndarrays, or "
                        "TensorHandles.")
    if dtype.name == "string":
        arr = np.asarray(value, dtype=object)
    elif isinstance(value, np.ndarray) and value.dtype == np_dtype:
        arr = value
    else:
        try:
            arr = np.asarray(value, dtype=np_dtype)
        except (TypeError, ValueError) as e:
            # The class numpy raised, as TF's session lets it through.
            raise type(e)(f"Cannot interpret feed_dict value {value!r} for Tensor "
                          f"'{tensor.name}' as dtype {dtype.name}: {e}") from None
        if isinstance(value, np.ndarray) and not np.can_cast(value.dtype, np_dtype,
                                                             casting="same_kind"):
            if not (value.dtype.kind in "iu" and np_dtype is not None
                    and np.dtype(np_dtype).kind in "iuf"):
                raise TypeError(f"Cannot feed value of dtype {value.dtype} for Tensor "
                                f"'{tensor.name}' of dtype {dtype.name}")
    if not tensor.shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape!r} for Tensor "
                         f"{tensor.name!r}, which has shape {tensor.shape!r}")
    if arr.flags.writeable:
        # The engine shares the caller's buffer; a read-only view keeps kernels from
        # writing into it and makes fetches that alias it come back as copies.
        arr = arr.view()
        arr.flags.writeable = False
    return arr


def _flatten_feed_items(feed_dict: Any) -> list:
    """TF's ``nest.flatten_dict_items``: a key that is a nested structure (an RNN's tuple
    of LSTMStateTuples) feeds each of its tensors the matching leaf of its value."""
    out: list = []
    seen: set = set()
    for key, value in feed_dict.items():
        if not nest.is_nested(key):
            pairs = [(key, value)]
        else:
            keys, values = nest.flatten(key), nest.flatten(value)
            if len(keys) != len(values):
                raise ValueError(f"Could not flatten dictionary. Key had {len(keys)} "
                                 f"elements, but value had {len(values)} elements. Key: "
                                 f"{keys}, value: {values}.")
            pairs = list(zip(keys, values))
        for k, v in pairs:
            if k in seen:
                raise ValueError(f"Cannot flatten dict because this key is not unique: {k}")
            seen.add(k)
            out.append((k, v))
    return out


def _expand_sparse_feeds(feed_dict: Any) -> list:
    """(key, value) pairs with a SparseTensor key fed its three parts, from a
    SparseTensorValue or an (indices, values, dense_shape) tuple, as TF's session; nested
    keys flattened first (:func:`_flatten_feed_items`)."""
    out = []
    for key, value in _flatten_feed_items(feed_dict):
        if isinstance(key, SparseTensor):
            if not isinstance(value, tuple) or len(value) != 3:
                raise TypeError(f"The value of a SparseTensor feed must be a SparseTensorValue "
                                f"or an (indices, values, dense_shape) tuple: {value!r}")
            out.extend(zip((key.indices, key.values, key.dense_shape), value))
        else:
            out.append((key, value))
    return out


# -- sessions -----------------------------------------------------------------------------


class BaseSession:
    """A session bound to one graph and one engine."""

    def __init__(self, target: str = "", graph: ops_lib.Graph | None = None,
                 config: config_pb2.ConfigProto | None = None):
        if graph is None:
            graph = ops_lib.get_default_graph()
        if not isinstance(graph, ops_lib.Graph):
            raise TypeError(f"graph must be a tf.Graph, but got {type(graph)}")
        if config is not None and not isinstance(config, config_pb2.ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config)}")
        self._graph = graph
        self._target = target
        # TF1 sessions without a config run under the process's tf.config settings.
        self._config = config if config is not None else context.context().session_config()
        self._engine = engines.make_engine(target, self._config)
        self._closed = False
        self._sent_version = 0
        self._extend_lock = threading.Lock()
        self._fetch_cache: dict[Any, _FetchMapper] = {}
        self._default_session_cm: Any = None
        self._default_graph_cm: Any = None

    # -- properties -------------------------------------------------------------------
    @property
    def graph(self) -> ops_lib.Graph:
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self) -> str:
        return self._target

    def list_devices(self) -> list:
        return [_DeviceAttributes(d) for d in self._engine.devices]

    # -- lifecycle --------------------------------------------------------------------
    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._engine.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:
            pass

    def as_default(self):
        """Makes this session the default for ``Tensor.eval``/``Operation.run``."""
        return session_stack.default_session(self)

    def __enter__(self) -> BaseSession:
        self._default_graph_cm = self._graph.as_default()
        self._default_graph_cm.__enter__()
        self._default_session_cm = self.as_default()
        self._default_session_cm.__enter__()
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._default_session_cm.__exit__(exc_type, exc, tb)
        self._default_graph_cm.__exit__(exc_type, exc, tb)
        self.close()

    # -- running ----------------------------------------------------------------------
    def _extend(self) -> None:
        version = self._graph.version
        if version > self._sent_version:
            with self._extend_lock:
                if version > self._sent_version:
                    delta = self._graph.as_graph_def(from_version=self._sent_version)
                    self._engine.extend(delta.SerializeToString())
                    self._sent_version = version

    def _fetch_mapper(self, fetches: Any) -> _FetchMapper:
        if isinstance(fetches, (ops_lib.Tensor, ops_lib.Operation)):
            key: Any = fetches
        elif isinstance(fetches, list) and all(
                isinstance(f, (ops_lib.Tensor, ops_lib.Operation)) for f in fetches):
            key = ("list",) + tuple(fetches)
        else:
            key = None
        if key is not None:
            mapper = self._fetch_cache.get(key)
            if mapper is None:
                mapper = self._fetch_cache[key] = _FetchMapper(self._graph, fetches, self)
            return mapper
        return _FetchMapper(self._graph, fetches, self)

    def _feeds(self, feed_dict: Any) -> tuple[tuple[str, ...], list]:
        if not feed_dict:
            return (), []
        names: list[str] = []
        values: list = []
        graph = self._graph
        for key, value in _expand_sparse_feeds(feed_dict):
            try:
                tensor = graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
            except Exception as e:
                raise TypeError(f"Cannot interpret feed_dict key as Tensor: {e}") from None
            if not graph.is_feedable(tensor):
                raise ValueError(f"Tensor {tensor.name} may not be fed.")
            names.append(tensor.name)
            values.append(_feed_value(tensor, value))
        if len(names) > 1:
            order = sorted(range(len(names)), key=names.__getitem__)
            names = [names[i] for i in order]
            values = [values[i] for i in order]
        return tuple(names), values

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs the ops and evaluates the tensors in ``fetches``, feeding ``feed_dict``.

        Returns values in the structure of ``fetches`` (numpy values; None for ops).
        """
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        if self._graph.version == 0:
            raise RuntimeError("The Session graph is empty. Add operations to the graph "
                               "before calling run().")
        mapper = self._fetch_mapper(fetches)
        feed_names, feed_values = self._feeds(feed_dict)
        return self._run_mapped(mapper, feed_names, feed_values, options, run_metadata)

    def _run_mapped(self, mapper: _FetchMapper, feed_names: tuple[str, ...],
                    feed_values: list, options: Any, run_metadata: Any) -> Any:
        self._extend()
        fetch_names = tuple(mapper.tensors)
        if not fetch_names and not mapper.targets:
            return mapper.build([])  # TF runs nothing (fetching [] gives [])
        try:
            plan = self._engine.plan(feed_names, fetch_names, tuple(mapper.targets))
            trace = options is not None and options.trace_level == config_pb2.RunOptions.FULL_TRACE
            values = self._engine.run(plan, feed_values, trace=trace, run_metadata=run_metadata)
        except errors.OpError as e:
            raise self._with_creation_site(e) from None
        if run_metadata is not None and options is not None and options.output_partition_graphs:
            for gd in plan.partition_graphs:
                run_metadata.partition_graphs.add().CopyFrom(gd)
        return mapper.build([_fetch_value(v) for v in values])

    def _with_creation_site(self, e: errors.OpError) -> errors.OpError:
        """``e`` with the Python op of its node attached (for the creation site)."""
        node_def = e.node_def
        if node_def is None or e.op is not None:
            return e
        try:
            op = self._graph._get_operation_by_name_unsafe(node_def.name)
        except KeyError:
            return e
        message = f"{e.message}\n\t (op '{op.name}' of type {op.type} created at " \
                  f"{op._creation_site()})"
        return type(e)(node_def, op, message)

    def make_callable(self, fetches: Any, feed_list: list | None = None,
                      accept_options: bool = False) -> Callable:
        """A function running ``fetches`` with positional feeds for ``feed_list``: the
        fastest way to run the same step many times."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        mapper = _FetchMapper(self._graph, fetches, self)
        tensors = []
        for f in feed_list or []:
            t = self._graph.as_graph_element(f, allow_tensor=True, allow_operation=False)
            if not self._graph.is_feedable(t):
                raise ValueError(f"Tensor {t.name} may not be fed.")
            tensors.append(t)
        names = [t.name for t in tensors]
        order = sorted(range(len(names)), key=names.__getitem__)
        feed_names = tuple(names[i] for i in order)
        engine = self._engine
        fetch_names = tuple(mapper.tensors)
        targets = tuple(mapper.targets)
        build = mapper.build
        plan_box: list = []

        def call(*args: Any, **kwargs: Any) -> Any:
            if self._closed:
                raise RuntimeError("Attempted to use a closed Session.")
            if len(args) != len(tensors):
                raise TypeError(f"Callable takes {len(tensors)} feed values, got {len(args)}")
            if self._graph.version > self._sent_version:
                self._extend()
                plan_box.clear()
            values = [_feed_value(tensors[i], args[i]) for i in order]
            try:
                if not plan_box:
                    plan_box.append(engine.plan(feed_names, fetch_names, targets))
                options = kwargs.get("options") if accept_options else None
                run_metadata = kwargs.get("run_metadata") if accept_options else None
                trace = options is not None and \
                    options.trace_level == config_pb2.RunOptions.FULL_TRACE
                out = engine.run(plan_box[0], values, trace=trace, run_metadata=run_metadata)
            except errors.OpError as e:
                raise self._with_creation_site(e) from None
            return build([_fetch_value(v) for v in out])

        self._extend()
        return call


class Session(BaseSession):
    """``tf.Session(target="", graph=None, config=None)``.

    ``target`` "" runs in this process; ``ray://...`` targets belong to the Ray
    runtime (not built yet).
    """


class InteractiveSession(BaseSession):
    """A Session that makes itself the default on creation (for shells and notebooks)."""

    def __init__(self, target: str = "", graph: ops_lib.Graph | None = None,
                 config: config_pb2.ConfigProto | None = None):
        super().__init__(target, graph, config)
        self._default_session_cm = self.as_default()
        self._default_session_cm.__enter__()
        self._default_graph_cm = self._graph.as_default()
        self._default_graph_cm.__enter__()
        self._explicitly_closed = False

    def close(self) -> None:
        if not self._closed and self._default_session_cm is not None:
            self._default_graph_cm.__exit__(None, None, None)
            self._default_session_cm.__exit__(None, None, None)
        super().close()


class _DeviceAttributes:
    def __init__(self, device: Any):
        self.name = device.name
        self.device_type = device.device_type
        self.memory_limit_bytes = 0
        self.incarnation = device.incarnation

    def __repr__(self) -> str:
        return f"_DeviceAttributes({self.name}, {self.device_type}, 0, {self.incarnation})"
