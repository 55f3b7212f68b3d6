"""``tf.contrib.rnn`` (TF 1.15): the core RNN cells and static RNNs re-exported (the same
objects as ``tf.nn.rnn_cell`` / ``tf.nn``), ``stack_bidirectional_rnn`` /
``stack_bidirectional_dynamic_rnn``, and ``LSTMBlockCell``, the LSTMCell numerics under the
block cell's arguments and variables (``lstm_cell/kernel``, ``lstm_cell/bias``), and
``LayerNormBasicLSTMCell`` (layer-normalized gates and state, recurrent dropout), and the
legacy wrappers ``EmbeddingWrapper``, ``InputProjectionWrapper``, ``OutputProjectionWrapper``
(variables ``embedding`` / ``kernel`` / ``bias`` in the wrapper's own scope)."""

from __future__ import annotations

import math
from typing import Any

# ruff: noqa: F401
from graphcore.contrib.layers.normalization import layer_norm
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.ops import array_ops, embedding_ops, init_ops, math_ops, nn_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops.rnn import (
    bidirectional_dynamic_rnn,
    static_bidirectional_rnn,
    static_rnn,
)
from graphcore.ops.rnn_cell_impl import (
    BasicLSTMCell,
    BasicRNNCell,
    DeviceWrapper,
    DropoutWrapper,
    GRUCell,
    LSTMCell,
    LSTMStateTuple,
    MultiRNNCell,
    ResidualWrapper,
    RNNCell,
    assert_like_rnncell,
)
from graphcore.ops.rnn_state_saving import static_state_saving_rnn

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper",
           "EmbeddingWrapper", "GRUCell", "InputProjectionWrapper", "LSTMBlockCell",
           "LSTMCell", "LSTMStateTuple", "LayerNormBasicLSTMCell", "MultiRNNCell",
           "OutputProjectionWrapper", "RNNCell", "ResidualWrapper",
           "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn",
           "static_bidirectional_rnn", "static_rnn", "static_state_saving_rnn"]


