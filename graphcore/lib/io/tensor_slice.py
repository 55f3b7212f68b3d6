"""Slices of a checkpointed tensor (TF's ``TensorSlice`` and
``saved_tensor_slice_util``): the Saver's ``shape_and_slices`` strings, the
TensorSliceProtos of a bundle entry, and the bundle keys the slices are stored under.

A partitioned variable of full shape ``[7, 3]`` saved as three shards has one bundle
entry ``emb`` (dtype, full shape and the list of slices, no data) and one entry per
slice, keyed by :func:`encode_tensor_name_slice` (TF's ordered-code encoding: a 0, the
name, the rank, then each dimension's start and length), holding the slice's values.
"""

from __future__ import annotations

from typing import NamedTuple

from graphcore.framework import errors
from graphcore.protobuf import tensor_slice_pb2

FULL_EXTENT = -1  # TensorSlice's length of a dimension taken whole ("-" in a spec)


class TensorSlice(NamedTuple):
    """Per dimension a start and a length (``FULL_EXTENT``: the whole dimension)."""

    starts: tuple[int, ...]
    lengths: tuple[int, ...]

    @staticmethod
    def full(rank: int) -> TensorSlice:
        return TensorSlice((0,) * rank, (FULL_EXTENT,) * rank)

    def bounds(self, shape: tuple[int, ...]) -> list[tuple[int, int]]:
        """(start, end) per dimension of a tensor of ``shape``."""
        return [(0, size) if length == FULL_EXTENT else (start, start + length)
                for start, length, size in zip(self.starts, self.lengths, shape)]

    def debug_string(self) -> str:
        return ":".join("-" if length == FULL_EXTENT else f"{start},{length}"
                        for start, length in zip(self.starts, self.lengths))

    def as_proto(self) -> tensor_slice_pb2.TensorSliceProto:
        proto = tensor_slice_pb2.TensorSliceProto()
        for start, length in zip(self.starts, self.lengths):
            extent = proto.extent.add()
            if length != FULL_EXTENT:
                extent.start = start
                extent.length = length
        return proto

    @staticmethod
    def from_proto(proto: tensor_slice_pb2.TensorSliceProto) -> TensorSlice:
        starts, lengths = [], []
        for extent in proto.extent:
            starts.append(extent.start)
            lengths.append(extent.length if extent.HasField("length") else FULL_EXTENT)
        return TensorSlice(tuple(starts), tuple(lengths))


def parse_shape_and_slice(spec: str) -> tuple[tuple[int, ...], TensorSlice]:
    """``"7 3 3,2:0,3"`` -> (full shape (7, 3), the slice [3:5, 0:3]) (TF's
    ParseShapeAndSlice; ``-`` takes a dimension whole)."""
    parts = spec.split(" ")
    if len(parts) < 2:
        raise errors.InvalidArgumentError(
            None, None, f"Need least two elements in shape_and_slice specification: {spec}")
    try:
        shape = tuple(int(d) for d in parts[:-1])
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Non numerical dimension in shape_and_slice: {spec}") from None
    if any(d < 0 for d in shape):
        raise errors.InvalidArgumentError(
            None, None, f"Negative dimension in shape_and_slice: {spec}")
    starts, lengths = [], []
    for extent in parts[-1].split(":"):
        if extent == "-":
            starts.append(0)
            lengths.append(FULL_EXTENT)
            continue
        pieces = extent.split(",")
        try:
            start, length = (int(p) for p in pieces) if len(pieces) == 2 else (None, None)
        except ValueError:
            start = None
        if start is None or start < 0 or length <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"Expected a pair of starting and length for the extent "
                            f"'{extent}' of shape_and_slice {spec}")
        starts.append(start)
        lengths.append(length)
    tensor_slice = TensorSlice(tuple(starts), tuple(lengths))
    if len(lengths) != len(shape):
        raise errors.InvalidArgumentError(
            None, None, f"Expected shape and slice to have the same number of dimensions: "
                        f"{spec}")
    for d, (_, end) in enumerate(tensor_slice.bounds(shape)):
        if end > shape[d]:
            raise errors.InvalidArgumentError(
                None, None, f"Extent in dimension {d} out of bounds: shape "
                            f"[{','.join(map(str, shape))}], slice "
                            f"{tensor_slice.debug_string()}")
    return shape, tensor_slice


def slice_shape(shape: tuple[int, ...], tensor_slice: TensorSlice) -> tuple[int, ...]:
    return tuple(end - start for start, end in tensor_slice.bounds(shape))


# -- bundle keys (TF's OrderedCode) -----------------------------------------------------

def _num_increasing(value: int) -> bytes:
    """OrderedCode::WriteNumIncreasing: a length byte, then big-endian bytes."""
    body = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(body)]) + body


def _escape(value: bytes) -> bytes:
    """OrderedCode::WriteString's body: 0x00 -> 00 ff, 0xff -> ff 00."""
    out = bytearray()
    for b in value:
        out += b"\x00\xff" if b == 0 else b"\xff\x00" if b == 0xFF else bytes([b])
    return bytes(out)


_LENGTH_TO_HEADER_BITS = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0),
                          5: (0xF8, 0), 6: (0xFC, 0), 7: (0xFE, 0), 8: (0xFF, 0),
                          9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _signed_num_increasing(value: int) -> bytes:
    """OrderedCode::WriteSignedNumIncreasing: the count of leading one bits of the
    first byte(s) gives the length, the rest the value in two's complement."""
    x = ~value if value < 0 else value
    length = x.bit_length() // 7 + 1
    body = bytearray((value & ((1 << 80) - 1)).to_bytes(10, "big")[10 - length:])
    header = _LENGTH_TO_HEADER_BITS[length]
    body[0] ^= header[0]
    if length > 1:
        body[1] ^= header[1]
    return bytes(body)


def encode_tensor_name_slice(name: str, tensor_slice: TensorSlice) -> bytes:
    """The bundle key of one slice of tensor ``name`` (TF's EncodeTensorNameSlice)."""
    key = _num_increasing(0) + _escape(name.encode("utf-8", "surrogateescape")) + b"\x00\x01"
    key += _num_increasing(len(tensor_slice.starts))
    for start, length in zip(tensor_slice.starts, tensor_slice.lengths):
        key += _signed_num_increasing(start) + _signed_num_increasing(length)
    return key
