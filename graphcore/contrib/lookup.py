"""``tf.contrib.lookup`` (TF 1.15): the static hash table under its TF1 name and
signature, its initializers, and the vocabulary index tables. (The mutable tables, whose
TF1 signatures take a ``shared_name`` before ``name``, are tf.lookup.experimental's.)"""

# ruff: noqa: F401
from __future__ import annotations

from typing import Any

from graphcore.ops.index_table_ops import (
    index_table_from_file,
    index_table_from_tensor,
    index_to_string_table_from_file,
    index_to_string_table_from_tensor,
)
from graphcore.ops.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    TextFileIndex,
    TextFileInitializer,
)


class HashTable(StaticHashTable):
    """TF1's static hash table: filled once by ``initializer``; ``shared_name`` shares it
    between sessions of one server."""

    def __init__(self, initializer: Any, default_value: Any, shared_name: str | None = None,
                 name: str | None = None):
        self._requested_shared_name = shared_name
        super().__init__(initializer, default_value, name=name)
