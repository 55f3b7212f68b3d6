"""CPU kernels of :mod:`graphcore.ops.ctc_ops` (TF's ``ctc_loss_calculator`` and
``ctc_beam_search.h``): the CTC forward-backward recursion in log space with TF's
pruning of unreachable states, the greedy decoder, and the prefix beam search with TF's
default (identity) scorer."""

from __future__ import annotations

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def _check_inputs(inputs: np.ndarray, seq_len: np.ndarray) -> None:
    if inputs.ndim != 3:
        raise _invalid("inputs is not a 3-Tensor")
    if seq_len.ndim != 1:
        raise _invalid("sequence_length is not a vector")
    if inputs.shape[1] != seq_len.shape[0]:
        raise _invalid(f"len(sequence_length) != batch_size.  len(sequence_length):  "
                       f"{seq_len.shape[0]} batch_size: {inputs.shape[1]}")
    for b, length in enumerate(seq_len.tolist()):
        if length > inputs.shape[0]:
            raise _invalid(f"sequence_length({b}) <= {inputs.shape[0]}")


def _labels_by_batch(indices: np.ndarray, values: np.ndarray, batch: int) -> list:
    if indices.ndim != 2 or indices.shape[1] != 2:
        raise _invalid("labels_indices is not a matrix")
    if values.ndim != 1:
        raise _invalid("labels_values is not a vector")
    if indices.shape[0] != values.shape[0]:
        raise _invalid("labels_indices and labels_values must contain the same number of "
                       f"rows, but saw shapes: [{indices.shape[0]},2] vs. "
                       f"[{values.shape[0]}]")
    labels: list = [[] for _ in range(batch)]
    for (b, _), v in zip(indices.tolist(), values.tolist()):
        if not 0 <= b < batch:
            raise _invalid(f"labels batch index must be between 0 and {batch - 1} "
                           f"inclusive, got {b}")
        labels[b].append(v)
    return labels


def _l_prime(label: list, b: int, num_classes: int, collapse: bool, ignore_longer: bool,
             time: int) -> list:
    """TF's PopulateLPrimes for one batch element: the label with blanks around each."""
    if not label:
        raise _invalid(f"Labels length is zero in batch {b}")
    blank = num_classes - 1
    seq: list = []
    finished = False
    for i, value in enumerate(label):
        if i == 0 or not collapse or value != label[i - 1]:
            if value >= num_classes - 1:
                finished = True
            elif finished:
                raise _invalid(
                    f"Saw a non-null label (index >= num_classes - 1) following a null "
                    f"label, batch: {b} num_classes: {num_classes} labels: "
                    f"{','.join(map(str, label))} labels seen so far: "
                    f"{','.join(map(str, seq))}")
            else:
                seq.append(value)
    if any(v < 0 for v in seq):
        raise _invalid(f"All labels must be nonnegative integers, batch: {b} labels: "
                       f"{','.join(map(str, seq))}")
    if not ignore_longer and len(label) > time:
        raise _invalid(f"Not enough time for target transition sequence (required: "
                       f"{len(label)}, available: {time}){b}You can turn this error into a "
                       "warning by using the flag ignore_longer_outputs_than_inputs")
    out = []
    for value in seq:
        out += [blank, value]
    return out + [blank]


