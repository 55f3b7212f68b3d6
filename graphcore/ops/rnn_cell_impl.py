"""TF1's RNN cells (``tf.nn.rnn_cell``): RNNCell, BasicRNNCell, GRUCell, BasicLSTMCell,
LSTMCell, MultiRNNCell and the Dropout/Residual/Device wrappers.

A cell builds its variables with ``tf.get_variable`` on its first call, in a variable
scope named after the cell (``rnn/basic_lstm_cell/kernel``; ``basic_lstm_cell_1`` for the
next cell in the same scope), and reuses that scope on later calls, as TF1's legacy
``tf.layers.Layer`` does; so variable names (and checkpoints) match TF's."""

from __future__ import annotations

import collections
import contextlib
import hashlib
import re
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, clip_ops, init_ops, math_ops, nn_ops
from graphcore.ops import variable_scope as vs

__all__ = ["RNNCell", "BasicRNNCell", "GRUCell", "BasicLSTMCell", "LSTMCell",
           "LSTMStateTuple", "MultiRNNCell", "DropoutWrapper", "ResidualWrapper",
           "DeviceWrapper"]

_BIAS_VARIABLE_NAME = "bias"
_WEIGHTS_VARIABLE_NAME = "kernel"


def _to_snake_case(name: str) -> str:
    intermediate = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    insecure = re.sub("([a-z])([A-Z])", r"\1_\2", intermediate).lower()
    return insecure if insecure[0] != "_" else "private" + insecure


def _check_supported_dtypes(dtype: Any) -> None:
    if dtype is None:
        return
    dtype = dtypes_lib.as_dtype(dtype)
    if not (dtype.is_floating or dtype.is_complex):
        raise ValueError("RNN cell only supports floating point inputs, but saw dtype: "
                         f"{dtype}")


def _check_rnn_cell_input_dtypes(inputs: Any) -> None:
    for t in nest.flatten(inputs):
        _check_supported_dtypes(t.dtype)


def _concat(prefix: Any, suffix: Any, static: bool = False) -> Any:
    """``prefix`` and ``suffix`` (ints, TensorShapes or Tensors) as one shape: a Tensor,
    or a list with None for unknown dims when ``static``."""
    if isinstance(prefix, ops_lib.Tensor):
        p = prefix
        p_static = tensor_util.constant_value(prefix)
        if p.shape.ndims == 0:
            p = array_ops.expand_dims(p, 0)
        elif p.shape.ndims != 1:
            raise ValueError("prefix tensor must be either a scalar or vector, but saw "
                             f"tensor: {p}")
    else:
        p = shape_lib.TensorShape(prefix)
        p_static = p.as_list() if p.ndims is not None else None
        p = (array_ops.constant(p.as_list(), dtype=dtypes_lib.int32)
             if p.is_fully_defined() else None)
    if isinstance(suffix, ops_lib.Tensor):
        s = suffix
        s_static = tensor_util.constant_value(suffix)
        if s.shape.ndims == 0:
            s = array_ops.expand_dims(s, 0)
        elif s.shape.ndims != 1:
            raise ValueError("suffix tensor must be either a scalar or vector, but saw "
                             f"tensor: {s}")
    else:
        s = shape_lib.TensorShape(suffix)
        s_static = s.as_list() if s.ndims is not None else None
        s = (array_ops.constant(s.as_list(), dtype=dtypes_lib.int32)
             if s.is_fully_defined() else None)
    if static:
        shape = shape_lib.TensorShape(p_static).concatenate(s_static)
        return shape.as_list() if shape.ndims is not None else None
    if p is None or s is None:
        raise ValueError(f"Provided a prefix or suffix of None: {prefix} and {suffix}")
    return array_ops.concat((p, s), 0)


def _zero_state_tensors(state_size: Any, batch_size: Any, dtype: Any) -> Any:
    def get_state_shape(s: Any) -> Any:
        zeros = array_ops.zeros(_concat(batch_size, s), dtype=dtype)
        zeros.set_shape(_concat(batch_size, s, static=True))
        return zeros

    return nest.map_structure(get_state_shape, state_size)


