"""``tf.contrib.seq2seq`` attention (TF 1.15): ``BahdanauAttention`` (additive; variables
``memory_layer/kernel``, ``query_layer/kernel``, ``attention_v``, with ``normalize``
``attention_g``/``attention_b``), ``LuongAttention`` (multiplicative; optional scale
``attention_g``), and ``AttentionWrapper``, an RNNCell feeding [inputs, previous attention]
to its cell and attending over the memory with its output (``attention_layer/kernel`` when
``attention_layer_size`` is set); its state is an ``AttentionWrapperState``."""

from __future__ import annotations

import collections
import math
from typing import Any

import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.layers.base import Layer
from graphcore.layers.core import Dense
from graphcore.ops import array_ops, check_ops, init_ops, math_ops, nn_ops
from graphcore.ops import variable_scope as vs
from graphcore.ops.rnn_cell_impl import RNNCell, _zero_state_tensors, assert_like_rnncell
from graphcore.ops.tensor_array_ops import TensorArray

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "BahdanauAttention", "LuongAttention"]


class AttentionMechanism:
    """Marker base class of the attention mechanisms."""


def _prepare_memory(memory: Any, memory_sequence_length: Any) -> Any:
    """``memory`` with the steps past each sequence's length zeroed."""
    memory = nest.map_structure(lambda m: convert_to_tensor(m, name="memory"), memory)
    if memory_sequence_length is None:
        return memory
    memory_sequence_length = convert_to_tensor(memory_sequence_length,
                                               name="memory_sequence_length")
    first = nest.flatten(memory)[0]
    seq_len_mask = array_ops.sequence_mask(memory_sequence_length,
                                           maxlen=array_ops.shape(first)[1],
                                           dtype=first.dtype)
    seq_len_batch_size = shape_lib.dimension_value(memory_sequence_length.shape[0]) or \
        array_ops.shape(memory_sequence_length)[0]

    def maybe_mask(m: Any) -> Any:
        rank = m.get_shape().ndims
        extra_ones = array_ops.ones([rank - 2], dtype=dtypes_lib.int32)
        m_batch_size = shape_lib.dimension_value(m.shape[0]) or array_ops.shape(m)[0]
        with ops_lib.control_dependencies([check_ops.assert_equal(
                seq_len_batch_size, m_batch_size,
                message="memory_sequence_length and memory tensor batch sizes do not "
                        "match.")]):
            mask = array_ops.reshape(seq_len_mask, array_ops.concat(
                (array_ops.shape(seq_len_mask), extra_ones), 0))
            return m * mask

    return nest.map_structure(maybe_mask, memory)


def _maybe_mask_score(score: Any, memory_sequence_length: Any, score_mask_value: Any) -> Any:
    if memory_sequence_length is None:
        return score
    with ops_lib.control_dependencies([check_ops.assert_positive(
            memory_sequence_length,
            message="All values in memory_sequence_length must greater than zero.")]):
        score_mask = array_ops.sequence_mask(memory_sequence_length,
                                             maxlen=array_ops.shape(score)[1])
        return array_ops.where(score_mask, score,
                               score_mask_value * array_ops.ones_like(score))


class _BaseAttentionMechanism(AttentionMechanism):
    def __init__(self, query_layer: Any, memory: Any, probability_fn: Any,
                 memory_sequence_length: Any = None, memory_layer: Any = None,
                 score_mask_value: Any = None, name: str | None = None) -> None:
        for what, layer in (("query_layer", query_layer), ("memory_layer", memory_layer)):
            if layer is not None and not isinstance(layer, Layer):
                raise TypeError(f"{what} is not a Layer: {type(layer).__name__}")
        self._query_layer = query_layer
        self._memory_layer = memory_layer
        self.dtype = memory_layer.dtype
        if not callable(probability_fn):
            raise TypeError(f"probability_fn must be callable, saw type: "
                            f"{type(probability_fn).__name__}")
        if score_mask_value is None:
            score_mask_value = dtypes_lib.as_dtype(self._memory_layer.dtype).as_numpy_dtype(
                -np.inf)
        self._probability_fn = lambda score, prev: probability_fn(
            _maybe_mask_score(score, memory_sequence_length, score_mask_value), prev)
        with ops_lib.name_scope(name, "BaseAttentionMechanismInit", nest.flatten(memory)):
            self._values = _prepare_memory(memory, memory_sequence_length)
            self._keys = self.memory_layer(self._values) if self.memory_layer \
                else self._values
            self._batch_size = shape_lib.dimension_value(self._keys.shape[0]) or \
                array_ops.shape(self._keys)[0]
            self._alignments_size = shape_lib.dimension_value(self._keys.shape[1]) or \
                array_ops.shape(self._keys)[1]

    memory_layer = property(lambda self: self._memory_layer)
    query_layer = property(lambda self: self._query_layer)
    values = property(lambda self: self._values)
    keys = property(lambda self: self._keys)
    batch_size = property(lambda self: self._batch_size)
    alignments_size = property(lambda self: self._alignments_size)
    state_size = property(lambda self: self._alignments_size)

    def initial_alignments(self, batch_size: Any, dtype: Any) -> Any:
        """Zeros [batch_size, memory time]."""
        return _zero_state_tensors(self._alignments_size, batch_size, dtype)

    def initial_state(self, batch_size: Any, dtype: Any) -> Any:
        return self.initial_alignments(batch_size, dtype)


