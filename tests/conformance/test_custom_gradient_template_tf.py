"""Reference tier: tf.custom_gradient, tf.grad_pass_through and tf.make_template against
TensorFlow's compat.v1 (values, gradients, variable names). Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1


def _custom(lib):
    @lib.custom_gradient
    def log1pexp(x):
        e = lib.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return lib.log(1 + e), grad

    @lib.custom_gradient
    def two_in_two_out(a, b):
        def grad(da, db):
            return da * 2.0 + db, db * 3.0

        return [a * b, a + b], grad

    x = lib.constant([0.5, 100.0])
    a, b = lib.constant(2.0), lib.constant(5.0)
    outs = two_in_two_out(a, b)
    y = log1pexp(x)
    clipped = lib.grad_pass_through(lambda v: lib.round(v))(x)
    return [y, lib.gradients(y, x)[0], outs[0], outs[1],
            *lib.gradients([outs[0] * 1.5, outs[1]], [a, b]),
            lib.gradients(clipped * 4.0, x)[0]]


def _template(lib):
    def scale(x, init):
        w = lib.get_variable("w", shape=[], initializer=lib.constant_initializer(init))
        return x * w

    t = lib.make_template("scale", scale, init=3.0)
    first, second = t(lib.constant(2.0)), t(lib.constant(5.0))
    other = lib.make_template("scale", scale, init=1.0)(lib.constant(1.0))
    names = [v.name for v in lib.global_variables()]
    return [first, second, other], (names, t.variable_scope_name,
                                    [v.name for v in t.trainable_variables])


def _run(lib, fetches):
    with lib.Session() as sess:
        sess.run(lib.global_variables_initializer())
        return sess.run(fetches)


def test_custom_gradient_matches_tf():
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            results.append(_run(lib, _custom(lib)))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b)


def test_make_template_matches_tf():
    results = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            fetches, names = _template(lib)
            results.append((_run(lib, fetches), names))
    (ours, our_names), (theirs, their_names) = results
    assert our_names == their_names
    np.testing.assert_allclose(ours, theirs)


def test_template_refuses_new_trainable_variables_after_the_first_call():
    calls = []

    def f(x):
        calls.append(1)
        v = tf.Variable(1.0) if len(calls) > 1 else tf.get_variable("v", shape=[])
        return x * v

    t = tf.make_template("t", f)
    t(tf.constant(1.0))
    with pytest.raises(ValueError, match="Trainable variable created when calling a template"):
        t(tf.constant(2.0))
