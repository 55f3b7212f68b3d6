"""Reference tier: session-level behaviours users hit, against TensorFlow's compat.v1 —
what a run returns or raises for the same graph and feeds. Skipped without TensorFlow."""

import collections
import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _ref_variable(lib, value):
    if lib is tf:
        return tf.Variable(value)
    return tf1.Variable(value, use_resource=False)  # TF1's default: a ref variable


def _sum_grad_of_unknown_rank(lib):
    x = lib.placeholder(lib.float32)
    return lib.gradients(lib.reduce_sum(x), x)[0], {x: 3.0}


def _identity_after_assign(lib):
    v = _ref_variable(lib, 1.0)
    a = lib.assign(v, 5.0)
    with lib.control_dependencies([a]):
        return lib.identity(v), None


def _identity_after_assign_add(lib):
    v = _ref_variable(lib, [1.0, 2.0])
    a = lib.assign_add(v, [10.0, 10.0])
    with lib.control_dependencies([a]):
        return lib.identity(v) * 2.0, None


def _empty_fetches(lib):
    lib.constant(1.0)
    return ([], {}, ()), None


def _feed_not_convertible(lib):
    x = lib.placeholder(lib.float32)
    return x * 2.0, {x: "abc"}


def _feed_not_convertible_to_int(lib):
    x = lib.placeholder(lib.int32)
    return x + 1, {x: [1.5, "a"]}


_StateTuple = collections.namedtuple("LSTMStateTuple", ("c", "h"))


def _nested_feed_key(lib):
    """An RNN state fed back whole: a tuple of LSTMStateTuples as one feed_dict key."""
    state = tuple(_StateTuple(lib.placeholder(lib.float32, [2]),
                              lib.placeholder(lib.float32, [2])) for _ in range(2))
    value = tuple(_StateTuple(np.full(2, i, np.float32), np.full(2, i + 10, np.float32))
                  for i in range(2))
    return lib.add_n([t for s in state for t in s]), {state: value}


def _nested_feed_key_mismatch(lib):
    a, b = lib.placeholder(lib.float32), lib.placeholder(lib.float32)
    return a + b, {(a, b): (1.0, 2.0, 3.0)}


def _nested_feed_key_flat_value(lib):
    a, b = lib.placeholder(lib.float32), lib.placeholder(lib.float32)
    return a + b, {(a, b): 1.0}


def _nested_feed_key_repeated(lib):
    a, b = lib.placeholder(lib.float32), lib.placeholder(lib.float32)
    return a + b, {(a, b): (1.0, 2.0), a: 3.0}


CASES = {
    "nested_feed_key": _nested_feed_key,
    "nested_feed_key_mismatch": _nested_feed_key_mismatch,
    "nested_feed_key_flat_value": _nested_feed_key_flat_value,
    "nested_feed_key_repeated": _nested_feed_key_repeated,
    "sum_grad_unknown_rank_scalar": _sum_grad_of_unknown_rank,
    "identity_after_assign": _identity_after_assign,
    "identity_after_assign_add": _identity_after_assign_add,
    "empty_fetches": _empty_fetches,
    "feed_not_convertible": _feed_not_convertible,
    "feed_not_convertible_to_int": _feed_not_convertible_to_int,
}


def _outcome(lib, build):
    with lib.Graph().as_default():
        fetches, feed = build(lib)
        with lib.Session() as sess:
            sess.run(lib.global_variables_initializer())
            try:
                return "value", sess.run(fetches, feed)
            except Exception as e:  # the class is what is compared
                return "error", type(e).__name__


@pytest.mark.parametrize("case", sorted(CASES))
def test_session_behaviour_matches_tf(case):
    ours, theirs = _outcome(tf, CASES[case]), _outcome(tf1, CASES[case])
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] == "error":
        assert ours[1] == theirs[1]
    elif isinstance(theirs[1], tuple) and not isinstance(theirs[1], np.ndarray):
        assert ours[1] == theirs[1]
    else:
        np.testing.assert_allclose(ours[1], theirs[1])