class RNNCell:
    """An RNN cell: ``(output, new_state) = cell(inputs, state)`` with ``state_size``
    and ``output_size`` properties (TF1's abstract ``tf.nn.rnn_cell.RNNCell``)."""

    def __init__(self, trainable: bool = True, name: str | None = None, dtype: Any = None,
                 **kwargs: Any) -> None:
        self._reuse = kwargs.pop("_reuse", None)
        if kwargs:
            raise TypeError(f"Keyword argument not understood: {sorted(kwargs)[0]}")
        self.trainable = trainable
        self._dtype = dtypes_lib.as_dtype(dtype).base_dtype if dtype is not None else None
        if isinstance(name, vs.VariableScope):
            self._base_name = name.name
        else:
            self._base_name = name or _to_snake_case(type(self).__name__)
        self._name = self._base_name
        self._scope: vs.VariableScope | None = None
        self._rnncell_scope: vs.VariableScope | None = None
        self.built = False
        self._trainable_weights: list = []
        self._non_trainable_weights: list = []

    name = property(lambda self: self._name)
    dtype = property(lambda self: self._dtype.name if self._dtype is not None else None)
    scope_name = property(lambda self: self._scope.name if self._scope else None)

    @property
    def state_size(self) -> Any:
        """Size(s) of the state: an int, a TensorShape or a nested tuple of them."""
        raise NotImplementedError("Abstract method")

    @property
    def output_size(self) -> Any:
        """Size of the output."""
        raise NotImplementedError("Abstract method")

    @property
    def trainable_weights(self) -> list:
        return list(self._trainable_weights) if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        if self.trainable:
            return list(self._non_trainable_weights)
        return self._trainable_weights + self._non_trainable_weights

    trainable_variables = property(lambda self: self.trainable_weights)
    weights = property(lambda self: self.trainable_weights + self.non_trainable_weights)
    variables = weights

    def build(self, inputs_shape: Any) -> None:
        del inputs_shape

    def call(self, inputs: Any, state: Any) -> tuple:
        raise NotImplementedError("Abstract method")

    def _rnn_get_variable(self, getter: Any, *args: Any, **kwargs: Any) -> Any:
        """A custom getter recording the variables the cell uses."""
        variable = getter(*args, **kwargs)
        graph = ops_lib.get_default_graph()
        trainable = any(variable is v for v in
                        graph.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES))
        weights = self._trainable_weights if trainable else self._non_trainable_weights
        if all(variable is not v for v in weights):
            weights.append(variable)
        return variable

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        """Runs the cell on ``inputs`` [batch, input_size] from ``state``."""
        if scope is not None:
            with vs.variable_scope(scope, custom_getter=self._rnn_get_variable) as scope:
                return self._layer_call(inputs, state, scope=scope)
        if self._rnncell_scope is None:
            self._rnncell_scope = vs.get_variable_scope()
        base = self._rnncell_scope
        # TF re-enters the scope current at the first call, and re-entering a
        # VariableScope opens a name scope named after its last part, relative to the
        # current one (so a MultiRNNCell's ops are under rnn/while/rnn/multi_rnn_cell).
        short = base.name.split("/")[-1]
        with vs.variable_scope(base, custom_getter=self._rnn_get_variable,
                               auxiliary_name_scope=False), \
                (ops_lib.name_scope(short) if short else contextlib.nullcontext()):
            return self._layer_call(inputs, state)

    def _set_scope(self, scope: Any = None) -> None:
        if self._scope is None:
            if self._reuse:
                with vs.variable_scope(scope if scope is not None
                                       else self._base_name) as captured:
                    self._scope = captured
            else:
                with vs.variable_scope(scope, default_name=self._base_name) as captured:
                    self._scope = captured

    def _layer_call(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        """TF1's legacy Layer.__call__: the cell's own scope, built once, then reused."""
        self._set_scope(scope)
        inputs = nest.map_structure(
            lambda x: x if isinstance(x, ops_lib.Tensor) else convert_to_tensor(x), inputs)
        reuse = True if self.built else self._reuse
        with vs.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            with ops_lib.name_scope(self._scope.original_name_scope):
                if not self.built:
                    if self._dtype is None:
                        self._dtype = nest.flatten(inputs)[0].dtype.base_dtype
                    shapes = nest.map_structure(lambda x: x.shape, inputs)
                    self.build(shapes)
                    self.built = True
                return self.call(inputs, state)

    def add_variable(self, name: str, shape: Any, dtype: Any = None, initializer: Any = None,
                     trainable: bool = True, partitioner: Any = None) -> Any:
        """A variable of the cell's scope (TF1's Layer.add_variable)."""
        with vs.variable_scope(self._scope, reuse=True if self.built else self._reuse,
                               auxiliary_name_scope=False):
            return self._rnn_get_variable(
                vs.get_variable, name, shape=shape, dtype=dtype or self._dtype,
                initializer=initializer, trainable=trainable and self.trainable,
                partitioner=partitioner)

    add_weight = add_variable

    def get_initial_state(self, inputs: Any = None, batch_size: Any = None,
                          dtype: Any = None) -> Any:
        if inputs is not None:
            inputs = convert_to_tensor(inputs, name="inputs")
            batch_size = inputs.shape.dims[0].value or array_ops.shape(inputs)[0]
            dtype = inputs.dtype
        if batch_size is None or dtype is None:
            raise ValueError("batch_size and dtype cannot be None while constructing "
                             f"initial state: batch_size={batch_size}, dtype={dtype}")
        return self.zero_state(batch_size, dtype)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        """Zero-filled state tensor(s) of shape [batch_size, s] for each s in
        ``state_size``."""
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            return _zero_state_tensors(self.state_size, batch_size, dtype)


class LayerRNNCell(RNNCell):
    """A cell whose variables are made in ``build`` (TF's LayerRNNCell): called as a
    layer, without RNNCell's re-entered outer scope."""

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        return self._layer_call(inputs, state, scope=scope)


def _input_depth(inputs_shape: Any) -> int:
    shape = shape_lib.TensorShape(inputs_shape)
    last = shape.dims[-1].value if shape.ndims else None
    if last is None:
        raise ValueError("Expected inputs.shape[-1] to be known, saw shape: "
                         f"{tuple(shape.as_list()) if shape.ndims is not None else shape}")
    return last


class BasicRNNCell(LayerRNNCell):
    """``output = new_state = activation(W [inputs, state] + b)``."""

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape: Any) -> None:
        input_depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self._dtype)
        self._kernel = self.add_variable(
            _WEIGHTS_VARIABLE_NAME, shape=[input_depth + self._num_units, self._num_units])
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME, shape=[self._num_units],
            initializer=init_ops.zeros_initializer(dtype=self._dtype))

    def call(self, inputs: Any, state: Any) -> tuple:
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        output = self._activation(gate_inputs)
        return output, output


