"""Reference tier: assertions and CheckNumerics (graphcore/ops/check_ops.py) against
TensorFlow's compat.v1 — which calls pass, which fail at run time, which fail while the
graph is built, with which error class. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

X = np.array([1.0, 2.0, 3.0], np.float32)

# name -> build(lib, x placeholder) returning what to run
CASES = {
    "equal_ok": lambda t, x: t.assert_equal(x, x),
    "equal_fails": lambda t, x: t.assert_equal(x, x + 1.0, message="boom"),
    "equal_static_fails": lambda t, x: t.assert_equal(t.constant(1), t.constant(2)),
    "none_equal": lambda t, x: t.assert_none_equal(x, x * 0.0),
    "less_fails": lambda t, x: t.assert_less(x, 2.0),
    "less_equal": lambda t, x: t.assert_less_equal(x, 3.0),
    "greater": lambda t, x: t.assert_greater(x, 0.0),
    "greater_equal_fails": lambda t, x: t.assert_greater_equal(x, 2.0),
    "positive": lambda t, x: t.assert_positive(x),
    "negative_fails": lambda t, x: t.assert_negative(x),
    "non_negative": lambda t, x: t.assert_non_negative(x),
    "non_positive_fails": lambda t, x: t.assert_non_positive(x),
    "near": lambda t, x: t.assert_near(x, x + 1e-7),
    "near_fails": lambda t, x: t.assert_near(x, x + 1e-2),
    "rank_static": lambda t, x: t.assert_rank(x, 1),
    "rank_static_fails": lambda t, x: t.assert_rank(x, 2),
    "rank_dynamic_fails": lambda t, x: t.assert_rank(t.placeholder_with_default(x, None), 2),
    "rank_not_scalar_fails": lambda t, x: t.assert_rank(x, t.placeholder(t.int32, [None])),
    "rank_at_least": lambda t, x: t.assert_rank_at_least(x, 1),
    "rank_in": lambda t, x: t.assert_rank_in(x, [0, 1]),
    "integer_fails": lambda t, x: t.assert_integer(x),
    "type_fails": lambda t, x: t.assert_type(x, t.int32),
    "scalar_fails": lambda t, x: t.assert_scalar(x),
    "check_numerics_ok": lambda t, x: t.check_numerics(x, "chk"),
    "check_numerics_fails": lambda t, x: t.check_numerics(x / 0.0, "chk"),
    "verify_finite_fails": lambda t, x: t.verify_tensor_all_finite(t.log(x - 2.0), "m"),
    "non_decreasing": lambda t, x: t.is_non_decreasing(x),
    "strictly_increasing": lambda t, x: t.is_strictly_increasing(t.constant([1, 1, 2])),
    "all_finite_fails": lambda t, x: t.debugging.assert_all_finite(x=t.log(x - 2.0),
                                                                   message="m"),
    "shapes_ok": lambda t, x: t.debugging.assert_shapes([
        (x, ("N",)), (t.reshape(x, [3, 1]), ("N", 1)), (t.constant(2.0), ()),
        (t.zeros([2, 3]), (..., "N"))]),
    "shapes_static_fails": lambda t, x: t.debugging.assert_shapes([
        (x, ("N",)), (t.zeros([2, 2]), ("N", "."))]),
    "shapes_rank_fails": lambda t, x: t.debugging.assert_shapes({x: ("N", "Q")}),
    "shapes_explicit_fails": lambda t, x: t.debugging.assert_shapes([(x, (4,))]),
    "shapes_dynamic_ok": lambda t, x: t.debugging.assert_shapes([
        (t.placeholder_with_default(x, [None]), ("N",)), (x, ("N",))]),
    "shapes_dynamic_fails": lambda t, x: t.debugging.assert_shapes([
        (t.placeholder_with_default(x, [None]), ("N",)), (t.zeros([2]), ("N",))]),
    "shapes_unknown_rank_fails": lambda t, x: t.debugging.assert_shapes([
        (t.placeholder_with_default(x, None), ("N", "M"))]),
}


def _outcome(lib, case):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.float32, [3])
        try:
            target = CASES[case](lib, x)
        except Exception as e:  # the class of a build-time failure is compared
            return "build", type(e).__name__
        with lib.Session() as sess:
            try:
                value = sess.run(target, {x: X})
            except Exception as e:
                return "run", type(e).__name__
    return "ok", None if value is None else np.asarray(value).tolist()


@pytest.mark.parametrize("case", sorted(CASES))
def test_check_ops_behave_as_tf(case):
    assert _outcome(tf, case) == _outcome(tf1, case)


def test_failure_messages_name_the_condition():
    x = tf.placeholder(tf.float32, [3])
    check = tf.assert_equal(x, x + 1.0, message="boom")
    numerics = tf.check_numerics(x / 0.0, "chk")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[boom\] \[Condition x == y did not hold"):
            sess.run(check, {x: X})
        with pytest.raises(tf.errors.InvalidArgumentError, match="chk : Tensor had Inf values"):
            sess.run(numerics, {x: X})


GRAPH_CASES = {
    # TF opens assert_equal's scope twice: its ops are assert_equal_1/... (name_1/...)
    "equal": lambda t, x, y: t.assert_equal(x, y),
    "equal_named": lambda t, x, y: t.assert_equal(x, y, name="same"),
    "equal_same_tensor": lambda t, x, y: t.assert_equal(x, x),
    "less": lambda t, x, y: t.assert_less(x, y),
    "equal_twice": lambda t, x, y: [t.assert_equal(x, y), t.assert_equal(y, x)],
    # a rank known only at run time is asserted to be a scalar first
    "rank_dynamic": lambda t, x, y: t.assert_rank(x, t.placeholder(t.int32, [])),
    "rank_at_least_dynamic": lambda t, x, y: t.assert_rank_at_least(
        x, t.placeholder(t.int32, [])),
}


@pytest.mark.parametrize("case", sorted(GRAPH_CASES))
def test_assert_graphs_match_tf(case):
    """The ops (names, types, order) an assertion adds, as TF's graph holds them."""
    graphs = {}
    for lib in (tf, tf1):
        with lib.Graph().as_default() as g:
            x, y = lib.placeholder(lib.int32, [None]), lib.placeholder(lib.int32, [None])
            out = GRAPH_CASES[case](lib, x, y)
            graphs[lib] = ([(n.name, n.op) for n in g.as_graph_def().node],
                           [o.name for o in (out if isinstance(out, list) else [out])])
    assert graphs[tf] == graphs[tf1]