class LSTMBlockCell(LSTMCell):
    """TF's fused-kernel LSTM cell: gates [i, ci, f, o] from ``kernel`` [input + units,
    4 * units] and ``bias``, ``forget_bias`` added to f, optional peepholes (``w_i_diag``,
    ``w_f_diag``, ``w_o_diag``) and ``cell_clip``; state an LSTMStateTuple."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, cell_clip: Any = None,
                 use_peephole: bool = False, dtype: Any = None, reuse: Any = None,
                 name: str = "lstm_cell") -> None:
        super().__init__(num_units, use_peepholes=use_peephole,
                         cell_clip=None if cell_clip is None or cell_clip < 0 else cell_clip,
                         forget_bias=forget_bias, reuse=reuse, name=name, dtype=dtype)


class LayerNormBasicLSTMCell(RNNCell):
    """LSTM whose four gate pre-activations and new cell state are layer-normalized
    (``<gate>/gamma``, ``<gate>/beta`` for input, transform, forget, output and state, from
    ``norm_gain`` / ``norm_shift``), with ``kernel`` [input + units, 4 * units] (a ``bias``
    only without layer_norm) and dropout (keep ``dropout_keep_prob``) on the candidate."""

    def __init__(self, num_units: int, forget_bias: float = 1.0, input_size: Any = None,
                 activation: Any = math_ops.tanh, layer_norm: bool = True,
                 norm_gain: float = 1.0, norm_shift: float = 0.0,
                 dropout_keep_prob: Any = 1.0, dropout_prob_seed: int | None = None,
                 reuse: Any = None) -> None:
        super().__init__(_reuse=reuse)
        del input_size
        self._num_units = num_units
        self._activation = activation
        self._forget_bias = forget_bias
        self._keep_prob = dropout_keep_prob
        self._seed = dropout_prob_seed
        self._layer_norm = layer_norm
        self._g = norm_gain
        self._b = norm_shift

    state_size = property(lambda self: LSTMStateTuple(self._num_units, self._num_units))
    output_size = property(lambda self: self._num_units)

    def _norm(self, inp: Any, scope: str, dtype: Any) -> Any:
        shape = inp.get_shape()[-1:]
        with vs.variable_scope(scope):
            vs.get_variable("gamma", shape=shape, dtype=dtype,
                            initializer=init_ops.constant_initializer(self._g))
            vs.get_variable("beta", shape=shape, dtype=dtype,
                            initializer=init_ops.constant_initializer(self._b))
        return layer_norm(inp, reuse=True, scope=scope)

    def _linear(self, args: Any) -> Any:
        out_size = 4 * self._num_units
        weights = vs.get_variable("kernel", [args.get_shape()[-1], out_size], dtype=args.dtype)
        out = math_ops.matmul(args, weights)
        if not self._layer_norm:
            out = nn_ops.bias_add(out, vs.get_variable("bias", [out_size], dtype=args.dtype))
        return out

    def call(self, inputs: Any, state: Any) -> tuple:
        c, h = state
        args = array_ops.concat([inputs, h], 1)
        dtype = args.dtype
        i, j, f, o = array_ops.split(value=self._linear(args), num_or_size_splits=4, axis=1)
        if self._layer_norm:
            i = self._norm(i, "input", dtype)
            j = self._norm(j, "transform", dtype)
            f = self._norm(f, "forget", dtype)
            o = self._norm(o, "output", dtype)
        g = self._activation(j)
        if not isinstance(self._keep_prob, float) or self._keep_prob < 1:
            g = nn_ops.dropout(g, self._keep_prob, seed=self._seed)
        new_c = c * math_ops.sigmoid(f + self._forget_bias) + math_ops.sigmoid(i) * g
        if self._layer_norm:
            new_c = self._norm(new_c, "state", dtype)
        new_h = self._activation(new_c) * math_ops.sigmoid(o)
        return new_h, LSTMStateTuple(new_c, new_h)


class _Linear:
    """``args @ kernel (+ bias)`` with ``kernel`` [input depth, output_size] and ``bias``
    (zeros, never partitioned) made in the current variable scope."""

    def __init__(self, args: Any, output_size: int, build_bias: bool) -> None:
        shape = args.get_shape()
        if shape.ndims != 2:
            raise ValueError(f"linear is expecting 2D arguments: {[shape]}")
        depth = shape_lib.dimension_value(shape[1])
        if depth is None:
            raise ValueError(f"linear expects shape[1] to be provided for shape {shape}, but "
                             "saw None.")
        self._build_bias = build_bias
        with vs.variable_scope(vs.get_variable_scope()) as outer_scope:
            self._weights = vs.get_variable("kernel", [depth, output_size], dtype=args.dtype)
            if build_bias:
                with vs.variable_scope(outer_scope) as inner_scope:
                    inner_scope.set_partitioner(None)
                    self._biases = vs.get_variable(
                        "bias", [output_size], dtype=args.dtype,
                        initializer=init_ops.constant_initializer(0.0, dtype=args.dtype))

    def __call__(self, args: Any) -> Any:
        res = math_ops.matmul(args, self._weights)
        return nn_ops.bias_add(res, self._biases) if self._build_bias else res


class EmbeddingWrapper(RNNCell):
    """``cell`` on the embeddings (variable ``embedding`` [embedding_classes,
    embedding_size], on /cpu:0, uniform in +-sqrt(3) by default) of integer inputs."""

    def __init__(self, cell: Any, embedding_classes: int, embedding_size: int,
                 initializer: Any = None, reuse: Any = None) -> None:
        super().__init__(_reuse=reuse)
        assert_like_rnncell("cell", cell)
        if embedding_classes <= 0 or embedding_size <= 0:
            raise ValueError("Both embedding_classes and embedding_size must be > 0: "
                             f"{embedding_classes}, {embedding_size}.")
        self._cell = cell
        self._embedding_classes = embedding_classes
        self._embedding_size = embedding_size
        self._initializer = initializer

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> tuple:
        with ops_lib.device("/cpu:0"):
            initializer = self._initializer or vs.get_variable_scope().initializer
            if not initializer:
                sqrt3 = math.sqrt(3)   # Uniform(-sqrt(3), sqrt(3)) has variance 1.
                initializer = init_ops.random_uniform_initializer(-sqrt3, sqrt3)
            data_type = state[0].dtype if isinstance(state, tuple) else state.dtype
            embedding = vs.get_variable("embedding",
                                        [self._embedding_classes, self._embedding_size],
                                        initializer=initializer, dtype=data_type)
            embedded = embedding_ops.embedding_lookup(embedding,
                                                      array_ops.reshape(inputs, [-1]))
            return self._cell(embedded, state)


class InputProjectionWrapper(RNNCell):
    """``cell`` on ``activation(inputs @ kernel + bias)`` of depth ``num_proj``."""

    def __init__(self, cell: Any, num_proj: int, activation: Any = None,
                 input_size: Any = None, reuse: Any = None) -> None:
        super().__init__(_reuse=reuse)
        del input_size
        assert_like_rnncell("cell", cell)
        self._cell = cell
        self._num_proj = num_proj
        self._activation = activation
        self._linear: _Linear | None = None

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._cell.output_size)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> tuple:
        if self._linear is None:
            self._linear = _Linear(inputs, self._num_proj, True)
        projected = self._linear(inputs)
        if self._activation:
            projected = self._activation(projected)
        return self._cell(projected, state)


class OutputProjectionWrapper(RNNCell):
    """``cell`` whose output is projected to ``output_size``: ``activation(output @ kernel
    + bias)``."""

    def __init__(self, cell: Any, output_size: int, activation: Any = None,
                 reuse: Any = None) -> None:
        super().__init__(_reuse=reuse)
        assert_like_rnncell("cell", cell)
        if output_size < 1:
            raise ValueError(f"Parameter output_size must be > 0: {output_size}.")
        self._cell = cell
        self._output_size = output_size
        self._activation = activation
        self._linear: _Linear | None = None

    state_size = property(lambda self: self._cell.state_size)
    output_size = property(lambda self: self._output_size)

    def zero_state(self, batch_size: Any, dtype: Any) -> Any:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            return self._cell.zero_state(batch_size, dtype)

    def call(self, inputs: Any, state: Any) -> tuple:
        output, res_state = self._cell(inputs, state)
        if self._linear is None:
            self._linear = _Linear(output, self._output_size, True)
        projected = self._linear(output)
        if self._activation:
            projected = self._activation(projected)
        return projected, res_state


def _check_stack_args(cells_fw: Any, cells_bw: Any, initial_states_fw: Any,
                      initial_states_bw: Any) -> None:
    if not cells_fw:
        raise ValueError("Must specify at least one fw cell for BidirectionalRNN.")
    if not cells_bw:
        raise ValueError("Must specify at least one bw cell for BidirectionalRNN.")
    if not isinstance(cells_fw, list):
        raise ValueError("cells_fw must be a list of RNNCells (one per layer).")
    if not isinstance(cells_bw, list):
        raise ValueError("cells_bw must be a list of RNNCells (one per layer).")
    if len(cells_fw) != len(cells_bw):
        raise ValueError("Forward and Backward cells must have the same depth.")
    for states, cells, what in ((initial_states_fw, cells_fw, "fw"),
                                (initial_states_bw, cells_bw, "bw")):
        if states is not None and (not isinstance(states, list) or len(states) != len(cells)):
            raise ValueError(f"initial_states_{what} must be a list of state tensors (one per "
                             "layer).")


def stack_bidirectional_rnn(cells_fw: list, cells_bw: list, inputs: list,
                            initial_states_fw: list | None = None,
                            initial_states_bw: list | None = None, dtype: Any = None,
                            sequence_length: Any = None, scope: Any = None) -> tuple:
    """Layers of ``static_bidirectional_rnn``, each fed the previous layer's concatenated
    outputs, in scopes ``stack_bidirectional_rnn/cell_<i>``; returns (outputs, fw states,
    bw states)."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope(f"cell_{i}") as cell_scope:
                prev_layer, state_fw, state_bw = static_bidirectional_rnn(
                    cell_fw, cell_bw, prev_layer,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, dtype=dtype, scope=cell_scope)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)


