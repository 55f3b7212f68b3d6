"""tf.strings: the string ops under their short names."""

# ruff: noqa: F401
from graphcore.ops.logging_ops import string_format as format
from graphcore.ops.string_hash_ops import string_to_hash_bucket as to_hash_bucket
from graphcore.ops.string_hash_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from graphcore.ops.string_ngrams_ops import ngrams
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
from graphcore.ops.string_split_ops import string_bytes_split as bytes_split
from graphcore.ops.string_split_ops import strings_split_v1 as split
from graphcore.ops.string_split_ops import unsorted_segment_join
from graphcore.ops.unicode_decode_ops import (
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_split,
    unicode_split_with_offsets,
)
from graphcore.ops.unicode_ops import unicode_encode, unicode_script, unicode_transcode