def _ctc_one(logits: np.ndarray, lp: list, merge: bool) -> tuple:
    """(log p(label | logits), gradient wrt logits) for one batch element's [T, C] logits."""
    steps, num_classes = logits.shape
    blank = num_classes - 1
    shifted = logits - logits.max(axis=1, keepdims=True)
    y = np.exp(shifted)
    y /= y.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore"):
        log_y = np.log(y)
    lp_arr = np.asarray(lp)
    u_size = len(lp)
    keep_self = np.array([merge or v == blank for v in lp])
    skip = np.array([u > 1 and lp[u] != blank and not (merge and lp[u] == lp[u - 2])
                     for u in range(u_size)])
    skip_back = np.array([u + 2 < u_size and lp[u] != blank
                          and not (merge and lp[u] == lp[u + 2]) for u in range(u_size)])
    neg_inf = -np.inf
    alpha = np.full((u_size, steps), neg_inf)
    beta = np.full((u_size, steps), neg_inf)
    alpha[0, 0] = log_y[0, blank]
    alpha[1, 0] = log_y[0, lp[1] if u_size > 1 else blank]
    for t in range(1, steps):
        lo, hi = max(0, u_size - 2 * (steps - t)), min(u_size, 2 * (t + 1))
        prev = alpha[:, t - 1]
        total = np.where(keep_self, prev, neg_inf)
        total[1:] = np.logaddexp(total[1:], prev[:-1])
        total[2:] = np.where(skip[2:], np.logaddexp(total[2:], prev[:-2]), total[2:])
        alpha[lo:hi, t] = log_y[t, lp_arr[lo:hi]] + total[lo:hi]
    beta[max(u_size - 2, 0):, steps - 1] = 0.0
    for t in range(steps - 2, -1, -1):
        lo, hi = max(0, u_size - 2 * (steps - t)), min(u_size, 2 * (t + 1))
        nxt = beta[:, t + 1] + log_y[t + 1, lp_arr]
        total = np.where(keep_self, nxt, neg_inf)
        total[:-1] = np.logaddexp(total[:-1], nxt[1:])
        total[:-2] = np.where(skip_back[:-2], np.logaddexp(total[:-2], nxt[2:]), total[:-2])
        beta[lo:hi, t] = np.logaddexp(beta[lo:hi, t], total[lo:hi])
    log_p = np.logaddexp.reduce(alpha[:, 0] + beta[:, 0])
    if log_p == neg_inf:
        return log_p, y
    prob_sum = np.full((steps, num_classes), neg_inf)
    ab = alpha + beta
    for u, label in enumerate(lp):
        prob_sum[:, label] = np.logaddexp(prob_sum[:, label], ab[u])
    return log_p, y - np.exp(prob_sum - log_p)


@register_kernel("CTCLoss")
def _ctc_loss(ctx: KernelContext):
    collapse = ctx.attr("preprocess_collapse_repeated")
    merge = ctx.attr("ctc_merge_repeated")
    ignore_longer = ctx.attr("ignore_longer_outputs_than_inputs")
    out = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(inputs, indices, values, seq_len):
        inputs = np.asarray(inputs)
        seq_len = np.asarray(seq_len)
        _check_inputs(inputs, seq_len)
        steps, batch, num_classes = inputs.shape
        labels = _labels_by_batch(np.asarray(indices), np.asarray(values), batch)
        for b, length in enumerate(seq_len.tolist()):
            if length < 0:
                raise _invalid(f"seq_len({b}) < 0")
        l_primes = [_l_prime(labels[b], b, num_classes, collapse, ignore_longer,
                             int(seq_len[b])) for b in range(batch)]
        loss = np.zeros(batch, np.float64)
        grad = np.zeros(inputs.shape, np.float64)
        for b in range(batch):
            length = int(seq_len[b])
            if length == 0 or (ignore_longer and len(labels[b]) > length):
                continue
            log_p, dy = _ctc_one(inputs[:length, b].astype(np.float64), l_primes[b], merge)
            loss[b] = -log_p
            grad[:length, b] = dy
        return (loss.astype(out), grad.astype(out))

    return compute


def _sparse(paths: list) -> tuple:
    """(indices, values, dense shape) of one decoded path per batch element."""
    indices = [(b, i) for b, path in enumerate(paths) for i in range(len(path))]
    values = [v for path in paths for v in path]
    return (np.asarray(indices, np.int64).reshape(-1, 2), np.asarray(values, np.int64),
            np.asarray([len(paths), max((len(p) for p in paths), default=0)], np.int64))


@register_kernel("CTCGreedyDecoder")
def _ctc_greedy_decoder(ctx: KernelContext):
    merge = ctx.attr("merge_repeated")
    blank_attr = ctx.attr("blank_index")
    out = np.dtype(ctx.output_types[3].as_numpy_dtype)

    def compute(inputs, seq_len):
        inputs, seq_len = np.asarray(inputs), np.asarray(seq_len)
        _check_inputs(inputs, seq_len)
        num_classes = inputs.shape[2]
        blank = blank_attr if blank_attr >= 0 else num_classes + blank_attr
        if not 0 <= blank < num_classes:
            raise _invalid(f"blank_index expected to be between {-num_classes} and "
                           f"{num_classes - 1} but was {blank_attr}")
        paths, log_prob = [], np.zeros((inputs.shape[1], 1), out)
        for b, length in enumerate(seq_len.tolist()):
            rows = inputs[:length, b]
            best = rows.argmax(axis=1) if length else np.zeros(0, np.int64)
            log_prob[b, 0] = -rows.max(axis=1).sum() if length else 0
            path, prev = [], -1
            for c in best.tolist():
                if c != blank and not (merge and c == prev):
                    path.append(c)
                prev = c
            paths.append(path)
        return (*_sparse(paths), log_prob)

    return compute


