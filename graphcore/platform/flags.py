"""``tf.flags`` / ``tf.app.flags``: absl.flags, as TF1 re-exports it.

Two things differ from plain absl, both TF's: the DEFINE functions accept the old keyword
names (flag_name, default_value, docstring), and reading ``FLAGS.x`` before the flags were
parsed parses ``sys.argv`` first instead of raising UnparsedFlagAccessError.
"""

# ruff: noqa: F401, F403, F405
from __future__ import annotations

import functools
import logging as _logging
import sys as _sys
from collections.abc import Callable
from typing import Any

from absl.flags import *

# The definitions here are TF's, not the calling module's key flags (what --helpshort lists).
disclaim_key_flags()

_RENAMED_ARGUMENTS = {"flag_name": "name", "default_value": "default", "docstring": "help"}


def _wrap_define_function(original_function: Callable) -> Callable:
    """``original_function`` accepting TF's old keyword names too."""

    @functools.wraps(original_function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        renamed = [old for old in _RENAMED_ARGUMENTS if old in kwargs]
        for old in renamed:
            kwargs[_RENAMED_ARGUMENTS[old]] = kwargs.pop(old)
        if renamed:
            _logging.warning(
                "Use of the keyword argument names (flag_name, default_value, docstring) is "
                "deprecated, please use (name, default, help) instead.")
        return original_function(*args, **kwargs)

    return wrapper


class _FlagValuesWrapper:
    """absl's FLAGS, parsing ``sys.argv`` on the first read of a flag before parsing."""

    def __init__(self, flags_object: FlagValues):
        self.__dict__["__wrapped"] = flags_object

    def __getattribute__(self, name: str) -> Any:
        if name == "__dict__":
            return super().__getattribute__(name)
        return self.__dict__["__wrapped"].__getattribute__(name)

    def __getattr__(self, name: str) -> Any:
        wrapped = self.__dict__["__wrapped"]
        if not wrapped.is_parsed():
            wrapped(_sys.argv)
        return wrapped.__getattr__(name)

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__["__wrapped"].__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self.__dict__["__wrapped"].__delattr__(name)

    def __dir__(self) -> list[str]:
        return self.__dict__["__wrapped"].__dir__()

    def __getitem__(self, name: str) -> Any:
        return self.__dict__["__wrapped"].__getitem__(name)

    def __setitem__(self, name: str, flag: Any) -> None:
        self.__dict__["__wrapped"].__setitem__(name, flag)

    def __len__(self) -> int:
        return self.__dict__["__wrapped"].__len__()

    def __iter__(self) -> Any:
        return self.__dict__["__wrapped"].__iter__()

    def __str__(self) -> str:
        return self.__dict__["__wrapped"].__str__()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__["__wrapped"].__call__(*args, **kwargs)


DEFINE_string = _wrap_define_function(DEFINE_string)
DEFINE_boolean = _wrap_define_function(DEFINE_boolean)
DEFINE_bool = DEFINE_boolean
DEFINE_float = _wrap_define_function(DEFINE_float)
DEFINE_integer = _wrap_define_function(DEFINE_integer)

# The process-wide absl FLAGS, as in TF: flags defined through absl directly are seen too.
FLAGS = _FlagValuesWrapper(FLAGS)
