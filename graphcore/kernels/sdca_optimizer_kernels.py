"""CPU kernel of SdcaOptimizer (:mod:`graphcore.ops.sdca_ops`): one pass of stochastic
dual coordinate ascent (TF's ``sdca_ops.cc``/``sdca_internal.cc``) over a mini-batch of
examples with sparse and dense features, returning the new dual state per example and
the weight deltas.

As TF's: examples are visited in a random order (``adaptative``: sampled by their
estimated progress, TF's sampler with its fill of the unsampled positions), weights are
the nominal weights plus ``num_loss_partitions`` times the deltas accumulated so far,
shrunk by ``l1 / l2``, and the dual of each example is updated in closed form or by
Newton steps per loss. TF's threads update the deltas concurrently; here the examples
run in sequence.
"""

from __future__ import annotations

import math

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel

_F32 = np.float32
_DOUBLE_MAX = np.finfo(np.float64).max


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


# -- the losses: (updated dual, dual loss, primal loss, derivative, smoothness, label) --
def _binary_label(label: float) -> float:
    if label == 0.0:
        return -1.0
    if label == 1.0:
        return 1.0
    raise _invalid("Only labels of 0.0 or 1.0 are supported right now. Found example with "
                   f"label: {label:g}")


class _Logistic:
    smoothness = 4.0
    convert_label = staticmethod(_binary_label)

    @staticmethod
    def updated_dual(p, label, weight, dual, wx, norm):
        x = 0.0
        for _ in range(10):  # Newton steps on the modified function (TF's readme)
            tanhx = math.tanh(x)
            numerator = -2 * label * x - wx - p * norm * weight * (
                0.5 * (1 + tanhx) / label - dual)
            denominator = -2 * label - p * norm * weight * (1 - tanhx * tanhx) * 0.5 / label
            x = x - numerator / denominator
        return 0.5 * (1 + math.tanh(x)) / label

    @staticmethod
    def dual_loss(dual, label, weight):
        ay = dual * label
        log_ay = math.log(ay) if ay > 0 else 0.0
        one_minus_ay = 1 - ay
        log_one_minus_ay = math.log(one_minus_ay) if one_minus_ay > 0 else 0.0
        return (ay * log_ay + one_minus_ay * log_one_minus_ay) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        y_wx = label * wx
        if y_wx > 0:
            return math.log1p(math.exp(-y_wx)) * weight
        return (math.log1p(math.exp(y_wx)) - y_wx) * weight

    @staticmethod
    def derivative(wx, label, weight):
        if label * wx > 0:
            inverse_exp_term = math.exp(-label * wx) / (1 + math.exp(-label * wx))
        else:
            inverse_exp_term = 1 / (1 + math.exp(label * wx))
        return -inverse_exp_term * label * weight


class _Squared:
    smoothness = 1.0

    @staticmethod
    def convert_label(label):
        return label

    @staticmethod
    def updated_dual(p, label, weight, dual, wx, norm):
        return dual + (label - dual - wx) / (1 + p * norm * weight)

    @staticmethod
    def dual_loss(dual, label, weight):
        return dual * (0.5 * dual - label) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        error = wx - label
        return error * error * weight * 0.5

    @staticmethod
    def derivative(wx, label, weight):
        return (wx - label) * weight


class _Hinge:
    smoothness = 0.0
    gamma = 0.0
    convert_label = staticmethod(_binary_label)

    @classmethod
    def updated_dual(cls, p, label, weight, dual, wx, norm):
        g = cls.gamma
        candidate = dual + (label - wx - g * dual) / (p * weight * norm + g)
        if label * candidate < 0:
            return 0.0
        if label * candidate > 1.0:
            return label
        return candidate

    @classmethod
    def dual_loss(cls, dual, label, weight):
        y_alpha = dual * label
        if y_alpha < 0 or y_alpha > 1.0:
            return _DOUBLE_MAX
        return (-y_alpha + 0.5 * cls.gamma * dual * dual) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        return max(0.0, 1 - label * wx) * weight

    @staticmethod
    def derivative(wx, label, weight):
        return -label * weight if label * wx < 1 else 0.0


class _SmoothHinge(_Hinge):
    smoothness = 1.0
    gamma = 1.0

    @staticmethod
    def primal_loss(wx, label, weight):
        y_wx = label * wx
        if y_wx >= 1:
            return 0.0
        if y_wx <= 0.0:  # 1 - gamma
            return (1 - y_wx - 0.5) * weight
        return (1 - y_wx) * (1 - y_wx) * weight * 0.5

    @staticmethod
    def derivative(wx, label, weight):
        if label * wx >= 1:
            return 0.0
        if label * wx <= 0.0:
            return -label
        return wx - label


