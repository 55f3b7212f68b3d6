"""tf.layers.Layer and InputSpec: TF1's legacy layer base with graph-mode semantics.

A layer owns a variable scope, captured on its first call (``dense``, ``dense_1``... by
``variable_scope(default_name=...)``, or ``_scope``/``name`` when given); its variables
are made by ``tf.get_variable`` in that scope, so checkpoints interchange with TF's.
Later calls reuse the variables. Ops go under the scope's original name scope. The
layer's update ops join UPDATE_OPS and its losses REGULARIZATION_LOSSES, as TF's do.
"""

from __future__ import annotations

import collections
import inspect
import re
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, control_flow_ops, init_ops, math_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops import variables as variables_lib
from graphcore.train import trackable

__all__ = ["InputSpec", "Layer"]


class InputSpec:
    """The rank, dtype and shape a layer accepts (``ndim``, ``max_ndim``, ``min_ndim``,
    ``axes`` as {axis: size})."""

    def __init__(self, dtype: Any = None, shape: Any = None, ndim: int | None = None,
                 max_ndim: int | None = None, min_ndim: int | None = None,
                 axes: dict | None = None) -> None:
        self.dtype = dtypes_lib.as_dtype(dtype).name if dtype is not None else None
        shape = shape_lib.TensorShape(shape) if shape is not None else None
        self.shape = tuple(shape.as_list()) if shape is not None and \
            shape.ndims is not None else None
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}

    def __repr__(self) -> str:
        spec = [f"dtype={self.dtype}" if self.dtype else "",
                f"shape={self.shape}" if self.shape else "",
                f"ndim={self.ndim}" if self.ndim else "",
                f"max_ndim={self.max_ndim}" if self.max_ndim else "",
                f"min_ndim={self.min_ndim}" if self.min_ndim else "",
                f"axes={self.axes}" if self.axes else ""]
        return f"InputSpec({', '.join(x for x in spec if x)})"


def _assert_input_compatibility(spec: InputSpec | None, inputs: Any, layer_name: str) -> None:
    if spec is None:
        return
    for x in nest.flatten(inputs):
        shape = x.shape
        ndim = shape.ndims
        where = f"Input 0 of layer \"{layer_name}\" is incompatible with the layer: "
        if spec.ndim is not None and ndim is not None and ndim != spec.ndim:
            raise ValueError(f"{where}expected ndim={spec.ndim}, found ndim={ndim}. "
                             f"Full shape received: {tuple(shape.as_list())}")
        if spec.max_ndim is not None and ndim is not None and ndim > spec.max_ndim:
            raise ValueError(f"{where}expected max_ndim={spec.max_ndim}, found ndim={ndim}")
        if spec.min_ndim is not None and ndim is not None and ndim < spec.min_ndim:
            raise ValueError(f"{where}expected min_ndim={spec.min_ndim}, found ndim={ndim}. "
                             f"Full shape received: {tuple(shape.as_list())}")
        if spec.dtype is not None and x.dtype.base_dtype.name != spec.dtype:
            raise ValueError(f"{where}expected dtype={spec.dtype}, found dtype={x.dtype.name}")
        if spec.axes and ndim is not None:
            dims = shape.as_list()
            for axis, value in spec.axes.items():
                if value is not None and dims[axis] not in (value, None):
                    raise ValueError(f"{where}expected axis {axis} of input shape to have "
                                     f"value {value}, but received input with shape "
                                     f"{tuple(dims)}")


def _to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def _unique_layer_name(base_name: str) -> str:
    """``base_name``, then ``base_name_1``... per graph, as Keras names layer objects."""
    graph = ops_lib.get_default_graph()
    uids = graph.__dict__.setdefault("_layer_name_uids", collections.defaultdict(int))
    count = uids[base_name]
    uids[base_name] += 1
    return base_name if count == 0 else f"{base_name}_{count}"


def _add_elements_to_collection(elements: Any, collection_name: str) -> None:
    collection = ops_lib.get_collection_ref(collection_name)
    present = {id(e) for e in collection}
    for element in nest.flatten(elements):
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


