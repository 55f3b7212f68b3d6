"""Slices of checkpointed tensors (graphcore/lib/io/tensor_slice.py) and the bundles that
hold them (BundleWriter.add_slice, BundleReader.read_slice, merge_bundles): TF's slice
keys, spec parsing and its errors, reading any part of a sliced tensor."""

import numpy as np
import pytest

from graphcore.framework import dtypes, errors
from graphcore.lib.io import checkpoint_format as fmt
from graphcore.lib.io.tensor_slice import (
    FULL_EXTENT,
    TensorSlice,
    encode_tensor_name_slice,
    parse_shape_and_slice,
    slice_shape,
)


@pytest.mark.parametrize("name,starts,lengths,key", [
    # Keys of a checkpoint written by TensorFlow's Saver.
    ("big", (500, 0), (500, 2), b"\x00big\x00\x01\x01\x02\xc1\xf4\xc1\xf4\x80\x82"),
    ("emb", (3, 0), (2, 3), b"\x00emb\x00\x01\x01\x02\x83\x82\x80\x83"),
    ("w", (0, 150), (2, 150), b"\x00w\x00\x01\x01\x02\x80\x82\xc0\x96\xc0\x96"),
    ("a\x00b", (0,), (FULL_EXTENT,), b"\x00a\x00\xffb\x00\x01\x01\x01\x80\x7f"),
])
def test_slice_keys_are_tfs(name, starts, lengths, key):
    assert encode_tensor_name_slice(name, TensorSlice(starts, lengths)) == key


def test_parse_shape_and_slice():
    shape, part = parse_shape_and_slice("7 3 3,2:-")
    assert shape == (7, 3) and part == TensorSlice((3, 0), (2, FULL_EXTENT))
    assert slice_shape(shape, part) == (2, 3)
    assert part.debug_string() == "3,2:-"
    assert TensorSlice.from_proto(part.as_proto()) == part


@pytest.mark.parametrize("spec,message", [
    ("7", "Need least two elements"),
    ("7 x 0,7", "Non numerical dimension"),
    ("7 3 0,7", "same number of dimensions"),
    ("7 3 5,3:0,3", "out of bounds"),
    ("7 3 a,b:0,3", "starting and length"),
])
def test_parse_shape_and_slice_errors(spec, message):
    with pytest.raises(errors.InvalidArgumentError, match=message):
        parse_shape_and_slice(spec)


FULL = np.arange(28, dtype=np.float32).reshape(7, 4)


def _write_sliced(prefix, bounds=((0, 3), (3, 5), (5, 7))):
    writer = fmt.BundleWriter(prefix)
    for lo, hi in bounds:
        writer.add_slice("emb", (7, 4), TensorSlice((lo, 0), (hi - lo, 4)), FULL[lo:hi],
                         dtypes.float32)
    writer.add("plain", FULL, dtypes.float32)
    writer.finish()


def test_read_any_part_of_a_sliced_tensor(tmp_path):
    prefix = str(tmp_path / "ck")
    _write_sliced(prefix)
    reader = fmt.BundleReader(prefix)
    assert reader.variable_keys() == ["emb", "plain"]
    assert reader.shape("emb") == (7, 4) and reader.dtype("emb") == dtypes.float32
    np.testing.assert_array_equal(reader.read("emb"), FULL)
    for name in ("emb", "plain"):
        got = reader.read_slice(name, TensorSlice((2, 1), (4, 2)))
        np.testing.assert_array_equal(got, FULL[2:6, 1:3])


def test_missing_slices_are_an_error(tmp_path):
    prefix = str(tmp_path / "ck")
    _write_sliced(prefix, bounds=((0, 3), (5, 7)))
    reader = fmt.BundleReader(prefix)
    np.testing.assert_array_equal(reader.read_slice("emb", TensorSlice((5, 0), (2, 4))),
                                  FULL[5:])
    with pytest.raises(errors.InvalidArgumentError, match="sufficient slices.*emb.*2,3:-"):
        reader.read_slice("emb", TensorSlice((2, 0), (3, FULL_EXTENT)))


def test_slices_of_one_tensor_must_agree(tmp_path):
    writer = fmt.BundleWriter(str(tmp_path / "ck"))
    writer.add_slice("emb", (7, 4), TensorSlice((0, 0), (3, 4)), FULL[:3], dtypes.float32)
    with pytest.raises(errors.InvalidArgumentError, match="disagree"):
        writer.add_slice("emb", (8, 4), TensorSlice((3, 0), (3, 4)), FULL[3:6],
                         dtypes.float32)
    with pytest.raises(errors.InvalidArgumentError, match="duplicate key"):
        writer.add("emb", FULL, dtypes.float32)
    writer.abort()


def test_merge_joins_the_slices_of_sharded_saves(tmp_path):
    parts = []
    for i, (lo, hi) in enumerate(((0, 4), (4, 7))):
        parts.append(str(tmp_path / f"part{i}"))
        writer = fmt.BundleWriter(parts[-1])
        writer.add_slice("emb", (7, 4), TensorSlice((lo, 0), (hi - lo, 4)), FULL[lo:hi],
                         dtypes.float32)
        writer.finish()
    fmt.merge_bundles(parts, str(tmp_path / "merged"))
    reader = fmt.BundleReader(str(tmp_path / "merged"))
    assert reader.variable_keys() == ["emb"] and len(reader.entry("emb").slices) == 2
    np.testing.assert_array_equal(reader.read("emb"), FULL)