def stack_bidirectional_dynamic_rnn(cells_fw: list, cells_bw: list, inputs: Any,
                                    initial_states_fw: list | None = None,
                                    initial_states_bw: list | None = None, dtype: Any = None,
                                    sequence_length: Any = None,
                                    parallel_iterations: int | None = None,
                                    time_major: bool = False, scope: Any = None,
                                    swap_memory: bool = False) -> tuple:
    """Layers of ``bidirectional_dynamic_rnn``, each fed the previous layer's outputs
    concatenated on the last axis, in scopes ``stack_bidirectional_rnn/cell_<i>``; returns
    (outputs, fw states, bw states)."""
    _check_stack_args(cells_fw, cells_bw, initial_states_fw, initial_states_bw)
    states_fw, states_bw = [], []
    prev_layer = inputs
    with vs.variable_scope(scope or "stack_bidirectional_rnn"):
        for i, (cell_fw, cell_bw) in enumerate(zip(cells_fw, cells_bw)):
            with vs.variable_scope(f"cell_{i}"):
                outputs, (state_fw, state_bw) = bidirectional_dynamic_rnn(
                    cell_fw, cell_bw, prev_layer,
                    initial_state_fw=initial_states_fw[i] if initial_states_fw else None,
                    initial_state_bw=initial_states_bw[i] if initial_states_bw else None,
                    sequence_length=sequence_length, parallel_iterations=parallel_iterations,
                    dtype=dtype, swap_memory=swap_memory, time_major=time_major)
                prev_layer = array_ops.concat(outputs, 2)
            states_fw.append(state_fw)
            states_bw.append(state_bw)
    return prev_layer, tuple(states_fw), tuple(states_bw)
