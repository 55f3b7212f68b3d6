"""``tf.contrib.crf`` (TF 1.15): a linear-chain conditional random field over [batch, time,
num_tags] unary potentials and a [num_tags, num_tags] transition matrix — sequence scores,
the log partition function (forward algorithm as a dynamic_rnn of CrfForwardRnnCell), the
log-likelihood (variable ``transitions`` when none is given), Viterbi decoding in numpy
(``viterbi_decode``) and in the graph (``crf_decode``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers.base import smart_cond
from graphcore.ops import (
    array_ops,
    control_flow_ops,
    elementwise_ops,
    manip_ops,
    math_ops,
    scatter_ops,
)
from graphcore.ops import variable_scope as vs
from graphcore.ops.rnn import dynamic_rnn
from graphcore.ops.rnn_cell_impl import RNNCell

__all__ = ["CrfDecodeBackwardRnnCell", "CrfDecodeForwardRnnCell", "CrfForwardRnnCell",
           "crf_binary_score", "crf_decode", "crf_log_likelihood", "crf_log_norm",
           "crf_sequence_score", "crf_unary_score", "viterbi_decode"]


def _is_single_step(inputs: Any) -> Any:
    steps = shape_lib.dimension_value(inputs.shape[1])
    return math_ops.equal(steps or array_ops.shape(inputs)[1], 1)


def _mask_empty(values: Any, sequence_lengths: Any) -> Any:
    """``values`` with 0 for the sequences of length <= 0."""
    return array_ops.where(math_ops.less_equal(sequence_lengths, 0),
                           array_ops.zeros_like(values), values)


def crf_sequence_score(inputs: Any, tag_indices: Any, sequence_lengths: Any,
                       transition_params: Any) -> Any:
    """The unnormalized score of each tag sequence: its unary plus transition scores."""
    inputs = convert_to_tensor(inputs)
    tag_indices = convert_to_tensor(tag_indices)

    def single_step() -> Any:
        batch_size = array_ops.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = array_ops.reshape(
            math_ops.range(batch_size, dtype=tag_indices.dtype), [-1, 1])
        scores = scatter_ops.gather_nd(array_ops.squeeze(inputs, [1]),
                                       array_ops.concat([example_inds, tag_indices], axis=1))
        return _mask_empty(scores, sequence_lengths)

    def multi_step() -> Any:
        return (crf_unary_score(tag_indices, sequence_lengths, inputs) +
                crf_binary_score(tag_indices, sequence_lengths, transition_params))

    return smart_cond(_is_single_step(inputs), single_step, multi_step)


def crf_unary_score(tag_indices: Any, sequence_lengths: Any, inputs: Any) -> Any:
    """The sum over each sequence's valid steps of the potential of its tag."""
    inputs = convert_to_tensor(inputs)
    tag_indices = convert_to_tensor(tag_indices)
    batch_size = array_ops.shape(inputs)[0]
    max_seq_len = array_ops.shape(inputs)[1]
    num_tags = array_ops.shape(inputs)[2]
    flattened_inputs = array_ops.reshape(inputs, [-1])
    offsets = array_ops.expand_dims(math_ops.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += array_ops.expand_dims(math_ops.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == dtypes_lib.int64:
        offsets = math_ops.cast(offsets, dtypes_lib.int64)
    flattened_tag_indices = array_ops.reshape(offsets + tag_indices, [-1])
    unary_scores = array_ops.reshape(
        array_ops.gather(flattened_inputs, flattened_tag_indices), [batch_size, max_seq_len])
    masks = array_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                    dtype=dtypes_lib.float32)
    return math_ops.reduce_sum(unary_scores * masks, 1)


def crf_binary_score(tag_indices: Any, sequence_lengths: Any, transition_params: Any) -> Any:
    """The sum over each sequence's valid transitions of their transition scores."""
    tag_indices = convert_to_tensor(tag_indices)
    transition_params = convert_to_tensor(transition_params)
    num_tags = shape_lib.dimension_value(transition_params.get_shape()[0])
    num_transitions = array_ops.shape(tag_indices)[1] - 1
    start_tag_indices = array_ops.slice(tag_indices, [0, 0], [-1, num_transitions])
    end_tag_indices = array_ops.slice(tag_indices, [0, 1], [-1, num_transitions])
    flattened_transition_indices = start_tag_indices * num_tags + end_tag_indices
    flattened_transition_params = array_ops.reshape(transition_params, [-1])
    binary_scores = array_ops.gather(flattened_transition_params, flattened_transition_indices)
    masks = array_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                    dtype=dtypes_lib.float32)
    truncated_masks = array_ops.slice(masks, [0, 1], [-1, -1])
    return math_ops.reduce_sum(binary_scores * truncated_masks, 1)


class _TransitionCell(RNNCell):
    """A step over tags with the [num_tags, num_tags] transition scores broadcast over
    the batch; state and output are num_tags wide."""

    def __init__(self, transition_params: Any) -> None:
        super().__init__()
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = shape_lib.dimension_value(transition_params.shape[0])

    state_size = property(lambda self: self._num_tags)
    output_size = property(lambda self: self._num_tags)

    def _scores(self, state: Any) -> Any:
        """score[b, i, j]: the state's score of tag i plus the transition i -> j."""
        return array_ops.expand_dims(state, 2) + self._transition_params


