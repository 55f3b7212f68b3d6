"""tf.lookup (TF1's tf.compat.v1.lookup): the lookup tables and their initializers."""

# ruff: noqa: F401
from graphcore.lookup import experimental
from graphcore.ops.lookup_ops import (
    KeyValueTensorInitializer,
    StaticHashTable,
    StaticVocabularyTable,
    TextFileIndex,
    TextFileInitializer,
)
