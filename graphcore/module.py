"""``tf.Module``: a named container of variables and other modules. Its ``variables``,
``trainable_variables`` and ``submodules`` are found by walking its attributes (and the
lists, tuples and dicts in them) in sorted attribute order, its own before its
submodules', each object once; ``name_scope`` is the scope the module opened once at
construction, re-entered by methods decorated with ``with_name_scope``."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import variables as variables_lib
from graphcore.train import trackable

__all__ = ["Module"]

_IGNORED = frozenset({"_name", "_scope_name"})


def _camel_to_snake(name: str) -> str:
    return re.sub(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))", r"_\1", name).lower()


def _leaves(value: Any, path: tuple) -> Iterator[tuple[tuple, Any]]:
    if isinstance(value, dict):
        for key in sorted(value):
            yield from _leaves(value[key], path + (key,))
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _leaves(item, path + (i,))
    else:
        yield path, value


class Module:
    """Base class of models and layers that own variables (``tf.Module``)."""

    def __init__(self, name: str | None = None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not name.isidentifier():
            raise ValueError(f"'{name}' is not a valid module name. Module names must be "
                             "valid Python identifiers (e.g. a valid class name).")
        self._name = name
        with ops_lib.name_scope(name) as scope_name:
            self._scope_name = scope_name

    @property
    def name(self) -> str:
        """The module's name (its constructor's ``name``, or its class name in snake case)."""
        return self._name

    @property
    def name_scope(self) -> Any:
        """A context manager re-entering the scope the module opened when built."""
        return ops_lib.name_scope(self._scope_name)

    @property
    def variables(self) -> tuple:
        """Every variable of this module and its submodules."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and v.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The non-trainable variables of this module and its submodules."""
        return tuple(self._flatten(predicate=lambda v: _is_variable(v) and not v.trainable))

    @property
    def submodules(self) -> tuple:
        """Every module reachable from this one (not itself)."""
        return tuple(self._flatten(predicate=lambda m: isinstance(m, Module)))

    def _flatten(self, recursive: bool = True, predicate: Callable[[Any], bool] | None = None,
                 attribute_traversal_key: Any = None, with_path: bool = False) -> Iterator:
        """The objects below this module for which ``predicate`` holds, with their
        attribute paths if ``with_path``."""
        predicate = predicate or (lambda _: True)
        return _walk(self, recursive, predicate, attribute_traversal_key, with_path, (),
                     set(), [])

    def _trackable_children(self) -> dict[str, Any]:
        """Checkpoint dependencies (tf.train.Checkpoint): the trackable attributes
        (variables, modules, lists, dicts ...) in assignment order, as AutoTrackable."""
        return trackable.attribute_children(self, _IGNORED)

    @classmethod
    def with_name_scope(cls, method: Callable) -> Callable:
        """Decorates a method to run inside the module's name scope."""

        @functools.wraps(method)
        def in_scope(self: Module, *args: Any, **kwargs: Any) -> Any:
            with self.name_scope:
                return method(self, *args, **kwargs)

        return in_scope

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>"


def _is_variable(value: Any) -> bool:
    return isinstance(value, variables_lib.Variable)


def _walk(module: Module, recursive: bool, predicate: Callable, key: Any, with_path: bool,
          path: tuple, seen: set, stack: list) -> Iterator:
    stack.append(id(module))
    submodules = []
    attributes = vars(module)
    for name in sorted(attributes, key=key):
        if name in _IGNORED:
            continue
        for leaf_path, leaf in _leaves(attributes[name], (name,)):
            if not with_path:
                if id(leaf) in seen:
                    continue
                seen.add(id(leaf))
            if predicate(leaf):
                yield (path + leaf_path, leaf) if with_path else leaf
            if recursive and isinstance(leaf, Module) and id(leaf) not in stack:
                submodules.append((path + leaf_path, leaf))
    for sub_path, sub in submodules:
        yield from _walk(sub, recursive, predicate, key, with_path, sub_path, seen, stack)
    stack.pop()