class GRUCell(LayerRNNCell):
    """Gated Recurrent Unit cell (Cho et al. 2014), TF1's variables ``gates/kernel``,
    ``gates/bias``, ``candidate/kernel``, ``candidate/bias``."""

    def __init__(self, num_units: int, activation: Any = None, reuse: Any = None,
                 kernel_initializer: Any = None, bias_initializer: Any = None,
                 name: str | None = None, dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._activation = activation or math_ops.tanh
        self._kernel_initializer = kernel_initializer
        self._bias_initializer = bias_initializer

    state_size = property(lambda self: self._num_units)
    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape: Any) -> None:
        input_depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self._dtype)
        n = self._num_units
        self._gate_kernel = self.add_variable(
            f"gates/{_WEIGHTS_VARIABLE_NAME}", shape=[input_depth + n, 2 * n],
            initializer=self._kernel_initializer)
        self._gate_bias = self.add_variable(
            f"gates/{_BIAS_VARIABLE_NAME}", shape=[2 * n],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.constant_initializer(1.0, dtype=self._dtype)))
        self._candidate_kernel = self.add_variable(
            f"candidate/{_WEIGHTS_VARIABLE_NAME}", shape=[input_depth + n, n],
            initializer=self._kernel_initializer)
        self._candidate_bias = self.add_variable(
            f"candidate/{_BIAS_VARIABLE_NAME}", shape=[n],
            initializer=(self._bias_initializer if self._bias_initializer is not None
                         else init_ops.zeros_initializer(dtype=self._dtype)))

    def call(self, inputs: Any, state: Any) -> tuple:
        _check_rnn_cell_input_dtypes([inputs, state])
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, state], 1),
                                      self._gate_kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._gate_bias)
        value = math_ops.sigmoid(gate_inputs)
        r, u = array_ops.split(value=value, num_or_size_splits=2, axis=1)
        r_state = r * state
        candidate = math_ops.matmul(array_ops.concat([inputs, r_state], 1),
                                    self._candidate_kernel)
        candidate = nn_ops.bias_add(candidate, self._candidate_bias)
        c = self._activation(candidate)
        new_h = u * state + (1 - u) * c
        return new_h, new_h


