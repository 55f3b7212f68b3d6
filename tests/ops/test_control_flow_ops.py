"""cond (Switch/Merge with dead tensors), group, tuple, initialized_value."""

import numpy as np
import pytest

import graphcore as tf
from graphcore import errors


def test_cond_takes_one_branch():
    x = tf.placeholder(tf.float32, [], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    c = tf.constant(5.0, name="c")
    y = tf.cond(p, lambda: tf.add(x, 10.0), lambda: tf.add(c, -10.0))
    assert y.op.type == "Merge" and y.op.name == "cond/Merge"
    with tf.Session() as sess:
        assert sess.run(y, {x: 1.0, p: True}) == 11.0
        assert sess.run(y, {x: 1.0, p: False}) == -5.0
        # x is only needed on the true branch, but the graph still needs it fed:
        with pytest.raises(errors.InvalidArgumentError, match="must feed"):
            sess.run(y, {p: False})


def test_untaken_branch_side_effects_do_not_run():
    v = tf.Variable(0, name="v")
    p = tf.placeholder(tf.bool, [])

    def bump():
        return tf.assign_add(v, 1)

    def keep():
        return tf.identity(v)

    r = tf.cond(p, bump, keep)
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r, {p: False}) == 0
        assert sess.run(v) == 0
        assert sess.run(r, {p: True}) == 1
        assert sess.run(v) == 1


def test_nested_cond_multiple_outputs_and_ops():
    a = tf.placeholder(tf.bool, [])
    b = tf.placeholder(tf.bool, [])
    x = tf.constant(1.0)

    def inner():
        return tf.cond(b, lambda: tf.add(x, 1.0), lambda: tf.add(x, 2.0))

    out = tf.cond(a, inner, lambda: tf.add(x, 3.0))
    pair = tf.cond(a, lambda: [tf.add(x, 1.0), tf.constant(1)],
                   lambda: [tf.add(x, 2.0), tf.constant(2)])
    v = tf.Variable(0, name="counter")
    op_result = tf.cond(a, lambda: tf.assign_add(v, 5).op, lambda: tf.no_op())
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out, {a: True, b: True}) == 2.0
        assert sess.run(out, {a: True, b: False}) == 3.0
        assert sess.run(out, {a: False, b: True}) == 4.0
        assert sess.run(pair, {a: False}) == [3.0, 2]
        assert op_result.dtype == tf.bool
        sess.run(op_result, {a: True})
        sess.run(op_result, {a: False})
        assert sess.run(v) == 5


def test_fetching_a_dead_tensor_fails_and_session_survives():
    p = tf.placeholder(tf.bool, [])
    holder = {}

    def true_fn():
        holder["inner"] = tf.add(tf.constant(1.0), 1.0, name="inner")
        return holder["inner"]

    y = tf.cond(p, true_fn, lambda: tf.constant(0.0))
    with tf.Session() as sess:
        assert sess.run(holder["inner"], {p: True}) == 2.0
        with pytest.raises(errors.InvalidArgumentError, match="does not have value"):
            sess.run(holder["inner"], {p: False})
        assert sess.run(y, {p: False}) == 0.0


def test_cond_across_devices():
    p = tf.placeholder(tf.bool, [])
    with tf.device("/device:CPU:1"):
        x = tf.constant([1.0, 2.0])
    y = tf.cond(p, lambda: tf.add(x, 1.0), lambda: tf.add(x, 2.0))
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        np.testing.assert_array_equal(sess.run(y, {p: True}), [2.0, 3.0])
        np.testing.assert_array_equal(sess.run(y, {p: False}), [3.0, 4.0])


def test_cond_errors():
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(TypeError):
        tf.cond(True, lambda: tf.constant(1), lambda: tf.constant(2))
    with pytest.raises(TypeError):
        tf.cond(p, lambda: tf.constant(1), lambda: tf.constant(2.0))
    with pytest.raises(TypeError):
        tf.cond(p, None, lambda: tf.constant(2.0))


def test_initialized_value():
    v = tf.Variable(3.0, name="v")
    w = tf.Variable(tf.add(v.initialized_value(), 1.0), name="w")
    with tf.Session() as sess:
        sess.run(w.initializer)  # v itself is still uninitialized
        assert sess.run(w) == 4.0
        sess.run(v.initializer)
        sess.run(tf.assign(v, 7.0))
        assert sess.run(v.initialized_value()) == 7.0


