"""``tf.contrib.seq2seq`` decoding (TF 1.15): the ``Decoder`` interface, ``BasicDecoder``
(cell, optional output layer, helper), the helpers that feed it (``TrainingHelper``,
``GreedyEmbeddingHelper``, ``SampleEmbeddingHelper``, ``CustomHelper``), ``dynamic_decode``
(a while_loop writing each step's outputs to TensorArrays, in scope ``decoder``) and
``tile_batch``."""

from __future__ import annotations

import collections
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers.base import Layer
from graphcore.ops import (
    array_ops,
    control_flow_ops,
    embedding_ops,
    math_ops,
    random_distribution_ops,
    variable_scope,
)
from graphcore.ops.rnn import _transpose_batch_time
from graphcore.ops.rnn_cell_impl import _concat, assert_like_rnncell
from graphcore.ops.tensor_array_ops import TensorArray
from graphcore.ops.while_loop import while_loop

__all__ = ["BasicDecoder", "BasicDecoderOutput", "CustomHelper", "Decoder",
           "GreedyEmbeddingHelper", "Helper", "SampleEmbeddingHelper", "TrainingHelper",
           "dynamic_decode", "tile_batch"]


class Decoder:
    """What ``dynamic_decode`` drives: ``initialize() -> (finished, inputs, state)`` and
    ``step(time, inputs, state) -> (outputs, state, inputs, finished)``."""

    batch_size = property(lambda self: self._not_implemented())
    output_size = property(lambda self: self._not_implemented())
    output_dtype = property(lambda self: self._not_implemented())
    tracks_own_finished = property(lambda self: False)

    def _not_implemented(self) -> Any:
        raise NotImplementedError

    def initialize(self, name: str | None = None) -> tuple:
        raise NotImplementedError

    def step(self, time: Any, inputs: Any, state: Any, name: str | None = None) -> tuple:
        raise NotImplementedError

    def finalize(self, outputs: Any, final_state: Any, sequence_lengths: Any) -> tuple:
        raise NotImplementedError


class Helper:
    """Where a BasicDecoder's inputs and sample ids come from."""

    batch_size = property(lambda self: self._not_implemented())
    sample_ids_shape = property(lambda self: self._not_implemented())
    sample_ids_dtype = property(lambda self: self._not_implemented())

    def _not_implemented(self) -> Any:
        raise NotImplementedError

    def initialize(self, name: str | None = None) -> tuple:
        raise NotImplementedError

    def sample(self, time: Any, outputs: Any, state: Any, name: str | None = None) -> Any:
        raise NotImplementedError

    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: str | None = None) -> tuple:
        raise NotImplementedError


def _unstack_ta(inp: Any) -> TensorArray:
    return TensorArray(dtype=inp.dtype, size=array_ops.shape(inp)[0],
                       element_shape=inp.get_shape()[1:]).unstack(inp)


class CustomHelper(Helper):
    """A Helper from three functions: ``initialize_fn() -> (finished, inputs)``,
    ``sample_fn(time, outputs, state)`` and ``next_inputs_fn(time, outputs, state,
    sample_ids) -> (finished, inputs, state)``."""

    def __init__(self, initialize_fn: Any, sample_fn: Any, next_inputs_fn: Any,
                 sample_ids_shape: Any = None, sample_ids_dtype: Any = None) -> None:
        self._initialize_fn = initialize_fn
        self._sample_fn = sample_fn
        self._next_inputs_fn = next_inputs_fn
        self._batch_size = None
        self._sample_ids_shape = shape_lib.TensorShape(sample_ids_shape or [])
        self._sample_ids_dtype = sample_ids_dtype or dtypes_lib.int32

    @property
    def batch_size(self) -> Any:
        if self._batch_size is None:
            raise ValueError("batch_size accessed before initialize was called")
        return self._batch_size

    sample_ids_shape = property(lambda self: self._sample_ids_shape)
    sample_ids_dtype = property(lambda self: self._sample_ids_dtype)

    def initialize(self, name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, f"{type(self).__name__}Initialize"):
            finished, next_inputs = self._initialize_fn()
            if self._batch_size is None:
                self._batch_size = array_ops.size(finished)
        return finished, next_inputs

    def sample(self, time: Any, outputs: Any, state: Any, name: str | None = None) -> Any:
        with ops_lib.name_scope(name, f"{type(self).__name__}Sample", (time, outputs, state)):
            return self._sample_fn(time=time, outputs=outputs, state=state)

    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, f"{type(self).__name__}NextInputs",
                                (time, outputs, state)):
            return self._next_inputs_fn(time=time, outputs=outputs, state=state,
                                        sample_ids=sample_ids)


