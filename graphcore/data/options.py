"""``tf.data.Options`` and its parts (TF's data/ops/options.py): typed, validated option
sets whose unset values are None, merged field by field (the later set value wins).
graphcore's input pipelines run the same whatever these say (no static dataset
optimizations, one runtime threadpool), so the options are carried, not interpreted."""

from __future__ import annotations

import enum
from typing import Any

from graphcore.platform import tf_logging as logging

__all__ = ["AutoShardPolicy", "AutotuneAlgorithm", "AutotuneOptions", "DistributeOptions",
           "ExternalStatePolicy", "OptimizationOptions", "Options", "ThreadingOptions",
           "merge_options"]


class AutoShardPolicy(enum.IntEnum):
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class ExternalStatePolicy(enum.Enum):
    WARN = 0
    IGNORE = 1
    FAIL = 2


class AutotuneAlgorithm(enum.Enum):
    DEFAULT = 0
    HILL_CLIMB = 1
    GRADIENT_DESCENT = 2
    MAX_PARALLELISM = 3
    STAGE_BASED = 4


class _Option:
    """A typed option: a data descriptor with a default (None unless a factory)."""

    def __init__(self, ty: type, default_factory: Any = None):
        self.ty = ty
        self.default_factory = default_factory

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type) -> Any:
        if obj is None:
            return self
        if self.name not in obj._options:
            obj._options[self.name] = self.default_factory() if self.default_factory else None
        return obj._options[self.name]

    def __set__(self, obj: Any, value: Any) -> None:
        if value is not None and not isinstance(value, self.ty):
            raise TypeError(f'Property "{self.name}" must be of type {self.ty}, got: '
                            f"{value} (type: {type(value)})")
        obj._options[self.name] = value


class OptionsBase:
    """A set of typed options; assigning an unknown name is an AttributeError."""

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})
        object.__setattr__(self, "_mutable", True)

    @classmethod
    def _option_names(cls) -> list[str]:
        return [n for n in dir(cls) if isinstance(getattr(cls, n, None), _Option)]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self.__class__):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in self._option_names())

    def __ne__(self, other: object) -> bool:
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    __hash__ = None  # type: ignore[assignment]

    def __setattr__(self, name: str, value: Any) -> None:
        if not self._mutable:
            raise ValueError("Mutating `tf.data.Options()` returned by `tf.data.Dataset."
                             "options()` has no effect. Use `tf.data.Dataset.with_options(options)` "
                             "to set or update dataset options.")
        if not isinstance(getattr(type(self), name, None), _Option):
            raise AttributeError(f"Cannot set the property {name} on "
                                 f"{type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._option_names())
        return f"{type(self).__name__}({fields})"

    def _set_mutable(self, mutable: bool) -> None:
        object.__setattr__(self, "_mutable", mutable)
        for name in self._option_names():
            value = getattr(self, name)
            if isinstance(value, OptionsBase):
                value._set_mutable(mutable)


def merge_options(*options_list: OptionsBase) -> OptionsBase:
    """A new options object: each option the last value set in ``options_list``
    (options sets merged recursively, ``framework_type`` lists concatenated)."""
    if len(options_list) < 1:
        raise ValueError("At least one options should be provided")
    result_type = type(options_list[0])
    for options in options_list:
        if not isinstance(options, result_type):
            raise TypeError(f"Could not merge incompatible options of type {type(options)} "
                            f"and {result_type}.")
    if not isinstance(options_list[0], OptionsBase):
        raise TypeError("All options to be merged should inherit from `OptionsBase` but "
                        f"found option of type {type(options_list[0])} which does not.")
    default_options = result_type()
    result = result_type()
    for options in options_list:
        for name in list(options._options):
            this, that = getattr(result, name), getattr(options, name)
            default = getattr(default_options, name)
            if that == default:
                continue
            if this == default:
                setattr(result, name, that)
            elif isinstance(this, OptionsBase):
                setattr(result, name, merge_options(this, that))
            elif name == "framework_type":
                setattr(result, name, this + that)
            elif this != that:
                logging.warning("Changing the value of option %s from %r to %r.", name, this,
                                that)
                setattr(result, name, that)
    return result


class AutotuneOptions(OptionsBase):
    autotune_algorithm = _Option(AutotuneAlgorithm)
    cpu_budget = _Option(int)
    enabled = _Option(bool)
    initial_parallelism = _Option(int)
    min_parallelism = _Option(int)
    ram_budget = _Option(int)


class DistributeOptions(OptionsBase):
    auto_shard_policy = _Option(AutoShardPolicy, lambda: AutoShardPolicy.AUTO)
    num_devices = _Option(int)


class OptimizationOptions(OptionsBase):
    apply_default_optimizations = _Option(bool)
    filter_fusion = _Option(bool)
    filter_parallelization = _Option(bool)
    inject_prefetch = _Option(bool)
    map_and_batch_fusion = _Option(bool)
    map_and_filter_fusion = _Option(bool)
    map_fusion = _Option(bool)
    map_parallelization = _Option(bool)
    noop_elimination = _Option(bool)
    parallel_batch = _Option(bool)
    seq_interleave_prefetch = _Option(bool)
    shuffle_and_repeat_fusion = _Option(bool)


class ServiceOptions(OptionsBase):
    pinned = _Option(bool)


class ThreadingOptions(OptionsBase):
    max_intra_op_parallelism = _Option(int)
    private_threadpool_size = _Option(int)


# Deprecated names of Options and the options they set, as TF's Options.__setattr__.
_RENAMED = {"experimental_deterministic": "deterministic",
            "experimental_threading": "threading"}


class Options(OptionsBase):
    """The options of a dataset (``tf.data.Options``), set with
    ``Dataset.with_options`` and read back with ``Dataset.options()``."""

    autotune = _Option(AutotuneOptions, AutotuneOptions)
    dataset_name = _Option(str)
    deterministic = _Option(bool)
    experimental_deterministic = _Option(bool)
    experimental_distribute = _Option(DistributeOptions, DistributeOptions)
    experimental_external_state_policy = _Option(ExternalStatePolicy)
    experimental_optimization = _Option(OptimizationOptions, OptimizationOptions)
    experimental_service = _Option(ServiceOptions, ServiceOptions)
    experimental_slack = _Option(bool)
    experimental_symbolic_checkpoint = _Option(bool)
    experimental_threading = _Option(ThreadingOptions)
    experimental_warm_start = _Option(bool)
    framework_type = _Option(list)
    threading = _Option(ThreadingOptions, ThreadingOptions)

    def __getattribute__(self, name: str) -> Any:
        if name in _RENAMED:
            return getattr(self, _RENAMED[name])
        return super().__getattribute__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _RENAMED:
            logging.warning("options.%s is deprecated. Use options.%s instead.", name,
                            _RENAMED[name])
            name = _RENAMED[name]
        super().__setattr__(name, value)

    def merge(self, options: Options) -> Options:
        """These options merged with ``options`` (its set values win)."""
        return merge_options(self, options)
