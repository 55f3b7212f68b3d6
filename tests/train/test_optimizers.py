"""Optimizers and training ops (graphcore/train/{optimizer,gradient_descent,momentum,adagrad,
adam,rmsprop,training_ops}.py, graphcore/kernels/training_kernels.py): updates against
numpy references of TF's kernel formulas, slots, global step, minimize."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors
from graphcore.framework import gradient_registry, op_registry
from graphcore.kernels import training_kernels  # noqa: F401 - registers the kernels
from graphcore.train import (
    adagrad,
    adam,
    gradient_descent,
    learning_rate_decay,
    momentum,
    optimizer,
    rmsprop,
    training_ops,
    training_util,
)

W0 = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
B0 = np.array(0.25, np.float32)
GRADS = [
    (np.array([[0.1, -0.2], [0.3, 0.4]], np.float32), np.float32(0.5)),
    (np.array([[-0.5, 0.25], [0.0, 1.0]], np.float32), np.float32(-1.5)),
    (np.array([[2.0, -1.0], [0.75, -0.3]], np.float32), np.float32(0.2)),
    (np.array([[0.01, 0.6], [-0.9, 0.05]], np.float32), np.float32(3.0)),
]
F = np.float32


def _run_steps(opt, n_steps=4, dtype=tf.float32):
    """Applies GRADS (fed through placeholders) to variables w, b with ``opt``; returns
    the per-step values of (w, b) and the optimizer and variables."""
    w = tf.Variable(W0.astype(dtype.as_numpy_dtype), name="w")
    b = tf.Variable(B0.astype(dtype.as_numpy_dtype), name="b")
    gw = tf.placeholder(dtype, [2, 2], name="gw")
    gb = tf.placeholder(dtype, [], name="gb")
    train = opt.apply_gradients([(gw, w), (gb, b)])
    out = []
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for gwv, gbv in GRADS[:n_steps]:
            sess.run(train, {gw: gwv, gb: gbv})
            out.append(sess.run([w, b]))
    return out, (w, b, train)


def _check(out, reference, rtol=1e-6, atol=1e-7):
    assert len(out) == len(reference)
    for (w, b), (rw, rb) in zip(out, reference):
        assert w.dtype == rw.dtype and np.asarray(b).dtype == np.asarray(rb).dtype
        np.testing.assert_allclose(w, rw, rtol=rtol, atol=atol)
        np.testing.assert_allclose(b, rb, rtol=rtol, atol=atol)


def _reference(step_fn, slots_init):
    """Runs step_fn(var, grad, slots) -> (var, slots) over GRADS for w and b."""
    states = [(W0.copy(), [s(W0) for s in slots_init]), (B0.copy(), [s(B0) for s in slots_init])]
    out = []
    for grads in GRADS:
        new_states = []
        for (var, slots), g in zip(states, grads):
            var, slots = step_fn(var, np.asarray(g), slots)
            new_states.append((var, slots))
        states = new_states
        out.append((states[0][0], states[1][0]))
    return out


def _zeros(v):
    return np.zeros_like(v)


# -- updates against numpy ----------------------------------------------------------------

def test_gradient_descent_updates():
    out, _ = _run_steps(gradient_descent.GradientDescentOptimizer(0.1))
    ref = _reference(lambda var, g, s: (var - g * F(0.1), s), [])
    _check(out, ref)


def test_gradient_descent_float64_and_tensor_learning_rate():
    lr = tf.placeholder_with_default(np.float64(0.5), [], name="lr")
    out, _ = _run_steps(gradient_descent.GradientDescentOptimizer(lr), dtype=tf.float64)
    w, b = W0.astype(np.float64), B0.astype(np.float64)
    ref = []
    for gw, gb in GRADS:
        w, b = w - gw.astype(np.float64) * 0.5, b - np.float64(gb) * 0.5
        ref.append((w, b))
    _check(out, ref, rtol=1e-12)


def test_gradient_descent_callable_learning_rate():
    out, _ = _run_steps(gradient_descent.GradientDescentOptimizer(lambda: 0.05), n_steps=2)
    ref = _reference(lambda var, g, s: (var - g * F(0.05), s), [])[:2]
    _check(out, ref)


@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum_updates(nesterov):
    lr, mom = F(0.1), F(0.9)

    def step(var, g, slots):
        accum = slots[0] * mom + g
        if nesterov:
            var = var - (g * lr + accum * mom * lr)
        else:
            var = var - accum * lr
        return var, [accum]

    opt = momentum.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov)
    out, (w, _, _) = _run_steps(opt)
    _check(out, _reference(step, [_zeros]))
    apply = tf.get_default_graph().get_operation_by_name("Momentum/update_w/ApplyMomentum")
    assert apply.get_attr("use_nesterov") is nesterov


def test_adagrad_updates():
    lr = F(0.3)

    def step(var, g, slots):
        accum = slots[0] + g * g
        return var - g * lr * (F(1) / np.sqrt(accum)), [accum]

    out, _ = _run_steps(adagrad.AdagradOptimizer(0.3, initial_accumulator_value=0.2))
    _check(out, _reference(step, [lambda v: np.full_like(v, 0.2)]))


def test_adagrad_rejects_non_positive_accumulator():
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        adagrad.AdagradOptimizer(0.1, initial_accumulator_value=0.0)


def test_adam_updates():
    lr, b1, b2, eps = F(0.01), F(0.9), F(0.999), F(1e-8)
    powers = {"b1p": b1, "b2p": b2}
    one = F(1)

    out, _ = _run_steps(adam.AdamOptimizer(0.01))
    # beta powers are shared by the variables and advance once per step.
    ref = []
    states = [(W0.copy(), _zeros(W0), _zeros(W0)), (B0.copy(), _zeros(B0), _zeros(B0))]
    for grads in GRADS:
        alpha = lr * np.sqrt(one - powers["b2p"]) / (one - powers["b1p"])
        new = []
        for (var, m, v), g in zip(states, grads):
            m = m + (g - m) * (one - b1)
            v = v + (g * g - v) * (one - b2)
            var = var - (m * alpha) / (np.sqrt(v) + eps)
            new.append((var, m, v))
        states = new
        powers = {"b1p": powers["b1p"] * b1, "b2p": powers["b2p"] * b2}
        ref.append((states[0][0], states[1][0]))
    _check(out, ref, rtol=1e-5)


@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop_updates(centered):
    lr, rho, mom_c, eps = F(0.01), F(0.9), F(0.5), F(1e-10)

    def step(var, g, slots):
        ms, mg, mom = slots
        ms = ms + (g * g - ms) * (F(1) - rho)
        if centered:
            mg = mg + (g - mg) * (F(1) - rho)
            denom = (ms - mg * mg) + eps
        else:
            denom = ms + eps
        mom = mom * mom_c + (g * lr) / np.sqrt(denom)
        return var - mom, [ms, mg, mom]

    opt = rmsprop.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, centered=centered)
    out, _ = _run_steps(opt)
    _check(out, _reference(step, [np.ones_like, _zeros, _zeros]), rtol=1e-5)
    op_type = "ApplyCenteredRMSProp" if centered else "ApplyRMSProp"
    assert tf.get_default_graph().get_operation_by_name(f"RMSProp/update_w/{op_type}")


# -- slots --------------------------------------------------------------------------------

def _slot_values(opt, var_list):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        return {(v.op.name, s): sess.run(opt.get_slot(v, s))
                for v in var_list for s in opt.get_slot_names()}


def _build_for_slots(opt):
    w = tf.Variable(W0, name="w")
    with tf.name_scope("layer"):
        b = tf.Variable(B0, name="b")
    opt.apply_gradients([(tf.constant(GRADS[0][0]), w), (tf.constant(GRADS[0][1]), b)])
    return w, b


@pytest.mark.parametrize("make, slots", [
    (lambda: momentum.MomentumOptimizer(0.1, 0.9), {"momentum": ("Momentum", 0.0)}),
    (lambda: adagrad.AdagradOptimizer(0.1), {"accumulator": ("Adagrad", 0.1)}),
    (lambda: adam.AdamOptimizer(), {"m": ("Adam", 0.0), "v": ("Adam_1", 0.0)}),
    (lambda: rmsprop.RMSPropOptimizer(0.1), {"rms": ("RMSProp", 1.0),
                                             "momentum": ("RMSProp_1", 0.0)}),
    (lambda: rmsprop.RMSPropOptimizer(0.1, centered=True),
     {"rms": ("RMSProp", 1.0), "mg": ("RMSProp_1", 0.0), "momentum": ("RMSProp_2", 0.0)}),
])
def test_slot_names_values_and_colocation(make, slots):
    opt = make()
    w, b = _build_for_slots(opt)
    assert opt.get_slot_names() == sorted(slots)
    values = _slot_values(opt, [w, b])
    for var in (w, b):
        for slot_name, (suffix, init) in slots.items():
            slot = opt.get_slot(var, slot_name)
            assert slot.op.name == f"{var.op.name}/{suffix}"
            assert slot.dtype == tf.float32_ref and slot.shape == var.shape
            assert not slot.trainable
            assert slot in tf.global_variables() and slot not in tf.trainable_variables()
            assert slot.op.get_attr("_class") == [f"loc:@{var.op.name}".encode()]
            np.testing.assert_array_equal(values[(var.op.name, slot_name)],
                                          np.full(var.shape.as_list(), init, np.float32))
    assert opt.get_slot(w, "nope") is None
    assert opt.get_slot(tf.Variable(1.0, name="other"), slot_name) is None
    assert set(opt.variables()) >= {opt.get_slot(w, s) for s in slots}
    assert [v.name for v in opt.variables()] == sorted(v.name for v in opt.variables())


def test_adam_beta_power_variables():
    opt = adam.AdamOptimizer(0.1, beta1=0.8, beta2=0.7)
    w, b = _build_for_slots(opt)
    names = [v.op.name for v in opt.variables()]
    assert names == ["beta1_power", "beta2_power", "layer/b/Adam", "layer/b/Adam_1", "w/Adam",
                     "w/Adam_1"]
    g = tf.get_default_graph()
    beta1 = g.get_operation_by_name("beta1_power")
    # Colocated with the first variable by name ("layer/b" < "w").
    assert beta1.get_attr("_class") == [b"loc:@layer/b"]
    train = g.get_operation_by_name("Adam")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(["beta1_power:0", "beta2_power:0"]), [0.8, 0.7])
        sess.run(train)
        sess.run(train)
        np.testing.assert_allclose(sess.run(["beta1_power:0", "beta2_power:0"]),
                                   [0.8 ** 3, 0.7 ** 3], rtol=1e-6)


def test_slots_are_reused_across_apply_calls():
    opt = momentum.MomentumOptimizer(0.1, 0.9)
    w = tf.Variable(W0, name="w")
    opt.apply_gradients([(tf.constant(GRADS[0][0]), w)])
    slot = opt.get_slot(w, "momentum")
    opt.apply_gradients([(tf.constant(GRADS[1][0]), w)])
    assert opt.get_slot(w, "momentum") is slot
    assert len(opt.variables()) == 1


def test_slot_colocated_with_device_of_primary():
    with tf.device("/job:ps/task:0"):
        w = tf.Variable(W0, name="w")
    opt = momentum.MomentumOptimizer(0.1, 0.9)
    with tf.device("/job:worker/task:0"):
        opt.apply_gradients([(tf.constant(GRADS[0][0]), w)])
    slot = opt.get_slot(w, "momentum")
    assert slot.device == w.device == "/job:ps/task:0"
    apply = tf.get_default_graph().get_operation_by_name("Momentum/update_w/ApplyMomentum")
    assert apply.device == w.device
    assert apply.get_attr("_class") == [b"loc:@w"]


# -- graph structure, global step, errors -------------------------------------------------

def test_apply_gradients_structure_and_global_step():
    w = tf.Variable(W0, name="w")
    b = tf.Variable(B0, name="b")
    unused = tf.Variable(1.0, name="unused")
    step = training_util.get_or_create_global_step()
    opt = gradient_descent.GradientDescentOptimizer(0.5)
    train = opt.apply_gradients([(tf.constant(GRADS[0][0]), w), (None, unused),
                                 (tf.constant(GRADS[0][1]), b)], global_step=step)
    g = tf.get_default_graph()
    assert train.name == "GradientDescent" and train.type == "AssignAdd"
    assert train.get_attr("_class") == [b"loc:@global_step"]
    update = g.get_operation_by_name("GradientDescent/update")
    assert update.type == "NoOp"
    assert sorted(op.name for op in update.control_inputs) == [
        "GradientDescent/update_b/ApplyGradientDescent",
        "GradientDescent/update_w/ApplyGradientDescent"]
    value = g.get_operation_by_name("GradientDescent/value")
    assert value.control_inputs == [update]
    assert [t.name for t in train.inputs] == ["global_step:0", "GradientDescent/value:0"]
    apply_w = g.get_operation_by_name("GradientDescent/update_w/ApplyGradientDescent")
    assert [t.name for t in apply_w.inputs] == ["w:0", "GradientDescent/learning_rate:0",
                                                "Const:0"]
    assert apply_w.get_attr("use_locking") is False
    assert tf.get_collection(tf.GraphKeys.TRAIN_OP) == [train]
    assert not any("unused" in op.name for op in g.get_operations()
                   if op.name.startswith("GradientDescent"))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            sess.run(train)
            assert training_util.global_step(sess, step) == i + 1
        np.testing.assert_allclose(sess.run(w), W0 - 3 * 0.5 * GRADS[0][0], rtol=1e-6)
        assert sess.run(unused) == 1.0


def test_apply_gradients_without_global_step_and_named():
    w = tf.Variable(W0, name="w")
    opt = gradient_descent.GradientDescentOptimizer(0.5, use_locking=True)
    train = opt.apply_gradients([(tf.constant(GRADS[0][0]), w)], name="train")
    assert train.name == "train" and train.type == "NoOp"
    apply = tf.get_default_graph().get_operation_by_name("train/update_w/ApplyGradientDescent")
    assert apply.get_attr("use_locking") is True
    again = opt.apply_gradients([(tf.constant(GRADS[0][0]), w)])
    assert again.name == "GradientDescent"
    third = opt.apply_gradients([(tf.constant(GRADS[0][0]), w)])
    assert third.name == "GradientDescent_1"


def test_no_gradients_errors():
    w = tf.Variable(W0, name="w")
    opt = gradient_descent.GradientDescentOptimizer(0.1)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.apply_gradients([(None, w)])
    with pytest.raises(ValueError, match="No variables provided"):
        opt.apply_gradients([])
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        gradient_descent.GradientDescentOptimizer(0.1, name="")


def test_training_ops_registration():
    for op_type in ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "ApplyAdagradV2",
                    "ApplyAdam", "ApplyRMSProp", "ApplyCenteredRMSProp"):
        op_def = op_registry.get(op_type).op_def
        assert op_def.input_arg[0].is_ref and op_def.output_arg[0].is_ref
        assert gradient_registry.registered_gradients()[op_type] is None
    assert training_ops.__all__ == []


def test_training_op_shape_inference_and_kernel_errors():
    v = tf.Variable([1.0, 2.0], name="v")
    with pytest.raises(ValueError):
        training_ops.apply_gradient_descent(v, 0.1, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="rank 0"):
        training_ops.apply_gradient_descent(v, [0.1, 0.2], [1.0, 2.0])
    out = training_ops.apply_gradient_descent(v, 0.5, [1.0, 2.0])
    assert out.dtype == tf.float32_ref and out.shape.as_list() == [2]
    loose = tf.placeholder(tf.float32, None)
    bad = training_ops.apply_gradient_descent(v, 0.5, loose)
    bad_alpha = training_ops.apply_gradient_descent(v, loose, [1.0, 1.0])
    with tf.Session() as sess:
        with pytest.raises(errors.FailedPreconditionError, match="uninitialized value v"):
            sess.run(out)
        sess.run(v.initializer)
        np.testing.assert_allclose(sess.run(out), [0.5, 1.0])
        with pytest.raises(errors.InvalidArgumentError,
                           match=r"var and delta do not have the same shape\[2\] \[3\]"):
            sess.run(bad, {loose: [1.0, 2.0, 3.0]})
        with pytest.raises(errors.InvalidArgumentError, match=r"alpha is not a scalar: \[2\]"):
            sess.run(bad_alpha, {loose: [1.0, 2.0]})
        # A one-element vector passes as a (legacy) scalar, as in TF.
        np.testing.assert_allclose(sess.run(bad_alpha, {loose: [1.0]}), [-0.5, 0.0])


def test_training_ops_leave_fetched_values_untouched():
    v = tf.Variable([1.0, 2.0], name="v")
    step = training_ops.apply_gradient_descent(v, 1.0, [1.0, 1.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        before = sess.run(v)
        sess.run(step.op)
        np.testing.assert_array_equal(before, [1.0, 2.0])
        np.testing.assert_array_equal(sess.run(v), [0.0, 1.0])


def test_adagrad_v2_and_update_slots_false():
    v = tf.Variable([1.0, 2.0], name="v")
    acc = tf.Variable([1.0, 4.0], name="acc")
    grad = tf.constant([1.0, 2.0])
    v2 = training_ops.apply_adagrad_v2(v, acc, 0.5, 0.1, grad)
    frozen = training_ops.apply_adagrad(v, acc, 0.5, grad, update_slots=False)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(v2), [1 - 0.5 / (np.sqrt(2) + 0.1),
                                                  2 - 1.0 / (np.sqrt(8) + 0.1)], rtol=1e-6)
        np.testing.assert_allclose(sess.run(acc), [2.0, 8.0])
        before = sess.run(v)
        np.testing.assert_allclose(sess.run(frozen),
                                   before - 0.5 * np.array([1.0, 2.0]) / np.sqrt([2.0, 8.0]),
                                   rtol=1e-6)
        np.testing.assert_allclose(sess.run(acc), [2.0, 8.0])


def test_constraint_applied_after_update():
    w = tf.Variable([1.0, -1.0], name="w", constraint=lambda x: tf.zeros_like(x) + 0.5)
    opt = gradient_descent.GradientDescentOptimizer(0.1)
    train = opt.apply_gradients([(tf.constant([1.0, 1.0]), w)])
    with tf.Session() as sess:
        sess.run(w.initializer)
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [0.5, 0.5])


# -- with tf.gradients ------------------------------------------------------------------

def _linear_regression(opt_factory, steps):
    rng = np.random.default_rng(0)
    x_data = rng.normal(size=(32, 3)).astype(np.float32)
    true_w = np.array([[1.5], [-2.0], [0.5]], np.float32)
    y_data = x_data @ true_w + 0.3
    x = tf.constant(x_data)
    y = tf.constant(y_data)
    w = tf.Variable(np.zeros((3, 1), np.float32), name="w")
    b = tf.Variable(0.0, name="b")
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    step = training_util.get_or_create_global_step()
    train = opt_factory().minimize(loss, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(steps):
            sess.run(train)
        return first, sess.run(loss), sess.run(w), sess.run(step)


@pytest.mark.parametrize("opt_factory, steps", [
    (lambda: gradient_descent.GradientDescentOptimizer(0.1), 200),
    (lambda: momentum.MomentumOptimizer(0.05, 0.9), 200),
    (lambda: adam.AdamOptimizer(0.1), 300),
    (lambda: rmsprop.RMSPropOptimizer(0.01), 300),
    (lambda: adagrad.AdagradOptimizer(0.5), 300),
])
def test_minimize_linear_regression_converges(opt_factory, steps):
    first, last, w, step = _linear_regression(opt_factory, steps)
    assert first > 1.0 and last < 1e-3
    np.testing.assert_allclose(w.ravel(), [1.5, -2.0, 0.5], atol=0.05)
    assert step == steps


def test_compute_gradients_pairs_and_unconnected():
    w = tf.Variable([1.0, 2.0], name="w")
    unused = tf.Variable(3.0, name="unused")
    frozen = tf.Variable(4.0, name="frozen", trainable=False)
    loss = tf.reduce_sum(w * w) + frozen
    opt = gradient_descent.GradientDescentOptimizer(0.1)
    pairs = opt.compute_gradients(loss)
    assert [v for _, v in pairs] == [w, unused]
    assert pairs[1][0] is None
    gated = opt.compute_gradients(loss, var_list=[w],
                                  gate_gradients=optimizer.Optimizer.GATE_GRAPH)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(pairs[0][0]), [2.0, 4.0])
        np.testing.assert_allclose(sess.run(gated[0][0]), [2.0, 4.0])
    with pytest.raises(ValueError, match="gate_gradients must be one of"):
        opt.compute_gradients(loss, gate_gradients=7)
    with pytest.raises(ValueError, match="No gradients provided for any variable"):
        opt.minimize(loss, var_list=[unused])
    with pytest.raises(ValueError, match="No variables to optimize"):
        opt.compute_gradients(loss, var_list=[])
    with pytest.raises(ValueError, match="Invalid type"):
        opt.compute_gradients(tf.constant(1), var_list=[w])


def test_minimize_names_and_grad_loss():
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    opt = momentum.MomentumOptimizer(0.1, 0.0)
    train = opt.minimize(loss, var_list=[w], grad_loss=tf.constant(2.0), name="train")
    assert train.name == "train"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.4, 2.0 - 0.8], rtol=1e-6)


def test_decayed_learning_rate_with_global_step():
    w = tf.Variable([1.0, 1.0], name="w")
    step = training_util.get_or_create_global_step()
    lr = learning_rate_decay.exponential_decay(0.1, step, decay_steps=1, decay_rate=0.5)
    opt = gradient_descent.GradientDescentOptimizer(lr)
    train = opt.apply_gradients([(tf.constant([1.0, 2.0]), w)], global_step=step)
    apply = tf.get_default_graph().get_operation_by_name(
        "GradientDescent/update_w/ApplyGradientDescent")
    assert apply.inputs[1] is lr and lr.op.name == "ExponentialDecay"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train)
        total = 0.1 + 0.05 + 0.025
        np.testing.assert_allclose(sess.run(w), [1.0 - total, 1.0 - 2 * total], rtol=1e-6)


def test_adam_updates_slots_in_place_and_never_changes_a_fetched_value():
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    train = tf.train.AdamOptimizer(0.1).minimize(loss)
    m = [v for v in tf.global_variables() if v.op.name == "w/Adam"][0]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        slot = sess._engine.resources.variable("", "w/Adam", np.dtype(np.float32), (2,))
        stored = id(slot.value)
        sess.run(train)
        assert id(slot.value) == stored  # nobody held m: updated in place
        fetched_w, fetched_m = sess.run([w, m])
        snapshot = (fetched_w.copy(), fetched_m.copy())
        for _ in range(3):
            sess.run(train)
        # The arrays fetched earlier are untouched by the later in-place updates.
        np.testing.assert_array_equal(fetched_w, snapshot[0])
        np.testing.assert_array_equal(fetched_m, snapshot[1])
        assert not np.array_equal(sess.run(w), snapshot[0])


def test_a_step_releases_the_variables_read_value_so_the_update_is_in_place():
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.Variable(np.ones((3, 2), np.float32), name="w")
    loss = tf.reduce_sum(tf.matmul(x, w))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    feed = {x: np.ones((4, 3), np.float32)}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train, feed)
        state = sess._engine.resources.variable("", "w", np.dtype(np.float32), (3, 2))
        stored = id(state.value)
        sess.run(train, feed)
        # MatMul read w's value; the executor dropped it after its last use.
        assert id(state.value) == stored
        np.testing.assert_allclose(sess.run(w), np.full((3, 2), 1 - 2 * 0.5 * 4))