def test_group_and_tuple():
    v = tf.Variable(0, name="v")
    a = tf.assign_add(v, 1)
    b = tf.assign_add(v, 10)
    g = tf.group(a, b, name="both")
    assert g.type == "NoOp" and g.name == "both"
    t = tf.tuple([tf.constant(1), tf.constant(2)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(g)
        assert sess.run(v) == 11
        assert sess.run(t) == [1, 2]


# -- while_loop ------------------------------------------------------------------------------

def test_while_loop_values_and_tf_names():
    i = tf.constant(0)
    x = tf.constant(1.0)
    r = tf.while_loop(lambda i, x: i < 5, lambda i, x: (i + 1, x * 2.0), [i, x])
    names = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    for name, op_type in [("while/Enter", "Enter"), ("while/Enter_1", "Enter"),
                          ("while/Merge", "Merge"), ("while/Less", "Less"),
                          ("while/LoopCond", "LoopCond"), ("while/Switch", "Switch"),
                          ("while/Identity", "Identity"), ("while/add", "AddV2"),
                          ("while/NextIteration", "NextIteration"), ("while/Exit", "Exit"),
                          ("while/Exit_1", "Exit")]:
        assert names[name] == op_type, name
    g = tf.get_default_graph()
    enter = g.get_operation_by_name("while/Enter")
    assert enter.get_attr("frame_name") == b"while/while_context"
    assert enter.get_attr("is_constant") is False
    assert enter.get_attr("parallel_iterations") == 10
    merge = g.get_operation_by_name("while/Merge")
    assert [t.name for t in merge.inputs] == ["while/Enter:0", "while/NextIteration:0"]
    # packed like the body's result (a tuple here), as TF
    assert isinstance(r, tuple) and [t.op.name for t in r] == ["while/Exit", "while/Exit_1"]
    assert r[1].shape.as_list() == []
    with tf.Session() as sess:
        assert sess.run(r) == (5, 32.0)


def test_while_loop_single_var_and_captured_tensor():
    w = tf.placeholder(tf.float32, [], name="w")
    y = tf.while_loop(lambda x: x < 100.0, lambda x: x * w, [tf.constant(1.0)])
    assert isinstance(y, tf.Tensor)
    const_enters = [op for op in tf.get_default_graph().get_operations()
                    if op.type == "Enter" and op.get_attr("is_constant")]
    assert [op.inputs[0].name for op in const_enters] == ["w:0"]
    with tf.Session() as sess:
        assert sess.run(y, {w: 3.0}) == 243.0
        assert sess.run(y, {w: 10.0}) == 100.0
        # zero iterations: the initial value comes out
        assert sess.run(y, {w: 1000.0}) == 1000.0


def test_while_loop_nested_structures():
    import collections

    Pair = collections.namedtuple("Pair", "a b")
    init = (Pair(tf.constant(0), tf.constant(1.0)), [tf.constant(0)])
    out = tf.while_loop(lambda p, c: c[0] < 3,
                        lambda p, c: (Pair(p.a + 1, p.b * 2.0), [c[0] + 1]), init)
    assert isinstance(out[0], Pair) and isinstance(out[1], list)
    with tf.Session() as sess:
        p, c = sess.run(out)
        assert (p.a, p.b, c) == (3, 8.0, [3])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.while_loop(lambda a, b: a < 3, lambda a, b: (a + 1,), [tf.constant(0),
                                                                 tf.constant(1)])


def test_nested_while_loops_and_cond_inside_while():
    def outer_body(i, acc):
        _, inner = tf.while_loop(lambda j, a: j < i, lambda j, a: (j + 1, a + 1.0),
                                 [tf.constant(0), acc])
        return i + 1, inner

    r = tf.while_loop(lambda i, a: i < 4, outer_body, [tf.constant(0), tf.constant(0.0)])
    frames = {op.get_attr("frame_name") for op in tf.get_default_graph().get_operations()
              if op.type == "Enter"}
    assert frames == {b"while/while_context", b"while/while/while_context"}

    def body(i, s):
        s2 = tf.cond(tf.equal(i % 2, 0), lambda: s + tf.cast(i, tf.float32),
                     lambda: s - 1.0)
        return i + 1, s2

    r2 = tf.while_loop(lambda i, s: i < 6, body, (tf.constant(0), tf.constant(0.0)))
    p = tf.placeholder(tf.bool, [])
    r3 = tf.cond(p, lambda: tf.while_loop(lambda x: x < 10, lambda x: x + 3,
                                          [tf.constant(0)]),
                 lambda: tf.constant(-1))
    with tf.Session() as sess:
        assert sess.run(r) == (4, 6.0)
        assert sess.run(r2) == (6, 3.0)
        assert sess.run(r3, {p: True}) == 12
        assert sess.run(r3, {p: False}) == -1


def test_while_loop_maximum_iterations():
    y = tf.while_loop(lambda x: x < 100.0, lambda x: x * 2.0, [tf.constant(1.0)],
                      maximum_iterations=3)
    n = tf.placeholder(tf.int32, [])
    z = tf.while_loop(lambda a, b: a < 100, lambda a, b: (a + 1, b + 2),
                      [tf.constant(0), tf.constant(0)], maximum_iterations=n)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    assert "while/iteration_counter" in names and "while/LogicalAnd" in names
    with tf.Session() as sess:
        assert sess.run(y) == 8.0
        assert sess.run(z, {n: 4}) == (4, 8)
        assert sess.run(z, {n: 0}) == (0, 0)
    with pytest.raises(ValueError, match="must be a scalar"):
        tf.while_loop(lambda x: x < 1, lambda x: x, [tf.constant(0)],
                      maximum_iterations=[1, 2])


def test_while_loop_shape_invariants():
    x = tf.constant([1.0])
    with pytest.raises(ValueError, match="enters the loop with shape"):
        tf.while_loop(lambda x: tf.size(x) < 4, lambda x: tf.concat([x, x], 0), [x])
    y = tf.while_loop(lambda x: tf.size(x) < 4, lambda x: tf.concat([x, x], 0), [x],
                      shape_invariants=[tf.TensorShape([None])])
    assert y.shape.as_list() == [None]
    with pytest.raises(ValueError, match="not compatible with the initial shape"):
        tf.while_loop(lambda x: tf.size(x) < 4, lambda x: x, [x],
                      shape_invariants=[tf.TensorShape([2])])
    with pytest.raises(TypeError, match="TensorShape"):
        tf.while_loop(lambda x: tf.size(x) < 4, lambda x: x, [x], shape_invariants=[3])
    with pytest.raises(ValueError, match="same nested structure"):
        tf.while_loop(lambda x: tf.size(x) < 4, lambda x: x, [x], shape_invariants=[[None]])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), [1.0, 1.0, 1.0, 1.0])


