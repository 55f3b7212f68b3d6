"""Reference tier: the elementwise math family (graphcore/ops/elementwise_ops.py), the
bool reductions and count_nonzero / reduce_logsumexp against TensorFlow's compat.v1 —
values, dtypes, op types and gradients. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(11)
UNIT = RNG.uniform(-0.9, 0.9, size=(3, 4)).astype(np.float32)
POS = RNG.uniform(1.1, 3.0, size=(3, 4)).astype(np.float32)
ANY = RNG.normal(size=(3, 4)).astype(np.float32)
SPECIAL = np.array([0.0, np.inf, -np.inf, np.nan, 1.5], np.float32)

# name -> (function of the library, inputs, differentiable)
CASES = {
    "acos": (lambda t, x: t.acos(x), [UNIT], True),
    "asin": (lambda t, x: t.asin(x), [UNIT], True),
    "atan": (lambda t, x: t.atan(x), [ANY], True),
    "acosh": (lambda t, x: t.acosh(x), [POS], True),
    "asinh": (lambda t, x: t.asinh(x), [ANY], True),
    "atanh": (lambda t, x: t.atanh(x), [UNIT], True),
    "cosh": (lambda t, x: t.cosh(x), [ANY], True),
    "sinh": (lambda t, x: t.sinh(x), [ANY], True),
    "tan": (lambda t, x: t.tan(x), [UNIT], True),
    "expm1": (lambda t, x: t.expm1(x), [ANY], True),
    "erf": (lambda t, x: t.erf(x), [ANY], True),
    "erfc": (lambda t, x: t.erfc(x), [ANY], True),
    "lgamma": (lambda t, x: t.lgamma(x), [POS], True),
    "digamma": (lambda t, x: t.digamma(x), [POS], True),
    "erfinv": (lambda t, x: t.math.erfinv(x) if t is tf1 else tf.erfinv(x), [UNIT], True),
    "is_nan": (lambda t, x: t.is_nan(x), [SPECIAL], False),
    "is_inf": (lambda t, x: t.is_inf(x), [SPECIAL], False),
    "is_finite": (lambda t, x: t.is_finite(x), [SPECIAL], False),
    "atan2": (lambda t, y, x: t.atan2(y, x), [ANY, POS[:1]], True),
    "truncatediv_int": (lambda t, x, y: t.truncatediv(x, y),
                        [np.array([-7, 7, -7, 7], np.int32), np.array([2, 2, -2, -2], np.int32)],
                        False),
    "truncatemod": (lambda t, x, y: t.truncatemod(x, y),
                    [np.array([-7.5, 7.5], np.float32), np.array([2.0, -2.0], np.float32)],
                    False),
    "igamma": (lambda t, a, x: t.igamma(a, x), [POS, POS[::-1]], True),
    "igammac": (lambda t, a, x: t.igammac(a, x), [POS, POS[::-1]], True),
    "igamma_broadcast": (lambda t, a, x: t.igamma(a, x), [POS[:1] * 3, POS[::-1] * 0.5],
                         True),
    "zeta": (lambda t, x, q: t.zeta(x, q), [POS.astype(np.float64) + 1.0, POS.astype(
        np.float64)], False),
    "polygamma": (lambda t, a, x: t.polygamma(a, x), [np.ones((3, 4), np.float32), POS],
                  False),
    "betainc": (lambda t, a, b, x: t.betainc(a, b, x),
                [POS, POS[::-1], np.abs(UNIT)], False),
    # Betainc's gradient covers x only (none for a and b, as TF's).
    "betainc_grad_x": (lambda t, x: t.betainc(t.constant(POS), t.constant(POS[::-1]), x),
                       [np.abs(UNIT)], True),
    "log_sigmoid": (lambda t, x: t.log_sigmoid(x), [ANY], True),
    "lbeta": (lambda t, x: t.lbeta(x), [POS], True),
    "complex_parts": (lambda t, x, y: [t.real(t.complex(x, y)), t.imag(t.complex(x, y)),
                                       t.angle(t.complex(x, y))], [ANY, POS], False),
    "real_of_real": (lambda t, x: t.real(x), [ANY], False),
    "reduce_all": (lambda t, x: [t.reduce_all(x > 0), t.reduce_all(x > 0, axis=1)], [ANY],
                   False),
    "reduce_any": (lambda t, x: [t.reduce_any(x > 2.9), t.reduce_any(x > 0, axis=[0],
                                                                     keepdims=True)],
                   [POS], False),
    "count_nonzero": (lambda t, x: [t.count_nonzero(x), t.count_nonzero(x, axis=1)],
                      [np.array([[0, 1, 2], [0, 0, 3]], np.int32)], False),
    "reduce_logsumexp": (lambda t, x: [t.reduce_logsumexp(x), t.reduce_logsumexp(x, axis=1)],
                         [ANY * 30], True),
}


def _run(lib, case):
    fn, inputs, differentiable = CASES[case]
    with lib.Graph().as_default() as g:
        phs = [lib.placeholder(lib.as_dtype(x.dtype), x.shape) for x in inputs]
        outs = fn(lib, *phs)
        outs = outs if isinstance(outs, list) else [outs]
        fetches = list(outs)
        if differentiable:
            fetches += lib.gradients([lib.reduce_sum(o) for o in outs], phs)
        with lib.Session() as sess:
            values = sess.run(fetches, dict(zip(phs, inputs)))
        ops = sorted(n.op for n in g.as_graph_def().node if n.op != "Placeholder"
                     and not n.name.startswith("gradients"))
    return values, ops


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_types_and_gradients_match_tf(case):
    ours, our_ops = _run(tf, case)
    theirs, their_ops = _run(tf1, case)
    assert our_ops == their_ops
    for a, b in zip(ours, theirs):
        assert np.asarray(a).dtype == np.asarray(b).dtype
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=1e-5)
