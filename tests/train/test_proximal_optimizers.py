"""FtrlOptimizer, AdadeltaOptimizer, ProximalGradientDescentOptimizer,
ProximalAdagradOptimizer and AdagradDAOptimizer (graphcore/train/{ftrl,adadelta,
proximal_gradient_descent,proximal_adagrad,adagrad_da}.py and
graphcore/kernels/proximal_training_kernels.py): two dense steps against numpy
references of TF's kernel formulas, the sparse path (repeated indices summed, untouched
rows unchanged, ref and resource variables), slot names and argument errors."""

import numpy as np
import pytest

import graphcore as tf

W0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
G = [np.array([[0.1, -0.2], [0.3, 0.4]], np.float32),
     np.array([[-0.5, 0.25], [0.0, 1.0]], np.float32)]
F = np.float32


def _ftrl_ref(lr=0.5, l1=0.1, l2=0.2, shrink=0.0, power=-0.5, acc0=0.1):
    w, acc, lin = W0.copy(), np.full_like(W0, acc0), np.zeros_like(W0)
    for g in G:
        new = acc + g * g
        lin += g + 2 * shrink * w - (new ** -power - acc ** -power) / lr * w
        y = new ** -power / lr + 2 * l2
        w = np.where(np.abs(lin) > l1, (l1 * np.sign(lin) - lin) / y, 0).astype(F)
        acc = new
    return w


def _adadelta_ref(lr=1.0, rho=0.9, eps=1e-6):
    w, acc, upd = W0.copy(), np.zeros_like(W0), np.zeros_like(W0)
    for g in G:
        acc = rho * acc + (1 - rho) * g * g
        u = np.sqrt(upd + eps) / np.sqrt(acc + eps) * g
        w = w - lr * u
        upd = rho * upd + (1 - rho) * u * u
    return w


def _prox(w, lr, l1, l2):
    return np.sign(w) * np.maximum(np.abs(w) - lr * l1, 0) / (1 + lr * l2)


def _proximal_sgd_ref(lr=0.1, l1=0.5, l2=0.3):
    w = W0.copy()
    for g in G:
        w = _prox(w - lr * g, lr, l1, l2)
    return w


def _proximal_adagrad_ref(lr=0.1, l1=0.5, l2=0.3):
    w, acc = W0.copy(), np.full_like(W0, 0.1)
    for g in G:
        acc = acc + g * g
        rate = lr / np.sqrt(acc)
        w = _prox(w - rate * g, rate, l1, l2)
    return w


def _adagrad_da_ref(lr=0.1, l1=0.05, l2=0.2):
    ga, gg = np.zeros_like(W0), np.full_like(W0, 0.1)
    for step, g in enumerate(G, start=1):
        ga, gg = ga + g, gg + g * g
        w = (lr * -np.sign(ga) * np.maximum(np.abs(ga) - step * l1, 0)
             / (l2 * step * lr + np.sqrt(gg)))
    return w


