"""``tf.contrib.legacy_seq2seq`` (TF 1.15), the static-RNN decoder and its losses:
``rnn_decoder`` (optionally feeding each output back through ``loop_function``),
``basic_rnn_seq2seq``, ``tied_rnn_seq2seq``, ``sequence_loss_by_example`` and
``sequence_loss`` over lists of per-step tensors."""

from __future__ import annotations

import copy
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, math_ops, nn_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops.rnn import static_rnn

__all__ = ["basic_rnn_seq2seq", "rnn_decoder", "sequence_loss", "sequence_loss_by_example",
           "tied_rnn_seq2seq"]


def rnn_decoder(decoder_inputs: list, initial_state: Any, cell: Any,
                loop_function: Any = None, scope: Any = None) -> tuple:
    """(outputs, state) of ``cell`` over ``decoder_inputs`` from ``initial_state`` in scope
    ``rnn_decoder``; with ``loop_function``, step i > 0 takes ``loop_function(prev, i)``."""
    with vs.variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with vs.variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                vs.get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs: list, decoder_inputs: list, cell: Any,
                      dtype: Any = dtypes_lib.float32, scope: Any = None) -> tuple:
    """A copy of ``cell`` encodes ``encoder_inputs``; ``cell`` decodes from its final state."""
    with vs.variable_scope(scope or "basic_rnn_seq2seq"):
        _, enc_state = static_rnn(copy.deepcopy(cell), encoder_inputs, dtype=dtype)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs: list, decoder_inputs: list, cell: Any,
                     loop_function: Any = None, dtype: Any = dtypes_lib.float32,
                     scope: Any = None) -> tuple:
    """Encoder and decoder share ``cell`` and its variables (scope ``tied_rnn_seq2seq``)."""
    with vs.variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = static_rnn(cell, encoder_inputs, dtype=dtype, scope=scope)
        vs.get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function,
                           scope=scope)


def sequence_loss_by_example(logits: list, targets: list, weights: list,
                             average_across_timesteps: bool = True,
                             softmax_loss_function: Any = None,
                             name: str | None = None) -> Any:
    """Per-example weighted cross-entropy summed over the steps (divided by the summed
    weights + 1e-12 when ``average_across_timesteps``)."""
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same "
                         f"{len(logits)}, {len(weights)}, {len(targets)}.")
    with ops_lib.name_scope(name, "sequence_loss_by_example",
                            list(logits) + list(targets) + list(weights)):
        log_perps_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=array_ops.reshape(target, [-1]), logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perps_list.append(crossent * weight)
        log_perps = math_ops.add_n(log_perps_list)
        if average_across_timesteps:
            log_perps /= math_ops.add_n(weights) + 1e-12
    return log_perps


def sequence_loss(logits: list, targets: list, weights: list,
                  average_across_timesteps: bool = True, average_across_batch: bool = True,
                  softmax_loss_function: Any = None, name: str | None = None) -> Any:
    """The sum over the batch of ``sequence_loss_by_example`` (divided by the batch size
    when ``average_across_batch``)."""
    with ops_lib.name_scope(name, "sequence_loss",
                            list(logits) + list(targets) + list(weights)):
        cost = math_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = array_ops.shape(targets[0])[0]
            return cost / math_ops.cast(batch_size, cost.dtype)
        return cost
