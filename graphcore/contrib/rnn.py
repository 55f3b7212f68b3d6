"""``tf.contrib.rnn`` (TF 1.15): the core RNN cells and static RNNs re-exported (the same
objects as ``tf.nn.rnn_cell`` / ``tf.nn``), ``stack_bidirectional_rnn`` /
``stack_bidirectional_dynamic_rnn``, and ``LSTMBlockCell``, the LSTMCell numerics under the
block cell's arguments and variables (``lstm_cell/kernel``, ``lstm_cell/bias``)."""

from __future__ import annotations

from typing import Any

# ruff: noqa: F401
from graphcore.ops import array_ops
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
)
from graphcore.ops.rnn_state_saving import static_state_saving_rnn

__all__ = ["BasicLSTMCell", "BasicRNNCell", "DeviceWrapper", "DropoutWrapper", "GRUCell",
           "LSTMBlockCell", "LSTMCell", "LSTMStateTuple", "MultiRNNCell", "RNNCell",
           "ResidualWrapper", "stack_bidirectional_dynamic_rnn", "stack_bidirectional_rnn",
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
