"""Arrow framing of tensors (ray_runtime/transport.py)."""

import pickle

import numpy as np

from graphcore.kernels.registry import DEAD
from ray_runtime import transport


def test_round_trip_dtypes_and_zero_copy_read():
    for value in [np.arange(12, dtype=np.float32).reshape(3, 4), np.array(3, np.int64),
                  np.zeros((0, 2), np.float64), np.array([True, False]),
                  np.arange(6, dtype=np.int32).reshape(2, 3).T]:
        wire = transport.encode(value)
        back = pickle.loads(pickle.dumps(wire, protocol=5))
        out = transport.decode(back)
        np.testing.assert_array_equal(out, value)
        assert out.dtype == value.dtype and out.shape == value.shape
    big = np.ones(1 << 16, np.float32)
    out = transport.decode(transport.encode(big))
    assert not out.flags.writeable  # a view of the message, not a copy


def test_strings_and_dead():
    s = np.array([[b"a", b"bc"], [b"", b"xyz"]], dtype=object)
    out = transport.decode(pickle.loads(pickle.dumps(transport.encode(s), protocol=5)))
    assert out.shape == (2, 2) and list(out.reshape(-1)) == [b"a", b"bc", b"", b"xyz"]
    assert transport.decode(pickle.loads(pickle.dumps(transport.encode(DEAD)))) is DEAD
