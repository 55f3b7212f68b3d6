"""tf.keras.initializers (v1): TF's init_ops classes under Keras' names, the random ones with
Keras' defaults (uniform in [-0.05, 0.05], normal with stddev 0.05), and ``get`` for the
string names layers accept (``"glorot_uniform"``, ``"zeros"``, ``"he_normal"``...)."""

from __future__ import annotations

from typing import Any

from graphcore.ops import init_ops
from graphcore.ops.init_ops import (
    Constant,
    GlorotNormal,
    GlorotUniform,
    Identity,
    Initializer,
    Ones,
    Orthogonal,
    VarianceScaling,
    Zeros,
    he_normal,
    he_uniform,
    lecun_normal,
    lecun_uniform,
)

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "Identity", "Initializer", "Ones",
           "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling",
           "Zeros", "get", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "serialize", "constant", "identity", "ones",
           "orthogonal", "random_normal", "random_uniform", "truncated_normal", "zeros"]


class RandomUniform(init_ops.RandomUniform):
    def __init__(self, minval: float = -0.05, maxval: float = 0.05, seed: int | None = None,
                 dtype: Any = None) -> None:
        kwargs = {"dtype": dtype} if dtype is not None else {}
        super().__init__(minval=minval, maxval=maxval, seed=seed, **kwargs)


class RandomNormal(init_ops.RandomNormal):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None,
                 dtype: Any = None) -> None:
        kwargs = {"dtype": dtype} if dtype is not None else {}
        super().__init__(mean=mean, stddev=stddev, seed=seed, **kwargs)


class TruncatedNormal(init_ops.TruncatedNormal):
    def __init__(self, mean: float = 0.0, stddev: float = 0.05, seed: int | None = None,
                 dtype: Any = None) -> None:
        kwargs = {"dtype": dtype} if dtype is not None else {}
        super().__init__(mean=mean, stddev=stddev, seed=seed, **kwargs)


zeros = Zeros
ones = Ones
constant = Constant
identity = Identity
orthogonal = Orthogonal
random_uniform = RandomUniform
random_normal = RandomNormal
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
    "orthogonal": Orthogonal, "random_uniform": RandomUniform, "uniform": RandomUniform,
    "normal": RandomNormal,
    "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_normal": he_normal, "he_uniform": he_uniform, "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform, "variance_scaling": VarianceScaling,
}
for _name, _cls in list(_BY_NAME.items()):
    if isinstance(_cls, type):
        _BY_NAME[_cls.__name__] = _cls


def get(identifier: Any) -> Any:
    """An initializer from a name, a config dict, or an initializer/callable (returned)."""
    if identifier is None or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    if isinstance(identifier, dict):
        return _BY_NAME[identifier["class_name"]](**identifier.get("config", {}))
    if isinstance(identifier, str):
        if identifier not in _BY_NAME:
            raise ValueError(f"Unknown initializer: '{identifier}'. Please ensure you are "
                             "using a `keras.utils.custom_object_scope` and that this object "
                             "is included in the scope.")
        return _BY_NAME[identifier]()
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def serialize(initializer: Any) -> dict:
    return {"class_name": type(initializer).__name__,
            "config": initializer.get_config() if hasattr(initializer, "get_config") else {}}
