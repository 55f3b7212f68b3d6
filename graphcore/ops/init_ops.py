"""Variable initializers (TF1's ``init_ops``): callables ``init(shape, dtype, partition_info)``
returning the initial value tensor."""

from __future__ import annotations

import math
from typing import Any

from graphcore.framework import dtypes as dtypes_lib

__all__ = [
    "Initializer", "Zeros", "Ones", "Constant", "RandomUniform", "RandomNormal",
    "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal",
    "zeros_initializer", "ones_initializer", "constant_initializer",
    "random_uniform_initializer", "random_normal_initializer", "truncated_normal_initializer",
    "variance_scaling_initializer", "glorot_uniform_initializer", "glorot_normal_initializer",
    "he_normal", "he_uniform", "lecun_normal", "lecun_uniform", "UniformUnitScaling",
    "uniform_unit_scaling_initializer", "Orthogonal", "orthogonal_initializer", "Identity",
]


def _array_ops():
    from graphcore.ops import array_ops

    return array_ops


def _random_ops():
    from graphcore.ops import random_ops

    return random_ops


class Initializer:
    """Base class: ``__call__(shape, dtype=None, partition_info=None) -> Tensor``."""

    dtype: dtypes_lib.DType = dtypes_lib.float32

    def __call__(self, shape: Any, dtype: Any = None, partition_info: Any = None) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict) -> Initializer:
        return cls(**config)


class Zeros(Initializer):
    def __init__(self, dtype: Any = dtypes_lib.float32):
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array_ops().zeros(shape, dtypes_lib.as_dtype(dtype or self.dtype))

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    def __init__(self, dtype: Any = dtypes_lib.float32):
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array_ops().ones(shape, dtypes_lib.as_dtype(dtype or self.dtype))

    def get_config(self) -> dict:
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    def __init__(self, value: Any = 0, dtype: Any = dtypes_lib.float32,
                 verify_shape: bool = False):
        self.value = value
        self.dtype = dtypes_lib.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        verify = self._verify_shape if verify_shape is None else verify_shape
        return _array_ops().constant(self.value, dtype=dtype or self.dtype, shape=shape,
                                     verify_shape=verify)

    def get_config(self) -> dict:
        return {"value": self.value, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    def __init__(self, minval: Any = 0, maxval: Any = None, seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        self.minval, self.maxval, self.seed = minval, maxval, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().random_uniform(shape, self.minval, self.maxval,
                                            dtype or self.dtype, seed=self.seed)


class RandomNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().random_normal(shape, self.mean, self.stddev, dtype or self.dtype,
                                           seed=self.seed)


class TruncatedNormal(Initializer):
    def __init__(self, mean: float = 0.0, stddev: float = 1.0, seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        self.mean, self.stddev, self.seed = mean, stddev, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _random_ops().truncated_normal(shape, self.mean, self.stddev,
                                              dtype or self.dtype, seed=self.seed)


def _compute_fans(shape: list) -> tuple[float, float]:
    if len(shape) < 1:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class VarianceScaling(Initializer):
    """Samples with variance ``scale / fan`` (fan_in, fan_out or their average)."""

    def __init__(self, scale: float = 1.0, mode: str = "fan_in",
                 distribution: str = "truncated_normal", seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError(f"Invalid `mode` argument: {mode}")
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError(f"Invalid `distribution` argument: {distribution}")
        self.scale, self.mode, self.distribution, self.seed = scale, mode, distribution, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes_lib.as_dtype(dtype or self.dtype)
        shape = list(shape)
        # A shard's scale is the full variable's.
        fan_in, fan_out = _compute_fans(shape if partition_info is None
                                        else list(partition_info.full_shape))
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}
        scale = self.scale / max(1.0, fan[self.mode])
        rnd = _random_ops()
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / 0.87962566103423978
            return rnd.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return rnd.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return rnd.random_uniform(shape, -limit, limit, dtype, seed=self.seed)


class GlorotUniform(VarianceScaling):
    def __init__(self, seed: int | None = None, dtype: Any = dtypes_lib.float32):
        super().__init__(1.0, "fan_avg", "uniform", seed, dtype)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed: int | None = None, dtype: Any = dtypes_lib.float32):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed, dtype)


zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
variance_scaling_initializer = VarianceScaling
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal


def he_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(2.0, "fan_in", "truncated_normal", seed)


def he_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(2.0, "fan_in", "uniform", seed)


def lecun_normal(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(1.0, "fan_in", "truncated_normal", seed)


def lecun_uniform(seed: int | None = None) -> VarianceScaling:
    return VarianceScaling(1.0, "fan_in", "uniform", seed)


class UniformUnitScaling(Initializer):
    """TF1's uniform_unit_scaling_initializer: uniform in +-sqrt(3 / fan_in) * factor,
    fan_in the product of all dimensions but the last."""

    def __init__(self, factor: float = 1.0, seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        self.factor, self.seed = factor, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes_lib.as_dtype(dtype or self.dtype)
        shape = list(shape)
        input_size = 1.0
        scale_shape = shape if partition_info is None else list(partition_info.full_shape)
        for dim in scale_shape[:-1]:
            input_size *= float(dim)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return _random_ops().random_uniform(shape, -max_val, max_val, dtype, seed=self.seed)

    def get_config(self) -> dict:
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


uniform_unit_scaling_initializer = UniformUnitScaling


class Orthogonal(Initializer):
    """An orthogonal matrix (QR of a normal sample, signs fixed by R's diagonal) scaled by
    ``gain``, reshaped to ``shape`` (TF's orthogonal_initializer)."""

    def __init__(self, gain: float = 1.0, seed: int | None = None,
                 dtype: Any = dtypes_lib.float32):
        self.gain, self.seed = gain, seed
        self.dtype = dtypes_lib.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        from graphcore.ops import linalg_ops, math_ops

        dtype = dtypes_lib.as_dtype(dtype or self.dtype)
        shape = list(shape)
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        num_rows = 1
        for dim in shape[:-1]:
            num_rows *= dim
        num_cols = shape[-1]
        flat_shape = (num_cols, num_rows) if num_rows < num_cols else (num_rows, num_cols)
        a = _random_ops().random_normal(flat_shape, dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        d = linalg_ops.diag_part(r)
        q *= math_ops.sign(d)
        if num_rows < num_cols:
            q = linalg_ops.matrix_transpose(q)
        return self.gain * _array_ops().reshape(q, shape)

    def get_config(self) -> dict:
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


orthogonal_initializer = Orthogonal


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; TF1's
    ``tf.initializers.identity``)."""

    def __init__(self, gain: float = 1.0, dtype: Any = dtypes_lib.float32):
        self.gain = gain
        self.dtype = dtypes_lib.as_dtype(dtype)
        if not self.dtype.is_floating:
            raise ValueError(f"Expected floating point type, got {self.dtype}.")

    def __call__(self, shape, dtype=None, partition_info=None):
        from graphcore.ops import linalg_ops

        full_shape = shape if partition_info is None else partition_info.full_shape
        if len(full_shape) != 2:
            raise ValueError("The tensor to initialize, specified by argument `shape` must "
                             f"be at least two-dimensional. Received shape={shape}")
        dtype = dtypes_lib.as_dtype(dtype or self.dtype)
        initializer = linalg_ops.eye(*[int(d) for d in full_shape], dtype=dtype)
        if partition_info is not None:
            initializer = _array_ops().slice(initializer, partition_info.var_offset, shape)
        return self.gain * initializer

    def get_config(self) -> dict:
        return {"gain": self.gain, "dtype": self.dtype.name}
