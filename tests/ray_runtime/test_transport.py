"""Arrow framing of tensors (ray_runtime/transport.py)."""

import pickle

import numpy as np

from graphcore.kernels.registry import DEAD
from ray_runtime import transport


def test_round_trip_dtypes_and_zero_copy_read():
    for value in [np.arange(12, dtype=np.float32).reshape(3, 4), np.array(3, np.int64),
                  np.zeros((0, 2), np.float64), np.array([True, False]),
                  np.arange(6, dtype=np.int32).reshape(2, 3).T,
                  np.array([1 + 2j, 3 - 1j], np.complex64), np.float16([1.5, -2.0])]:
        wire = transport.encode(value)
        back = pickle.loads(pickle.dumps(wire, protocol=5))
        out = transport.decode(back)
        np.testing.assert_array_equal(out, value)
        assert out.dtype == value.dtype and out.shape == value.shape
    big = np.ones(1 << 16, np.float32)
    out = transport.decode(transport.encode(big))
    assert not out.flags.writeable and np.shares_memory(out, big)  # no copy in-process


def test_one_out_of_band_buffer_holds_the_tensor_bytes():
    """Pickled for Ray, a tensor's bytes are one pickle-5 out-of-band buffer (Ray's one
    copy into the object store), and the receiver's array is a view of it."""
    value = np.arange(1 << 16, dtype=np.float64).reshape(256, 256)
    buffers = []
    data = pickle.dumps(transport.encode(value), protocol=5, buffer_callback=buffers.append)
    assert len(data) < 512 and len(buffers) == 1
    raw = buffers[0].raw()
    assert raw.nbytes == value.nbytes
    out = transport.decode(pickle.loads(data, buffers=[raw]))
    np.testing.assert_array_equal(out, value)
    assert np.shares_memory(out, np.frombuffer(raw, np.uint8))


def test_strings_and_dead():
    s = np.array([[b"a", b"bc"], [b"", b"xyz"]], dtype=object)
    out = transport.decode(pickle.loads(pickle.dumps(transport.encode(s), protocol=5)))
    assert out.shape == (2, 2) and list(out.reshape(-1)) == [b"a", b"bc", b"", b"xyz"]
    assert transport.decode(pickle.loads(pickle.dumps(transport.encode(DEAD)))) is DEAD
