"""Reference tier: the FFT ops (graphcore/ops/spectral_ops.py) against TensorFlow's
compat.v1 — values, dtypes, shapes and gradients. Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(5)
Z = (RNG.normal(size=(2, 4, 6)) + 1j * RNG.normal(size=(2, 4, 6))).astype(np.complex64)
R = RNG.normal(size=(3, 8)).astype(np.float32)

CASES = {name: (lambda t, x, r, n=name: getattr(t, n)(x)) for name in
         ("fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d")}
CASES["rfft"] = lambda t, x, r: t.signal.rfft(r)
CASES["rfft_padded"] = lambda t, x, r: t.signal.rfft(r, fft_length=[12])
CASES["irfft"] = lambda t, x, r: t.signal.irfft(t.signal.rfft(r))


def _run(lib, case):
    with lib.Graph().as_default():
        x = lib.placeholder(lib.complex64, Z.shape)
        r = lib.placeholder(lib.float32, R.shape)
        out = CASES[case](lib, x, r)
        fetches = [out]
        if not case.startswith(("rfft", "irfft")):
            fetches.append(lib.gradients(lib.reduce_sum(lib.real(out * lib.conj(out))), x)[0])
        with lib.Session() as sess:
            return sess.run(fetches, {x: Z, r: R}), out.shape.as_list()


@pytest.mark.parametrize("case", sorted(CASES))
def test_ffts_match_tf(case):
    (ours, our_shape), (theirs, their_shape) = _run(tf, case), _run(tf1, case)
    assert our_shape == their_shape
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4)