CASES = {
    "ftrl": (lambda step: tf.train.FtrlOptimizer(0.5, l1_regularization_strength=0.1,
                                                 l2_regularization_strength=0.2),
             _ftrl_ref(), ["accum", "linear"]),
    "ftrl_v2_power": (lambda step: tf.train.FtrlOptimizer(
        0.5, learning_rate_power=-0.8, l1_regularization_strength=0.1,
        l2_regularization_strength=0.2, l2_shrinkage_regularization_strength=0.05),
        _ftrl_ref(shrink=0.05, power=-0.8), ["accum", "linear"]),
    "adadelta": (lambda step: tf.train.AdadeltaOptimizer(1.0, rho=0.9, epsilon=1e-6),
                 _adadelta_ref(), ["accum", "accum_update"]),
    "proximal_sgd": (lambda step: tf.train.ProximalGradientDescentOptimizer(
        0.1, l1_regularization_strength=0.5, l2_regularization_strength=0.3),
        _proximal_sgd_ref(), []),
    "proximal_adagrad": (lambda step: tf.train.ProximalAdagradOptimizer(
        0.1, l1_regularization_strength=0.5, l2_regularization_strength=0.3),
        _proximal_adagrad_ref(), ["accumulator"]),
    "adagrad_da": (lambda step: tf.train.AdagradDAOptimizer(
        0.1, step, l1_regularization_strength=0.05, l2_regularization_strength=0.2),
        _adagrad_da_ref(), ["gradient_accumulator", "gradient_squared_accumulator"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_dense_steps_match_the_kernel_formulas(case):
    make, expected, slot_names = CASES[case]
    with tf.Graph().as_default():
        w = tf.Variable(W0, name="w")
        g = tf.placeholder(tf.float32, [2, 2])
        step = tf.train.get_or_create_global_step()
        opt = make(step)
        train = opt.apply_gradients([(g, w)], global_step=step)
        assert opt.get_slot_names() == slot_names
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for gv in G:
                sess.run(train, {g: gv})
            np.testing.assert_allclose(sess.run(w), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_resource", [False, True])
@pytest.mark.parametrize("case", sorted(CASES))
def test_sparse_step_sums_repeated_rows_and_leaves_others(case, use_resource):
    """IndexedSlices over rows [0, 0] of a 3-row table: one update of row 0 with the
    summed gradient, equal to the dense update with that gradient; rows 1, 2 unchanged
    (except by proximal steps, which TF also applies to touched rows only)."""
    make, _, _ = CASES[case]
    table = np.vstack([W0, [[7.0, 8.0]]]).astype(F)
    rows = np.array([[0.1, -0.2], [0.3, 0.4]], F)
    results = []
    for sparse in (True, False):
        with tf.Graph().as_default():
            v = tf.Variable(table, name="v", use_resource=use_resource)
            step = tf.train.get_or_create_global_step()
            opt = make(step)
            if sparse:
                grad = tf.IndexedSlices(tf.constant(rows), tf.constant([0, 0]),
                                        tf.constant([3, 2]))
            else:
                grad = tf.constant(np.vstack([rows.sum(0, keepdims=True),
                                              np.zeros((2, 2), F)]))
            train = opt.apply_gradients([(grad, v)], global_step=step)
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                sess.run(train)
                results.append(sess.run(v))
    sparse_value, dense_value = results
    np.testing.assert_allclose(sparse_value[0], dense_value[0], rtol=1e-6)
    np.testing.assert_array_equal(sparse_value[1:], table[1:])


def test_slot_variable_names():
    with tf.Graph().as_default():
        w = tf.Variable(W0, name="w")
        g = tf.constant(G[0])
        opt = tf.train.FtrlOptimizer(0.1, accum_name="acc", linear_name="lin")
        opt.apply_gradients([(g, w)])
        assert opt.get_slot(w, "accum").op.name == "w/acc"
        assert opt.get_slot(w, "linear").op.name == "w/lin"
        opt = tf.train.AdadeltaOptimizer()
        opt.apply_gradients([(g, w)])
        assert [opt.get_slot(w, n).op.name for n in ("accum", "accum_update")] == \
            ["w/Adadelta", "w/Adadelta_1"]


@pytest.mark.parametrize("make, message", [
    (lambda: tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5),
     "learning_rate_power 0.500000 needs to be negative or zero"),
    (lambda: tf.train.FtrlOptimizer(0.1, initial_accumulator_value=-1.0),
     "initial_accumulator_value -1.000000 needs to be positive or zero"),
    (lambda: tf.train.ProximalAdagradOptimizer(0.1, initial_accumulator_value=0.0),
     "initial_accumulator_value must be positive: 0.0"),
    (lambda: tf.train.AdagradDAOptimizer(0.1, None,
                                         initial_gradient_squared_accumulator_value=0.0),
     "initial_gradient_squared_accumulator_value must be positive: 0.0"),
])
def test_argument_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()