class Layer:
    """Base layer: ``build(input_shape)`` makes the weights, ``call(inputs)`` the ops;
    ``__call__`` wraps both in the layer's variable scope."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        scope = kwargs.pop("_scope", None)
        self._reuse = kwargs.pop("_reuse", None)
        self._activity_regularizer = kwargs.pop("activity_regularizer", None)
        allowed = {"input_shape", "batch_input_shape", "batch_size", "weights", "autocast",
                   "input_dim", "dynamic", "experimental_autocast"}
        for kwarg in kwargs:
            if kwarg not in allowed:
                raise TypeError(f"Keyword argument not understood: {kwarg}")
        self.trainable = trainable
        self.built = False
        self._dtype = dtypes_lib.as_dtype(dtype).name if dtype is not None else None
        self.input_spec: Any = None
        self.supports_masking = False
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []
        self._updates: list = []
        self._losses: list = []
        self._call_has_scope_arg = "scope" in inspect.signature(self.call).parameters
        if isinstance(name, vs.VariableScope):
            base_name = name.name
            self._name = _unique_layer_name(_to_snake_case(type(self).__name__))
        else:
            base_name = name
            self._name = name
        if not name:
            base_name = _to_snake_case(type(self).__name__)
            self._name = _unique_layer_name(base_name)
        self._base_name = base_name
        self._scope = None
        if scope:
            with vs.variable_scope(scope) as captured_scope:
                self._scope = captured_scope
        self._current_scope = None

    # -- properties ---------------------------------------------------------------------
    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype)
    updates = property(lambda self: list(self._updates))
    losses = property(lambda self: list(self._losses))

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return list(self._trainable_weights) + list(self._non_trainable_weights)

    @property
    def weights(self) -> list:
        return self.trainable_weights + self.non_trainable_weights

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
    variables = weights

    @property
    def scope_name(self) -> str:
        if not self._scope:
            raise ValueError(f'No name available for layer scope because the layer "'
                             f'{self._name}" has not been used yet. The scope name  is '
                             "determined the first time the layer instance is called. You "
                             "must therefore call the layer before querying `scope_name`.")
        return self._scope.name

    # -- what subclasses override -------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        del input_shape
        self.built = True

    def call(self, inputs: Any, **kwargs: Any) -> Any:
        del kwargs
        return inputs

    def compute_output_shape(self, input_shape: Any) -> Any:
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement "
                                  "compute_output_shape.")

    # -- weights, updates and losses ----------------------------------------------------
    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None else self._base_name) \
                        as captured_scope:
                    self._scope = captured_scope
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured_scope:
                    self._scope = captured_scope

    def add_weight(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: bool | None = None,
                   constraint: Any = None, use_resource: Any = None, partitioner: Any = None,
                   **kwargs: Any) -> Any:
        """``tf.get_variable(name, ...)`` in the layer's scope (reused once built)."""
        del kwargs
        trainable = True if trainable is None else trainable
        dtype = dtypes_lib.as_dtype(dtype or self.dtype or dtypes_lib.float32)
        existing = {id(v) for v in variables_lib.global_variables()}
        self._set_scope(None)
        reuse = self.built or self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False) as scope:
            self._current_scope = scope
            with ops_lib.name_scope(scope.original_name_scope):
                if initializer is None:
                    initializer = scope.initializer
                if initializer is None:
                    # Keras's default: glorot uniform for floats, zeros otherwise.
                    initializer = init_ops.glorot_uniform_initializer() \
                        if dtype.is_floating else init_ops.zeros_initializer()
                variable = vs.get_variable(
                    name, shape=shape, dtype=dtype, initializer=initializer,
                    trainable=trainable and self.trainable, constraint=constraint,
                    partitioner=partitioner, use_resource=use_resource)
                # A PartitionedVariable's shards are the weights; like TF's, it is not
                # itself in TRAINABLE_VARIABLES, so they land among the non-trainable.
                parts = list(variable) if isinstance(variable, variables_lib.PartitionedVariable) \
                    else [variable]
                if trainable and self.trainable and \
                        any(variable is v for v in variables_lib.trainable_variables()):
                    self._trainable_weights.extend(parts)
                else:
                    self._non_trainable_weights.extend(parts)
                if trackable.is_trackable(variable):
                    self.__dict__.setdefault("_weights_by_name", {})[name] = variable
                if regularizer is not None and id(parts[0]) not in existing:
                    for part in parts:
                        with ops_lib.name_scope(name + "/Regularizer"):
                            loss = regularizer(part)
                        if loss is not None:
                            self.add_loss(loss)
        return variable

    def _trackable_children(self) -> dict[str, Any]:
        """Checkpoint dependencies (tf.train.Checkpoint): the weights by the names given
        to ``add_weight``, in creation order, as TF's tf.layers."""
        return dict(self.__dict__.get("_weights_by_name", {}))

    def add_variable(self, *args: Any, **kwargs: Any) -> Any:
        """Deprecated alias of ``add_weight``."""
        return self.add_weight(*args, **kwargs)

    def add_update(self, updates: Any, inputs: Any = None) -> None:
        """Records update ops (callables are called here), run by the UPDATE_OPS idiom."""
        del inputs
        for update in nest.flatten(updates):
            if callable(update):
                update = update()
            self._updates.append(update if isinstance(update, ops_lib.Operation)
                                 else update.op)

    def add_loss(self, losses: Any, inputs: Any = None) -> None:
        """Records losses and adds them to REGULARIZATION_LOSSES."""
        del inputs
        new = []
        for loss in nest.flatten(losses):
            if callable(loss):
                loss = loss()
            if loss is not None:
                new.append(convert_to_tensor(loss))
        self._losses.extend(new)
        _add_elements_to_collection(new, ops_lib.GraphKeys.REGULARIZATION_LOSSES)

    def get_updates_for(self, inputs: Any) -> list:
        del inputs
        return self.updates

    def get_losses_for(self, inputs: Any) -> list:
        del inputs
        return self.losses

    # -- calling ------------------------------------------------------------------------
    def apply(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        return self(inputs, *args, **kwargs)

    def __call__(self, inputs: Any, *args: Any, **kwargs: Any) -> Any:
        scope = kwargs.pop("scope", None)
        self._set_scope(scope)
        scope_context_manager = vs.variable_scope(
            self._scope, reuse=True if self.built else self._reuse, auxiliary_name_scope=False)
        with scope_context_manager as scope:
            self._current_scope = scope
            if self._call_has_scope_arg:
                kwargs["scope"] = scope
            with ops_lib.name_scope(scope.original_name_scope):
                inputs = nest.map_structure(convert_to_tensor, inputs)
                _assert_input_compatibility(self.input_spec, inputs, self.name)
                if not self.built:
                    first = nest.flatten(inputs)[0]
                    if self._dtype is None and first.dtype.is_floating:
                        self._dtype = first.dtype.base_dtype.name
                    shapes = nest.map_structure(lambda x: x.shape, inputs)
                    self.build(shapes)
                    self.built = True
                    _assert_input_compatibility(self.input_spec, inputs, self.name)
                outputs = self.call(inputs, *args, **kwargs)
                if outputs is None:
                    raise ValueError("A layer's `call` method should return a Tensor or a "
                                     f"list of Tensors, not None (layer: {self.name}).")
                if self._activity_regularizer is not None:
                    self._handle_activity_regularization(inputs, outputs)
        _add_elements_to_collection(self._updates, ops_lib.GraphKeys.UPDATE_OPS)
        return outputs

    def _handle_activity_regularization(self, inputs: Any, outputs: Any) -> None:
        with ops_lib.name_scope("ActivityRegularizer"):
            for output in nest.flatten(outputs):
                activity_loss = self._activity_regularizer(output)
                batch_size = math_ops.cast(array_ops.shape(output)[0], activity_loss.dtype)
                self.add_loss(activity_loss / batch_size, inputs=inputs)


def smart_cond(pred: Any, true_fn: Any, false_fn: Any, name: str | None = None) -> Any:
    """``true_fn()`` or ``false_fn()`` when ``pred`` is a Python bool or a constant, else a
    ``tf.cond`` (TF's ``smart_cond``, which layers use for ``training``)."""
    if isinstance(pred, (bool, int)):
        return true_fn() if pred else false_fn()
    value = tensor_util.constant_value(pred)
    if value is not None:
        return true_fn() if value else false_fn()
    return control_flow_ops.cond(pred, true_fn, false_fn, name=name)


def normalize_data_format(value: str | None) -> str:
    """``channels_last`` (the default) or ``channels_first``."""
    data_format = (value or "channels_last").lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError('The `data_format` argument must be one of "channels_first", '
                         f'"channels_last". Received: {value}')
    return data_format


def normalize_tuple(value: Any, n: int, name: str) -> tuple:
    """An int or an iterable of ``n`` ints as a tuple of ``n`` ints."""
    if isinstance(value, int):
        return (value,) * n
    try:
        value_tuple = tuple(value)
    except TypeError:
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}") from None
    if len(value_tuple) != n or not all(isinstance(v, int) for v in value_tuple):
        raise ValueError(f"The `{name}` argument must be a tuple of {n} integers. "
                         f"Received: {value}")
    return value_tuple


