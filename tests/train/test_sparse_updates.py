"""Sparse optimizer updates without TensorFlow: a gather's gradient reaches the optimizer
as IndexedSlices, the optimizer emits TF's sparse ops, and only the looked-up rows of the
variable and its slots change (their new values checked against numpy)."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.framework.indexed_slices import IndexedSlicesValue

_IDS = [3, 1, 3]  # row 3 twice: duplicates add up
_ROWS = sorted(set(_IDS))


def _optimizers():
    return {
        "sgd": (lambda: tf.train.GradientDescentOptimizer(0.1), {"ScatterSub"},
                {"ResourceScatterAdd"}),
        "momentum": (lambda: tf.train.MomentumOptimizer(0.1, 0.9), {"SparseApplyMomentum"},
                     {"ResourceSparseApplyMomentum"}),
        "adagrad": (lambda: tf.train.AdagradOptimizer(0.1), {"SparseApplyAdagrad"},
                    {"ResourceSparseApplyAdagrad"}),
        "adam": (lambda: tf.train.AdamOptimizer(0.1), {"ScatterAdd"}, {"ResourceScatterAdd"}),
        "rmsprop": (lambda: tf.train.RMSPropOptimizer(0.1), {"SparseApplyRMSProp"},
                    {"ResourceSparseApplyRMSProp"}),
        "rmsprop_centered": (lambda: tf.train.RMSPropOptimizer(0.1, centered=True),
                             {"SparseApplyCenteredRMSProp"},
                             {"ResourceSparseApplyCenteredRMSProp"}),
    }


def _numpy_step(name, var, grad_rows):
    """The expected new rows of ``var`` (one step from zero slots), TF's formulas."""
    g = grad_rows
    if name == "sgd":
        return var - 0.1 * g
    if name == "momentum":
        return var - 0.1 * g
    if name == "adagrad":
        acc = 0.1 + g * g
        return var - 0.1 * g / np.sqrt(acc)
    if name == "adam":
        lr = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
        m = 0.1 * g
        v = 0.001 * g * g
        return var - lr * m / (np.sqrt(v) + 1e-8)
    if name == "rmsprop":
        ms = 0.9 + 0.1 * g * g
        return var - 0.1 * g / np.sqrt(ms + 1e-10)
    ms = 0.9 + 0.1 * g * g
    mg = 0.1 * g
    return var - 0.1 * g / np.sqrt(ms - mg * mg + 1e-10)


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
@pytest.mark.parametrize("name", sorted(_optimizers()))
def test_sparse_gradient_updates_only_looked_up_rows(name, use_resource):
    make, ref_ops, resource_ops = _optimizers()[name]
    init = np.arange(20, dtype=np.float32).reshape(5, 4) / 10
    with tf.Graph().as_default() as g:
        v = tf.Variable(init, use_resource=use_resource, name="emb")
        looked_up = tf.gather(v, _IDS) if not use_resource else v.sparse_read(_IDS)
        loss = tf.reduce_sum(looked_up * looked_up)
        opt = make()
        (grad, var), = opt.compute_gradients(loss, var_list=[v])
        assert isinstance(grad, tf.IndexedSlices)
        assert var is v
        train = opt.apply_gradients([(grad, var)])
        op_types = {op.type for op in g.get_operations()}
        assert (resource_ops if use_resource else ref_ops) <= op_types
        assert not {"ApplyAdagrad", "ApplyMomentum", "ApplyGradientDescent", "ApplyAdam",
                    "ApplyRMSProp"} & op_types
        slots = [opt.get_slot(v, s) for s in opt.get_slot_names()]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            slots_before = sess.run(slots)
            grad_value = sess.run(grad)
            sess.run(train)
            after = sess.run(v)
            slots_after = sess.run(slots)
    assert sorted(grad_value.indices.tolist()) == sorted(_IDS)
    untouched = [r for r in range(5) if r not in _ROWS]
    np.testing.assert_array_equal(after[untouched], init[untouched])
    dense_grad = np.zeros_like(init)
    np.add.at(dense_grad, _IDS, 2 * init[_IDS])
    np.testing.assert_allclose(after[_ROWS], _numpy_step(name, init[_ROWS], dense_grad[_ROWS]),
                               rtol=1e-5)
    assert not np.allclose(after[_ROWS], init[_ROWS])
    for before, now in zip(slots_before, slots_after):
        if name != "adam":  # Adam's sparse path decays m and v everywhere, as TF1's
            np.testing.assert_array_equal(now[untouched], before[untouched])


def test_indexed_slices_aggregate_by_concatenation_and_densify_on_conversion():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12.0).reshape(4, 3))
        y = tf.reduce_sum(tf.gather(x, [0, 2])) + tf.reduce_sum(tf.gather(x, [2]) * 3.0)
        (g,) = tf.gradients(y, x)
        assert isinstance(g, tf.IndexedSlices)
        assert g.values.op.type == "ConcatV2" and g.indices.op.type == "ConcatV2"
        mixed = tf.gradients(y + tf.reduce_sum(x * x), x)[0]
        assert isinstance(mixed, tf.IndexedSlices)  # TF turns the dense part into slices
        dense = tf.convert_to_tensor(g)
        assert dense.op.type == "UnsortedSegmentSum"
        with tf.Session() as sess:
            value = sess.run(g)
            assert isinstance(value, IndexedSlicesValue)
            np.testing.assert_array_equal(sess.run(dense), [[1] * 3, [0] * 3, [4] * 3, [0] * 3])
            np.testing.assert_array_equal(
                sess.run(tf.convert_to_tensor(mixed)),
                np.array([[1] * 3, [0] * 3, [4] * 3, [0] * 3]) + 2 * np.arange(12.0).reshape(4, 3))


def test_dense_conversion_without_dense_shape_raises():
    with tf.Graph().as_default():
        s = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]))
        with pytest.raises(ValueError, match="without dense_shape"):
            tf.convert_to_tensor(s)
