"""tf.strings: the string ops under their short names."""

# ruff: noqa: F401
from graphcore.ops.logging_ops import string_format as format
from graphcore.ops.string_ops import (
    as_string,
    length,
    lower,
    reduce_join,
    regex_full_match,
    regex_replace,
    substr,
    upper,
)
from graphcore.ops.string_ops import string_join as join
from graphcore.ops.string_ops import string_strip as strip
from graphcore.ops.string_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from graphcore.ops.string_ops import string_to_number as to_number