class _Beam:
    """A prefix in the beam search tree (TF's BeamEntry): its last label, its parent, its
    children by label, and its (total, blank, label) log probabilities now and before."""

    __slots__ = ("label", "parent", "children", "new", "old")

    def __init__(self, parent: _Beam | None, label: int):
        self.label, self.parent, self.children = label, parent, {}
        self.new = [-np.inf, -np.inf, -np.inf]
        self.old = [-np.inf, -np.inf, -np.inf]

    def active(self) -> bool:
        return self.new[0] != -np.inf

    def child(self, label: int) -> _Beam:
        c = self.children.get(label)
        if c is None:
            c = self.children[label] = _Beam(self, label)
        return c

    def labels(self, merge: bool) -> list:
        out, prev, c = [], -1, self
        while c.parent is not None:
            if not merge or c.label != prev:
                out.append(c.label)
            prev, c = c.label, c.parent
        return out[::-1]


def _bottom(leaves: list) -> _Beam:
    return min(leaves, key=lambda e: e.new[0])


def _is_candidate(prob: list, leaves: list, beam_width: int) -> bool:
    """A prefix joins the beam if it is possible and the beam has room or a worse one."""
    return prob[0] > -np.inf and (len(leaves) < beam_width
                                  or prob[0] > _bottom(leaves).new[0])


def _beam_search(rows: np.ndarray, beam_width: int) -> list:
    """The beams (leaves) after TF's prefix beam search over ``rows`` [T, C]."""
    blank = rows.shape[1] - 1
    root = _Beam(None, -1)
    root.new = [0.0, 0.0, -np.inf]
    leaves = [root]
    for raw in rows.astype(np.float64):
        # Log-softmax offset: the beams' probabilities are normalized, as TF's.
        norm_offset = raw.max()
        norm_offset += np.log(np.exp(raw - norm_offset).sum())
        branches = sorted(leaves, key=lambda e: -e.new[0])
        for e in branches:
            e.old = list(e.new)
        leaves = []
        for e in branches:
            if e.parent is not None:
                if e.parent.active():
                    previous = e.parent.old[1] if e.label == e.parent.label \
                        else e.parent.old[0]
                    e.new[2] = np.logaddexp(e.new[2], previous)
                e.new[2] += raw[e.label] - norm_offset
            e.new[1] = e.old[0] + raw[blank] - norm_offset
            e.new[0] = np.logaddexp(e.new[1], e.new[2])
            leaves.append(e)

        for e in branches:
            if not _is_candidate(e.old, leaves, beam_width):
                continue
            for label in range(blank):
                c = e.child(label)
                if c.active():
                    continue
                c.new[1] = -np.inf
                previous = e.old[1] if c.label == e.label else e.old[0]
                c.new[2] = raw[label] - norm_offset + previous
                c.new[0] = c.new[2]
                if _is_candidate(c.new, leaves, beam_width):
                    if len(leaves) == beam_width:
                        worst = _bottom(leaves)
                        worst.new = [-np.inf, -np.inf, -np.inf]
                        leaves.remove(worst)
                    leaves.append(c)
                else:
                    c.old = [-np.inf, -np.inf, -np.inf]
                    c.new = [-np.inf, -np.inf, -np.inf]
    return sorted(leaves, key=lambda e: -e.new[0])


@register_kernel("CTCBeamSearchDecoder")
def _ctc_beam_search_decoder(ctx: KernelContext):
    beam_width, top_paths = ctx.attr("beam_width"), ctx.attr("top_paths")
    merge = ctx.attr("merge_repeated")
    out = np.dtype(ctx.output_types[-1].as_numpy_dtype)

    def compute(inputs, seq_len):
        inputs, seq_len = np.asarray(inputs), np.asarray(seq_len)
        _check_inputs(inputs, seq_len)
        if top_paths > beam_width:
            raise _invalid("requested more paths than the beam width.")
        batch = inputs.shape[1]
        paths = [[None] * batch for _ in range(top_paths)]
        log_prob = np.zeros((batch, top_paths), out)
        for b, length in enumerate(seq_len.tolist()):
            leaves = _beam_search(inputs[:length, b], beam_width)
            if top_paths > len(leaves):
                raise _invalid("Less leaves in the beam search than requested.")
            for i in range(top_paths):
                paths[i][b] = leaves[i].labels(merge)
                log_prob[b, i] = leaves[i].new[0]
        sparse = [_sparse(p) for p in paths]
        return (*[s[0] for s in sparse], *[s[1] for s in sparse], *[s[2] for s in sparse],
                log_prob)

    return compute
