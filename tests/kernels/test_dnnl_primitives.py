"""graphcore/kernels/dnnl_primitives.py: oneDNN's conv, pool and batch norm primitives
against the numpy path of the same kernels (conv_kernels, pool_kernels, nn_norm_kernels),
on small shapes covering strides, SAME/VALID/explicit padding, dilation, 1x1 and
depthwise filters (multiplier > 1), 3-D windows, and ties.  Skipped where oneDNN is not
loaded."""

import contextlib

import numpy as np
import pytest

from graphcore.kernels import conv_kernels, dnnl_primitives, nn_norm_kernels, pool_kernels
from graphcore.kernels.window import Window

pytestmark = pytest.mark.skipif(not dnnl_primitives.available(),
                                reason="oneDNN (onednn-cpu-gomp) is not loaded")

RNG = np.random.default_rng(5)


@contextlib.contextmanager
def _numpy_path():
    previous = dnnl_primitives.set_enabled(False)
    try:
        yield
    finally:
        dnnl_primitives.set_enabled(previous)


def _n(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _window(x_shape, k, strides, padding, dilations=None, explicit=()):
    nd = len(k)
    return Window(x_shape[1:-1], k, strides, dilations or (1,) * nd, padding, explicit)


def _depthwise_backprops(x, w, g, win):
    """(dx, dw) of a depthwise conv through the kernels' numpy loops."""
    c, m = w.shape[2], w.shape[3]
    gg = g.reshape(g.shape[:-1] + (c, m)).astype(np.float64)
    xp = win.padded(x.astype(np.float64))
    dw = np.einsum("nhwijc,nhwcm->ijcm", win.patches(xp), gg)
    dxp = np.zeros(xp.shape)
    for tap, index in win.tap_slices():
        dxp[index] += np.einsum("nhwcm,cm->nhwc", gg, w[tap])
    return win.crop(dxp), dw


# name -> (x shape, filter shape, strides, padding, dilations, explicit paddings)
CONV = {
    "5x5_same": ((3, 9, 9, 4), (5, 5, 4, 6), (1, 1), "SAME", None, ()),
    "one_channel_in": ((2, 8, 8, 1), (5, 5, 1, 8), (1, 1), "SAME", None, ()),
    "stride2_same_odd": ((2, 7, 9, 3), (3, 3, 3, 5), (2, 2), "SAME", None, ()),
    "valid_uneven_stride": ((2, 9, 7, 4), (3, 2, 4, 5), (2, 3), "VALID", None, ()),
    "dilated": ((2, 9, 9, 3), (3, 3, 3, 4), (1, 1), "SAME", (2, 2), ()),
    "explicit": ((2, 6, 7, 3), (3, 3, 3, 2), (1, 2), "EXPLICIT", None, (1, 2, 0, 1)),
    "1x1": ((2, 5, 5, 8), (1, 1, 8, 16), (1, 1), "SAME", None, ()),
    "1x1_stride2": ((2, 6, 6, 8), (1, 1, 8, 4), (2, 2), "VALID", None, ()),
    "3d": ((2, 4, 5, 4, 2), (2, 3, 2, 2, 3), (1, 2, 1), "SAME", None, ()),
}


@pytest.mark.parametrize("case", sorted(CONV))
def test_conv_matches_numpy_path(case):
    x_shape, w_shape, strides, padding, dilations, explicit = CONV[case]
    x, w = _n(*x_shape), _n(*w_shape)
    win = _window(x_shape, w_shape[:-2], strides, padding, dilations, explicit)
    g = _n(x_shape[0], *win.out, w_shape[-1])
    y = dnnl_primitives.conv_forward(x, w, win)
    dx = dnnl_primitives.conv_backward_data(x_shape, w, g, win)
    dw = dnnl_primitives.conv_backward_filter(x, w_shape, g, win)
    assert y is not None and dx is not None and dw is not None
    with _numpy_path():
        want = (conv_kernels.conv_forward(x, w, win),
                conv_kernels.conv_input_grad(x_shape, w, g, win),
                conv_kernels.conv_filter_grad(x, w_shape, g, win))
    for got, ref in zip((y, dx, dw), want):
        assert got.dtype == np.float32 and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


# name -> (x shape, filter [KH, KW, C, M], strides, padding, dilations)
DEPTHWISE = {
    "3x3_same": ((2, 8, 8, 6), (3, 3, 6, 1), (1, 1), "SAME", None),
    "stride2_multiplier": ((2, 9, 8, 4), (3, 3, 4, 3), (2, 2), "SAME", None),
    "valid_rect": ((3, 7, 6, 5), (2, 3, 5, 2), (1, 2), "VALID", None),
    "dilated": ((2, 9, 9, 3), (3, 3, 3, 2), (1, 1), "SAME", (2, 2)),
    "one_channel": ((2, 6, 6, 1), (3, 3, 1, 4), (1, 1), "SAME", None),
}


@pytest.mark.parametrize("case", sorted(DEPTHWISE))
def test_depthwise_matches_numpy_path(case):
    x_shape, w_shape, strides, padding, dilations = DEPTHWISE[case]
    x, w = _n(*x_shape), _n(*w_shape)
    c = x_shape[-1]
    win = _window(x_shape, w_shape[:2], strides, padding, dilations)
    g = _n(x_shape[0], *win.out, c * w_shape[-1])
    y = dnnl_primitives.conv_forward(x, w, win, groups=c)
    dx = dnnl_primitives.conv_backward_data(x_shape, w, g, win, groups=c)
    dw = dnnl_primitives.conv_backward_filter(x, w_shape, g, win, groups=c)
    with _numpy_path():
        want_y = conv_kernels.depthwise_forward(x, w, win)
    want_dx, want_dw = _depthwise_backprops(x, w, g, win)
    for got, ref in ((y, want_y), (dx, want_dx), (dw, want_dw)):
        assert got is not None and got.dtype == np.float32 and got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


# name -> (x shape, window, strides, padding, round the inputs (ties))
POOL = {
    "2x2_same_odd": ((2, 7, 7, 3), (2, 2), (2, 2), "SAME", False),
    "2x2_same_ties": ((2, 7, 7, 3), (2, 2), (2, 2), "SAME", True),
    "3x3_overlap_ties": ((2, 6, 6, 2), (3, 3), (1, 1), "SAME", True),
    "3x2_stride_1x2": ((3, 7, 9, 5), (3, 2), (1, 2), "SAME", False),
    "global_valid": ((2, 8, 8, 16), (8, 8), (8, 8), "VALID", False),
    "valid_leftover": ((2, 9, 7, 3), (2, 3), (2, 2), "VALID", False),
    "3d": ((2, 4, 5, 5, 2), (2, 2, 2), (1, 2, 2), "SAME", False),
}


@pytest.mark.parametrize("case", sorted(POOL))
def test_pool_matches_numpy_path(case):
    x_shape, k, strides, padding, ties = POOL[case]
    x = _n(*x_shape)
    if ties:
        x = np.round(x)
    win = _window(x_shape, k, strides, padding)
    g = _n(x_shape[0], *win.out, x_shape[-1])
    f32 = np.dtype(np.float32)
    ones = win.padded(np.ones((1,) + x_shape[1:-1] + (1,), np.float32))
    count = sum(ones[index] for _, index in win.tap_slices())
    xp = win.padded(x)
    want_avg = sum(xp[index] for _, index in win.tap_slices()) / count
    dxp = win.padded(np.zeros(x_shape, np.float32))
    for _, index in win.tap_slices():
        dxp[index] += g / count
    got = {"max": dnnl_primitives.pool_forward(x, win, average=False),
           "avg": dnnl_primitives.pool_forward(x, win, average=True),
           "max_grad": dnnl_primitives.pool_backward(x_shape, g, win, average=False, x=x),
           "avg_grad": dnnl_primitives.pool_backward(x_shape, g, win, average=True)}
    want = {"max": pool_kernels.max_pool(x, win), "avg": want_avg,
            "max_grad": pool_kernels.max_pool_grad(x, g, win, f32),
            "avg_grad": win.crop(dxp)}
    for name, ref in want.items():
        assert got[name] is not None and got[name].shape == ref.shape, name
        # Max pooling is exact; its gradient (the first maximum on ties) sums overlapping
        # windows' gradients in another order.
        tol = 0 if name == "max" else 1e-5
        np.testing.assert_allclose(got[name], ref, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.parametrize("shape", [(4, 5, 6, 8), (2, 3, 4, 5, 3), (1, 1, 1, 7)])
def test_batch_norm_matches_numpy_path(shape):
    x = (_n(*shape) * 3 + 1).astype(np.float32)
    scale, offset, dy = _n(shape[-1]), _n(shape[-1]), _n(*shape)
    eps = 1e-3
    y, mean, var = dnnl_primitives.batch_norm_forward(x, scale, offset, eps)
    rows = x.reshape(-1, shape[-1])
    want = nn_norm_kernels._train_forward_rows(rows, scale, offset, eps)
    for got, ref in zip((y.reshape(rows.shape), mean, var), want):
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    y_inf, _, _ = dnnl_primitives.batch_norm_forward(x, scale, offset, eps, mean, var)
    np.testing.assert_allclose(y_inf, y, rtol=1e-5, atol=1e-5)
    got = dnnl_primitives.batch_norm_backward(dy, x, scale, mean, var, eps)
    want = nn_norm_kernels._train_backward_rows(dy.reshape(rows.shape), rows, scale, mean,
                                                1 / np.sqrt(var + np.float32(eps)))
    for a, ref in zip((got[0].reshape(rows.shape),) + got[1:], want):
        np.testing.assert_allclose(a, ref, rtol=1e-4, atol=1e-4)


def test_numpy_path_where_primitives_do_not_apply():
    x, w = _n(2, 6, 6, 3), _n(3, 3, 3, 4)
    win = _window(x.shape, (3, 3), (1, 1), "SAME")
    assert dnnl_primitives.conv_forward(x.astype(np.float64), w, win) is None
    assert dnnl_primitives.pool_forward(x.astype(np.float16), win, average=True) is None
    assert dnnl_primitives.pool_forward(x[:0], win, average=False) is None
    with _numpy_path():
        assert not dnnl_primitives.available()
        assert dnnl_primitives.conv_forward(x, w, win) is None
    # Padding at least the window's size: oneDNN's pooling rejects it, numpy computes it.
    wide = _window(x.shape, (2, 2), (1, 1), "EXPLICIT", explicit=(2, 2, 0, 0))
    assert dnnl_primitives.pool_forward(x, wide, average=True) is None


def test_plans_are_cached_per_geometry_and_run_from_threads():
    """The same geometry reuses its plan; threads run it with their own buffers."""
    from concurrent.futures import ThreadPoolExecutor

    x, w = _n(4, 10, 10, 8), _n(3, 3, 8, 8)
    win = _window(x.shape, (3, 3), (1, 1), "SAME")
    want = dnnl_primitives.conv_forward(x, w, win)
    plans = len(dnnl_primitives._get()._plans)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: dnnl_primitives.conv_forward(x, w, win), range(16)))
    assert len(dnnl_primitives._get()._plans) == plans
    for y in results:
        np.testing.assert_array_equal(y, want)