def test_while_loop_argument_errors():
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tf.while_loop(None, lambda x: x, [tf.constant(0)])
    with pytest.raises(TypeError, match="'body' must be callable"):
        tf.while_loop(lambda x: x < 1, 3, [tf.constant(0)])
    with pytest.raises(ValueError, match="'loop_vars' must be provided"):
        tf.while_loop(lambda: True, lambda: (), [])
    with pytest.raises(TypeError, match="parallel_iterations"):
        tf.while_loop(lambda x: x < 1, lambda x: x, [tf.constant(0)], parallel_iterations=0)


def test_while_loop_ops_are_not_fetchable_and_loop_with_variable():
    v = tf.Variable(0, name="v")
    holder = {}

    def body(i):
        holder["inner"] = i + 1
        with tf.control_dependencies([tf.assign_add(v, i)]):
            return tf.identity(holder["inner"])

    r = tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(r) == 4
        assert sess.run(v) == 0 + 1 + 2 + 3
        with pytest.raises(errors.InvalidArgumentError, match="may not be fetched"):
            sess.run(holder["inner"])


def test_while_loop_reading_a_tensor_on_another_device():
    with tf.device("/device:CPU:1"):
        w = tf.constant(2.0, name="w")
    with tf.device("/device:CPU:0"):
        y = tf.while_loop(lambda x: x < 50.0, lambda x: x * w, [tf.constant(1.0)])
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        assert sess.run(y) == 64.0


# -- while_loop gradients ----------------------------------------------------------------------

def _max_error(x, x_shape, y, y_shape, x_init=None, feed=None):
    return tf.test.compute_gradient_error(x, x_shape, y, y_shape, x_init_value=x_init,
                                          extra_feed_dict=feed, delta=1e-5)


