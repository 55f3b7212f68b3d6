"""tf.keras.initializers (v1): TF's init_ops classes under Keras' names, the random ones with
Keras' defaults (uniform in [-0.05, 0.05], normal with stddev 0.05), and ``get`` for the
string names layers accept (``"glorot_uniform"``, ``"zeros"``, ``"he_normal"``...)."""

from __future__ import annotations

from typing import Any

from graphcore.keras import custom_objects as custom_lib
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
)

__all__ = ["Constant", "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Identity",
           "Initializer", "LecunNormal", "LecunUniform", "Ones",
           "Orthogonal", "RandomNormal", "RandomUniform", "TruncatedNormal", "VarianceScaling",
           "Zeros", "get", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
           "lecun_normal", "lecun_uniform", "normal", "serialize", "deserialize", "uniform", "constant", "identity", "ones",
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


class HeNormal(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(2.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(1.0, "fan_in", "uniform", seed)


zeros = Zeros
ones = Ones
constant = Constant
identity = Identity
orthogonal = Orthogonal
random_uniform = uniform = RandomUniform
random_normal = normal = RandomNormal
truncated_normal = TruncatedNormal
glorot_uniform = GlorotUniform
glorot_normal = GlorotNormal
he_normal, he_uniform, lecun_normal, lecun_uniform = HeNormal, HeUniform, LecunNormal, \
    LecunUniform

_BY_NAME = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
    "orthogonal": Orthogonal, "random_uniform": RandomUniform, "uniform": RandomUniform,
    "normal": RandomNormal,
    "random_normal": RandomNormal, "truncated_normal": TruncatedNormal,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_normal": HeNormal, "he_uniform": HeUniform, "lecun_normal": LecunNormal,
    "lecun_uniform": LecunUniform, "variance_scaling": VarianceScaling,
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
        return deserialize(identifier)
    if isinstance(identifier, str):
        return _lookup(identifier)()
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


# The keys of each class's Keras config (tf_keras' get_config), read from its attributes.
_CONFIG_KEYS = {
    "Zeros": (), "Ones": (), "Constant": ("value",),
    "RandomUniform": ("minval", "maxval", "seed"),
    "RandomNormal": ("mean", "stddev", "seed"), "TruncatedNormal": ("mean", "stddev", "seed"),
    "VarianceScaling": ("scale", "mode", "distribution", "seed"),
    "GlorotUniform": ("seed",), "GlorotNormal": ("seed",), "HeNormal": ("seed",),
    "HeUniform": ("seed",), "LecunNormal": ("seed",), "LecunUniform": ("seed",),
    "Orthogonal": ("gain", "seed"), "Identity": ("gain",),
}


def serialize(initializer: Any) -> dict | None:
    """Keras' config of an initializer: ``{"module": "keras.initializers", "class_name":
    ..., "config": ..., "registered_name": None}``."""
    if initializer is None:
        return None
    name = type(initializer).__name__
    if name in _CONFIG_KEYS:
        config = {k: getattr(initializer, k) for k in _CONFIG_KEYS[name]}
    elif hasattr(initializer, "get_config"):
        config = initializer.get_config()
    else:
        raise ValueError(f"Cannot serialize initializer {initializer!r}: it has no "
                         "`get_config`.")
    return {"module": "keras.initializers", "class_name": name, "config": config,
            "registered_name": None}


def deserialize(config: dict, custom_objects: dict | None = None) -> Any:
    return custom_lib.deserialize(config, _BY_NAME, "initializer", custom_objects)


def _lookup(name: str) -> Any:
    return custom_lib.find(name, _BY_NAME, "initializer")
