"""tf.keras.constraints: functions applied to a weight after each optimizer update
(``kernel_constraint=...``): MaxNorm, MinMaxNorm, UnitNorm (norms along ``axis``) and
NonNeg, with ``get``/``serialize``/``deserialize``. Not here: RadialConstraint."""

from __future__ import annotations

from typing import Any

from graphcore.keras import backend as K
from graphcore.keras import custom_objects
from graphcore.ops import math_ops

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "deserialize", "get",
           "max_norm", "min_max_norm", "non_neg", "serialize", "unit_norm"]


def _norms(w: Any, axis: Any) -> Any:
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


class Constraint:
    def __call__(self, w: Any) -> Any:
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Constraint:
        return cls(**config)


class MaxNorm(Constraint):
    """Rescales the slices along ``axis`` whose L2 norm exceeds ``max_value``."""

    def __init__(self, max_value: float = 2, axis: Any = 0) -> None:
        self.max_value, self.axis = max_value, axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = K.clip(norms, 0, self.max_value)
        return w * (desired / (K.epsilon() + norms))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Sets the negative entries to 0."""

    def __call__(self, w: Any) -> Any:
        return w * math_ops.cast(math_ops.greater_equal(w, 0.0), K.floatx())


class UnitNorm(Constraint):
    """Scales the slices along ``axis`` to unit L2 norm."""

    def __init__(self, axis: Any = 0) -> None:
        self.axis = axis

    def __call__(self, w: Any) -> Any:
        return w / (K.epsilon() + _norms(w, self.axis))

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Moves the slices' norms toward [min_value, max_value] (fully with ``rate=1``)."""

    def __init__(self, min_value: float = 0.0, max_value: float = 1.0, rate: float = 1.0,
                 axis: Any = 0) -> None:
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, \
            axis

    def __call__(self, w: Any) -> Any:
        norms = _norms(w, self.axis)
        desired = self.rate * K.clip(norms, self.min_value, self.max_value) + \
            (1 - self.rate) * norms
        return w * (desired / (K.epsilon() + norms))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm
_BY_NAME = {"MaxNorm": MaxNorm, "NonNeg": NonNeg, "UnitNorm": UnitNorm,
            "MinMaxNorm": MinMaxNorm, "max_norm": MaxNorm, "non_neg": NonNeg,
            "unit_norm": UnitNorm, "min_max_norm": MinMaxNorm}


def serialize(constraint: Any) -> dict | None:
    if constraint is None:
        return None
    return {"module": "keras.constraints", "class_name": type(constraint).__name__,
            "config": constraint.get_config(), "registered_name": None}


def _lookup(name: str) -> Any:
    cls = custom_objects.lookup(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"Unknown constraint: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is "
                         "included in the scope.")
    return cls


def deserialize(config: dict, custom_objects: dict | None = None) -> Any:
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or _lookup(name)
    return cls.from_config(config.get("config", {})) if hasattr(cls, "from_config") \
        else cls(**config.get("config", {}))


def get(identifier: Any) -> Any:
    """A constraint from a name, a config dict, or the callable itself."""
    if identifier is None or (callable(identifier) and not isinstance(identifier, type)):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return _lookup(identifier)()
    raise ValueError(f"Could not interpret constraint identifier: {identifier}")