def test_while_loop_gradient_wrt_initial_value_and_captured_tensor():
    x = tf.placeholder(tf.float64, [3], name="x")
    w = tf.placeholder(tf.float64, [3], name="w")
    n = tf.placeholder(tf.int32, [], name="n")
    _, y = tf.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * w),
                         [tf.constant(0), x])
    gx, gw = tf.gradients(y, [x, w])
    names = {op.name: op.type for op in tf.get_default_graph().get_operations()}
    # TF1's structure: a forward counter, a backprop loop, stacks of forward values
    for name, op_type in [
            ("gradients/f_count", "Const"), ("gradients/f_count_1", "Enter"),
            ("gradients/f_count_2", "Exit"), ("gradients/b_count_2", "LoopCond"),
            ("gradients/while/mul_grad/Mul_1/f_acc", "StackV2"),
            ("gradients/while/mul_grad/Mul_1/StackPushV2", "StackPushV2"),
            ("gradients/while/mul_grad/Mul_1/StackPopV2", "StackPopV2"),
            ("gradients/while/mul_grad/Mul_1/b_sync", "ControlTrigger"),
            ("gradients/while/Exit_1_grad/b_exit", "Enter"),
            ("gradients/while/Switch_1_grad/b_switch", "Merge"),
            ("gradients/while/mul/Enter_grad/b_acc_3", "Exit")]:
        assert names[name] == op_type, name
    frames = {op.get_attr("frame_name") for op in tf.get_default_graph().get_operations()
              if op.type == "Enter"}
    assert frames == {b"while/while_context", b"gradients/while/while_context"}
    xv, wv = np.array([1.0, 2.0, -1.0]), np.array([1.5, -0.5, 2.0])
    with tf.Session() as sess:
        for k in (0, 1, 4):
            got = sess.run([y, gx, gw], {x: xv, w: wv, n: k})
            np.testing.assert_allclose(got[0], xv * wv ** k)
            np.testing.assert_allclose(got[1], wv ** k)
            np.testing.assert_allclose(got[2], k * xv * wv ** max(k - 1, 0) if k else 0 * xv)
        assert _max_error(x, [3], y, [3], xv, {w: wv, n: 3}) < 1e-6
        assert _max_error(w, [3], y, [3], wv, {x: xv, n: 3}) < 1e-6


def test_while_loop_gradient_nonlinear_body_and_unused_exit():
    x = tf.placeholder(tf.float64, [2, 2], name="x")
    m = tf.constant([[0.5, -0.2], [0.1, 0.3]], dtype=tf.float64)

    def body(i, a, b):
        return i + 1, tf.tanh(tf.matmul(a, m)) + b, b * 1.1

    _, a, b = tf.while_loop(lambda i, a, b: i < 3, body, [tf.constant(0), x, x * 0.5])
    loss = tf.reduce_sum(a * a)
    with tf.Session():
        x0 = np.array([[0.3, -0.7], [1.2, 0.4]])
        assert _max_error(x, [2, 2], loss, [], x0) < 1e-6
        # an exit not on the path (b) and one that is (a)
        assert _max_error(x, [2, 2], tf.reduce_sum(b), [], x0) < 1e-6


def test_nested_while_loop_gradient():
    x = tf.placeholder(tf.float64, [], name="x")

    def outer_body(i, v):
        _, inner = tf.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u * x + 0.5),
                                 [tf.constant(0), v])
        return i + 1, inner

    _, y = tf.while_loop(lambda i, v: i < 3, outer_body, [tf.constant(0), x])
    with tf.Session():
        assert _max_error(x, [], y, [], 0.9) < 1e-6


def test_cond_inside_while_gradient():
    x = tf.placeholder(tf.float64, [], name="x")

    def body(i, v):
        v2 = tf.cond(tf.equal(i % 2, 0), lambda: v * x, lambda: tf.sin(v) + x)
        return i + 1, v2

    _, y = tf.while_loop(lambda i, v: i < 5, body, [tf.constant(0), x])
    with tf.Session():
        assert _max_error(x, [], y, [], 0.7) < 1e-6


def test_while_loop_gradient_maximum_iterations_and_variable_training():
    w = tf.Variable(1.2, dtype=tf.float64, name="w")
    x = tf.constant(0.5, dtype=tf.float64)
    y = tf.while_loop(lambda v: v < 100.0, lambda v: v * w, [x], maximum_iterations=4)
    loss = (y - 1.0) ** 2
    (gw,) = tf.gradients(loss, [w])
    train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
    with tf.Session() as sess:
        sess.run(w.initializer)
        wv = 1.2
        expect = 2 * (0.5 * wv ** 4 - 1.0) * 0.5 * 4 * wv ** 3
        np.testing.assert_allclose(sess.run(gw), expect)
        first = sess.run(loss)
        for _ in range(20):
            sess.run(train)
        assert sess.run(loss) < first * 0.1


