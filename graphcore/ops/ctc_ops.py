"""Connectionist temporal classification (TF's ``ctc_ops.py``): the CTCLoss op (loss and
its fused gradient), the greedy and beam-search decoders (CTCGreedyDecoder,
CTCBeamSearchDecoder), and the label helpers collapse_repeated and ctc_unique_labels.
Gradients in :mod:`graphcore.ops.ctc_grad`, kernels in :mod:`graphcore.kernels.ctc_kernels`."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.op_def_library import apply_op
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import array_ops, functional_ops, manip_ops, math_ops, scatter_ops
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = ["collapse_repeated", "ctc_beam_search_decoder", "ctc_beam_search_decoder_v2",
           "ctc_greedy_decoder", "ctc_loss", "ctc_unique_labels"]


def _dims(shape: shape_lib.TensorShape, rank: int) -> list:
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return shape.as_list()


def _merge(a: int | None, b: int | None) -> int | None:
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _ctc_loss_shape(op: ops_lib.Operation) -> list:
    inputs = _dims(op.inputs[0].shape, 3)
    indices = _dims(op.inputs[1].shape, 2)
    values = _dims(op.inputs[2].shape, 1)
    seq_len = _dims(op.inputs[3].shape, 1)
    _merge(indices[0], values[0])
    batch = _merge(inputs[1], seq_len[0])
    return [shape_lib.TensorShape([batch]), shape_lib.TensorShape([inputs[0], batch,
                                                                   inputs[2]])]


def _decoder_batch(op: ops_lib.Operation) -> int | None:
    inputs = _dims(op.inputs[0].shape, 3)
    return _merge(inputs[1], _dims(op.inputs[1].shape, 1)[0])


def _greedy_shape(op: ops_lib.Operation) -> list:
    batch = _decoder_batch(op)
    return [shape_lib.TensorShape([None, 2]), shape_lib.TensorShape([None]),
            shape_lib.TensorShape([2]), shape_lib.TensorShape([batch, 1])]


def _beam_shape(op: ops_lib.Operation) -> list:
    batch = _decoder_batch(op)
    top_paths = op.get_attr("top_paths")
    return ([shape_lib.TensorShape([None, 2])] * top_paths
            + [shape_lib.TensorShape([None])] * top_paths
            + [shape_lib.TensorShape([2])] * top_paths
            + [shape_lib.TensorShape([batch, top_paths])])


op_registry.register_op("CTCLoss").input("inputs: T").input("labels_indices: int64") \
    .input("labels_values: int32").input("sequence_length: int32").output("loss: T") \
    .output("gradient: T").attr("preprocess_collapse_repeated: bool = false") \
    .attr("ctc_merge_repeated: bool = true") \
    .attr("ignore_longer_outputs_than_inputs: bool = false") \
    .attr("T: {float, double} = DT_FLOAT").shape_fn(_ctc_loss_shape)
op_registry.register_op("CTCGreedyDecoder").input("inputs: T").input("sequence_length: int32") \
    .output("decoded_indices: int64").output("decoded_values: int64") \
    .output("decoded_shape: int64").output("log_probability: T") \
    .attr("merge_repeated: bool = false").attr("blank_index: int = -1") \
    .attr("T: {float, double} = DT_FLOAT").shape_fn(_greedy_shape)
op_registry.register_op("CTCBeamSearchDecoder").input("inputs: T") \
    .input("sequence_length: int32").output("decoded_indices: top_paths * int64") \
    .output("decoded_values: top_paths * int64").output("decoded_shape: top_paths * int64") \
    .output("log_probability: T").attr("beam_width: int >= 1").attr("top_paths: int >= 1") \
    .attr("merge_repeated: bool = true").attr("T: {float, double} = DT_FLOAT") \
    .shape_fn(_beam_shape)


def ctc_loss(labels: Any, inputs: Any = None, sequence_length: Any = None,
             preprocess_collapse_repeated: bool = False, ctc_merge_repeated: bool = True,
             ignore_longer_outputs_than_inputs: bool = False, time_major: bool = True,
             logits: Any = None) -> ops_lib.Tensor:
    """The CTC loss (negative log probability) of each batch element's ``labels`` (a
    SparseTensor) given ``inputs`` logits ([max_time, batch, num_classes], blank last)."""
    if not isinstance(labels, SparseTensor):
        raise TypeError("Expected argument `labels` to be a SparseTensor. Received labels="
                        f"{labels} of type: {type(labels).__name__}")
    inputs = deprecated_argument_lookup("logits", logits, "inputs", inputs)
    inputs = convert_to_tensor(inputs, name="logits")
    if not time_major:
        inputs = array_ops.transpose(inputs, [1, 0, 2])
    orig_dtype = inputs.dtype
    if orig_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
        inputs = math_ops.cast(inputs, dtypes_lib.float32)
    loss = apply_op("CTCLoss", inputs=inputs, labels_indices=labels.indices,
                    labels_values=labels.values, sequence_length=sequence_length,
                    preprocess_collapse_repeated=preprocess_collapse_repeated,
                    ctc_merge_repeated=ctc_merge_repeated,
                    ignore_longer_outputs_than_inputs=ignore_longer_outputs_than_inputs
                    ).outputs[0]
    if orig_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
        loss = math_ops.cast(loss, orig_dtype)
    return loss


def ctc_greedy_decoder(inputs: Any, sequence_length: Any, merge_repeated: bool = True,
                       blank_index: int | None = None) -> tuple:
    """([decoded SparseTensor], log probabilities [batch, 1]) of the best path: the most
    likely class at each step, repeats merged, blanks removed."""
    attrs = {} if blank_index is None else {"blank_index": blank_index}
    ix, val, shape, log_probabilities = apply_op(
        "CTCGreedyDecoder", inputs=inputs, sequence_length=sequence_length,
        merge_repeated=merge_repeated, **attrs).outputs
    return [SparseTensor(ix, val, shape)], log_probabilities


def ctc_beam_search_decoder(inputs: Any, sequence_length: Any, beam_width: int = 100,
                            top_paths: int = 1, merge_repeated: bool = True) -> tuple:
    """([top_paths decoded SparseTensors], log probabilities [batch, top_paths]) of a beam
    search over the label prefixes."""
    outputs = apply_op("CTCBeamSearchDecoder", inputs=inputs,
                       sequence_length=sequence_length, beam_width=beam_width,
                       top_paths=top_paths, merge_repeated=merge_repeated).outputs
    ixs, vals = outputs[:top_paths], outputs[top_paths:2 * top_paths]
    shapes, log_probabilities = outputs[2 * top_paths:3 * top_paths], outputs[-1]
    return ([SparseTensor(ix, val, shape) for ix, val, shape in zip(ixs, vals, shapes)],
            log_probabilities)


def ctc_beam_search_decoder_v2(inputs: Any, sequence_length: Any, beam_width: int = 100,
                               top_paths: int = 1) -> tuple:
    """ctc_beam_search_decoder without merging repeated classes (TF2's)."""
    return ctc_beam_search_decoder(inputs, sequence_length=sequence_length,
                                   beam_width=beam_width, top_paths=top_paths,
                                   merge_repeated=False)


def _get_dim(tensor: ops_lib.Tensor, i: int) -> Any:
    value = tensor.shape.as_list()[i] if tensor.shape.ndims is not None else None
    return value or array_ops.shape(tensor)[i]


def collapse_repeated(labels: Any, seq_length: Any, name: str | None = None) -> tuple:
    """(labels with repeats merged, packed to the left and zero-padded, new lengths)."""
    with ops_lib.name_scope(name, "collapse_repeated_labels", [labels, seq_length]):
        labels = convert_to_tensor(labels, name="labels")
        seq_length = convert_to_tensor(seq_length, name="seq_length")
        label_mask = array_ops.concat([
            array_ops.ones_like(labels[:, :1], dtypes_lib.bool),
            math_ops.not_equal(labels[:, 1:], labels[:, :-1])], axis=1)
        maxlen = _get_dim(labels, 1)
        seq_mask = array_ops.sequence_mask(seq_length, maxlen=maxlen)
        label_mask = math_ops.logical_and(label_mask, seq_mask)
        new_seq_len = math_ops.reduce_sum(math_ops.cast(label_mask, dtypes_lib.int32), axis=1)
        new_maxlen = math_ops.reduce_max(new_seq_len)
        idx_mask = array_ops.sequence_mask(new_seq_len, maxlen=new_maxlen)
        flat_labels = array_ops.reshape(labels, [-1])
        flat_label_mask = array_ops.reshape(label_mask, [-1])
        flat_idx_mask = array_ops.reshape(idx_mask, [-1])
        idx = math_ops.range(_get_dim(flat_idx_mask, 0))
        flat = scatter_ops.scatter_nd(
            indices=array_ops.expand_dims(array_ops.boolean_mask(idx, flat_idx_mask), axis=1),
            updates=array_ops.boolean_mask(flat_labels, flat_label_mask),
            shape=array_ops.shape(flat_idx_mask))
        batch_size = _get_dim(labels, 0)
        new_shape = [batch_size, new_maxlen]
        return (array_ops.reshape(flat, new_shape),
                math_ops.cast(new_seq_len, seq_length.dtype))


def ctc_unique_labels(labels: Any, name: str | None = None) -> Any:
    """[unique labels of each row in first-seen order (zero-padded, int64), each label's
    index into them (int32)]."""
    with ops_lib.name_scope(name, "ctc_unique_labels", [labels]):
        labels = convert_to_tensor(labels, name="labels")

        def _unique(x: Any) -> list:
            u_y, u_idx = manip_ops.unique(x)
            y = array_ops.pad(u_y, [[0, _get_dim(u_idx, 0) - _get_dim(u_y, 0)]])
            y = math_ops.cast(y, dtypes_lib.int64)
            return [y, u_idx]

        return functional_ops.map_fn(_unique, labels,
                                     dtype=[dtypes_lib.int64, dtypes_lib.int32])