class _Poisson:
    smoothness = 1.0

    @staticmethod
    def convert_label(label):
        if label < 0.0:
            raise _invalid("Only non-negative labels can be used with the Poisson log loss. "
                           f"Found example with label: {label:g}")
        return label

    @staticmethod
    def updated_dual(p, label, weight, dual, wx, norm):
        y_minus_a = label - dual
        x = math.log(y_minus_a) if y_minus_a > 0 else 0.0
        for _ in range(10):
            expx = math.exp(x)
            numerator = x - wx - p * norm * weight * (label - dual - expx)
            denominator = 1 + p * norm * weight * expx
            x = x - numerator / denominator
        return label - math.exp(x)

    @staticmethod
    def dual_loss(dual, label, weight):
        y_minus_a = label - dual
        if y_minus_a == 0.0:
            return 0.0
        if y_minus_a < 0.0:
            return _DOUBLE_MAX
        return y_minus_a * (math.log(y_minus_a) - 1) * weight

    @staticmethod
    def primal_loss(wx, label, weight):
        return (math.exp(wx) - wx * label) * weight

    @staticmethod
    def derivative(wx, label, weight):
        return (math.exp(wx) - label) * weight


_LOSSES = {b"logistic_loss": _Logistic, b"squared_loss": _Squared, b"hinge_loss": _Hinge,
           b"smooth_hinge_loss": _SmoothHinge, b"poisson_loss": _Poisson}


def _shrink(w: np.ndarray, shrinkage: np.float32) -> np.ndarray:
    """sign(w) * max(|w| - shrinkage, 0), in float32 (TF's EigenShrinkVector)."""
    return np.sign(w) * np.maximum(np.abs(w) - shrinkage, _F32(0))


def _shrink_scalar(w: float, shrinkage: float) -> float:
    shrunk = max(abs(w) - shrinkage, 0.0)
    return math.copysign(shrunk, w) if shrunk > 0.0 else 0.0


class _Example:
    __slots__ = ("weight", "label", "sparse", "dense_row", "squared_norm")


def _examples(n_sparse, example_indices, feature_indices, feature_values, dense_features,
              weights, labels, sparse_maps):
    num_examples = weights.size
    examples = []
    for example_id in range(num_examples):
        e = _Example()
        e.weight = float(weights[example_id])
        e.label = float(labels[example_id])
        e.sparse, e.dense_row = [], []
        examples.append(e)
    for i in range(n_sparse):
        ex_idx, feat_idx = example_indices[i], feature_indices[i]
        if ex_idx.size != feat_idx.size:
            raise _invalid(f"Found mismatched example_indices and feature_indices [{ex_idx}] "
                           f"vs [{feat_idx}]")
        values = feature_values[i] if i < len(feature_values) else None
        end = 0
        for example_id in range(num_examples):
            start = end
            while end < ex_idx.size and ex_idx[end] == example_id:
                end += 1
            ids = feat_idx[start:end]
            for f in ids:
                if int(f) not in sparse_maps[i]:
                    raise _invalid(f"Found sparse feature indices out of valid range: {f}")
            positions = np.array([sparse_maps[i][int(f)] for f in ids], np.int64)
            vals = values[start:end].astype(np.float64) if values is not None else None
            examples[example_id].sparse.append((positions, vals))
    for e in examples:
        squared_norm = 0.0
        for positions, vals in e.sparse:
            if np.unique(positions).size != positions.size:
                raise _invalid("Duplicate index in sparse vector.")
            squared_norm += float(np.sum(vals * vals)) if vals is not None else positions.size
        e.squared_norm = squared_norm
    for dense in dense_features:
        for example_id, e in enumerate(examples):
            row = dense[example_id]
            e.dense_row.append(row)
            e.squared_norm += float(np.square(row).sum(dtype=_F32))
    return examples


