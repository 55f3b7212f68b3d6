"""Buffer forwarding (graphcore/kernels/forwarding.py) in the straight-line step
(graphcore/runtime/executor.py): a kernel writes into an input that is read for the last
time and held by nothing else, and never into a constant, a variable's value, a fed array,
a folded value or a value the step returns."""

import numpy as np
import pytest

import graphcore as tf
from graphcore.kernels import forwarding
from graphcore.runtime import executor

pytestmark = pytest.mark.skipif(forwarding.EXCLUSIVE_REFS is None,
                                reason="reference counts do not show every holder here")


def _plan(sess, fetch_name):
    return next(p for k, p in sess._engine._plans.items()
                if any(fetch_name in f for f in k[1])).executors[0]


def _forwarded_ops(ex):
    """The op types whose straight-line call is a forwarding variant."""
    names = ex._straight.__globals__
    return sorted(ex._instrs[ex._program_index[pos]].op
                  for pos, entry in enumerate(ex._program)
                  if names.get(f"f{pos}") not in (None, entry[0]))


def _generated_call(fn, *args):
    """Calls ``fn`` as the straight line does: each argument held by one local only."""
    names = {"f": fn, "make": lambda i: np.array(args[i])}
    params = ", ".join(f"s{i}" for i in range(len(args)))
    lines = [f"  s{i} = make({i})" for i in range(len(args))]
    exec("def step():\n" + "\n".join(lines) + f"\n  r = f({params})\n  return r, ({params},)\n",
         names)
    return names["step"]()


def test_kernels_write_into_exclusive_inputs_only():
    """A variant writes into the input it may take when only the caller's local holds it;
    an input it may not take, one held elsewhere, a view or a read-only array it leaves."""
    from graphcore.kernels.math_kernels import _binary

    class Ctx:
        output_types = [tf.float32]

    add = _binary(np.add)(Ctx())
    x, y = np.ones((4, 3), np.float32), np.arange(3, dtype=np.float32)
    (out,), (sx, sy) = _generated_call(forwarding.variant(add, (True, False)), x, y)
    assert out is sx and np.array_equal(out, x + y)
    (out,), (sx, sy) = _generated_call(forwarding.variant(add, (False, True)), x, y)
    assert out is not sx and out is not sy  # y's shape is not the result's
    (out,), (sx, _) = _generated_call(forwarding.variant(add, (False, False)), x, y)
    assert out is not sx
    fw = forwarding.variant(add, (True, True))
    held = np.ones((4, 3), np.float32)
    also = [held]  # a second holder (a variable's store, a feed list, a memo...)
    assert fw(held, y)[0] is not also[0] and np.all(held == 1)
    view = np.ones((8, 3), np.float32)[:4]
    assert _generated_call(fw, view, y)[0][0] is not view
    frozen = np.ones((4, 3), np.float32)
    frozen.flags.writeable = False
    assert _generated_call(fw, frozen, y)[0][0] is not frozen


def test_forwarding_never_overwrites_fetched_constant_variable_fed_or_folded_values():
    """The straight line forwards the chain's intermediates and no value anything else
    holds: the step's results equal the slot loop's, run after run."""
    base = np.linspace(-2, 2, 12, dtype=np.float32).reshape(4, 3)
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    c = tf.constant(base, name="c")
    v = tf.Variable(base, name="v")
    a = tf.multiply(x, 2.0, name="a")  # fetched: its buffer is the caller's
    h = tf.nn.relu(a + c, name="h")  # a + c, relu: intermediates, forwarded
    fed = tf.add(x, 1.0, name="fed")  # x is fed: not forwarded into
    var = tf.nn.relu(v, name="var")  # the variable's value: never
    const = tf.add(c, 1.0, name="const")
    folded = tf.cast(tf.shape(x), tf.float32) * 2.0  # a memoized value: never
    out = tf.add(tf.reduce_sum(h * 3.0), tf.reduce_sum(folded + 1.0), name="out")
    fetches = [a, out, fed, var, const, folded]
    with tf.Session() as sess:
        sess.run(v.initializer)
        feed = base + 0.5
        for _ in range(3):
            got = sess.run(fetches, {x: feed})
            np.testing.assert_array_equal(feed, base + 0.5)
            np.testing.assert_array_equal(got[0], feed * 2)
            want = np.sum(np.maximum(feed * 2 + base, 0) * 3) + np.sum([9.0, 7.0])
            np.testing.assert_allclose(got[1], want, rtol=1e-6)
            np.testing.assert_array_equal(got[2], feed + 1)
            np.testing.assert_array_equal(got[3], np.maximum(base, 0))
            np.testing.assert_array_equal(got[4], base + 1)
            np.testing.assert_array_equal(got[5], [8.0, 6.0])
        np.testing.assert_array_equal(sess.run(v), base)
        np.testing.assert_array_equal(sess.run(c), base)
        forwarded = _forwarded_ops(_plan(sess, "out"))
    assert "Relu" in forwarded and "AddV2" in forwarded


@pytest.mark.parametrize("forward", [False, True])
def test_forwarded_kernels_are_bit_equal(monkeypatch, forward):
    """Relu, ReluGrad and the binary kernels give the same bits written in place as into
    fresh arrays, NaN, infinities and signed zeros included."""
    rng = np.random.default_rng(0)
    data = rng.standard_normal((6, 5)).astype(np.float32)
    data[0, :] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    grads = rng.standard_normal((6, 5)).astype(np.float32)
    grads[1, :] = [np.nan, np.inf, -1.0, -0.0, 0.0]
    results = {}
    for flag in (False, forward):
        monkeypatch.setattr(executor, "FORWARDING", flag)
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 5])
            dy = tf.placeholder(tf.float32, [None, 5])
            h = tf.nn.relu(x * 1.0)
            dx, = tf.gradients(h, [x], grad_ys=dy * 1.0)
            y = (h - x * 1.0) / (x * 1.0 + 3.0)
            with tf.Session() as sess:
                results[flag] = sess.run([h, dx, y], {x: data, dy: grads})
    for a, b in zip(results[False], results[forward]):
        assert np.array_equal(a.view(np.uint32), b.view(np.uint32))