class LSTMStateTuple(collections.namedtuple("LSTMStateTuple", ("c", "h"))):
    """The (c, h) state of an LSTM cell."""

    __slots__ = ()

    @property
    def dtype(self) -> Any:
        c, h = self
        if c.dtype != h.dtype:
            raise TypeError(f"Inconsistent internal state: {c.dtype} vs {h.dtype}")
        return c.dtype


class BasicLSTMCell(LayerRNNCell):
    """LSTM cell without peepholes or projection (Zaremba et al. 2014); ``forget_bias``
    is added to the forget gate."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Any = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        self._num_units = num_units
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh

    @property
    def state_size(self) -> Any:
        n = self._num_units
        return LSTMStateTuple(n, n) if self._state_is_tuple else 2 * n

    output_size = property(lambda self: self._num_units)

    def build(self, inputs_shape: Any) -> None:
        input_depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self._dtype)
        n = self._num_units
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[input_depth + n, 4 * n])
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME, shape=[4 * n],
            initializer=init_ops.zeros_initializer(dtype=self._dtype))

    def call(self, inputs: Any, state: Any) -> tuple:
        _check_rnn_cell_input_dtypes([inputs, state])
        sigmoid = math_ops.sigmoid
        one = array_ops.constant(1, dtype=dtypes_lib.int32)
        if self._state_is_tuple:
            c, h = state
        else:
            c, h = array_ops.split(value=state, num_or_size_splits=2, axis=one)
        gate_inputs = math_ops.matmul(array_ops.concat([inputs, h], 1), self._kernel)
        gate_inputs = nn_ops.bias_add(gate_inputs, self._bias)
        i, j, f, o = array_ops.split(value=gate_inputs, num_or_size_splits=4, axis=one)
        forget_bias_tensor = array_ops.constant(self._forget_bias, dtype=f.dtype)
        add, multiply = math_ops.add, math_ops.multiply
        new_c = add(multiply(c, sigmoid(add(f, forget_bias_tensor))),
                    multiply(sigmoid(i), self._activation(j)))
        new_h = multiply(self._activation(new_c), sigmoid(o))
        if self._state_is_tuple:
            new_state = LSTMStateTuple(new_c, new_h)
        else:
            new_state = array_ops.concat([new_c, new_h], 1)
        return new_h, new_state


class LSTMCell(LayerRNNCell):
    """LSTM cell with optional peepholes (``w_f_diag``, ``w_i_diag``, ``w_o_diag``), cell
    clipping and a projection layer (``projection/kernel``)."""

    def __init__(self, num_units: int, use_peepholes: bool = False, cell_clip: Any = None,
                 initializer: Any = None, num_proj: int | None = None, proj_clip: Any = None,
                 num_unit_shards: int | None = None, num_proj_shards: int | None = None,
                 forget_bias: float = 1.0, state_is_tuple: bool = True,
                 activation: Any = None, reuse: Any = None, name: str | None = None,
                 dtype: Any = None, **kwargs: Any) -> None:
        super().__init__(_reuse=reuse, name=name, dtype=dtype, **kwargs)
        _check_supported_dtypes(self._dtype)
        if num_unit_shards is not None or num_proj_shards is not None:
            raise NotImplementedError(
                "num_unit_shards / num_proj_shards (deprecated in TF) are not supported; "
                "use a variable scope with a partitioner instead.")
        self._num_units = num_units
        self._use_peepholes = use_peepholes
        self._cell_clip = cell_clip
        self._initializer = initializer
        self._num_proj = num_proj
        self._proj_clip = proj_clip
        self._forget_bias = forget_bias
        self._state_is_tuple = state_is_tuple
        self._activation = activation or math_ops.tanh
        h = num_proj if num_proj else num_units
        self._state_size = (LSTMStateTuple(num_units, h) if state_is_tuple
                            else num_units + h)
        self._output_size = h

    state_size = property(lambda self: self._state_size)
    output_size = property(lambda self: self._output_size)

    def build(self, inputs_shape: Any) -> None:
        input_depth = _input_depth(inputs_shape)
        _check_supported_dtypes(self._dtype)
        n = self._num_units
        h_depth = n if self._num_proj is None else self._num_proj
        self._kernel = self.add_variable(_WEIGHTS_VARIABLE_NAME,
                                         shape=[input_depth + h_depth, 4 * n],
                                         initializer=self._initializer)
        self._bias = self.add_variable(
            _BIAS_VARIABLE_NAME, shape=[4 * n],
            initializer=init_ops.zeros_initializer(dtype=self._dtype))
        if self._use_peepholes:
            self._w_f_diag = self.add_variable("w_f_diag", shape=[n],
                                               initializer=self._initializer)
            self._w_i_diag = self.add_variable("w_i_diag", shape=[n],
                                               initializer=self._initializer)
            self._w_o_diag = self.add_variable("w_o_diag", shape=[n],
                                               initializer=self._initializer)
        if self._num_proj is not None:
            self._proj_kernel = self.add_variable(
                f"projection/{_WEIGHTS_VARIABLE_NAME}", shape=[n, self._num_proj],
                initializer=self._initializer)

    def call(self, inputs: Any, state: Any) -> tuple:
        _check_rnn_cell_input_dtypes([inputs, state])
        num_proj = self._num_units if self._num_proj is None else self._num_proj
        sigmoid = math_ops.sigmoid
        if self._state_is_tuple:
            c_prev, m_prev = state
        else:
            c_prev = array_ops.slice(state, [0, 0], [-1, self._num_units])
            m_prev = array_ops.slice(state, [0, self._num_units], [-1, num_proj])
        input_size = inputs.get_shape().with_rank(2).dims[1].value
        if input_size is None:
            raise ValueError("Could not infer input size from inputs.get_shape()[-1]")
        lstm_matrix = math_ops.matmul(array_ops.concat([inputs, m_prev], 1), self._kernel)
        lstm_matrix = nn_ops.bias_add(lstm_matrix, self._bias)
        i, j, f, o = array_ops.split(value=lstm_matrix, num_or_size_splits=4, axis=1)
        if self._use_peepholes:
            c = (sigmoid(f + self._forget_bias + self._w_f_diag * c_prev) * c_prev
                 + sigmoid(i + self._w_i_diag * c_prev) * self._activation(j))
        else:
            c = sigmoid(f + self._forget_bias) * c_prev + sigmoid(i) * self._activation(j)
        if self._cell_clip is not None:
            c = clip_ops.clip_by_value(c, -self._cell_clip, self._cell_clip)
        if self._use_peepholes:
            m = sigmoid(o + self._w_o_diag * c) * self._activation(c)
        else:
            m = sigmoid(o) * self._activation(c)
        if self._num_proj is not None:
            m = math_ops.matmul(m, self._proj_kernel)
            if self._proj_clip is not None:
                m = clip_ops.clip_by_value(m, -self._proj_clip, self._proj_clip)
        new_state = (LSTMStateTuple(c, m) if self._state_is_tuple
                     else array_ops.concat([c, m], 1))
        return m, new_state


class MultiRNNCell(RNNCell):
    """Cells stacked: each cell's output is the next one's input; cell ``i`` builds its
    variables under ``cell_<i>``."""

    def __init__(self, cells: list, state_is_tuple: bool = True) -> None:
        super().__init__()
        if not cells:
            raise ValueError("Must specify at least one cell for MultiRNNCell.")
        if not nest.is_nested(cells):
            raise TypeError(f"cells must be a list or tuple, but saw: {cells}.")
        self._cells = cells
        self._state_is_tuple = state_is_tuple
        if not state_is_tuple and any(nest.is_nested(c.state_size) for c in cells):
            raise ValueError("Some cells return tuples of states, but the flag "
                             "state_is_tuple is not set.  State sizes are: "
                             f"{[c.state_size for c in cells]}")

    @property
    def state_size(self) -> Any:
        if self._state_is_tuple:
            return tuple(cell.state_size for cell in self._cells)
        return sum(cell.state_size for cell in self._cells)

    output_size = property(lambda self: self._cells[-1].output_size)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            if self._state_is_tuple:
                return tuple(cell.zero_state(batch_size, dtype) for cell in self._cells)
            return _zero_state_tensors(self.state_size, batch_size, dtype)

    @property
    def trainable_weights(self) -> list:
        if not self.trainable:
            return []
        return [w for cell in self._cells for w in cell.trainable_weights]

    @property
    def non_trainable_weights(self) -> list:
        weights = [w for cell in self._cells for w in cell.non_trainable_weights]
        if not self.trainable:
            return [w for cell in self._cells for w in cell.trainable_weights] + weights
        return weights

    def call(self, inputs: Any, state: Any) -> tuple:
        cur_state_pos = 0
        cur_inp = inputs
        new_states = []
        for i, cell in enumerate(self._cells):
            with vs.variable_scope(f"cell_{i}"):
                if self._state_is_tuple:
                    if not nest.is_nested(state):
                        raise ValueError(f"Expected state to be a tuple of length "
                                         f"{len(self.state_size)}, but received: {state}")
                    cur_state = state[i]
                else:
                    cur_state = array_ops.slice(state, [0, cur_state_pos],
                                                [-1, cell.state_size])
                    cur_state_pos += cell.state_size
                cur_inp, new_state = cell(cur_inp, cur_state)
                new_states.append(new_state)
        new_states = (tuple(new_states) if self._state_is_tuple
                      else array_ops.concat(new_states, 1))
        return cur_inp, new_states


class _RNNCellWrapper(RNNCell):
    """A cell around ``cell``: same state and output sizes, its own call."""

    def __init__(self, cell: RNNCell, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cell = cell

    wrapped_cell = property(lambda self: self.cell)
    state_size = property(lambda self: self.cell.state_size)
    output_size = property(lambda self: self.cell.output_size)
    trainable_weights = property(lambda self: self.cell.trainable_weights)
    non_trainable_weights = property(lambda self: self.cell.non_trainable_weights)

    def build(self, inputs_shape: Any) -> None:
        self.cell.build(inputs_shape)
        self.built = True

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            return self.cell.zero_state(batch_size, dtype)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        return self._call_wrapped_cell(inputs, state, self.cell.__call__, scope=scope)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> tuple:
        raise NotImplementedError


def _dropout_state_filter(substate: Any) -> Any:
    """TF's default: no dropout on an LSTM's memory ``c``."""
    if isinstance(substate, LSTMStateTuple):
        return LSTMStateTuple(c=False, h=True)
    return True


class DropoutWrapper(_RNNCellWrapper):
    """Dropout on a cell's inputs, outputs and state (keep probabilities); the
    variational (per-sequence) mask is not supported."""

    def __init__(self, cell: RNNCell, input_keep_prob: Any = 1.0, output_keep_prob: Any = 1.0,
                 state_keep_prob: Any = 1.0, variational_recurrent: bool = False,
                 input_size: Any = None, dtype: Any = None, seed: int | None = None,
                 dropout_state_filter_visitor: Any = None, **kwargs: Any) -> None:
        if variational_recurrent:
            raise NotImplementedError("DropoutWrapper(variational_recurrent=True) is not "
                                      "supported by graphcore")
        super().__init__(cell, dtype=dtype, **kwargs)
        if dropout_state_filter_visitor is not None and not callable(
                dropout_state_filter_visitor):
            raise TypeError("dropout_state_filter_visitor must be callable")
        self._dropout_state_filter = dropout_state_filter_visitor or _dropout_state_filter
        with ops_lib.name_scope("DropoutWrapperInit"):
            for prob, attr in ((input_keep_prob, "input_keep_prob"),
                               (state_keep_prob, "state_keep_prob"),
                               (output_keep_prob, "output_keep_prob")):
                tensor_prob = convert_to_tensor(prob)
                const_prob = tensor_util.constant_value(tensor_prob)
                if const_prob is not None:
                    if const_prob < 0 or const_prob > 1:
                        raise ValueError(f"Parameter {attr} must be between 0 and 1: "
                                         f"{int(const_prob)}")
                    setattr(self, f"_{attr}", float(const_prob))
                else:
                    setattr(self, f"_{attr}", tensor_prob)
        self._seed = seed

    def _gen_seed(self, salt_prefix: str, index: int) -> int | None:
        if self._seed is None:
            return None
        string = (str(self._seed) + f"{salt_prefix}_{index}").encode("utf-8")
        return int(hashlib.md5(string).hexdigest()[:8], 16) & 0x7FFFFFFF

    def _dropout(self, values: Any, salt_prefix: str, keep_prob: Any,
                 mask: Any = True) -> Any:
        flat_values = nest.flatten(values)
        flat_mask = _expand_mask(mask, values)
        out = []
        for i, (do_dropout, v) in enumerate(zip(flat_mask, flat_values)):
            out.append(nn_ops.dropout_v2(v, rate=1. - keep_prob,
                                         seed=self._gen_seed(salt_prefix, i))
                       if do_dropout else v)
        return nest.pack_sequence_as(values, out)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> tuple:
        def should_dropout(p: Any) -> bool:
            return not isinstance(p, float) or p < 1

        if should_dropout(self._input_keep_prob):
            inputs = self._dropout(inputs, "input", self._input_keep_prob)
        output, new_state = cell_call_fn(inputs, state, **kwargs)
        if should_dropout(self._state_keep_prob):
            mask = _state_mask(self._dropout_state_filter, new_state)
            new_state = self._dropout(new_state, "state", self._state_keep_prob, mask)
        if should_dropout(self._output_keep_prob):
            output = self._dropout(output, "output", self._output_keep_prob)
        return output, new_state


def _children(x: Any) -> list:
    return [x[k] for k in sorted(x)] if isinstance(x, dict) else list(x)


def _state_mask(visitor: Any, state: Any) -> Any:
    """Which parts of ``state`` get dropout (TF's get_traverse_shallow_structure over
    the filter): a bool for a whole part, else a list per child."""
    answer = visitor(state)
    if not nest.is_nested(state):
        return bool(answer)
    if isinstance(answer, bool):
        return [_state_mask(visitor, s) for s in _children(state)] if answer else False
    return [_state_mask(visitor, s) if flag else False
            for flag, s in zip(_children(answer), _children(state))]


def _expand_mask(mask: Any, values: Any) -> list:
    """A per-leaf list of booleans from ``mask`` laid over ``values``."""
    if isinstance(mask, bool):
        return [mask] * len(nest.flatten(values))
    return [flag for m, v in zip(mask, _children(values)) for flag in _expand_mask(m, v)]


class ResidualWrapper(_RNNCellWrapper):
    """The cell's output plus its input (or ``residual_fn(inputs, outputs)``)."""

    def __init__(self, cell: RNNCell, residual_fn: Any = None, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._residual_fn = residual_fn

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> tuple:
        outputs, new_state = cell_call_fn(inputs, state, **kwargs)

        def default_residual_fn(inputs: Any, outputs: Any) -> Any:
            nest.assert_same_structure(inputs, outputs)
            nest.map_structure(
                lambda i, o: i.get_shape().assert_is_compatible_with(o.get_shape()),
                inputs, outputs)
            return nest.map_structure(lambda i, o: i + o, inputs, outputs)

        return (self._residual_fn or default_residual_fn)(inputs, outputs), new_state


class DeviceWrapper(_RNNCellWrapper):
    """Runs the cell (and builds its zero state) on ``device``."""

    def __init__(self, cell: RNNCell, device: Any, **kwargs: Any) -> None:
        super().__init__(cell, **kwargs)
        self._device = device

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            with ops_lib.device(self._device):
                return self.cell.zero_state(batch_size, dtype)

    def _call_wrapped_cell(self, inputs: Any, state: Any, cell_call_fn: Any,
                           **kwargs: Any) -> tuple:
        with ops_lib.device(self._device):
            return cell_call_fn(inputs, state, **kwargs)


def assert_like_rnncell(cell_name: str, cell: Any) -> None:
    """Raises TypeError unless ``cell`` has output_size, state_size, zero_state and is
    callable."""
    conditions = [hasattr(cell, "output_size"), hasattr(cell, "state_size"),
                  hasattr(cell, "zero_state"), callable(cell)]
    messages = ["'output_size' property is missing", "'state_size' property is missing",
                "either 'zero_state' or 'get_initial_state' method is required",
                "is not callable"]
    if not all(conditions):
        missing = [m for m, ok in zip(messages, conditions) if not ok]
        raise TypeError(f"The argument {cell_name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(missing)}.")