@register_kernel("SdcaOptimizer")
def _sdca_optimizer(ctx: KernelContext):
    attr = ctx.node_def.attr
    loss_type = attr["loss_type"].s
    if loss_type not in _LOSSES:
        raise _invalid(f"Unsupported loss type: {loss_type.decode()}")
    loss = _LOSSES[loss_type]
    adaptive = attr["adaptative"].b
    n_sparse = attr["num_sparse_features"].i
    n_values = attr["num_sparse_features_with_values"].i
    n_dense = attr["num_dense_features"].i
    if n_sparse + n_dense <= 0:
        raise _invalid("Requires at least one feature to train.")
    partitions = attr["num_loss_partitions"].i
    l1, l2 = _F32(attr["l1"].f), _F32(attr["l2"].f)
    shrinkage = float(l1 / l2)
    shrinkage32 = _F32(shrinkage)
    symmetric_l2 = float(l2)

    def compute(*inputs):
        it = iter(inputs)

        def take(n):
            return [np.asarray(next(it)) for _ in range(n)]

        example_indices = [a.astype(np.int64).reshape(-1) for a in take(n_sparse)]
        feature_indices = [a.astype(np.int64).reshape(-1) for a in take(n_sparse)]
        feature_values = [a.astype(_F32).reshape(-1) for a in take(n_values)]
        dense_features = take(n_dense)
        for i, d in enumerate(dense_features):
            if d.ndim != 2:
                raise _invalid(f"Dense features at index {i} must be rank 2 but is rank "
                               f"{d.ndim}")
        weights = np.asarray(next(it), _F32).reshape(-1)
        labels = np.asarray(next(it), _F32).reshape(-1)
        if labels.size != weights.size:
            raise _invalid(f"Expected {weights.size} example labels but got {labels.size}")
        sparse_indices = [a.astype(np.int64).reshape(-1) for a in take(n_sparse)]
        sparse_weights = [a.astype(_F32) for a in take(n_sparse)]
        dense_weights = [a.astype(_F32) for a in take(n_dense)]
        state = np.array(next(it), _F32)
        num_examples = weights.size
        if state.ndim != 2:
            raise _invalid(f"example_state_data must be rank 2 but is rank {state.ndim}")
        if state.shape != (num_examples, 4):
            raise _invalid(f"Expected shape [{num_examples},4] for example_state_data, got "
                           f"[{','.join(str(d) for d in state.shape)}]")
        for d, w in zip(dense_features, dense_weights):
            if d.shape[1] > w.size:
                raise _invalid(f"More dense features than we have parameters for: {d.shape[1]}")
        sparse_maps = [{int(f): k for k, f in enumerate(ids)} for ids in sparse_indices]
        examples = _examples(n_sparse, example_indices, feature_indices, feature_values,
                             [d.astype(_F32) for d in dense_features], weights, labels,
                             sparse_maps)
        sparse_nominals = [w.reshape(-1) for w in sparse_weights]
        sparse_deltas = [np.zeros_like(w) for w in sparse_nominals]
        dense_nominals = [w.reshape(-1) for w in dense_weights]
        dense_deltas = [np.zeros_like(w) for w in dense_nominals]

        def statistics(e):
            norm = e.squared_norm / symmetric_l2
            prev_wx = wx = 0.0
            for (positions, vals), nominal, delta in zip(e.sparse, sparse_nominals,
                                                         sparse_deltas):
                for k, pos in enumerate(positions):
                    fv = 1.0 if vals is None else float(vals[k])
                    w = nominal[pos]
                    feature_weight = float(w + delta[pos] * _F32(partitions))
                    prev_wx += fv * _shrink_scalar(float(w), shrinkage)
                    wx += fv * _shrink_scalar(feature_weight, shrinkage)
            for row, nominal, delta in zip(e.dense_row, dense_nominals, dense_deltas):
                n = row.size
                feature_weights = nominal[:n] + delta[:n] * _F32(partitions)
                prev_wx += float(np.sum(row * _shrink(nominal[:n], shrinkage32), dtype=_F32))
                wx += float(np.sum(row * _shrink(feature_weights, shrinkage32), dtype=_F32))
            return prev_wx, wx, norm

        rng = np.random.default_rng()
        if adaptive:
            order = _adaptive_order(examples, state, loss, partitions, statistics,
                                    symmetric_l2, rng)
        else:
            order = rng.permutation(num_examples)
        for index in order:
            e = examples[index]
            dual = float(state[index, 0])
            label = float(_F32(loss.convert_label(e.label)))
            prev_wx, wx, norm = statistics(e)
            new_dual = loss.updated_dual(partitions, label, e.weight, dual, wx, norm)
            delta = (new_dual - dual) * e.weight / symmetric_l2
            for (positions, vals), deltas in zip(e.sparse, sparse_deltas):
                for k, pos in enumerate(positions):
                    fv = 1.0 if vals is None else float(vals[k])
                    deltas[pos] = _F32(float(deltas[pos]) + fv * delta)
            for row, deltas in zip(e.dense_row, dense_deltas):
                deltas[:row.size] += row * _F32(delta)
            state[index] = (new_dual, loss.primal_loss(prev_wx, label, e.weight),
                            loss.dual_loss(dual, label, e.weight), e.weight)
        return (state,
                *[d.reshape(w.shape) for d, w in zip(sparse_deltas, sparse_weights)],
                *[d.reshape(w.shape) for d, w in zip(dense_deltas, dense_weights)])

    return compute


def _adaptive_order(examples, state, loss, partitions, statistics, symmetric_l2, rng):
    """TF's adaptive sampling: examples drawn in proportion to weight * sqrt(norm + l2 *
    smoothness) * |dual + loss'(wx)|, each kept with probability 0.1 ** (times already
    drawn); positions left after as many retries as examples keep TF's initial index 0."""
    n = len(examples)
    probabilities = np.empty(n)
    for i, e in enumerate(examples):
        label = float(_F32(loss.convert_label(e.label)))
        _, wx, _ = statistics(e)
        kappa = float(state[i, 0]) + loss.derivative(wx, label, 1.0)
        probabilities[i] = e.weight * math.sqrt(
            e.squared_norm + symmetric_l2 * loss.smoothness) * abs(kappa)
    total = probabilities.sum()
    order = np.zeros(n, np.int64)
    if total <= 0:
        return order
    counts = np.zeros(n, np.int64)
    filled = retries = 0
    while filled < n and retries < n:
        picked = int(rng.choice(n, p=probabilities / total))
        if rng.random() > 0.1 ** counts[picked]:
            retries += 1
            continue
        counts[picked] += 1
        order[filled] = picked
        filled += 1
    return order
