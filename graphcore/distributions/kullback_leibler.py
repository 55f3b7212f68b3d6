"""``tf.distributions.kl_divergence`` and ``RegisterKL``: KL functions registered per pair
of distribution classes, looked up along both classes' MROs (the closest registered pair
wins), as TF's ``kullback_leibler.py``."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, control_flow_ops, elementwise_ops, math_ops

__all__ = ["RegisterKL", "cross_entropy", "kl_divergence"]

_DIVERGENCES: dict[tuple[type, type], Callable] = {}


def _registered_kl(type_a: type, type_b: type) -> Callable | None:
    best, best_dist = None, None
    for dist_a, parent_a in enumerate(inspect.getmro(type_a)):
        for dist_b, parent_b in enumerate(inspect.getmro(type_b)):
            candidate = _DIVERGENCES.get((parent_a, parent_b))
            if not best or (candidate and dist_a + dist_b < best_dist):
                best, best_dist = candidate, dist_a + dist_b
    return best


def kl_divergence(distribution_a: Any, distribution_b: Any, allow_nan_stats: bool = True,
                  name: str | None = None) -> ops_lib.Tensor:
    """KL(distribution_a || distribution_b) by the registered function, in a
    ``KullbackLeibler`` scope; NaNs fail an Assert when ``allow_nan_stats`` is False."""
    kl_fn = _registered_kl(type(distribution_a), type(distribution_b))
    if kl_fn is None:
        raise NotImplementedError(
            "No KL(distribution_a || distribution_b) registered for distribution_a type "
            f"{type(distribution_a).__name__} and distribution_b type "
            f"{type(distribution_b).__name__}")
    with ops_lib.name_scope("KullbackLeibler"):
        kl_t = kl_fn(distribution_a, distribution_b, name=name)
        if allow_nan_stats:
            return kl_t
        kl_t = array_ops.identity(kl_t, name="kl")
        no_nan = math_ops.logical_not(math_ops.reduce_any(elementwise_ops.is_nan(kl_t)))
        message = (f"KL calculation between {distribution_a.name} and {distribution_b.name} "
                   "returned NaN values (and was called with allow_nan_stats=False). Values:")
        with ops_lib.control_dependencies([control_flow_ops.Assert(no_nan, [message, kl_t])]):
            return array_ops.identity(kl_t, name="checked_kl")


def cross_entropy(ref: Any, other: Any, allow_nan_stats: bool = True,
                  name: str | None = None) -> ops_lib.Tensor:
    """H[ref, other] = entropy(ref) + KL(ref || other)."""
    with ops_lib.name_scope(name, "cross_entropy"):
        return ref.entropy() + kl_divergence(ref, other, allow_nan_stats=allow_nan_stats)


class RegisterKL:
    """Decorator registering ``kl_fn(a, b, name=None)`` for the pair of classes."""

    def __init__(self, dist_cls_a: type, dist_cls_b: type):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn: Callable) -> Callable:
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _DIVERGENCES:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has "
                             f"already been registered to: {_DIVERGENCES[self._key]}")
        _DIVERGENCES[self._key] = kl_fn
        return kl_fn
