"""``tf.contrib.seq2seq`` (TF 1.15): ``sequence_loss``, the weighted cross-entropy of
[batch, time, classes] logits averaged or summed over batch and/or time, and the basic
decoding API of ``seq2seq_decoders`` (BasicDecoder, helpers, dynamic_decode, tile_batch)
and the attention of ``seq2seq_attention`` (Bahdanau/Luong mechanisms, AttentionWrapper).
(The beam-search decoder and monotonic attention are not here.)"""

from __future__ import annotations

from typing import Any

# ruff: noqa: F401
from graphcore.contrib.seq2seq_attention import (
    AttentionMechanism,
    AttentionWrapper,
    AttentionWrapperState,
    BahdanauAttention,
    LuongAttention,
)
from graphcore.contrib.seq2seq_decoders import (
    BasicDecoder,
    BasicDecoderOutput,
    CustomHelper,
    Decoder,
    GreedyEmbeddingHelper,
    Helper,
    SampleEmbeddingHelper,
    TrainingHelper,
    dynamic_decode,
    tile_batch,
)
from graphcore.framework import ops as ops_lib
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, elementwise_ops, math_ops, nn_ops

__all__ = ["AttentionMechanism", "AttentionWrapper", "AttentionWrapperState",
           "BahdanauAttention", "BasicDecoder", "BasicDecoderOutput", "CustomHelper", "Decoder",
           "LuongAttention",
           "GreedyEmbeddingHelper", "Helper", "SampleEmbeddingHelper", "TrainingHelper",
           "dynamic_decode", "sequence_loss", "tile_batch"]


def sequence_loss(logits: Any, targets: Any, weights: Any,
                  average_across_timesteps: bool = True, average_across_batch: bool = True,
                  sum_over_timesteps: bool = False, sum_over_batch: bool = False,
                  softmax_loss_function: Any = None, name: str | None = None) -> Any:
    """Cross-entropy of ``logits`` [batch, time, classes] against ``targets`` [batch, time],
    times ``weights``; averaged (by the weights' sum) or summed (by the count of non-zero
    weights) over the batch and/or time axes, else per [batch, time]."""
    logits, targets, weights = (convert_to_tensor(t) for t in (logits, targets, weights))
    if len(logits.get_shape()) != 3:
        raise ValueError("Logits must be a [batch_size x sequence_length x "
                         "num_decoder_symbols] tensor")
    if len(targets.get_shape()) != 2:
        raise ValueError("Targets must be a [batch_size x sequence_length] tensor")
    if len(weights.get_shape()) != 2:
        raise ValueError("Weights must be a [batch_size x sequence_length] tensor")
    if average_across_timesteps and sum_over_timesteps:
        raise ValueError("average_across_timesteps and sum_over_timesteps cannot be set to "
                         "True at same time.")
    if average_across_batch and sum_over_batch:
        raise ValueError("average_across_batch and sum_over_batch cannot be set to True at "
                         "same time.")
    with ops_lib.name_scope(name, "sequence_loss", [logits, targets, weights]):
        num_classes = array_ops.shape(logits)[2]
        logits_flat = array_ops.reshape(logits, [-1, num_classes])
        targets = array_ops.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=targets,
                                                                       logits=logits_flat)
        else:
            crossent = softmax_loss_function(labels=targets, logits=logits_flat)
        crossent *= array_ops.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent),
                                       math_ops.reduce_sum(weights))
        if sum_over_timesteps and sum_over_batch:
            count = math_ops.cast(elementwise_ops.count_nonzero(weights), crossent.dtype)
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent), count)
        crossent = array_ops.reshape(crossent, array_ops.shape(logits)[0:2])
        if average_across_timesteps or average_across_batch:
            axis = [0] if average_across_batch else [1]
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis),
                                       math_ops.reduce_sum(weights, axis=axis))
        if sum_over_timesteps or sum_over_batch:
            axis = [0] if sum_over_batch else [1]
            count = math_ops.cast(elementwise_ops.count_nonzero(weights, axis=axis), crossent.dtype)
            return math_ops.div_no_nan(math_ops.reduce_sum(crossent, axis=axis), count)
        return crossent
