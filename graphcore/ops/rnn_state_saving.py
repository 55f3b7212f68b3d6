"""tf.nn.static_state_saving_rnn (TF's ``rnn.static_state_saving_rnn``): static_rnn whose
initial state comes from a state saver and whose final state is saved back before the
last output and the state are returned."""

from __future__ import annotations

from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops
from graphcore.ops.rnn import static_rnn

__all__ = ["static_state_saving_rnn"]


def static_state_saving_rnn(cell: Any, inputs: list, state_saver: Any, state_name: Any,
                            sequence_length: Any = None, scope: Any = None) -> tuple:
    """(outputs, state) of static_rnn started from ``state_saver.state(state_name)``; the
    outputs' last element and the state depend on ``state_saver.save_state``."""
    state_size = cell.state_size
    state_is_tuple = nest.is_nested(state_size)
    state_name_tuple = nest.is_nested(state_name)
    if state_is_tuple != state_name_tuple:
        raise ValueError("Argument `state_name` should be the same type as "
                         f"`cell.state_size`. Received: state_name={state_name!s}, "
                         f"cell.state_size={state_size!s}.")
    if state_is_tuple:
        state_name_flat = nest.flatten(state_name)
        state_size_flat = nest.flatten(state_size)
        if len(state_name_flat) != len(state_size_flat):
            raise ValueError("Number of elements in argument `state_name` and "
                             "`cell.state_size` are mismatched. Received "
                             f"state_name={state_name} with {len(state_name_flat)} "
                             f"elements and cell.state_size={cell.state_size} with "
                             f"{len(state_size_flat)} elements.")
        initial_state = nest.pack_sequence_as(
            state_size, [state_saver.state(s) for s in state_name_flat])
    else:
        initial_state = state_saver.state(state_name)
    outputs, state = static_rnn(cell, inputs, initial_state=initial_state,
                                sequence_length=sequence_length, scope=scope)
    if state_is_tuple:
        flat_state = nest.flatten(state)
        save_state = [state_saver.save_state(name, substate)
                      for name, substate in zip(nest.flatten(state_name), flat_state)]
    else:
        save_state = [state_saver.save_state(state_name, state)]
    with ops_lib.control_dependencies(save_state):
        last_output = outputs[-1]
        flat_last_output = [array_ops.identity(o) for o in nest.flatten(last_output)]
        outputs[-1] = nest.pack_sequence_as(last_output, flat_last_output)
        if state_is_tuple:
            state = nest.pack_sequence_as(state,
                                          [array_ops.identity(s) for s in flat_state])
        else:
            state = array_ops.identity(state)
    return outputs, state
