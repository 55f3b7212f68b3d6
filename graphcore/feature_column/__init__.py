"""tf.feature_column (TF1's tf.compat.v1.feature_column): feature columns, and the
``input_layer`` / ``linear_model`` that turn a features dict into model inputs."""

# ruff: noqa: F401
from graphcore.feature_column.categorical import (
    bucketized_column,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
    crossed_column,
    weighted_categorical_column,
)
from graphcore.feature_column.dense import (
    embedding_column,
    indicator_column,
    numeric_column,
    shared_embedding_columns,
)
from graphcore.feature_column.models import input_layer, linear_model, make_parse_example_spec
from graphcore.feature_column.sequence import (
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
