"""graphcore's BLAS path (graphcore/kernels/blas.py): products equal numpy's through every
library chosen, the dedicated OpenBLAS picks its own kernel even when OPENBLAS_CORETYPE
forces numpy's, and numpy's matmul serves when the libraries are refused."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys

import numpy as np
import pytest

from graphcore.kernels import blas

HAS_OPENBLAS = blas._openblas_path() is not None
HAS_ONEDNN = blas._onednn_path() is not None
needs_openblas = pytest.mark.skipif(not HAS_OPENBLAS, reason="scipy-openblas32 not installed")
NUMPY_ONLY = {"float32": "numpy", "float64": "numpy", "batch": "numpy"}

_PROBE = """
import json, os
from threadpoolctl import threadpool_info
import numpy as np
from graphcore.kernels import blas
np.ones((2, 2)) @ np.ones((2, 2))
numpy_kernel = [i.get("architecture") for i in threadpool_info()
                if i["filepath"].startswith(os.path.dirname(np.__file__) + ".libs")]
print(json.dumps({"info": blas.info(), "numpy": numpy_kernel,
                  "env": os.environ.get("OPENBLAS_CORETYPE")}))
"""


def _probe(**env: str) -> dict:
    full = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE",
                                                              "OPENBLAS_L2_SIZE",
                                                              "GRAPHCORE_BLAS")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", _PROBE], env=full, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _products(dtype) -> list:
    """The kernels' product, and every loaded library's gemm call for every size."""
    choice = blas._choice()
    libs = {id(lib): lib for lib in [*choice.gemm.values(), choice.batch] if lib is not None}
    return [blas.matmul_fn(np.dtype(dtype))] + [
        (lambda a, b, ta, tb, lib=lib: blas._gemm(lib, a, b, ta, tb))
        for lib in libs.values() if np.dtype(dtype) in lib.dtypes]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,n,k", [(1, 1, 1), (3, 5, 7), (64, 33, 130), (70, 80, 90),
                                   (0, 4, 3), (4, 0, 3), (4, 3, 0), (0, 300, 1000)])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_fn_equals_numpy(dtype, m, n, k, ta, tb):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((k, m) if ta else (m, k)).astype(dtype)
    b = rng.standard_normal((n, k) if tb else (k, n)).astype(dtype)
    want = np.matmul(a.T if ta else a, b.T if tb else b)
    for product in _products(dtype):
        got = product(a, b, ta, tb)
        assert got.dtype == dtype and got.shape == (m, n)
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_matmul_fn_takes_fortran_ordered_and_strided_operands():
    rng = np.random.default_rng(2)
    base = rng.standard_normal((400, 600)).astype(np.float32)
    f_order = np.asfortranarray(base[:, :300])          # (400, 300), column-major
    strided = base[::2, ::2]                             # (200, 300), neither order
    readonly = base.copy()
    readonly.flags.writeable = False
    for product in _products(np.float32):
        np.testing.assert_allclose(product(f_order, strided, False, True),
                                   f_order @ strided.T, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(product(strided, f_order, False, True),
                                   strided @ f_order.T, rtol=1e-4, atol=1e-3)
        np.testing.assert_allclose(product(readonly, readonly, True, False),
                                   readonly.T @ readonly, rtol=1e-4, atol=1e-2)


def test_matmul_fn_falls_back_to_numpy_for_other_dtypes():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    got = blas.matmul_fn(np.dtype(np.int32))(a, a, False, True)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a @ a.T)
    c = (np.arange(4) + 1j).reshape(2, 2)
    np.testing.assert_allclose(blas.matmul_fn(np.dtype(np.complex128))(c, c, True, False),
                               c.T @ c)


@pytest.mark.parametrize("xs,ys", [((3, 4, 5), (3, 5, 2)), ((2, 3, 4, 5), (5, 2)),
                                   ((4, 5), (2, 3, 5, 6)), ((1, 4, 5), (3, 5, 2)),
                                   ((2, 0, 5), (2, 5, 3)), ((2, 3, 0), (2, 0, 4)),
                                   ((3, 70, 80), (3, 80, 90))])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_batch_matmul_fn_equals_numpy(xs, ys, dtype):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(xs).astype(dtype)
    y = rng.standard_normal(ys).astype(dtype)
    product = blas.batch_matmul_fn(np.dtype(dtype))
    np.testing.assert_allclose(product(x, y, False, False), np.matmul(x, y),
                               rtol=1e-5, atol=1e-5)
    xt, yt = np.swapaxes(x, -1, -2).copy(), np.swapaxes(y, -1, -2).copy()
    np.testing.assert_allclose(product(xt, yt, True, True), np.matmul(x, y),
                               rtol=1e-5, atol=1e-5)


def test_batch_matmul_fn_conjugates_complex_adjoints():
    x = (np.arange(8) + 1j * np.arange(8)[::-1]).reshape(2, 2, 2)
    got = blas.batch_matmul_fn(np.dtype(np.complex128))(x, x, True, False)
    np.testing.assert_allclose(got, np.matmul(np.conj(np.swapaxes(x, -1, -2)), x))


def test_refused_library_falls_back_to_numpy(monkeypatch, caplog):
    if not HAS_OPENBLAS:
        pytest.skip("scipy-openblas32 not installed")
    monkeypatch.setattr(blas, "_chosen", None)
    monkeypatch.setattr(blas, "_agrees_with_numpy", lambda lib: False)
    with caplog.at_level(logging.WARNING, logger="graphcore.blas"):
        assert blas.info() == NUMPY_ONLY
    assert "disagrees with numpy's matmul; not used" in caplog.text
    a = np.ones((3, 2), np.float32)
    np.testing.assert_array_equal(blas.matmul_fn(np.dtype(np.float32))(a, a, False, True),
                                  np.full((3, 3), 2, np.float32))


@needs_openblas
def test_dedicated_openblas_detects_the_cpu_despite_a_forced_coretype():
    pytest.importorskip("threadpoolctl")
    free = _probe()
    kernel = free["info"]["float64"].split()[1]
    assert free["info"]["float64"].startswith("OpenBLAS ") and ".so" in free["info"]["float64"]
    older = "Nehalem" if kernel == "Sandybridge" else "Sandybridge"  # not the CPU's own
    forced = _probe(OPENBLAS_CORETYPE=older, OPENBLAS_L2_SIZE="262144")
    # numpy honours the forced kernel; graphcore's copy picks what it picks unforced.
    assert forced["numpy"] == [older]
    assert forced["info"] == free["info"]
    # The variable is back for everything loaded later.
    assert forced["env"] == older


@pytest.mark.skipif(not HAS_ONEDNN, reason="onednn-cpu-gomp not installed")
def test_float32_products_run_on_onednn_unless_openblas_is_asked_for():
    assert blas.info()["float32"].startswith("oneDNN v3.")
    assert blas.info()["batch"].startswith("OpenBLAS ")
    only_openblas = _probe(GRAPHCORE_BLAS="openblas")["info"]
    assert only_openblas["float32"].startswith("OpenBLAS ")


def test_graphcore_blas_numpy_selects_numpys_matmul():
    assert _probe(GRAPHCORE_BLAS="numpy")["info"] == NUMPY_ONLY


def test_a_library_that_does_not_load_is_skipped_with_a_warning(monkeypatch, caplog):
    if not HAS_OPENBLAS:
        pytest.skip("scipy-openblas32 not installed")
    monkeypatch.setattr(blas, "_chosen", None)
    monkeypatch.setattr(blas, "_onednn_path", lambda: "/nonexistent/libdnnl.so.3")
    with caplog.at_level(logging.WARNING, logger="graphcore.blas"):
        chosen = blas.info()
    assert "could not load /nonexistent/libdnnl.so.3" in caplog.text
    assert chosen["float32"].startswith("OpenBLAS ")
    a = np.full((80, 90), 0.5, np.float32)
    np.testing.assert_allclose(blas.matmul_fn(np.dtype(np.float32))(a, a, False, True),
                               np.full((80, 80), 22.5, np.float32))


def test_onednn_team_follows_intra_op_threads_product_size_and_timings():
    """oneDNN's OpenMP team: one thread under SERIAL_MACS; above it, per product shape,
    the intra-op thread count (intra_op_parallelism_threads, never over OpenMP's own
    maximum) or one thread, whichever the median of the shape's last TEAM_WINDOW timings
    says is faster, the other size every TEAM_PROBE-th product (one slow probe or one
    slow product does not flip the choice), and at once again after a probe that beat
    the choice."""
    from graphcore.kernels import intra_op

    lib = blas._choice().gemm.get(np.dtype(np.float32))
    if not isinstance(lib, blas._OneDNN) or lib.max_team == 0:
        pytest.skip("oneDNN (with libgomp) is not in use")
    rng = np.random.default_rng(0)
    big = rng.standard_normal((128, 128)).astype(np.float32)
    small = rng.standard_normal((64, 64)).astype(np.float32)
    assert 64 ** 3 < blas.SERIAL_MACS <= 128 ** 3
    saved = intra_op.threads()
    key = (128, 128, 128, False, False)
    window = intra_op.TEAM_WINDOW
    try:
        intra_op.set_threads(1)
        np.testing.assert_allclose(blas.matmul(big, big), big @ big, rtol=1e-4, atol=1e-3)
        assert lib._team.size == 1
        intra_op.set_threads(2)
        full = min(2, lib.max_team)
        if full > 1:
            lib._timings.pop(key, None)
            sizes = []
            for _ in range(2 * window):  # the first products time both sizes in turn
                np.testing.assert_allclose(blas.matmul(big, big), big @ big, rtol=1e-4,
                                           atol=1e-3)
                sizes.append(lib._team.size)
            assert sizes == [full, 1] * window
            probe = intra_op.TEAM_PROBE
            calls = 2 * window
            for one, team in (([1.0, 1.0, 0.1], full), ([0.5, 9.0, 0.5], 1)):
                # (medians: one thread 1.0 against 0.75 / 0.5 against 0.75, each with an
                # outlier that a mean would follow)
                lib._timings[key] = [calls, calls + probe, probe, list(one), [0.75, 0.7, 9.0]]
                blas.matmul(big, big)
                assert lib._team.size == team
            lib._timings[key] = [probe - 1, probe, probe, [0.5, 0.5, 0.5], [0.75] * window]
            blas.matmul(big, big)
            assert lib._team.size == full  # the probe; faster than the choice's 0.5 s
            assert lib._timings[key][1:3] == [probe + 1, probe]  # so it probes again
            blas.matmul(big, big)
            assert lib._team.size == full
            assert len(lib._timings[key][4]) == window
        np.testing.assert_allclose(blas.matmul(small, small), small @ small, rtol=1e-4,
                                   atol=1e-3)
        assert lib._team.size == 1
    finally:
        intra_op.set_threads(saved)
