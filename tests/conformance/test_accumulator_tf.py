"""Reference tier: tf.ConditionalAccumulator (resource ops) and
tf.sparse.SparseConditionalAccumulator (ref ops) against TensorFlow's compat.v1: the
values each step returns (means, sums, stale gradients dropped, global steps), static
shapes, names, the GraphDef, and errors. Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _fetched(r):
    if r is None or not hasattr(r, "indices"):
        return r if r is None else r.tolist()
    shape = r.dense_shape if hasattr(r, "dense_shape") else r.shape
    return r.indices.tolist(), r.values.tolist(), shape.tolist()


def _run(lib):
    out = []
    with lib.Graph().as_default() as g:
        acc = lib.ConditionalAccumulator(lib.float32, shape=[2], name="acc")
        summed = lib.sparse.SparseConditionalAccumulator(lib.float32, shape=[4, 2],
                                                         reduction_type="SUM")
        mean = lib.SparseConditionalAccumulator(lib.float32)
        steps = [
            acc.apply_grad([1.0, 2.0]), acc.apply_grad([3.0, 5.0], local_step=0),
            acc.num_accumulated(), acc.take_grad(2),
            acc.apply_grad([9.0, 9.0], local_step=0),  # stale: dropped
            acc.num_accumulated(), acc.apply_grad([2.0, 2.0], local_step=1), acc.take_grad(1),
            acc.set_global_step(7), acc.apply_grad([1.0, 1.0], local_step=6),
            acc.num_accumulated(),
            summed.apply_grad([1, 3], [[1.0, 1.0], [2.0, 2.0]], grad_shape=[4, 2]),
            summed.apply_indexed_slices_grad(lib.IndexedSlices(
                lib.constant([[5.0, 5.0]]), lib.constant([1], lib.int64),
                lib.constant([4, 2], lib.int64))),
            summed.num_accumulated(), summed.take_grad(2),
            mean.apply_grad([2, 0], [[1.0, 3.0], [2.0, 2.0]]),
            mean.apply_grad([2], [[3.0, 5.0]]), mean.set_global_step(5),
            mean.take_indexed_slices_grad(2), mean.num_accumulated(),
        ]
        with lib.Session() as sess:
            for step in steps:
                out.append(_fetched(sess.run(step)))
            with pytest.raises(ValueError):
                acc.apply_grad(lib.constant([1.0, 2.0])[:1])
            with pytest.raises(lib.errors.InvalidArgumentError) as info:
                sess.run(acc.take_grad(0))
            out.append("Argument num_required must be positive, but was 0" in
                       info.value.message)
        out.append([str(t.shape) for t in (acc.take_grad(1), acc.accumulator_ref,
                                           summed.accumulator_ref,
                                           summed.take_grad(1).values,
                                           acc.num_accumulated())])
        out.append((acc.name, summed.name, acc.dtype.name, acc.accumulator_ref.dtype.name,
                    summed.accumulator_ref.dtype.name))
        out.append([(n.name, n.op) for n in g.as_graph_def().node])
    return out


def test_conditional_accumulators_match_tf():
    ours, theirs = _run(tf), _run(tf1)
    for a, b in zip(ours, theirs):
        assert a == b