def _luong_score(query: Any, keys: Any, scale: bool) -> Any:
    depth, key_units = query.get_shape()[-1], keys.get_shape()[-1]
    if depth != key_units:
        raise ValueError("Incompatible or unknown inner dimensions between query and keys. "
                         f"Query ({query}) has units: {depth}.  Keys ({keys}) have units: "
                         f"{key_units}.  Perhaps you need to set num_units to the keys' "
                         "dimension?")
    score = array_ops.squeeze(math_ops.matmul(array_ops.expand_dims(query, 1), keys,
                                              transpose_b=True), [1])
    if scale:
        g = vs.get_variable("attention_g", dtype=query.dtype,
                            initializer=init_ops.ones_initializer, shape=())
        score = g * score
    return score


class LuongAttention(_BaseAttentionMechanism):
    """Multiplicative attention: score = query . (memory @ memory_layer)."""

    def __init__(self, num_units: int, memory: Any, memory_sequence_length: Any = None,
                 scale: bool = False, probability_fn: Any = None,
                 score_mask_value: Any = None, dtype: Any = None,
                 custom_key_value_fn: Any = None, name: str = "LuongAttention") -> None:
        if custom_key_value_fn is not None:
            raise NotImplementedError("custom_key_value_fn is not supported in graphcore")
        probability_fn = probability_fn or nn_ops.softmax
        super().__init__(
            query_layer=None,
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False,
                               dtype=dtype or dtypes_lib.float32),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._scale = scale
        self._name = name

    def __call__(self, query: Any, state: Any) -> tuple:
        with vs.variable_scope(None, "luong_attention", [query]):
            score = _luong_score(query, self._keys, self._scale)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


def _bahdanau_score(processed_query: Any, keys: Any, normalize: bool) -> Any:
    dtype = processed_query.dtype
    num_units = shape_lib.dimension_value(keys.shape[2]) or array_ops.shape(keys)[2]
    processed_query = array_ops.expand_dims(processed_query, 1)
    v = vs.get_variable("attention_v", [num_units], dtype=dtype)
    if normalize:
        g = vs.get_variable("attention_g", dtype=dtype, shape=(),
                            initializer=init_ops.constant_initializer(math.sqrt(1.0 / num_units)))
        b = vs.get_variable("attention_b", [num_units], dtype=dtype,
                            initializer=init_ops.zeros_initializer())
        normed_v = g * v * math_ops.rsqrt(math_ops.reduce_sum(math_ops.square(v)))
        return math_ops.reduce_sum(normed_v * math_ops.tanh(keys + processed_query + b), [2])
    return math_ops.reduce_sum(v * math_ops.tanh(keys + processed_query), [2])


class BahdanauAttention(_BaseAttentionMechanism):
    """Additive attention: score = v . tanh(memory @ memory_layer + query @ query_layer)."""

    def __init__(self, num_units: int, memory: Any, memory_sequence_length: Any = None,
                 normalize: bool = False, probability_fn: Any = None,
                 score_mask_value: Any = None, dtype: Any = None,
                 custom_key_value_fn: Any = None, name: str = "BahdanauAttention") -> None:
        if custom_key_value_fn is not None:
            raise NotImplementedError("custom_key_value_fn is not supported in graphcore")
        probability_fn = probability_fn or nn_ops.softmax
        dtype = dtype or dtypes_lib.float32
        super().__init__(
            query_layer=Dense(num_units, name="query_layer", use_bias=False, dtype=dtype),
            memory_layer=Dense(num_units, name="memory_layer", use_bias=False, dtype=dtype),
            memory=memory, probability_fn=lambda score, _: probability_fn(score),
            memory_sequence_length=memory_sequence_length, score_mask_value=score_mask_value,
            name=name)
        self._num_units = num_units
        self._normalize = normalize
        self._name = name

    def __call__(self, query: Any, state: Any) -> tuple:
        with vs.variable_scope(None, "bahdanau_attention", [query]):
            processed_query = self.query_layer(query) if self.query_layer else query
            score = _bahdanau_score(processed_query, self._keys, self._normalize)
        alignments = self._probability_fn(score, state)
        return alignments, alignments


