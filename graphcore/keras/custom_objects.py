"""Keras' custom objects: the names a config may use for the user's own layers,
activations, initializers, losses... (``custom_objects=`` of the loading functions,
``tf.keras.utils.CustomObjectScope`` and the global ``get_custom_objects()`` dict), looked
up before Keras' own names."""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["CustomObjectScope", "custom_object_scope", "get_custom_objects", "lookup"]

_GLOBAL_CUSTOM_OBJECTS: dict = {}
_LOCAL = threading.local()


def _scopes() -> list:
    if not hasattr(_LOCAL, "scopes"):
        _LOCAL.scopes = []
    return _LOCAL.scopes


def get_custom_objects() -> dict:
    """The global custom objects dict (edit it to register objects by name)."""
    return _GLOBAL_CUSTOM_OBJECTS


def lookup(name: str) -> Any:
    """The object registered under ``name`` in the open scopes or globally, or None."""
    for scope in reversed(_scopes()):
        if name in scope:
            return scope[name]
    return _GLOBAL_CUSTOM_OBJECTS.get(name)


def find(name: str, by_name: dict, kind: str, custom: dict | None = None) -> Any:
    """The class named ``name``: from ``custom`` (a deserialize call's custom_objects),
    the custom-object scopes, or ``by_name`` (a module's own classes); ValueError as
    Keras' for an unknown ``kind`` ("initializer", "regularizer")."""
    cls = (custom or {}).get(name) or lookup(name) or by_name.get(name)
    if cls is None:
        raise ValueError(f"Unknown {kind}: '{name}'. Please ensure you are using a "
                         "`keras.utils.custom_object_scope` and that this object is "
                         "included in the scope.")
    return cls


def deserialize(config: dict, by_name: dict, kind: str,
                custom: dict | None = None) -> Any:
    """An object from its Keras config ``{"class_name", "config"}`` (see :func:`find`)."""
    return find(config["class_name"], by_name, kind, custom)(**config.get("config", {}))


class CustomObjectScope:
    """``with CustomObjectScope({"MyLayer": MyLayer}):`` makes the names resolvable
    while deserializing."""

    def __init__(self, *args: dict) -> None:
        self.custom_objects = {}
        for objects in args:
            self.custom_objects.update(objects or {})

    def __enter__(self) -> CustomObjectScope:
        _scopes().append(self.custom_objects)
        return self

    def __exit__(self, *exc: Any) -> None:
        _scopes().pop()


custom_object_scope = CustomObjectScope
