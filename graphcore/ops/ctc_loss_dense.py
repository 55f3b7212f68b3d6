"""TF2's CTC loss in tf.compat.v1.nn.ctc_loss_v2 (TF's ``ctc_ops.ctc_loss_v2`` and
``ctc_loss_dense``): SparseTensor labels go to the CTCLoss op with the blank moved last;
dense labels run TF's batched forward-backward over label/blank states, built from graph
ops, with its custom gradient (exp(log_softmax) - the state posteriors).

TF runs the time recursion (``_scan``) as a functional While over Defun functions;
graphcore builds the same recursion with TF1's while_loop (Enter/Merge/Switch/Exit), so
values and gradients agree with TF's while the loop's nodes differ."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.framework.sparse_tensor import SparseTensor
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.ops import (
    array_ops,
    custom_gradient,
    elementwise_ops,
    linalg_ops,
    math_ops,
    nn_ops,
    scatter_ops,
    while_loop,
)
from graphcore.ops.ctc_ops import _get_dim, ctc_loss

__all__ = ["ctc_loss_v2"]

_logsumexp = elementwise_ops.reduce_logsumexp


def _ctc_state_trans(label_seq: Any) -> ops_lib.Tensor:
    """[batch, states, states] transition weights between label and blank states."""
    with ops_lib.name_scope("ctc_state_trans"):
        label_seq = convert_to_tensor(label_seq, name="label_seq")
        batch_size = _get_dim(label_seq, 0)
        num_labels = _get_dim(label_seq, 1)
        num_label_states = num_labels + 1
        num_states = 2 * num_label_states
        label_states = math_ops.range(num_label_states)
        blank_states = label_states + num_label_states
        start_to_label = [[1, 0]]
        blank_to_label = array_ops.stack([label_states[1:], blank_states[:-1]], 1)
        label_to_blank = array_ops.stack([blank_states, label_states], 1)
        indices = array_ops.concat([start_to_label, blank_to_label, label_to_blank], 0)
        values = array_ops.ones([_get_dim(indices, 0)])
        trans = scatter_ops.scatter_nd(indices, values, shape=[num_states, num_states])
        trans += linalg_ops.eye(num_states)
        batch_idx = array_ops.zeros_like(label_states[2:])
        indices = array_ops.stack([batch_idx, label_states[2:], label_states[1:-1]], 1)
        indices = array_ops.tile(array_ops.expand_dims(indices, 0), [batch_size, 1, 1])
        batch_idx = array_ops.expand_dims(math_ops.range(batch_size), 1) * [1, 0, 0]
        indices += array_ops.expand_dims(batch_idx, 1)
        repeats = math_ops.equal(label_seq[:, :-1], label_seq[:, 1:])
        values = 1.0 - math_ops.cast(repeats, dtypes_lib.float32)
        batched_shape = [batch_size, num_states, num_states]
        label_to_label = scatter_ops.scatter_nd(indices, values, batched_shape)
        return array_ops.expand_dims(trans, 0) + label_to_label


def _ctc_state_log_probs(seq_lengths: Any, max_seq_length: Any) -> tuple:
    batch_size = _get_dim(seq_lengths, 0)
    num_label_states = max_seq_length + 1
    num_duration_states = 2
    num_states = num_duration_states * num_label_states
    log_0 = math_ops.cast(math_ops.log(math_ops.cast(0, dtypes_lib.float64) + 1e-307),
                          dtypes_lib.float32)
    initial_state_log_probs = array_ops.one_hot(
        indices=array_ops.zeros([batch_size], dtype=dtypes_lib.int32), depth=num_states,
        on_value=0.0, off_value=log_0, axis=1)
    label_final_state_mask = array_ops.one_hot(seq_lengths, depth=num_label_states, axis=0)
    duration_final_state_mask = array_ops.ones([num_duration_states, 1, batch_size])
    final_state_mask = duration_final_state_mask * label_final_state_mask
    final_state_log_probs = (1.0 - final_state_mask) * log_0
    final_state_log_probs = array_ops.reshape(final_state_log_probs, [num_states, batch_size])
    return initial_state_log_probs, array_ops.transpose(final_state_log_probs)


def _ilabel_to_state(labels: Any, num_labels: Any, ilabel_log_probs: Any) -> Any:
    num_label_states = _get_dim(labels, 1)
    blank = ilabel_log_probs[:, :, :1]
    blank = array_ops.tile(blank, [1, 1, num_label_states + 1])
    one_hot = array_ops.one_hot(labels, depth=num_labels)
    one_hot = array_ops.expand_dims(one_hot, axis=0)
    ilabel_log_probs = array_ops.expand_dims(ilabel_log_probs, axis=2)
    state_log_probs = math_ops.reduce_sum(ilabel_log_probs * one_hot, axis=3)
    state_log_probs = array_ops.concat([state_log_probs, blank], axis=2)
    return array_ops.pad(state_log_probs, [[0, 0], [0, 0], [1, 0]],
                         constant_values=math_ops.log(0.0))


def _state_to_olabel(labels: Any, num_labels: Any, states: Any) -> Any:
    num_label_states = _get_dim(labels, 1) + 1
    label_states = states[:, :, 1:num_label_states]
    blank_states = states[:, :, num_label_states:]
    one_hot = array_ops.one_hot(labels - 1, depth=(num_labels - 1), on_value=0.0,
                                off_value=math_ops.log(0.0))
    one_hot = array_ops.expand_dims(one_hot, axis=0)
    label_states = array_ops.expand_dims(label_states, axis=3)
    label_olabels = _logsumexp(label_states + one_hot, axis=2)
    blank_olabels = _logsumexp(blank_states, axis=2, keepdims=True)
    return array_ops.concat([blank_olabels, label_olabels], axis=-1)


def _sum_states(idx: Any, states: Any) -> Any:
    with ops_lib.name_scope("sum_states"):
        idx = convert_to_tensor(idx, name="idx")
        num_states = _get_dim(states, 2)
        states = array_ops.expand_dims(states, axis=2)
        one_hot = array_ops.one_hot(idx, depth=num_states, on_value=0.0,
                                    off_value=math_ops.log(0.0), axis=1)
        return _logsumexp(states + one_hot, axis=-1)


def _state_to_olabel_unique(labels: Any, num_labels: Any, states: Any, unique: Any) -> Any:
    num_label_states = _get_dim(labels, 1) + 1
    label_states = states[:, :, 1:num_label_states]
    blank_states = states[:, :, num_label_states:]
    unique_y, unique_idx = unique
    mul_reduce = _sum_states(unique_idx, label_states)
    num_frames = _get_dim(states, 0)
    batch_size = _get_dim(states, 1)
    num_states = num_label_states - 1
    batch_state_major = array_ops.transpose(mul_reduce, perm=[1, 2, 0])
    batch_state_major = array_ops.reshape(batch_state_major,
                                          [batch_size * num_states, num_frames])
    batch_offset = math_ops.range(batch_size, dtype=unique_y.dtype) * num_labels
    indices = unique_y + array_ops.expand_dims(batch_offset, axis=-1)
    indices = array_ops.reshape(indices, [-1, 1])
    scatter = scatter_ops.scatter_nd(indices=indices, updates=batch_state_major,
                                     shape=[batch_size * num_labels, num_frames])
    scatter = array_ops.reshape(scatter, [batch_size, num_labels, num_frames])
    mask = array_ops.ones_like(batch_state_major, dtype=dtypes_lib.bool)
    mask = scatter_ops.scatter_nd(indices=indices, updates=mask,
                                  shape=[batch_size * num_labels, num_frames])
    mask = array_ops.reshape(mask, [batch_size, num_labels, num_frames])
    scatter = array_ops.where(mask, scatter,
                              array_ops.fill(array_ops.shape(scatter), math_ops.log(0.0)))
    label_olabels = array_ops.transpose(scatter, [2, 0, 1])
    label_olabels = label_olabels[:, :, 1:]
    blank_olabels = _logsumexp(blank_states, axis=2, keepdims=True)
    return array_ops.concat([blank_olabels, label_olabels], axis=-1)


def _scan(fn: Any, elems: Any, initial: Any, reverse: bool = False,
          inclusive: bool = False) -> Any:
    """TF's ``ctc_ops._scan``: the accumulators after each step, stacked (with the
    initial ones first when ``inclusive``)."""
    flat_elems = [convert_to_tensor(x) for x in nest.flatten(elems)]
    num_elems = array_ops.shape(flat_elems[0])[0]
    flat_initial = [convert_to_tensor(x) for x in nest.flatten(initial)]
    num_accums = len(flat_initial)

    def pack_elems(x: list) -> Any:
        return nest.pack_sequence_as(elems, x)

    def pack(x: list) -> Any:
        return nest.pack_sequence_as(initial, x)

    def cond(i: Any, *args: Any) -> Any:
        return i >= 0 if reverse else i < num_elems

    def body(i: Any, *args: Any) -> list:
        out, accum = args[:num_accums], args[num_accums:]
        slices = [array_ops.gather(e, i) for e in flat_elems]
        flat_accum = nest.flatten(fn(pack(list(accum)), pack_elems(slices)))
        update_i = i + 1 if inclusive and not reverse else i
        new_out = [scatter_ops.tensor_scatter_update(x, [[update_i]], [y])
                   for x, y in zip(out, flat_accum)]
        i = i - 1 if reverse else i + 1
        return [i] + new_out + flat_accum

    init_i = num_elems - 1 if reverse else array_ops.constant(0, dtype=dtypes_lib.int32)
    outputs = []
    num_outputs = num_elems + (1 if inclusive else 0)
    for initial_accum in flat_initial:
        out_shape = array_ops.concat([[num_outputs], array_ops.shape(initial_accum)], 0)
        out = array_ops.zeros(out_shape, dtype=initial_accum.dtype)
        if inclusive:
            out = scatter_ops.tensor_scatter_add(out, [[init_i + (1 if reverse else 0)]],
                                                 [initial_accum])
        outputs.append(out)
    results = while_loop.while_loop(cond, body, [init_i] + outputs + flat_initial,
                                    back_prop=False)
    return pack(list(results[1:num_accums + 1]))


def _forward_backward_log(state_trans_log_probs: Any, initial_state_log_probs: Any,
                          final_state_log_probs: Any, observed_log_probs: Any,
                          sequence_length: Any) -> tuple:
    perm = [1, 0] if state_trans_log_probs.shape.ndims == 2 else [0, 2, 1]
    bwd_state_trans_log_probs = array_ops.transpose(state_trans_log_probs, perm)
    batch_size = _get_dim(observed_log_probs, 1)

    def _forward(state_log_prob: Any, obs_log_prob: Any) -> Any:
        state_log_prob = array_ops.expand_dims(state_log_prob, axis=1)
        state_log_prob += state_trans_log_probs
        state_log_prob = _logsumexp(state_log_prob, axis=-1)
        state_log_prob += obs_log_prob
        log_prob_sum = _logsumexp(state_log_prob, axis=-1, keepdims=True)
        return state_log_prob - log_prob_sum

    fwd = _scan(_forward, observed_log_probs, initial_state_log_probs, inclusive=True)

    def _backward(accs: Any, elems: Any) -> tuple:
        state_log_prob, cum_log_sum = accs
        obs_log_prob, mask = elems
        state_log_prob += obs_log_prob
        state_log_prob = array_ops.expand_dims(state_log_prob, axis=1)
        state_log_prob += bwd_state_trans_log_probs
        state_log_prob = _logsumexp(state_log_prob, axis=-1)
        log_prob_sum = _logsumexp(state_log_prob, axis=-1, keepdims=True)
        state_log_prob -= log_prob_sum
        cum_log_sum += array_ops.squeeze(log_prob_sum, axis=[-1]) * mask
        batched_mask = array_ops.expand_dims(mask, axis=1)
        out = state_log_prob * batched_mask
        out += final_state_log_probs * (1.0 - batched_mask)
        return out, cum_log_sum

    zero_log_sum = array_ops.zeros([batch_size])
    maxlen = _get_dim(observed_log_probs, 0)
    mask = array_ops.sequence_mask(sequence_length, maxlen, dtypes_lib.float32)
    mask = array_ops.transpose(mask, perm=[1, 0])
    bwd, cum_log_sum = _scan(_backward, (observed_log_probs, mask),
                             (final_state_log_probs, zero_log_sum), reverse=True,
                             inclusive=True)
    fwd_bwd_log_probs = fwd[1:] + bwd[1:]
    fwd_bwd_log_probs_sum = _logsumexp(fwd_bwd_log_probs, axis=2, keepdims=True)
    fwd_bwd_log_probs -= fwd_bwd_log_probs_sum
    fwd_bwd_log_probs += math_ops.log(array_ops.expand_dims(mask, axis=2))
    log_likelihood = bwd[0, :, 0] + cum_log_sum[0]
    return fwd_bwd_log_probs, log_likelihood


def _ctc_loss_and_grad(logits: Any, labels: Any, label_length: Any, logit_length: Any,
                       unique: Any = None) -> tuple:
    num_labels = _get_dim(logits, 2)
    max_label_seq_length = _get_dim(labels, 1)
    ilabel_log_probs = nn_ops.log_softmax(logits)
    state_log_probs = _ilabel_to_state(labels, num_labels, ilabel_log_probs)
    state_trans_probs = _ctc_state_trans(labels)
    initial_state_log_probs, final_state_log_probs = _ctc_state_log_probs(
        label_length, max_label_seq_length)
    fwd_bwd_log_probs, log_likelihood = _forward_backward_log(
        state_trans_log_probs=math_ops.log(state_trans_probs),
        initial_state_log_probs=initial_state_log_probs,
        final_state_log_probs=final_state_log_probs, observed_log_probs=state_log_probs,
        sequence_length=logit_length)
    if unique:
        olabel_log_probs = _state_to_olabel_unique(labels, num_labels, fwd_bwd_log_probs,
                                                   unique)
    else:
        olabel_log_probs = _state_to_olabel(labels, num_labels, fwd_bwd_log_probs)
    grad = math_ops.exp(ilabel_log_probs) - math_ops.exp(olabel_log_probs)
    max_logit_length = _get_dim(logits, 0)
    logit_mask = array_ops.sequence_mask(logit_length, max_logit_length, dtypes_lib.float32)
    logit_mask = array_ops.transpose(logit_mask, perm=[1, 0])
    logit_mask = array_ops.expand_dims(logit_mask, axis=2)
    grad *= logit_mask
    return -log_likelihood, grad


def _ctc_loss_dense(labels: Any, logits: Any, label_length: Any, logit_length: Any,
                    logits_time_major: bool = True, unique: Any = None,
                    blank_index: int = 0, name: str | None = None) -> ops_lib.Tensor:
    with ops_lib.name_scope(name, "ctc_loss_dense",
                            [logits, labels, label_length, logit_length]):
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        label_length = convert_to_tensor(label_length, name="label_length")
        logit_length = convert_to_tensor(logit_length, name="logit_length")
        orig_dtype = logits.dtype
        if orig_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
            logits = math_ops.cast(logits, dtypes_lib.float32)
        if not logits_time_major:
            logits = array_ops.transpose(logits, perm=[1, 0, 2])
        if blank_index != 0:
            if blank_index < 0:
                blank_index += _get_dim(logits, 2)
            logits = array_ops.concat([logits[:, :, blank_index:blank_index + 1],
                                       logits[:, :, :blank_index],
                                       logits[:, :, blank_index + 1:]], axis=2)
            labels = array_ops.where(labels < blank_index, labels + 1, labels)
        args = [logits, labels, label_length, logit_length]
        if unique:
            unique_y, unique_idx = unique
            if blank_index != 0:
                unique_y = array_ops.where(unique_y < blank_index, unique_y + 1, unique_y)
                label_mask_len = math_ops.reduce_max(unique_idx, axis=1) + 1
                max_label_length = _get_dim(unique_y, 1)
                label_mask = array_ops.sequence_mask(label_mask_len, max_label_length)
                unique_y = array_ops.where(label_mask, unique_y, array_ops.zeros_like(unique_y))
            args.extend([unique_y, unique_idx])

        @custom_gradient.custom_gradient
        def compute_ctc_loss(logits_t: Any, labels_t: Any, label_length_t: Any,
                             logit_length_t: Any, *unique_t: Any) -> Any:
            logits_t.set_shape(logits.shape)
            labels_t.set_shape(labels.shape)
            label_length_t.set_shape(label_length.shape)
            logit_length_t.set_shape(logit_length.shape)
            kwargs = dict(logits=logits_t, labels=labels_t, label_length=label_length_t,
                          logit_length=logit_length_t)
            if unique_t:
                kwargs["unique"] = unique_t
            result = _ctc_loss_and_grad(**kwargs)

            def grad(grad_loss: Any) -> list:
                grads = [array_ops.reshape(grad_loss, [1, -1, 1]) * result[1]]
                return grads + [None] * (len(args) - len(grads))

            return result[0], grad

        loss = compute_ctc_loss(*args)
        if orig_dtype in (dtypes_lib.float16, dtypes_lib.bfloat16):
            loss = math_ops.cast(loss, orig_dtype)
        return loss


def ctc_loss_v2(labels: Any, logits: Any, label_length: Any, logit_length: Any,
                logits_time_major: bool = True, unique: Any = None,
                blank_index: int | None = None, name: str | None = None) -> ops_lib.Tensor:
    """The CTC loss of dense ([batch, max_label_length] with ``label_length``) or sparse
    ``labels``, with ``blank_index`` the blank class (0 for dense labels by default)."""
    if isinstance(labels, SparseTensor):
        if blank_index is None:
            raise ValueError("Argument `blank_index` must be provided when labels is a "
                             "SparseTensor.")
        if blank_index < 0:
            blank_index += _get_dim(logits, 2)
        if blank_index != _get_dim(logits, 2) - 1:
            logits = array_ops.concat([logits[:, :, :blank_index],
                                       logits[:, :, blank_index + 1:],
                                       logits[:, :, blank_index:blank_index + 1]], axis=2)
            labels = SparseTensor(labels.indices,
                                  array_ops.where(labels.values < blank_index, labels.values,
                                                  labels.values - 1), labels.dense_shape)
        return ctc_loss(labels=labels, inputs=logits, sequence_length=logit_length,
                        time_major=logits_time_major)
    if blank_index is None:
        blank_index = 0
    return _ctc_loss_dense(labels=labels, logits=logits, label_length=label_length,
                           logit_length=logit_length, logits_time_major=logits_time_major,
                           unique=unique, blank_index=blank_index, name=name)
