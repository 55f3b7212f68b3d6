"""tf.keras.regularizers: L1, L2 and L1L2 (``l1``/``l2``/``l1_l2``), ``get`` and Keras'
config form (``serialize``/``deserialize``). Factors are kept as float32 values, as Keras
casts them."""

from __future__ import annotations

from typing import Any

import numpy as np

from graphcore.keras import custom_objects as custom_lib
from graphcore.ops import math_ops

__all__ = ["L1", "L1L2", "L2", "Regularizer", "deserialize", "get", "l1", "l1_l2", "l2",
           "serialize"]


def _floatx(value: float) -> float:
    return float(np.float32(value))


class Regularizer:
    def __call__(self, x: Any) -> Any:
        return 0.0

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict) -> Regularizer:
        return cls(**config)


class L1L2(Regularizer):
    """``l1 * sum(|x|) + l2 * sum(x**2)``."""

    def __init__(self, l1: float = 0.0, l2: float = 0.0) -> None:
        self.l1 = _floatx(l1)
        self.l2 = _floatx(l2)

    def __call__(self, x: Any) -> Any:
        regularization = 0.0
        if self.l1:
            regularization += self.l1 * math_ops.reduce_sum(math_ops.abs(x))
        if self.l2:
            regularization += self.l2 * math_ops.reduce_sum(math_ops.square(x))
        return regularization

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class L1(L1L2):
    """``l1 * sum(|x|)``."""

    def __init__(self, l1: float = 0.01, **kwargs: Any) -> None:
        super().__init__(l1=kwargs.pop("l", l1))

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(L1L2):
    """``l2 * sum(x**2)``."""

    def __init__(self, l2: float = 0.01, **kwargs: Any) -> None:
        super().__init__(l2=kwargs.pop("l", l2))

    def get_config(self) -> dict:
        return {"l2": self.l2}


def l1(l: float = 0.01) -> L1:  # noqa: E741
    return L1(l)


def l2(l: float = 0.01) -> L2:  # noqa: E741
    return L2(l)


def l1_l2(l1: float = 0.01, l2: float = 0.01) -> L1L2:  # noqa: E741
    return L1L2(l1=l1, l2=l2)


_BY_NAME = {"L1": L1, "L2": L2, "L1L2": L1L2, "l1": L1, "l2": L2, "l1_l2": l1_l2}


def serialize(regularizer: Any) -> dict | None:
    if regularizer is None:
        return None
    return {"module": "keras.regularizers", "class_name": type(regularizer).__name__,
            "config": regularizer.get_config(), "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> Any:
    return custom_lib.deserialize(config, _BY_NAME, "regularizer", custom_objects)


def _lookup(name: str) -> Any:
    return custom_lib.find(name, _BY_NAME, "regularizer")


def get(identifier: Any) -> Any:
    if identifier is None or callable(identifier):
        return identifier
    if isinstance(identifier, str):
        return _lookup(identifier)()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