def test_while_loop_gradient_when_next_value_ignores_current():
    x = tf.placeholder(tf.float64, [], name="x")
    c = tf.placeholder(tf.float64, [], name="c")
    _, y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, c * 2.0), [tf.constant(0), x])
    gx, gc = tf.gradients(y, [x, c])
    with tf.Session() as sess:
        assert sess.run([gx, gc], {x: 1.0, c: 3.0}) == [0.0, 2.0]
        assert sess.run(gx, {x: 1.0, c: 3.0}) == 0.0


def test_while_loop_back_prop_false_has_no_gradient():
    x = tf.placeholder(tf.float32, [])
    y = tf.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, [x], back_prop=False)
    assert tf.gradients(y, x) == [None]


# -- case --------------------------------------------------------------------------------------

def test_case_first_true_predicate_and_default():
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(tf.less(x, 0), lambda: tf.constant(-1)),
                 (tf.equal(x, 0), lambda: tf.constant(0)),
                 (tf.less(x, 3), lambda: tf.constant(1))], default=lambda: tf.constant(9))
    assert r.op.name == "case/cond/Merge"
    with tf.Session() as sess:
        assert [sess.run(r, {x: v}) for v in (-2, 0, 2, 7)] == [-1, 0, 1, 9]


def test_case_without_default_and_exclusive():
    x = tf.placeholder(tf.int32, [], name="x")
    pairs = [(tf.less(x, 5), lambda: tf.constant(1.0)),
             (tf.less(x, 0), lambda: tf.constant(2.0))]
    r = tf.case(pairs)  # the last pair is the default
    r_ex = tf.case(pairs, default=lambda: tf.constant(3.0), exclusive=True, name="ex")
    with tf.Session() as sess:
        assert sess.run(r, {x: 3}) == 1.0
        assert sess.run(r, {x: -1}) == 1.0
        with pytest.raises(errors.InvalidArgumentError, match="None of conditions"):
            sess.run(r, {x: 9})
        assert sess.run(r_ex, {x: 3}) == 1.0
        assert sess.run(r_ex, {x: 9}) == 3.0
        with pytest.raises(errors.InvalidArgumentError, match="exclusive=True"):
            sess.run(r_ex, {x: -1})


def test_case_argument_errors():
    x = tf.placeholder(tf.int32, [])
    with pytest.raises(TypeError, match="list, tuple, or dict"):
        tf.case(tf.less(x, 0))
    with pytest.raises(TypeError, match="2-tuple"):
        tf.case([[tf.less(x, 0), lambda: x]])
    with pytest.raises(TypeError, match="type bool"):
        tf.case([(x, lambda: x)])
    with pytest.raises(TypeError, match="must be a Tensor"):
        tf.case([(True, lambda: x)])
    with pytest.raises(TypeError, match="callable"):
        tf.case([(tf.less(x, 0), 3)])


def test_assert_op():
    x = tf.placeholder(tf.float32, [])
    a = tf.Assert(tf.less(x, 1.0), ["x too big:", x])
    assert a.type == "Merge"  # guarded by a cond (float data), as TF
    b = tf.Assert(tf.less(x, 1.0), ["plain"])
    assert b.type == "Assert"
    with tf.Session() as sess:
        sess.run(a, {x: 0.5})
        with pytest.raises(errors.InvalidArgumentError, match="x too big"):
            sess.run(a, {x: 2.0})
        with pytest.raises(errors.InvalidArgumentError, match="plain"):
            sess.run(b, {x: 2.0})


@pytest.mark.parametrize("taken,iterations", [(True, 0), (True, 2), (False, 1)])
def test_gradient_through_a_cond_feeding_a_while_loop(taken, iterations):
    """The Switch zeros of a cond outside the loop are dead on the branch not taken, so
    the gradient Merge passes the real gradient (it read the live zeros before)."""
    with tf.Graph().as_default():
        a = tf.constant(1.5)
        x0 = tf.cond(tf.constant(taken), lambda: a * 2, lambda: a * 3)
        _, out = tf.while_loop(lambda i, x: i < iterations, lambda i, x: (i + 1, x * x),
                               [tf.constant(0), x0])
        grad = tf.gradients(out, a)[0]
        with tf.Session() as sess:
            value = sess.run(grad)
    k = 2.0 if taken else 3.0
    power = 2 ** iterations
    np.testing.assert_allclose(value, power * k ** power * 1.5 ** (power - 1), rtol=1e-5)
