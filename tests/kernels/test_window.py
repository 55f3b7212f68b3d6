"""The sliding-window geometry shared by the conv and pool kernels
(graphcore/kernels/window.py): TF's output sizes and paddings, tap slices, crop, counts."""

import numpy as np
import pytest

from graphcore.framework import errors
from graphcore.kernels.window import Window


@pytest.mark.parametrize("size,k,s,r,padding,explicit,out,pads", [
    (7, 3, 2, 1, "SAME", (), 4, (1, 1)),
    (6, 3, 2, 1, "SAME", (), 3, (0, 1)),
    (7, 3, 2, 1, "VALID", (), 3, (0, 0)),
    (9, 3, 1, 2, "SAME", (), 9, (2, 2)),
    (9, 3, 1, 2, "VALID", (), 5, (0, 0)),
    (5, 2, 2, 1, "EXPLICIT", (1, 2), 4, (1, 2)),
])
def test_output_sizes_and_paddings_match_tf(size, k, s, r, padding, explicit, out, pads):
    win = Window((size,), (k,), (s,), (r,), padding, explicit)
    assert win.out == (out,) and win.pads == [pads]


def test_taps_read_every_window_and_crop_undoes_padding():
    x = np.arange(2 * 5 * 4 * 3, dtype=np.float64).reshape(2, 5, 4, 3)
    win = Window((5, 4), (2, 3), (2, 1), (1, 1), "SAME")
    xp = win.padded(x)
    np.testing.assert_array_equal(win.crop(xp), x)
    taps = list(win.tap_slices())
    assert win.taps == len(taps) == 6 and taps[0][0] == (0, 0) and taps[-1][0] == (1, 2)
    for _, index in taps:
        assert xp[index].shape == (2,) + win.out + (3,)
    counts = win.counts()[0, :, :, 0]
    assert counts.max() == 6 and counts.min() == 2  # corners see part of the window


def test_errors():
    with pytest.raises(errors.InvalidArgumentError, match="Stride must be > 0"):
        Window((4,), (2,), (0,), (1,), "VALID")
    with pytest.raises(errors.InvalidArgumentError, match="output size would be negative"):
        Window((2,), (5,), (1,), (1,), "VALID")