class TrainingHelper(Helper):
    """Teacher forcing: step t reads ``inputs[:, t]`` (``[t]`` when ``time_major``); a
    sequence is finished after ``sequence_length`` steps."""

    def __init__(self, inputs: Any, sequence_length: Any, time_major: bool = False,
                 name: str | None = None) -> None:
        with ops_lib.name_scope(name, "TrainingHelper", [inputs, sequence_length]):
            inputs = nest.map_structure(lambda x: convert_to_tensor(x, name="inputs"), inputs)
            self._inputs = inputs
            if not time_major:
                inputs = nest.map_structure(_transpose_batch_time, inputs)
            self._input_tas = nest.map_structure(_unstack_ta, inputs)
            self._sequence_length = convert_to_tensor(sequence_length, name="sequence_length")
            if self._sequence_length.get_shape().ndims != 1:
                raise ValueError("Expected sequence_length to be a vector, but received "
                                 f"shape: {self._sequence_length.get_shape()}")
            self._zero_inputs = nest.map_structure(lambda inp: array_ops.zeros_like(inp[0, :]),
                                                   inputs)
            self._batch_size = array_ops.size(sequence_length)

    inputs = property(lambda self: self._inputs)
    sequence_length = property(lambda self: self._sequence_length)
    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: shape_lib.TensorShape([]))
    sample_ids_dtype = property(lambda self: dtypes_lib.int32)

    def _inputs_at(self, time: Any) -> Any:
        finished = time >= self._sequence_length
        next_inputs = control_flow_ops.cond(
            math_ops.reduce_all(finished), lambda: self._zero_inputs,
            lambda: nest.map_structure(lambda ta: ta.read(time), self._input_tas))
        return finished, next_inputs

    def initialize(self, name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, "TrainingHelperInitialize"):
            finished = math_ops.equal(0, self._sequence_length)
            next_inputs = control_flow_ops.cond(
                math_ops.reduce_all(finished), lambda: self._zero_inputs,
                lambda: nest.map_structure(lambda ta: ta.read(0), self._input_tas))
            return finished, next_inputs

    def sample(self, time: Any, outputs: Any, name: str | None = None, **_: Any) -> Any:
        with ops_lib.name_scope(name, "TrainingHelperSample", [time, outputs]):
            return math_ops.cast(math_ops.argmax(outputs, axis=-1), dtypes_lib.int32)

    def next_inputs(self, time: Any, outputs: Any, state: Any, name: str | None = None,
                    **_: Any) -> tuple:
        with ops_lib.name_scope(name, "TrainingHelperNextInputs", [time, outputs, state]):
            finished, next_inputs = self._inputs_at(time + 1)
            return finished, next_inputs, state


