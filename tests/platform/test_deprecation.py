"""deprecated_argument_lookup (graphcore/platform/deprecation.py): TF's rule and message,
through the APIs that renamed an argument."""

import pytest

import graphcore as tf
from graphcore.platform.deprecation import deprecated_argument_lookup


def test_either_name_gives_the_value_and_both_is_tfs_error():
    assert deprecated_argument_lookup("axis", 1, "dim", None) == 1
    assert deprecated_argument_lookup("axis", None, "dim", 2) == 2
    assert deprecated_argument_lookup("axis", None, "dim", None) is None
    with pytest.raises(ValueError, match=r"^Cannot specify both 'dim' and 'axis'\.$"):
        deprecated_argument_lookup("axis", 1, "dim", 2)


@pytest.mark.parametrize("call,message", [
    (lambda x: tf.expand_dims(x, axis=0, dim=0), "'dim' and 'axis'"),
    (lambda x: tf.squeeze(x, axis=0, squeeze_dims=0), "'squeeze_dims' and 'axis'"),
    (lambda x: tf.reduce_sum(x, keepdims=True, keep_dims=True), "'keep_dims' and 'keepdims'"),
    (lambda x: tf.nn.softmax(x, axis=0, dim=0), "'dim' and 'axis'"),
    (lambda x: tf.norm(x, keepdims=True, keep_dims=True), "'keep_dims' and 'keepdims'"),
])
def test_renamed_arguments_refuse_both_names(call, message):
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=f"Cannot specify both {message}"):
            call(tf.ones([1, 3]))