def conv_output_length(input_length: int | None, filter_size: int, padding: str,
                       stride: int, dilation: int = 1) -> int | None:
    """The length of a convolution's (or pooling's) output along one dimension."""
    if input_length is None:
        return None
    dilated = filter_size + (filter_size - 1) * (dilation - 1)
    if padding in ("same", "causal"):
        output_length = input_length
    else:
        output_length = input_length - dilated + 1
    return (output_length + stride - 1) // stride


def set_kernel_bias_args(layer: Layer, activation: Any, use_bias: bool,
                         kernel_initializer: Any, bias_initializer: Any,
                         kernel_regularizer: Any, bias_regularizer: Any,
                         kernel_constraint: Any, bias_constraint: Any) -> None:
    """The arguments Dense and the convolutions share (bias initialized to zeros)."""
    layer.activation = activation
    layer.use_bias = use_bias
    layer.kernel_initializer = kernel_initializer
    layer.bias_initializer = bias_initializer if bias_initializer is not None \
        else init_ops.zeros_initializer()
    layer.kernel_regularizer = kernel_regularizer
    layer.bias_regularizer = bias_regularizer
    layer.kernel_constraint = kernel_constraint
    layer.bias_constraint = bias_constraint


def add_kernel_and_bias(layer: Any, kernel_shape: Any, bias_shape: Any) -> None:
    """``layer.kernel`` and ``layer.bias`` (None without ``use_bias``) by ``add_weight``."""
    layer.kernel = layer.add_weight(
        "kernel", shape=kernel_shape, initializer=layer.kernel_initializer,
        regularizer=layer.kernel_regularizer, constraint=layer.kernel_constraint,
        dtype=layer.dtype, trainable=True)
    layer.bias = None
    if layer.use_bias:
        layer.bias = layer.add_weight(
            "bias", shape=bias_shape, initializer=layer.bias_initializer,
            regularizer=layer.bias_regularizer, constraint=layer.bias_constraint,
            dtype=layer.dtype, trainable=True)