class CrfForwardRnnCell(_TransitionCell):
    """One step of the forward algorithm: ``alpha' = inputs + logsumexp(alpha + T)``."""

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        transition_scores = self._scores(state)
        new_alphas = inputs + elementwise_ops.reduce_logsumexp(transition_scores, [1])
        return new_alphas, new_alphas


def crf_log_norm(inputs: Any, sequence_lengths: Any, transition_params: Any) -> Any:
    """The log partition function of each sequence (0 for empty ones)."""
    inputs = convert_to_tensor(inputs)
    sequence_lengths = convert_to_tensor(sequence_lengths)
    first_input = array_ops.squeeze(array_ops.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def single_step() -> Any:
        return _mask_empty(elementwise_ops.reduce_logsumexp(first_input, [1]),
                           sequence_lengths)

    def multi_step() -> Any:
        rest_of_input = array_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        lengths_less_one = math_ops.maximum(
            array_ops.constant(0, dtype=sequence_lengths.dtype), sequence_lengths - 1)
        _, alphas = dynamic_rnn(CrfForwardRnnCell(transition_params), rest_of_input,
                                sequence_length=lengths_less_one, initial_state=first_input,
                                dtype=dtypes_lib.float32)
        return _mask_empty(elementwise_ops.reduce_logsumexp(alphas, [1]), sequence_lengths)

    return control_flow_ops.cond(math_ops.equal(array_ops.shape(inputs)[1], 1), single_step,
                                 multi_step)


def crf_log_likelihood(inputs: Any, tag_indices: Any, sequence_lengths: Any,
                       transition_params: Any = None) -> tuple:
    """(log-likelihood of each tag sequence, transition matrix); the matrix is the variable
    ``transitions`` [num_tags, num_tags] of the current scope when none is given."""
    inputs = convert_to_tensor(inputs)
    num_tags = shape_lib.dimension_value(inputs.shape[2])
    if transition_params is None:
        transition_params = vs.get_variable("transitions", [num_tags, num_tags])
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths,
                                         transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def viterbi_decode(score: np.ndarray, transition_params: np.ndarray) -> tuple:
    """(best tag list, its score) of one [time, num_tags] score matrix, in numpy."""
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


class CrfDecodeForwardRnnCell(_TransitionCell):
    """One Viterbi step: the best previous tag per tag (output) and the best scores."""

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        transition_scores = self._scores(state)
        new_state = inputs + math_ops.reduce_max(transition_scores, [1])
        backpointers = math_ops.cast(math_ops.argmax(transition_scores, 1), dtypes_lib.int32)
        return backpointers, new_state


class CrfDecodeBackwardRnnCell(RNNCell):
    """One step back through the backpointers: the previous tag of the current one."""

    def __init__(self, num_tags: int) -> None:
        super().__init__()
        self._num_tags = num_tags

    state_size = property(lambda self: 1)
    output_size = property(lambda self: 1)

    def __call__(self, inputs: Any, state: Any, scope: Any = None) -> tuple:
        state = array_ops.squeeze(state, axis=[1])
        b_indices = math_ops.range(array_ops.shape(inputs)[0])
        indices = array_ops.stack([b_indices, state], axis=1)
        new_tags = array_ops.expand_dims(scatter_ops.gather_nd(inputs, indices), axis=-1)
        return new_tags, new_tags


def crf_decode(potentials: Any, transition_params: Any, sequence_length: Any) -> tuple:
    """(best tags [batch, time] int32, their scores [batch]) by Viterbi in the graph."""
    potentials = convert_to_tensor(potentials)
    sequence_length = convert_to_tensor(sequence_length)

    def single_step() -> tuple:
        squeezed = array_ops.squeeze(potentials, [1])
        decode_tags = array_ops.expand_dims(math_ops.argmax(squeezed, axis=1), 1)
        return math_ops.cast(decode_tags, dtypes_lib.int32), math_ops.reduce_max(squeezed,
                                                                                 axis=1)

    def multi_step() -> tuple:
        num_tags = shape_lib.dimension_value(potentials.shape[2])
        initial_state = array_ops.squeeze(array_ops.slice(potentials, [0, 0, 0], [-1, 1, -1]),
                                          axis=[1])
        inputs = array_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])
        lengths_less_one = math_ops.maximum(
            array_ops.constant(0, dtype=sequence_length.dtype), sequence_length - 1)
        backpointers, last_score = dynamic_rnn(
            CrfDecodeForwardRnnCell(transition_params), inputs,
            sequence_length=lengths_less_one, initial_state=initial_state, dtype=dtypes_lib.int32)
        backpointers = manip_ops.reverse_sequence(backpointers, lengths_less_one, seq_axis=1)
        initial_state = array_ops.expand_dims(
            math_ops.cast(math_ops.argmax(last_score, axis=1), dtypes_lib.int32), axis=-1)
        decode_tags, _ = dynamic_rnn(CrfDecodeBackwardRnnCell(num_tags), backpointers,
                                     sequence_length=lengths_less_one,
                                     initial_state=initial_state, dtype=dtypes_lib.int32)
        decode_tags = array_ops.concat([initial_state, array_ops.squeeze(decode_tags, axis=[2])],
                                       axis=1)
        decode_tags = manip_ops.reverse_sequence(decode_tags, sequence_length, seq_axis=1)
        return decode_tags, math_ops.reduce_max(last_score, axis=1)

    return smart_cond(_is_single_step(potentials), single_step, multi_step)