class AttentionWrapperState(collections.namedtuple(
        "AttentionWrapperState", ("cell_state", "attention", "time", "alignments",
                                  "alignment_history", "attention_state"))):
    """The state of an AttentionWrapper."""

    def clone(self, **kwargs: Any) -> AttentionWrapperState:
        """A copy with ``kwargs`` replaced (tensors keeping the old static shapes)."""
        def with_same_shape(old: Any, new: Any) -> Any:
            if isinstance(old, ops_lib.Tensor) and isinstance(new, ops_lib.Tensor):
                new.set_shape(old.shape)
            return new

        return nest.map_structure(with_same_shape, self, self._replace(**kwargs))


def _compute_attention(attention_mechanism: Any, cell_output: Any, attention_state: Any,
                       attention_layer: Any) -> tuple:
    alignments, next_attention_state = attention_mechanism(cell_output, state=attention_state)
    context = array_ops.squeeze(math_ops.matmul(array_ops.expand_dims(alignments, 1),
                                                attention_mechanism.values), [1])
    attention = attention_layer(array_ops.concat([cell_output, context], 1)) \
        if attention_layer is not None else context
    return attention, alignments, next_attention_state


class AttentionWrapper(RNNCell):
    """``cell`` with attention over one or several mechanisms' memories."""

    def __init__(self, cell: Any, attention_mechanism: Any, attention_layer_size: Any = None,
                 alignment_history: bool = False, cell_input_fn: Any = None,
                 output_attention: bool = True, initial_cell_state: Any = None,
                 name: str | None = None, attention_layer: Any = None,
                 attention_fn: Any = None) -> None:
        super().__init__(name=name)
        assert_like_rnncell("cell", cell)
        self._is_multi = isinstance(attention_mechanism, (list, tuple))
        mechanisms = tuple(attention_mechanism) if self._is_multi else (attention_mechanism,)
        for mechanism in mechanisms:
            if not isinstance(mechanism, AttentionMechanism):
                raise TypeError("attention_mechanism must be an AttentionMechanism or list of "
                                f"multiple AttentionMechanism instances, saw type: "
                                f"{type(mechanism).__name__}")
        if cell_input_fn is None:
            cell_input_fn = lambda inputs, attention: array_ops.concat(  # noqa: E731
                [inputs, attention], -1)
        elif not callable(cell_input_fn):
            raise TypeError(f"cell_input_fn must be callable, saw type: "
                            f"{type(cell_input_fn).__name__}")
        if attention_layer_size is not None and attention_layer is not None:
            raise ValueError("Only one of attention_layer_size and attention_layer should be "
                             "set")
        if attention_layer_size is not None:
            sizes = tuple(attention_layer_size if isinstance(attention_layer_size, (list, tuple))
                          else (attention_layer_size,))
            if len(sizes) != len(mechanisms):
                raise ValueError("If provided, attention_layer_size must contain exactly one "
                                 "integer per attention_mechanism, saw: "
                                 f"{len(sizes)} vs {len(mechanisms)}")
            self._attention_layers = tuple(
                Dense(size, name="attention_layer", use_bias=False, dtype=mechanisms[i].dtype)
                for i, size in enumerate(sizes))
            self._attention_layer_size = sum(sizes)
        elif attention_layer is not None:
            layers = tuple(attention_layer if isinstance(attention_layer, (list, tuple))
                           else (attention_layer,))
            if len(layers) != len(mechanisms):
                raise ValueError("If provided, attention_layer must contain exactly one layer "
                                 f"per attention_mechanism, saw: {len(layers)} vs "
                                 f"{len(mechanisms)}")
            self._attention_layers = layers
            self._attention_layer_size = sum(
                shape_lib.dimension_value(layer.compute_output_shape(
                    [None, cell.output_size + shape_lib.dimension_value(
                        mechanism.values.shape[-1])])[-1])
                for layer, mechanism in zip(layers, mechanisms))
        else:
            self._attention_layers = None
            self._attention_layer_size = sum(shape_lib.dimension_value(m.values.shape[-1])
                                             for m in mechanisms)
        self._attention_fn = attention_fn or _compute_attention
        self._cell = cell
        self._attention_mechanisms = mechanisms
        self._cell_input_fn = cell_input_fn
        self._output_attention = output_attention
        self._alignment_history = alignment_history
        self._initial_cell_state = None
        if initial_cell_state is not None:
            with ops_lib.name_scope(name, "AttentionWrapperInit"):
                final = nest.flatten(initial_cell_state)[-1]
                batch = shape_lib.dimension_value(final.shape[0]) or array_ops.shape(final)[0]
                with ops_lib.control_dependencies(self._batch_size_checks(
                        batch, "When constructing AttentionWrapper, the first dimension of "
                               "initial_cell_state does not match the batch size of the "
                               "attention mechanism(s).")):
                    self._initial_cell_state = nest.map_structure(
                        lambda s: array_ops.identity(s, name="check_initial_cell_state"),
                        initial_cell_state)

    def _batch_size_checks(self, batch_size: Any, message: str) -> list:
        return [check_ops.assert_equal(batch_size, m.batch_size, message=message)
                for m in self._attention_mechanisms]

    def _item_or_tuple(self, seq: Any) -> Any:
        t = tuple(seq)
        return t if self._is_multi else t[0]

    @property
    def output_size(self) -> Any:
        return self._attention_layer_size if self._output_attention else \
            self._cell.output_size

    @property
    def state_size(self) -> AttentionWrapperState:
        return AttentionWrapperState(
            cell_state=self._cell.state_size, time=shape_lib.TensorShape([]),
            attention=self._attention_layer_size,
            alignments=self._item_or_tuple(m.alignments_size
                                           for m in self._attention_mechanisms),
            attention_state=self._item_or_tuple(m.state_size
                                                for m in self._attention_mechanisms),
            alignment_history=self._item_or_tuple(
                m.alignments_size if self._alignment_history else ()
                for m in self._attention_mechanisms))

    def zero_state(self, batch_size: Any, dtype: Any) -> AttentionWrapperState:
        with ops_lib.name_scope(type(self).__name__ + "ZeroState"):
            cell_state = self._initial_cell_state if self._initial_cell_state is not None \
                else self._cell.zero_state(batch_size, dtype)
            with ops_lib.control_dependencies(self._batch_size_checks(
                    batch_size, "When calling zero_state of AttentionWrapper "
                                f"{self._base_name}: Non-matching batch sizes between the "
                                "memory (encoder output) and the requested batch size.  Are "
                                "you using the BeamSearchDecoder?  If so, make sure your "
                                "encoder output has been tiled to beam_width via "
                                "tf.contrib.seq2seq.tile_batch, and the batch_size= argument "
                                "passed to zero_state is batch_size * beam_width.")):
                cell_state = nest.map_structure(
                    lambda s: array_ops.identity(s, name="checked_cell_state"), cell_state)
            initial_alignments = [m.initial_alignments(batch_size, dtype)
                                  for m in self._attention_mechanisms]
            return AttentionWrapperState(
                cell_state=cell_state, time=array_ops.zeros([], dtype=dtypes_lib.int32),
                attention=_zero_state_tensors(self._attention_layer_size, batch_size, dtype),
                alignments=self._item_or_tuple(initial_alignments),
                attention_state=self._item_or_tuple(m.initial_state(batch_size, dtype)
                                                    for m in self._attention_mechanisms),
                alignment_history=self._item_or_tuple(
                    TensorArray(dtype, size=0, dynamic_size=True, element_shape=a.shape)
                    if self._alignment_history else () for a in initial_alignments))

    def call(self, inputs: Any, state: Any) -> tuple:
        if not isinstance(state, AttentionWrapperState):
            raise TypeError("Expected state to be instance of AttentionWrapperState. "
                            f"Received type {type(state)} instead.")
        cell_inputs = self._cell_input_fn(inputs, state.attention)
        cell_output, next_cell_state = self._cell(cell_inputs, state.cell_state)
        batch = shape_lib.dimension_value(cell_output.shape[0]) or \
            array_ops.shape(cell_output)[0]
        with ops_lib.control_dependencies(self._batch_size_checks(
                batch, "When applying AttentionWrapper %s: Non-matching batch sizes between "
                       "the memory (encoder output) and the query (decoder output).  Are you "
                       "using the BeamSearchDecoder?  You may need to tile your memory input "
                       "via the tf.contrib.seq2seq.tile_batch function with argument "
                       "multiple=beam_width." % self._base_name)):
            cell_output = array_ops.identity(cell_output, name="checked_cell_output")
        if self._is_multi:
            previous_states, previous_histories = state.attention_state, state.alignment_history
        else:
            previous_states, previous_histories = [state.attention_state], \
                [state.alignment_history]
        alignments_all, attentions, attention_states, histories = [], [], [], []
        for i, mechanism in enumerate(self._attention_mechanisms):
            attention, alignments, next_attention_state = self._attention_fn(
                mechanism, cell_output, previous_states[i],
                self._attention_layers[i] if self._attention_layers else None)
            histories.append(previous_histories[i].write(state.time, alignments)
                             if self._alignment_history else ())
            attention_states.append(next_attention_state)
            alignments_all.append(alignments)
            attentions.append(attention)
        attention = array_ops.concat(attentions, 1)
        next_state = AttentionWrapperState(
            time=state.time + 1, cell_state=next_cell_state, attention=attention,
            attention_state=self._item_or_tuple(attention_states),
            alignments=self._item_or_tuple(alignments_all),
            alignment_history=self._item_or_tuple(histories))
        return (attention if self._output_attention else cell_output), next_state
