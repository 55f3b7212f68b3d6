"""tf.keras.backend in graph mode: the Keras session (``get_session``/``set_session``, which
initializes the variables Keras made), the learning phase placeholder, per-graph layer name
uids, ``clear_session`` and the basic tensor helpers Keras scripts call through ``K``."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np

from graphcore.client.session import Session
from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.session_stack import get_default_session
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    clip_ops,
    control_flow_ops,
    gradients_impl,
    math_ops,
    nn_impl,
    nn_ops,
    state_ops,
)
from graphcore.ops import variables as variables_lib

__all__ = [
    "batch_get_value", "batch_set_value", "cast", "clear_session", "constant", "dtype",
    "epsilon", "eval", "floatx", "function", "get_session", "get_uid", "get_value", "image_data_format",
    "int_shape", "is_placeholder", "learning_phase", "manual_variable_initialization",
    "name_scope", "ndim", "placeholder", "reset_uids", "set_epsilon", "set_floatx",
    "set_image_data_format", "set_learning_phase", "set_session", "set_value", "shape",
    "variable", "zeros", "ones", "sum", "mean", "square", "sqrt", "exp", "log", "abs", "relu",
    "sigmoid", "softmax", "tanh", "dot", "concatenate", "reshape", "flatten", "expand_dims",
    "squeeze", "argmax", "equal", "maximum", "minimum", "clip", "gradients", "stop_gradient",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
]

_FLOATX = "float32"
_EPSILON = 1e-7
_IMAGE_DATA_FORMAT = "channels_last"
_SESSION: dict = {"session": None}
_MANUAL_VAR_INIT = [False]
# graph -> the learning phase placeholder, or a Python 0/1 set by set_learning_phase.
_LEARNING_PHASES: dict = {}


def floatx() -> str:
    return _FLOATX


def set_floatx(value: str) -> None:
    global _FLOATX
    if value not in ("float16", "float32", "float64"):
        raise ValueError(f"Unknown floatx type: {value}")
    _FLOATX = str(value)


def epsilon() -> float:
    return _EPSILON


def set_epsilon(value: float) -> None:
    global _EPSILON
    _EPSILON = value


def image_data_format() -> str:
    return _IMAGE_DATA_FORMAT


def set_image_data_format(data_format: str) -> None:
    global _IMAGE_DATA_FORMAT
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Unknown data_format: {data_format}")
    _IMAGE_DATA_FORMAT = str(data_format)


def get_uid(prefix: str = "") -> int:
    """1, 2, ... per graph and prefix (the counter tf.layers' default names use too)."""
    graph = ops_lib.get_default_graph()
    uids = graph.__dict__.setdefault("_layer_name_uids", collections.defaultdict(int))
    uids[prefix] += 1
    return uids[prefix]


def reset_uids() -> None:
    ops_lib.get_default_graph().__dict__.pop("_layer_name_uids", None)


def unique_object_name(name: str, zero_based: bool = True) -> str:
    """``name``, ``name_1``... (zero based) or ``name_1``, ``name_2``... as Keras names."""
    number = get_uid(name)
    if zero_based:
        number -= 1
        return name if number == 0 else f"{name}_{number}"
    return f"{name}_{number}"


def name_scope(name: str) -> Any:
    return ops_lib.name_scope(name)


# -- learning phase -----------------------------------------------------------------------
def learning_phase() -> Any:
    """The bool placeholder ``keras_learning_phase`` (False unless fed), or the value given
    to ``set_learning_phase``."""
    graph = ops_lib.get_default_graph()
    if graph not in _LEARNING_PHASES:
        with ops_lib.name_scope(""), graph.control_dependencies(None):
            _LEARNING_PHASES[graph] = array_ops.placeholder_with_default(
                False, shape=(), name="keras_learning_phase")
    return _LEARNING_PHASES[graph]


def set_learning_phase(value: int) -> None:
    if value not in (0, 1):
        raise ValueError("Expected learning phase to be 0 or 1.")
    _LEARNING_PHASES[ops_lib.get_default_graph()] = value


# -- session ------------------------------------------------------------------------------
def _keras_variables(graph: ops_lib.Graph) -> list:
    return graph.__dict__.setdefault("_keras_variables", [])


def track_variable(variable: Any) -> None:
    """Marks ``variable`` for initialization by the next ``get_session``."""
    _keras_variables(variable.graph).append(variable)


def _initialize_variables(session: Any) -> None:
    graph = session.graph
    candidates = [v for v in _keras_variables(graph) if not getattr(v, "_keras_initialized", 0)]
    if not candidates:
        return
    with graph.as_default():
        flags = session.run([variables_lib.is_variable_initialized(v) for v in candidates])
        for v in candidates:
            v._keras_initialized = True
        pending = [v for v, ok in zip(candidates, flags) if not ok]
        if pending:
            session.run(variables_lib.variables_initializer(pending))


def get_session() -> Any:
    """The default session if one is open, else Keras' own session of the default graph;
    variables Keras made and nothing initialized yet are initialized first."""
    session = get_default_session()
    if session is None:
        session = _SESSION["session"]
        graph = ops_lib.get_default_graph()
        if session is None or session.graph is not graph or session._closed:
            session = Session(graph=graph)
            _SESSION["session"] = session
    if not _MANUAL_VAR_INIT[0]:
        _initialize_variables(session)
    return session


def set_session(session: Any) -> None:
    _SESSION["session"] = session


def manual_variable_initialization(value: bool) -> None:
    _MANUAL_VAR_INIT[0] = bool(value)


def clear_session() -> None:
    """A new default graph, no Keras session, fresh layer name uids."""
    session = _SESSION["session"]
    if session is not None:
        session.close()
    _SESSION["session"] = None
    _LEARNING_PHASES.clear()
    ops_lib.reset_default_graph()


# -- values -------------------------------------------------------------------------------
def variable(value: Any, dtype: Any = None, name: str | None = None,
             constraint: Any = None) -> Any:
    value = np.asarray(value, dtype=dtype or floatx())
    v = variables_lib.Variable(value, dtype=dtypes_lib.as_dtype(value.dtype), name=name,
                               constraint=constraint)
    track_variable(v)
    return v


def get_value(x: Any) -> Any:
    return get_session().run(x)


def batch_get_value(tensors: list) -> list:
    return get_session().run(list(tensors)) if tensors else []


def _assign_placeholder(x: Any) -> tuple:
    cache = x.graph.__dict__.setdefault("_keras_assign_placeholders", {})
    if x not in cache:
        with x.graph.as_default(), ops_lib.name_scope(None):
            holder = array_ops.placeholder(x.dtype.base_dtype, shape=x.shape)
            cache[x] = (holder, state_ops.assign(x, holder))
    return cache[x]


def batch_set_value(tuples: list) -> None:
    if not tuples:
        return
    feed, ops = {}, []
    for x, value in tuples:
        holder, op = _assign_placeholder(x)
        feed[holder] = np.asarray(value, dtype=x.dtype.base_dtype.as_numpy_dtype)
        ops.append(op)
    get_session().run(ops, feed_dict=feed)


class GraphExecutionFunction:
    """``f(values)`` runs ``outputs`` (and ``updates``) with ``inputs`` fed ``values``."""

    def __init__(self, inputs: list, outputs: Any, updates: list | None = None,
                 name: str | None = None) -> None:
        del name
        self.inputs = list(inputs)
        self._outputs_structure = outputs
        self.outputs = nest.flatten(outputs)
        with ops_lib.control_dependencies(self.outputs):
            updates_ops = [u if isinstance(u, ops_lib.Operation) else
                           state_ops.assign(u[0], u[1]) if isinstance(u, tuple) else u.op
                           for u in (updates or [])]
            self.updates_op = control_flow_ops.group(*updates_ops) if updates_ops else None

    def __call__(self, inputs: list) -> Any:
        feed = dict(zip(self.inputs, nest.flatten(inputs)))
        fetches = self.outputs + ([self.updates_op] if self.updates_op is not None else [])
        values = get_session().run(fetches, feed_dict=feed)[:len(self.outputs)]
        return nest.pack_sequence_as(self._outputs_structure, values)


def function(inputs: list, outputs: Any, updates: list | None = None,
             name: str | None = None, **kwargs: Any) -> GraphExecutionFunction:
    """A callable that evaluates ``outputs`` for values of the ``inputs`` placeholders."""
    if kwargs:
        raise ValueError(f"Invalid argument \"{sorted(kwargs)[0]}\" passed to K.function "
                         "with TensorFlow backend")
    return GraphExecutionFunction(inputs, outputs, updates=updates, name=name)


def set_value(x: Any, value: Any) -> None:
    batch_set_value([(x, value)])


def eval(x: Any) -> Any:  # noqa: A001
    return get_value(x)


def placeholder(shape: Any = None, ndim: int | None = None, dtype: Any = None,
                sparse: bool = False, name: str | None = None) -> Any:
    if sparse:
        raise NotImplementedError("sparse Keras placeholders are not implemented")
    if shape is None and ndim:
        shape = (None,) * ndim
    return array_ops.placeholder(dtype or floatx(), shape=shape, name=name)


def is_placeholder(x: Any) -> bool:
    return isinstance(x, ops_lib.Tensor) and x.op.type == "Placeholder"


def int_shape(x: Any) -> tuple | None:
    shape = convert_to_tensor(x).shape if not isinstance(x, variables_lib.Variable) \
        else x.shape
    return None if shape.ndims is None else tuple(shape.as_list())


def ndim(x: Any) -> int | None:
    return x.shape.ndims


def dtype(x: Any) -> str:
    return x.dtype.base_dtype.name


def shape(x: Any) -> Any:
    return array_ops.shape(x)


def constant(value: Any, dtype: Any = None, shape: Any = None, name: str | None = None) -> Any:
    return array_ops.constant(value, dtype=dtype or floatx(), shape=shape,
                              name=name or "Const")


def zeros(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    return variable(np.zeros(shape), dtype=dtype, name=name)


def ones(shape: Any, dtype: Any = None, name: str | None = None) -> Any:
    return variable(np.ones(shape), dtype=dtype, name=name)


def cast(x: Any, dtype: Any) -> Any:
    return math_ops.cast(x, dtype)


def sum(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return math_ops.reduce_sum(x, axis, keepdims=keepdims)


def mean(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    return math_ops.reduce_mean(x, axis, keepdims=keepdims)


def square(x: Any) -> Any:
    return math_ops.square(x)


def sqrt(x: Any) -> Any:
    zero = convert_to_tensor(0.0, dtype=x.dtype.base_dtype)
    return math_ops.sqrt(math_ops.maximum(x, zero))


def exp(x: Any) -> Any:
    return math_ops.exp(x)


def log(x: Any) -> Any:
    return math_ops.log(x)


def abs(x: Any) -> Any:  # noqa: A001
    return math_ops.abs(x)


def relu(x: Any, alpha: float = 0.0, max_value: float | None = None) -> Any:
    if alpha or max_value is not None:
        negative = nn_ops.relu(-x)
        x = nn_ops.relu(x)
        if max_value is not None:
            x = math_ops.minimum(x, max_value)
        return x - alpha * negative if alpha else x
    return nn_ops.relu(x)


def sigmoid(x: Any) -> Any:
    return math_ops.sigmoid(x)


def softmax(x: Any, axis: int = -1) -> Any:
    return nn_ops.softmax(x, axis=axis)


def tanh(x: Any) -> Any:
    return math_ops.tanh(x)


def dot(x: Any, y: Any) -> Any:
    return math_ops.matmul(x, y)


def concatenate(tensors: list, axis: int = -1) -> Any:
    return array_ops.concat(list(tensors), axis)


def reshape(x: Any, shape: Any) -> Any:
    return array_ops.reshape(x, shape)


def flatten(x: Any) -> Any:
    return array_ops.reshape(x, [-1])


def expand_dims(x: Any, axis: int = -1) -> Any:
    return array_ops.expand_dims(x, axis)


def squeeze(x: Any, axis: int) -> Any:
    return array_ops.squeeze(x, [axis])


def argmax(x: Any, axis: int = -1) -> Any:
    return math_ops.argmax(x, axis)


def equal(x: Any, y: Any) -> Any:
    return math_ops.equal(x, y)


def maximum(x: Any, y: Any) -> Any:
    return math_ops.maximum(x, y)


def minimum(x: Any, y: Any) -> Any:
    return math_ops.minimum(x, y)


def clip(x: Any, min_value: Any, max_value: Any) -> Any:
    return clip_ops.clip_by_value(x, min_value, max_value)


def gradients(loss: Any, variables: list) -> list:
    return gradients_impl.gradients(loss, variables, colocate_gradients_with_ops=True)


def stop_gradient(variables: Any) -> Any:
    return array_ops.stop_gradient(variables)


# -- crossentropies (Keras' backend versions: probabilities unless from_logits; the logits
# of a Softmax/Sigmoid output are used directly) ------------------------------------------
def _logits_of(output: Any, op_type: str) -> Any:
    if isinstance(output, ops_lib.Tensor) and output.op.type == op_type and \
            len(output.op.inputs) == 1:
        return output.op.inputs[0]
    return None


def categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                             axis: int = -1) -> Any:
    target = convert_to_tensor(target)
    output = convert_to_tensor(output)
    target = math_ops.cast(target, output.dtype)
    if not from_logits:
        logits = _logits_of(output, "Softmax")
        if logits is None:
            output = output / math_ops.reduce_sum(output, axis, keepdims=True)
            eps = constant(epsilon(), dtype=output.dtype.base_dtype)
            output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
            return -math_ops.reduce_sum(target * math_ops.log(output), axis)
        output = logits
    return nn_ops.softmax_cross_entropy_with_logits_v2(labels=target, logits=output, axis=axis)


def sparse_categorical_crossentropy(target: Any, output: Any, from_logits: bool = False,
                                    axis: int = -1) -> Any:
    output = convert_to_tensor(output)
    if not from_logits:
        logits = _logits_of(output, "Softmax")
        if logits is None:
            eps = constant(epsilon(), dtype=output.dtype.base_dtype)
            output = math_ops.log(clip_ops.clip_by_value(output, eps, 1.0 - eps))
        else:
            output = logits
    rank = output.shape.ndims
    if axis not in (-1, rank - 1):
        raise NotImplementedError("sparse_categorical_crossentropy: only the last axis")
    target = math_ops.cast(convert_to_tensor(target), dtypes_lib.int64)
    num_classes = output.shape.as_list()[-1]
    flat_logits = array_ops.reshape(output, [-1, num_classes if num_classes else -1])
    res = nn_ops.sparse_softmax_cross_entropy_with_logits(
        labels=array_ops.reshape(target, [-1]), logits=flat_logits)
    if rank is not None and rank >= 3:
        return array_ops.reshape(res, array_ops.shape(output)[:-1])
    return res


def binary_crossentropy(target: Any, output: Any, from_logits: bool = False) -> Any:
    output = convert_to_tensor(output)
    target = math_ops.cast(convert_to_tensor(target), output.dtype)
    if not from_logits:
        logits = _logits_of(output, "Sigmoid")
        if logits is None:
            eps = constant(epsilon(), dtype=output.dtype.base_dtype)
            output = clip_ops.clip_by_value(output, eps, 1.0 - eps)
            bce = target * math_ops.log(output + epsilon())
            bce += (1 - target) * math_ops.log(1 - output + epsilon())
            return -bce
        output = logits
    return nn_impl.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
