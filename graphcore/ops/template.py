"""``tf.make_template``: a function that creates its variables (with ``get_variable``)
on the first call and reuses them on every later call (TF's template.Template)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import variable_scope as vs_lib

__all__ = ["make_template"]


class Template:
    """``func`` in its own variable scope, reusing that scope after the first call."""

    def __init__(self, name: str, func: Callable, create_scope_now: bool = False,
                 unique_name: str | None = None, custom_getter: Any = None):
        if name is None:
            raise ValueError("name cannot be None.")
        self._func, self._name = func, name
        self._unique_name, self._custom_getter = unique_name, custom_getter
        self._variable_scope = None
        self._variables_created = False
        if create_scope_now:
            with vs_lib.variable_scope(unique_name, name,
                                       custom_getter=custom_getter) as scope:
                self._variable_scope = scope

    def _call_func(self, args: tuple, kwargs: dict) -> Any:
        trainable_at_start = len(ops_lib.get_collection(
            ops_lib.GraphKeys.TRAINABLE_VARIABLES))
        result = self._func(*args, **kwargs)
        if self._variables_created:
            trainable = ops_lib.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES)
            if len(trainable) != trainable_at_start:
                raise ValueError("Trainable variable created when calling a template after "
                                 "the first time, perhaps you used tf.Variable when you "
                                 "meant tf.get_variable: "
                                 f"{trainable[trainable_at_start:]}")
        self._variables_created = True
        return result

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._variable_scope is not None:
            with vs_lib.variable_scope(self._variable_scope, reuse=self._variables_created):
                return self._call_func(args, kwargs)
        with vs_lib.variable_scope(self._unique_name, self._name,
                                   custom_getter=self._custom_getter) as scope:
            self._variable_scope = scope
            return self._call_func(args, kwargs)

    @property
    def name(self) -> str:
        return self._name

    @property
    def func(self) -> Callable:
        return self._func

    @property
    def variable_scope(self) -> Any:
        return self._variable_scope

    @property
    def variable_scope_name(self) -> str:
        """The scope's name ending in "/" (so no other scope's name matches it)."""
        if self._variable_scope is None:
            return ""
        name = self._variable_scope.name
        return name if not name or name.endswith("/") else name + "/"

    def _collection(self, key: str) -> list:
        if self._variable_scope is None:
            return []
        return ops_lib.get_collection(key, self.variable_scope_name)

    @property
    def variables(self) -> list:
        return self.global_variables + self.local_variables

    @property
    def trainable_variables(self) -> list:
        return self._collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES)

    @property
    def global_variables(self) -> list:
        return self._collection(ops_lib.GraphKeys.GLOBAL_VARIABLES)

    @property
    def local_variables(self) -> list:
        return self._collection(ops_lib.GraphKeys.LOCAL_VARIABLES)


def make_template(name_: str, func_: Callable, create_scope_now_: bool = False,
                  unique_name_: str | None = None, custom_getter_: Any = None,
                  **kwargs: Any) -> Template:
    """A Template of ``func_`` (with ``kwargs`` bound) in variable scope ``name_``."""
    if kwargs:
        func_ = functools.partial(func_, **kwargs)
    return Template(name_, func_, create_scope_now=create_scope_now_,
                    unique_name=unique_name_, custom_getter=custom_getter_)
