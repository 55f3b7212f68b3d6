"""tf.compat: ``tf.compat.v1`` is graphcore itself (graphcore is TF1's API), and TF's
bytes/text helpers."""

from __future__ import annotations

import os
import sys
from typing import Any

v1 = sys.modules["graphcore"]


def as_bytes(bytes_or_text: Any, encoding: str = "utf-8") -> bytes:
    """``bytes_or_text`` as bytes (text encoded with ``encoding``)."""
    if isinstance(bytes_or_text, bytearray):
        return bytes(bytes_or_text)
    if isinstance(bytes_or_text, str):
        return bytes_or_text.encode(encoding)
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


def as_text(bytes_or_text: Any, encoding: str = "utf-8") -> str:
    """``bytes_or_text`` as str (bytes decoded with ``encoding``)."""
    if isinstance(bytes_or_text, str):
        return bytes_or_text
    if isinstance(bytes_or_text, bytes):
        return bytes_or_text.decode(encoding)
    raise TypeError(f"Expected binary or unicode string, got {bytes_or_text!r}")


as_str = as_text
as_str_any = str


def path_to_str(path: Any) -> Any:
    """A path-like object's string; anything else unchanged."""
    return os.fspath(path) if hasattr(path, "__fspath__") else path
