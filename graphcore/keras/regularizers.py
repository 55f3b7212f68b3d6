"""tf.keras.regularizers: L1, L2 and L1L2 (``l1``/``l2``/``l1_l2``), and ``get``."""

from __future__ import annotations

from typing import Any

from graphcore.ops import math_ops

__all__ = ["L1L2", "Regularizer", "get", "l1", "l1_l2", "l2"]


class Regularizer:
    def __call__(self, x: Any) -> Any:
        return 0.0


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = float(l1)
        self.l2 = float(l2)

    def __call__(self, x: Any) -> Any:
        regularization = 0.0
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        return regularization

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


def l1(l: float = 0.01) -> L1L2:  # noqa: E741
    return L1L2(l1=l)


def l2(l: float = 0.01) -> L1L2:  # noqa: E741
    return L1L2(l2=l)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E741
    return L1L2(l1=l1, l2=l2)


def get(identifier: Any) -> Any:
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str):
        return {"l1": l1, "l2": l2, "l1_l2": l1_l2}[identifier]()
    if isinstance(identifier, dict):
        return L1L2(**identifier.get("config", {}))
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
