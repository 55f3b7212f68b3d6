"""Reference tier: ``tf.raw_ops`` — every op type graphcore registers is one of TF's raw
ops, and raw op calls give TF's values and result structure. Skipped without TF."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

X = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)

CASES = {
    "matmul": lambda r, x: r.MatMul(a=x, b=x, transpose_b=True, name="mm"),
    "unique": lambda r, x: r.Unique(x=[3, 1, 3, 2]),
    "split": lambda r, x: r.Split(axis=1, value=x, num_split=2),
    "sum": lambda r, x: r.Sum(input=x, axis=[0], keep_dims=True),
    "select": lambda r, x: r.Select(condition=[True, False], x=x, y=-x),
    "topk": lambda r, x: r.TopKV2(input=x, k=1),
    "concat": lambda r, x: r.ConcatV2(values=[x, x], axis=0),
    "no_op": lambda r, x: r.NoOp(name="nothing"),
}


def _run(lib, case):
    with lib.Graph().as_default(), lib.Session() as sess:
        result = CASES[case](lib.raw_ops, lib.constant(X))
        if isinstance(result, lib.Operation):
            return ("op", result.name, sess.run(result))
        if isinstance(result, tuple) and hasattr(result, "_fields"):
            return (type(result).__name__, result._fields,
                    [sess.run(v) for v in result])
        if isinstance(result, list):
            return ("list", [sess.run(v) for v in result])
        return ("tensor", result.name, sess.run(result))


@pytest.mark.parametrize("case", sorted(CASES))
def test_raw_op_calls_give_tfs_results(case):
    ours, theirs = _run(tf, case), _run(tf1, case)
    assert ours[:-1] == theirs[:-1]
    for a, b in zip(np.atleast_1d(np.asarray(ours[-1], dtype=object)),
                    np.atleast_1d(np.asarray(theirs[-1], dtype=object))):
        np.testing.assert_allclose(np.asarray(a, float) if a is not None else 0,
                                   np.asarray(b, float) if b is not None else 0)


def test_every_graphcore_op_type_is_a_tf_raw_op_with_tfs_argument_names():
    import inspect

    from graphcore.framework import op_registry
    from graphcore.raw_ops import _RENAMED

    ours = {name for name in dir(tf.raw_ops)  # not the ops other tests registered
            if op_registry.get(name).module.startswith("graphcore.")}
    assert ours <= set(dir(tf_ref.raw_ops))
    for op_type in ours:
        op_def = op_registry.get(op_type).op_def
        theirs = set(inspect.signature(getattr(tf_ref.raw_ops, op_type)).parameters)
        renamed = {v: k for k, v in _RENAMED.get(op_type, {}).items()}
        ours = {renamed.get(a.name, a.name) for a in op_def.input_arg}
        assert ours <= theirs, op_type


def test_positional_args_and_unknown_ops_fail_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="only takes keyword args"):
            tf.raw_ops.Add(tf.constant(1), tf.constant(2))
    with tf1.Graph().as_default():
        with pytest.raises(TypeError, match="only takes keyword args"):
            tf1.raw_ops.Add(tf1.constant(1), tf1.constant(2))
    with pytest.raises(AttributeError):
        tf.raw_ops.NotAnOp  # noqa: B018
