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
    functional_ops,
    gradients_impl,
    manip_ops,
    math_compat,
    math_ops,
    nn_activation_ops,
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


# -- more of Keras' backend: thin functions over graphcore's ops ---------------------------
def _reduce(fn: Any) -> Any:
    def reduce(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
        return fn(x, axis=axis, keepdims=keepdims)
    return reduce


max = _reduce(math_ops.reduce_max)  # noqa: A001
min = _reduce(math_ops.reduce_min)  # noqa: A001
prod = _reduce(math_ops.reduce_prod)


def var(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if x.dtype.base_dtype == dtypes_lib.bool:
        x = math_ops.cast(x, floatx())
    return math_compat.reduce_variance(x, axis=axis, keepdims=keepdims)


def std(x: Any, axis: Any = None, keepdims: bool = False) -> Any:
    if x.dtype.base_dtype == dtypes_lib.bool:
        x = math_ops.cast(x, floatx())
    return math_compat.reduce_std(x, axis=axis, keepdims=keepdims)


def all(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return math_ops.reduce_all(math_ops.cast(x, dtypes_lib.bool), axis=axis,
                               keepdims=keepdims)


def any(x: Any, axis: Any = None, keepdims: bool = False) -> Any:  # noqa: A001
    return math_ops.reduce_any(math_ops.cast(x, dtypes_lib.bool), axis=axis,
                               keepdims=keepdims)


def argmin(x: Any, axis: int = -1) -> Any:
    return math_ops.argmin(x, axis)


def cumsum(x: Any, axis: int = 0) -> Any:
    return math_ops.cumsum(x, axis=axis)


def cumprod(x: Any, axis: int = 0) -> Any:
    return math_ops.cumprod(x, axis=axis)


def pow(x: Any, a: Any) -> Any:  # noqa: A001
    return math_ops.pow(x, a)


def sign(x: Any) -> Any:
    return math_ops.sign(x)


def round(x: Any) -> Any:  # noqa: A001
    return math_ops.round(x)


def sin(x: Any) -> Any:
    return math_ops.sin(x)


def cos(x: Any) -> Any:
    return math_ops.cos(x)


def softplus(x: Any) -> Any:
    return nn_ops.softplus(x)


def softsign(x: Any) -> Any:
    return nn_activation_ops.softsign(x)


def elu(x: Any, alpha: float = 1.0) -> Any:
    res = nn_ops.elu(x)
    return res if alpha == 1 else math_ops.where_v2(x > 0, res, alpha * res)


def hard_sigmoid(x: Any) -> Any:
    return clip(0.2 * x + 0.5, 0.0, 1.0)


def l2_normalize(x: Any, axis: Any = None) -> Any:
    return nn_ops.l2_normalize(x, axis=axis)


def _comparison(fn: Any) -> Any:
    def compare(x: Any, y: Any) -> Any:
        return fn(x, y)
    compare.__name__ = fn.__name__
    return compare


greater = _comparison(math_ops.greater)
greater_equal = _comparison(math_ops.greater_equal)
less = _comparison(math_ops.less)
less_equal = _comparison(math_ops.less_equal)
not_equal = _comparison(math_ops.not_equal)


def transpose(x: Any) -> Any:
    return array_ops.transpose(x)


def permute_dimensions(x: Any, pattern: Any) -> Any:
    return array_ops.transpose(x, perm=pattern)


def reverse(x: Any, axes: Any) -> Any:
    return array_ops.reverse(x, [axes] if isinstance(axes, int) else axes)


def tile(x: Any, n: Any) -> Any:
    return array_ops.tile(x, [n] if isinstance(n, int) else n)


def repeat(x: Any, n: int) -> Any:
    """[batch, dim] -> [batch, n, dim]."""
    return array_ops.tile(array_ops.expand_dims(x, 1), [1, n, 1])


def repeat_elements(x: Any, rep: int, axis: int) -> Any:
    return manip_ops.repeat(x, rep, axis=axis)


def stack(x: list, axis: int = 0) -> Any:
    return array_ops.stack(x, axis=axis)


def one_hot(indices: Any, num_classes: int) -> Any:
    return array_ops.one_hot(indices, depth=num_classes, axis=-1)


def zeros_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    return array_ops.zeros_like(x, dtype=dtype, name=name)


def ones_like(x: Any, dtype: Any = None, name: str | None = None) -> Any:
    return array_ops.ones_like(x, dtype=dtype, name=name)


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: str = "int32") -> Any:
    if stop is None and isinstance(start, (int, float)) and start < 0:
        start = 0
    result = math_ops.range(start, limit=stop, delta=step, name="arange")
    return result if dtype == "int32" else cast(result, dtype)


def gather(reference: Any, indices: Any) -> Any:
    return array_ops.gather(reference, indices)


def batch_flatten(x: Any) -> Any:
    """[batch, ...] -> [batch, prod(...)]."""
    return array_ops.reshape(x, array_ops.stack([-1, math_ops.reduce_prod(shape(x)[1:])]))


def bias_add(x: Any, bias: Any, data_format: str | None = None) -> Any:
    data_format = data_format or image_data_format()
    if data_format == "channels_first" and x.shape.ndims == 4 and bias.shape.ndims == 1:
        return nn_ops.bias_add(x, bias, data_format="NCHW")
    return nn_ops.bias_add(x, bias) if bias.shape.ndims == 1 else x + bias


def switch(condition: Any, then_expression: Any, else_expression: Any) -> Any:
    """``then_expression`` where ``condition`` holds, else ``else_expression`` (a scalar
    condition picks one of the two with tf.cond)."""
    condition = convert_to_tensor(condition)
    if condition.dtype != dtypes_lib.bool:
        condition = math_ops.cast(condition, dtypes_lib.bool)
    then_fn = then_expression if callable(then_expression) else lambda: then_expression
    else_fn = else_expression if callable(else_expression) else lambda: else_expression
    if condition.shape.ndims == 0:
        return control_flow_ops.cond(condition, then_fn, else_fn)
    return array_ops.where(condition, then_fn(), else_fn())


def in_train_phase(x: Any, alt: Any, training: Any = None) -> Any:
    """``x`` in the training phase, else ``alt``."""
    training = learning_phase() if training is None else training
    if training is True or training == 1 and isinstance(training, int):
        return x() if callable(x) else x
    if training is False or training == 0 and isinstance(training, int):
        return alt() if callable(alt) else alt
    return switch(training, x, alt)


def in_test_phase(x: Any, alt: Any, training: Any = None) -> Any:
    return in_train_phase(alt, x, training=training)


def update(x: Any, new_x: Any) -> Any:
    return state_ops.assign(x, new_x)


def update_add(x: Any, increment: Any) -> Any:
    return state_ops.assign_add(x, increment)


def update_sub(x: Any, decrement: Any) -> Any:
    return state_ops.assign_sub(x, decrement)


def count_params(x: Any) -> int:
    return int(np.prod(x.shape.as_list()))


def cast_to_floatx(x: Any) -> Any:
    if isinstance(x, (ops_lib.Tensor, variables_lib.Variable)):
        return math_ops.cast(x, dtype=floatx())
    return np.asarray(x, dtype=floatx())


def temporal_padding(x: Any, padding: Any = (1, 1)) -> Any:
    """Pads the middle axis of a 3-D tensor with zeros."""
    return array_ops.pad(x, [[0, 0], list(padding), [0, 0]])


def spatial_2d_padding(x: Any, padding: Any = ((1, 1), (1, 1)),
                       data_format: str | None = None) -> Any:
    data_format = data_format or image_data_format()
    pads = [[0, 0], list(padding[0]), list(padding[1]), [0, 0]]
    if data_format == "channels_first":
        pads = [[0, 0], [0, 0], list(padding[0]), list(padding[1])]
    return array_ops.pad(x, pads)


def is_keras_tensor(x: Any) -> bool:
    if not isinstance(x, (ops_lib.Tensor, variables_lib.Variable)):
        raise ValueError(f"Unexpectedly found an instance of type `{type(x)}`. Expected a "
                         "symbolic tensor instance.")
    # (made by a Keras layer: it has the history keras/engine.py records in its graph)
    return isinstance(x, ops_lib.Tensor) and \
        x in x.graph.__dict__.get("_keras_history", {})


def is_sparse(tensor: Any) -> bool:
    from graphcore.framework.sparse_tensor import SparseTensor
    return isinstance(tensor, SparseTensor)


def to_dense(tensor: Any) -> Any:
    if is_sparse(tensor):
        from graphcore.ops import sparse_ops
        return sparse_ops.sparse_tensor_to_dense(tensor)
    return tensor


def map_fn(fn: Any, elems: Any, name: str | None = None, dtype: Any = None) -> Any:
    return functional_ops.map_fn(fn, elems, name=name, dtype=dtype)


def foldl(fn: Any, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    return functional_ops.foldl(fn, elems, initializer=initializer, name=name)


def foldr(fn: Any, elems: Any, initializer: Any = None, name: str | None = None) -> Any:
    return functional_ops.foldr(fn, elems, initializer=initializer, name=name)


__all__ += [
    "all", "any", "arange", "argmin", "batch_flatten", "bias_add", "cast_to_floatx", "cos",
    "count_params", "cumprod", "cumsum", "elu", "foldl", "foldr", "gather", "greater",
    "greater_equal", "hard_sigmoid", "in_test_phase", "in_train_phase", "is_keras_tensor",
    "is_sparse", "l2_normalize", "less", "less_equal", "map_fn", "max", "min", "not_equal",
    "one_hot", "ones_like", "permute_dimensions", "pow", "prod", "repeat", "repeat_elements",
    "reverse", "round", "sign", "sin", "softplus", "softsign", "spatial_2d_padding", "stack",
    "std", "switch", "temporal_padding", "tile", "to_dense", "transpose", "update",
    "update_add", "update_sub", "var", "zeros_like",
]