class GreedyEmbeddingHelper(Helper):
    """Inference: the argmax of each step's output, embedded, is the next input; a sequence
    finishes when it emits ``end_token``."""

    def __init__(self, embedding: Any, start_tokens: Any, end_token: Any) -> None:
        if callable(embedding):
            self._embedding_fn = embedding
        else:
            self._embedding_fn = lambda ids: embedding_ops.embedding_lookup(embedding, ids)
        self._start_tokens = convert_to_tensor(start_tokens, dtype=dtypes_lib.int32,
                                               name="start_tokens")
        self._end_token = convert_to_tensor(end_token, dtype=dtypes_lib.int32,
                                            name="end_token")
        if self._start_tokens.get_shape().ndims != 1:
            raise ValueError("start_tokens must be a vector")
        self._batch_size = array_ops.size(start_tokens)
        if self._end_token.get_shape().ndims != 0:
            raise ValueError("end_token must be a scalar")
        self._start_inputs = self._embedding_fn(self._start_tokens)

    batch_size = property(lambda self: self._batch_size)
    sample_ids_shape = property(lambda self: shape_lib.TensorShape([]))
    sample_ids_dtype = property(lambda self: dtypes_lib.int32)

    def initialize(self, name: str | None = None) -> tuple:
        finished = array_ops.tile([False], [self._batch_size])
        return finished, self._start_inputs

    def sample(self, time: Any, outputs: Any, state: Any, name: str | None = None) -> Any:
        if not isinstance(outputs, ops_lib.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        return math_ops.argmax(outputs, axis=-1, output_type=dtypes_lib.int32)

    def next_inputs(self, time: Any, outputs: Any, state: Any, sample_ids: Any,
                    name: str | None = None) -> tuple:
        finished = math_ops.equal(sample_ids, self._end_token)
        next_inputs = control_flow_ops.cond(math_ops.reduce_all(finished),
                                            lambda: self._start_inputs,
                                            lambda: self._embedding_fn(sample_ids))
        return finished, next_inputs, state


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """GreedyEmbeddingHelper drawing each id from softmax(outputs / temperature)."""

    def __init__(self, embedding: Any, start_tokens: Any, end_token: Any,
                 softmax_temperature: Any = None, seed: int | None = None) -> None:
        super().__init__(embedding, start_tokens, end_token)
        self._softmax_temperature = softmax_temperature
        self._seed = seed

    def sample(self, time: Any, outputs: Any, state: Any, name: str | None = None) -> Any:
        if not isinstance(outputs, ops_lib.Tensor):
            raise TypeError(f"Expected outputs to be a single Tensor, got: {type(outputs)}")
        logits = outputs if self._softmax_temperature is None else \
            outputs / self._softmax_temperature
        sample = random_distribution_ops.categorical(logits, 1, seed=self._seed,
                                                     dtype=dtypes_lib.int32)
        return array_ops.reshape(sample, [-1])


class BasicDecoderOutput(collections.namedtuple("BasicDecoderOutput",
                                                ("rnn_output", "sample_id"))):
    pass


class BasicDecoder(Decoder):
    """Each step: ``cell``, then ``output_layer`` (if any), then the helper's sample and
    next inputs."""

    def __init__(self, cell: Any, helper: Helper, initial_state: Any,
                 output_layer: Any = None) -> None:
        assert_like_rnncell("cell", cell)
        if not isinstance(helper, Helper):
            raise TypeError(f"helper must be a Helper, received: {type(helper)}")
        if output_layer is not None and not isinstance(output_layer, Layer):
            raise TypeError(f"output_layer must be a Layer, received: {type(output_layer)}")
        self._cell = cell
        self._helper = helper
        self._initial_state = initial_state
        self._output_layer = output_layer

    batch_size = property(lambda self: self._helper.batch_size)

    def _rnn_output_size(self) -> Any:
        size = self._cell.output_size
        if self._output_layer is None:
            return size
        with_batch = nest.map_structure(
            lambda s: shape_lib.TensorShape([None]).concatenate(s), size)
        layer_output_shape = self._output_layer.compute_output_shape(with_batch)
        return nest.map_structure(lambda s: s[1:], layer_output_shape)

    @property
    def output_size(self) -> BasicDecoderOutput:
        return BasicDecoderOutput(rnn_output=self._rnn_output_size(),
                                  sample_id=self._helper.sample_ids_shape)

    @property
    def output_dtype(self) -> BasicDecoderOutput:
        dtype = nest.flatten(self._initial_state)[0].dtype
        return BasicDecoderOutput(nest.map_structure(lambda _: dtype, self._rnn_output_size()),
                                  self._helper.sample_ids_dtype)

    def initialize(self, name: str | None = None) -> tuple:
        return self._helper.initialize() + (self._initial_state,)

    def step(self, time: Any, inputs: Any, state: Any, name: str | None = None) -> tuple:
        with ops_lib.name_scope(name, "BasicDecoderStep", (time, inputs, state)):
            cell_outputs, cell_state = self._cell(inputs, state)
            if self._output_layer is not None:
                cell_outputs = self._output_layer(cell_outputs)
            sample_ids = self._helper.sample(time=time, outputs=cell_outputs, state=cell_state)
            finished, next_inputs, next_state = self._helper.next_inputs(
                time=time, outputs=cell_outputs, state=cell_state, sample_ids=sample_ids)
        return BasicDecoderOutput(cell_outputs, sample_ids), next_state, next_inputs, finished


def _element_shape(batch_size: Any, from_shape: Any) -> Any:
    """[batch] + ``from_shape`` for a TensorShape of rank > 0, else None (inferred)."""
    if not isinstance(from_shape, shape_lib.TensorShape) or from_shape.ndims == 0:
        return None
    static_batch = tensor_util.constant_value(convert_to_tensor(batch_size))
    return shape_lib.TensorShape([static_batch]).concatenate(from_shape)


def dynamic_decode(decoder: Decoder, output_time_major: bool = False,
                   impute_finished: bool = False, maximum_iterations: Any = None,
                   parallel_iterations: int = 32, swap_memory: bool = False,
                   scope: Any = None) -> tuple:
    """Runs ``decoder`` until every sequence is finished (or ``maximum_iterations``):
    (final outputs [batch, time, ...] or time-major, final state, sequence lengths)."""
    if not isinstance(decoder, Decoder):
        raise TypeError(f"Expected decoder to be type Decoder, but saw: {type(decoder)}")
    with variable_scope.variable_scope(scope, "decoder"):
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations, dtype=dtypes_lib.int32,
                                                   name="maximum_iterations")
            if maximum_iterations.get_shape().ndims != 0:
                raise ValueError("maximum_iterations must be a scalar")
        initial_finished, initial_inputs, initial_state = decoder.initialize()
        zero_outputs = nest.map_structure(
            lambda s, d: array_ops.zeros(_concat(decoder.batch_size, s), dtype=d),
            decoder.output_size, decoder.output_dtype)
        if maximum_iterations is not None:
            initial_finished = math_ops.logical_or(initial_finished, 0 >= maximum_iterations)
        initial_sequence_lengths = array_ops.zeros_like(initial_finished,
                                                        dtype=dtypes_lib.int32)
        initial_time = array_ops.constant(0, dtype=dtypes_lib.int32)
        initial_outputs_ta = nest.map_structure(
            lambda s, d: TensorArray(dtype=d, size=0, dynamic_size=True,
                                     element_shape=_element_shape(decoder.batch_size, s)),
            decoder.output_size, decoder.output_dtype)

        def condition(unused_time: Any, unused_outputs_ta: Any, unused_state: Any,
                      unused_inputs: Any, finished: Any, unused_lengths: Any) -> Any:
            return math_ops.logical_not(math_ops.reduce_all(finished))

        def body(time: Any, outputs_ta: Any, state: Any, inputs: Any, finished: Any,
                 sequence_lengths: Any) -> tuple:
            next_outputs, decoder_state, next_inputs, decoder_finished = decoder.step(
                time, inputs, state)
            state_lengths = False
            if decoder.tracks_own_finished:
                next_finished = decoder_finished
                lengths = getattr(decoder_state, "lengths", None)
                if lengths is not None:
                    state_lengths = True
                    sequence_lengths = math_ops.cast(lengths, dtypes_lib.int32)
            else:
                next_finished = math_ops.logical_or(decoder_finished, finished)
            if state_lengths:
                next_sequence_lengths = sequence_lengths
            else:
                next_sequence_lengths = array_ops.where(
                    math_ops.logical_not(finished),
                    array_ops.fill(array_ops.shape(sequence_lengths), time + 1),
                    sequence_lengths)
            nest.assert_same_structure(state, decoder_state)
            nest.assert_same_structure(outputs_ta, next_outputs)
            nest.assert_same_structure(inputs, next_inputs)
            if impute_finished:
                emit = nest.map_structure(lambda out, zero: array_ops.where(finished, zero, out),
                                          next_outputs, zero_outputs)

                def maybe_copy_state(new: Any, cur: Any) -> Any:
                    if isinstance(cur, TensorArray):
                        return new
                    new.set_shape(cur.shape)
                    return new if new.shape.ndims == 0 else array_ops.where(finished, cur, new)

                next_state = nest.map_structure(maybe_copy_state, decoder_state, state)
            else:
                emit, next_state = next_outputs, decoder_state
            outputs_ta = nest.map_structure(lambda ta, out: ta.write(time, out), outputs_ta,
                                            emit)
            return (time + 1, outputs_ta, next_state, next_inputs, next_finished,
                    next_sequence_lengths)

        res = while_loop(condition, body,
                         loop_vars=(initial_time, initial_outputs_ta, initial_state,
                                    initial_inputs, initial_finished,
                                    initial_sequence_lengths),
                         parallel_iterations=parallel_iterations,
                         maximum_iterations=maximum_iterations, swap_memory=swap_memory)
        final_state = res[2]
        final_sequence_lengths = res[5]
        final_outputs = nest.map_structure(lambda ta: ta.stack(), res[1])
        try:
            final_outputs, final_state = decoder.finalize(final_outputs, final_state,
                                                          final_sequence_lengths)
        except NotImplementedError:
            pass
        if not output_time_major:
            final_outputs = nest.map_structure(_transpose_batch_time, final_outputs)
    return final_outputs, final_state, final_sequence_lengths


def _tile_batch(t: Any, multiplier: int) -> Any:
    t = convert_to_tensor(t, name="t")
    shape_t = array_ops.shape(t)
    if t.shape.ndims is None or t.shape.ndims < 1:
        raise ValueError("t must have statically known rank")
    tiling = [1] * (t.shape.ndims + 1)
    tiling[1] = multiplier
    batch = shape_lib.dimension_value(t.shape[0])
    tiled = array_ops.tile(array_ops.expand_dims(t, 1), tiling)
    tiled = array_ops.reshape(tiled, array_ops.concat(([shape_t[0] * multiplier],
                                                       shape_t[1:]), 0))
    tiled.set_shape(shape_lib.TensorShape([batch * multiplier if batch is not None else None])
                    .concatenate(t.shape[1:]))
    return tiled


def tile_batch(t: Any, multiplier: int, name: str | None = None) -> Any:
    """Each batch entry of ``t`` (a nested structure) repeated ``multiplier`` times in a
    row: [batch, ...] -> [batch * multiplier, ...]."""
    flat_t = nest.flatten(t)
    with ops_lib.name_scope(name, "tile_batch", flat_t + [multiplier]):
        return nest.map_structure(lambda t_: _tile_batch(t_, multiplier), t)
