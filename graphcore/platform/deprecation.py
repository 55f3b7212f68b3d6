"""TF's ``deprecation.deprecated_argument_lookup``: one function for every API whose
argument was renamed (``keep_dims`` -> ``keepdims``, ``dim`` -> ``axis`` ...)."""

from __future__ import annotations

from typing import Any


def deprecated_argument_lookup(new_name: str, new_value: Any, old_name: str,
                               old_value: Any) -> Any:
    """The value given under either name; ValueError, with TF's message, when both are."""
    if old_value is not None:
        if new_value is not None:
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
        return old_value
    return new_value
