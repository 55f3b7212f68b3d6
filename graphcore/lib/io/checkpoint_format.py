"""TensorFlow's V2 checkpoint format ("tensor bundles"), written and read in pure Python.

A checkpoint with prefix ``P`` is two or more files::

    P.index                      a table (below): key "" -> BundleHeaderProto,
                                 key <tensor name> -> BundleEntryProto
    P.data-00000-of-00001        the tensors' bytes, one after another (shard 0 of 1;
                                 a merged sharded checkpoint has P.data-0000i-of-0000n)

Data files
----------
A numeric or bool tensor is its elements in C order, little-endian, with no padding
(bool: one byte each; bfloat16/half: two bytes; complex: real then imaginary).
A string tensor is::

    varint64 len[0] .. varint64 len[n-1]
    fixed32  masked_crc32c over the lengths (each length as a little-endian uint32,
             or uint64 when it does not fit in 32 bits -- not over the varints)
    bytes    string[0] .. string[n-1]

Each tensor's BundleEntryProto gives its dtype, shape, shard_id (which data file),
offset and size (bytes) and ``crc32c``: the masked crc32c of the bytes it occupies
(for a string tensor: crc32c extended over the uint32 lengths, the 4 length-checksum
bytes and then the string bytes -- exactly TensorFlow's ``WriteStringTensor``).
The header is ``BundleHeaderProto(num_shards, endianness=LITTLE, version{producer=1})``.

A slice of a partitioned variable (``BundleWriter.add_slice``) is stored under the key
:func:`graphcore.lib.io.tensor_slice.encode_tensor_name_slice` of its name and slice;
the variable's own entry then holds no data, only its dtype, full shape and ``slices``
(TensorSliceProtos); reading any part of it assembles that part from the slices.

Index file: the LevelDB table format (TensorFlow's ``tensorflow/core/lib/io/table``)
------------------------------------------------------------------------------------
::

    [data block 0][trailer] ... [data block k][trailer]
    [metaindex block][trailer]        always empty (no filters)
    [index block][trailer]            one entry per data block
    footer (48 bytes)

* A *block* is a run of entries, sorted by key (bytewise), then its restart array::

      entry:    varint32 shared | varint32 non_shared | varint32 value_len
                | key[shared:] (non_shared bytes) | value
      restarts: fixed32 offset of every restart entry, then fixed32 count

  ``shared`` is the length of the prefix this key shares with the previous key; at a
  restart point (every 16th entry in data blocks, every entry in the index block)
  ``shared`` is 0.  An empty block is just ``fixed32 0, fixed32 1``.
* A *trailer* follows every block: a type byte (0 = uncompressed; the only type we
  write or read) and the fixed32 masked crc32c of the block contents plus that byte.
* A *BlockHandle* is ``varint64 offset, varint64 size`` (size excludes the trailer).
  Index entries map a key >= every key of a data block (we use the block's last key)
  to that block's handle.
* The *footer* is the metaindex handle and the index handle, zero-padded to 40
  bytes, then the magic number 0xdb4775248b80fb57 as a little-endian fixed64.

Data blocks are cut once they reach 256 KiB (TensorFlow's ``block_size``).
``masked_crc32c(x) = ((crc >> 15) | (crc << 17)) + 0xa282ead8  (mod 2**32)``.

Atomicity
---------
:class:`BundleWriter` writes each file to a temporary name in the checkpoint's
directory, fsyncs it, and only when every file is complete renames them into place
(data files first, the index last) and fsyncs the directory.  An error while writing
leaves any earlier checkpoint with the same prefix untouched; the only window in
which an overwritten prefix can be inconsistent is between those final renames, and
a reader then fails with DataLossError (crc mismatch) rather than returning wrong
values.  A different prefix (the usual ``global_step`` case) is never at risk.
"""

from __future__ import annotations

import os
import struct
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import crc32c as _crc32c
import numpy as np

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors
from graphcore.lib.io.tensor_slice import TensorSlice, encode_tensor_name_slice
from graphcore.protobuf import tensor_bundle_pb2, tensor_shape_pb2

__all__ = [
    "BundleReader",
    "BundleWriter",
    "TableBuilder",
    "data_filename",
    "index_filename",
    "masked_crc32c",
    "merge_bundles",
    "read_table",
]

TABLE_MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48  # 2 * max encoded BlockHandle (2 * 10 * 2) + 8-byte magic
BLOCK_SIZE = 262144
RESTART_INTERVAL = 16
NO_COMPRESSION = 0
TENSOR_BUNDLE_VERSION = 1  # kTensorBundleVersion
HEADER_KEY = b""

_U32 = 0xFFFFFFFF
_MASK_DELTA = 0xA282EAD8
_FIXED32 = struct.Struct("<I")
_FIXED64 = struct.Struct("<Q")


# -- checksums and varints -------------------------------------------------------------------

def crc32c(data: bytes, crc: int = 0) -> int:
    """crc32c of ``data``, extending ``crc``."""
    return _crc32c.crc32c(data, crc) & _U32


def mask_crc(crc: int) -> int:
    return ((((crc >> 15) | (crc << 17)) & _U32) + _MASK_DELTA) & _U32


def unmask_crc(masked: int) -> int:
    rot = (masked - _MASK_DELTA) & _U32
    return ((rot >> 17) | (rot << 15)) & _U32


def masked_crc32c(data: bytes) -> int:
    return mask_crc(crc32c(data))


def encode_varint(value: int) -> bytes:
    """Protobuf's base-128 varint; a negative value as its 64-bit two's complement."""
    value &= (1 << 64) - 1
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def decode_varint(data: bytes | memoryview, pos: int) -> tuple[int, int]:
    """(value, position after it) of the varint at ``pos``."""
    result = 0
    shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise errors.DataLossError(None, None, "corrupted varint in checkpoint index")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


# -- file names ----------------------------------------------------------------------------

def index_filename(prefix: str) -> str:
    return f"{prefix}.index"


def data_filename(prefix: str, shard_id: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard_id:05d}-of-{num_shards:05d}"


# -- tables (the .index file) ----------------------------------------------------------------

class _BlockBuilder:
    def __init__(self, restart_interval: int):
        self.restart_interval = restart_interval
        self.reset()

    def reset(self) -> None:
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last_key = b""

    def empty(self) -> bool:
        return not self.buf

    def size_estimate(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.restart_interval:
            limit = min(len(self.last_key), len(key))
            while shared < limit and self.last_key[shared] == key[shared]:
                shared += 1
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        self.buf += encode_varint(shared)
        self.buf += encode_varint(len(key) - shared)
        self.buf += encode_varint(len(value))
        self.buf += key[shared:]
        self.buf += value
        self.last_key = key
        self.counter += 1

    def finish(self) -> bytes:
        tail = b"".join(_FIXED32.pack(r) for r in self.restarts)
        return bytes(self.buf) + tail + _FIXED32.pack(len(self.restarts))


def _encode_handle(offset: int, size: int) -> bytes:
    return encode_varint(offset) + encode_varint(size)


class TableBuilder:
    """Builds a LevelDB-format table (no compression, no filters) in memory.

    Keys must be added in strictly increasing bytewise order.
    """

    def __init__(self, block_size: int | None = None,
                 restart_interval: int = RESTART_INTERVAL):
        self.block_size = BLOCK_SIZE if block_size is None else block_size
        self._out = bytearray()
        self._data = _BlockBuilder(restart_interval)
        self._index = _BlockBuilder(1)
        self._last_key: bytes | None = None

    def add(self, key: bytes, value: bytes) -> None:
        if self._last_key is not None and key <= self._last_key:
            raise ValueError(f"table keys out of order: {key!r} after {self._last_key!r}")
        self._last_key = key
        self._data.add(key, value)
        if self._data.size_estimate() >= self.block_size:
            self._flush()

    def _write_block(self, contents: bytes) -> bytes:
        handle = _encode_handle(len(self._out), len(contents))
        type_byte = bytes([NO_COMPRESSION])
        self._out += contents
        self._out += type_byte
        self._out += _FIXED32.pack(mask_crc(crc32c(type_byte, crc32c(contents))))
        return handle

    def _flush(self) -> None:
        if self._data.empty():
            return
        last = self._data.last_key
        handle = self._write_block(self._data.finish())
        self._data.reset()
        self._index.add(last, handle)

    def finish(self) -> bytes:
        self._flush()
        meta_handle = self._write_block(_BlockBuilder(RESTART_INTERVAL).finish())
        index_handle = self._write_block(self._index.finish())
        footer = (meta_handle + index_handle).ljust(FOOTER_SIZE - 8, b"\0")
        self._out += footer + _FIXED64.pack(TABLE_MAGIC)
        return bytes(self._out)


def _read_block(data: bytes, handle: bytes | memoryview, pos: int = 0,
                verify: bool = True) -> tuple[memoryview, int]:
    offset, pos = decode_varint(handle, pos)
    size, pos = decode_varint(handle, pos)
    if offset + size + 5 > len(data):
        raise errors.DataLossError(None, None, "truncated block read in checkpoint index")
    contents = memoryview(data)[offset:offset + size]
    type_byte = data[offset + size]
    if verify:
        stored = _FIXED32.unpack_from(data, offset + size + 1)[0]
        actual = mask_crc(crc32c(bytes([type_byte]), crc32c(contents)))
        if stored != actual:
            raise errors.DataLossError(None, None, "block checksum mismatch in checkpoint index")
    if type_byte != NO_COMPRESSION:
        raise errors.UnimplementedError(
            None, None, f"compressed checkpoint index blocks (type {type_byte}) are not "
                        "supported")
    return contents, pos


def _block_entries(block: memoryview) -> Iterator[tuple[bytes, memoryview]]:
    if len(block) < 4:
        raise errors.DataLossError(None, None, "bad block contents in checkpoint index")
    num_restarts = _FIXED32.unpack_from(block, len(block) - 4)[0]
    limit = len(block) - 4 - 4 * num_restarts
    if limit < 0:
        raise errors.DataLossError(None, None, "bad block contents in checkpoint index")
    pos = 0
    key = b""
    while pos < limit:
        shared, pos = decode_varint(block, pos)
        non_shared, pos = decode_varint(block, pos)
        value_len, pos = decode_varint(block, pos)
        if shared > len(key) or pos + non_shared + value_len > limit:
            raise errors.DataLossError(None, None, "bad entry in checkpoint index block")
        key = key[:shared] + bytes(block[pos:pos + non_shared])
        pos += non_shared
        yield key, block[pos:pos + value_len]
        pos += value_len


def read_table(data: bytes, verify: bool = True) -> list[tuple[bytes, bytes]]:
    """Every (key, value) of a table, in key order."""
    if len(data) < FOOTER_SIZE:
        raise errors.DataLossError(None, None, "checkpoint index file is too short to be a "
                                               "table")
    footer = data[-FOOTER_SIZE:]
    if _FIXED64.unpack_from(footer, FOOTER_SIZE - 8)[0] != TABLE_MAGIC:
        raise errors.DataLossError(None, None, "not an sstable (bad magic number)")
    _, pos = _read_block(data, footer, 0, verify)  # metaindex: nothing we need
    index, _ = _read_block(data, footer, pos, verify)
    out = []
    for _, handle in _block_entries(index):
        block, _ = _read_block(data, handle, 0, verify)
        out.extend((k, bytes(v)) for k, v in _block_entries(block))
    return out


# -- tensors <-> bytes ------------------------------------------------------------------------

def _np_dtype(dtype: dtypes_lib.DType) -> np.dtype:
    """The native numpy dtype of a checkpointable dtype (object for strings)."""
    if dtype == dtypes_lib.string:
        return np.dtype(object)
    try:
        return np.dtype(dtype.as_numpy_dtype)
    except TypeError:
        raise errors.UnimplementedError(
            None, None, f"checkpointing tensors of type {dtype.name} is not supported") from None


def _as_bytes(x: Any) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview, np.bytes_)):
        return bytes(x)
    raise errors.InvalidArgumentError(None, None, f"string tensor holds a non-string {x!r}")


def encode_tensor(value: Any, dtype: dtypes_lib.DType) -> tuple[list[bytes], int]:
    """(chunks of bytes, unmasked crc32c) of a tensor as the data file stores it."""
    if dtype == dtypes_lib.string:
        items = [_as_bytes(x) for x in np.asarray(value, dtype=object).reshape(-1)]
        lengths = bytearray()
        crc = 0
        for s in items:
            n = len(s)
            lengths += encode_varint(n)
            crc = crc32c(struct.pack("<I", n) if n <= _U32 else struct.pack("<Q", n), crc)
        length_checksum = _FIXED32.pack(mask_crc(crc))
        crc = crc32c(length_checksum, crc)
        for s in items:
            crc = crc32c(s, crc)
        return [bytes(lengths), length_checksum, *items], crc
    arr = np.ascontiguousarray(value, dtype=_np_dtype(dtype))
    if sys.byteorder != "little" and arr.dtype.itemsize > 1:
        arr = arr.byteswap()
    data = arr.tobytes()
    return [data], crc32c(data)


def decode_tensor(data: bytes, dtype: dtypes_lib.DType, shape: tuple[int, ...],
                  big_endian: bool = False, name: str = "") -> np.ndarray:
    """The tensor stored in ``data`` (an entry's bytes)."""
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == dtypes_lib.string:
        lengths = []
        pos = 0
        crc = 0
        for _ in range(n):
            length, pos = decode_varint(data, pos)
            lengths.append(length)
            crc = crc32c(struct.pack("<I", length) if length <= _U32
                         else struct.pack("<Q", length), crc)
        if pos + 4 > len(data) or _FIXED32.unpack_from(data, pos)[0] != mask_crc(crc):
            raise errors.DataLossError(
                None, None, f"The length checksum does not match for tensor {name}")
        pos += 4
        out = np.empty(n, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = bytes(data[pos:pos + length])
            pos += length
        return out.reshape(shape)
    np_type = _np_dtype(dtype)
    if len(data) != n * np_type.itemsize:
        raise errors.DataLossError(
            None, None, f"Checkpoint entry {name} holds {len(data)} bytes, expected "
                        f"{n * np_type.itemsize}")
    arr = np.frombuffer(data, dtype=np_type).reshape(shape)
    if big_endian != (sys.byteorder == "big") and np_type.itemsize > 1:
        return arr.byteswap()
    return arr.copy()


def _shape_proto(shape: tuple[int, ...]) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d)) for d in shape])


def _entry_shape(entry: tensor_bundle_pb2.BundleEntryProto) -> tuple[int, ...]:
    return tuple(int(d.size) for d in entry.shape.dim)


# -- atomic files ------------------------------------------------------------------------------

def _temp_name(path: str) -> str:
    return f"{path}.tempstate{uuid.uuid4().hex}"


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_chunk(f: Any, chunk: bytes) -> None:
    """Appends ``chunk`` to an open data/index file (one place for tests to fail writes)."""
    f.write(chunk)


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` through a fsynced temporary file and os.replace."""
    tmp = _temp_name(path)
    try:
        with open(tmp, "wb") as f:
            _write_chunk(f, data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    _fsync_dir(os.path.dirname(path))


def os_error(e: OSError, what: str) -> errors.OpError:
    """An OSError as the OpError TensorFlow's file system layer would raise."""
    message = f"{what}: {e.strerror or e}"
    if isinstance(e, FileNotFoundError):
        return errors.NotFoundError(None, None, message)
    if isinstance(e, PermissionError):
        return errors.PermissionDeniedError(None, None, message)
    if isinstance(e, FileExistsError):
        return errors.AlreadyExistsError(None, None, message)
    return errors.UnknownError(None, None, message)


# -- bundles ----------------------------------------------------------------------------------

class BundleWriter:
    """Writes one checkpoint (one data shard) at ``prefix``; nothing is visible under the
    final names until :meth:`finish` succeeds.

        writer = BundleWriter("/tmp/model")
        writer.add("v", np.ones(3, np.float32), tf.float32)
        writer.finish()
    """

    def __init__(self, prefix: str):
        self.prefix = prefix
        self._entries: dict[bytes, tensor_bundle_pb2.BundleEntryProto] = {}
        self._data_path = data_filename(prefix, 0, 1)
        self._tmp_data = _temp_name(self._data_path)
        self._offset = 0
        directory = os.path.dirname(prefix)
        if directory and not os.path.isdir(directory):
            try:  # TF's BundleWriter creates the prefix's directory, not its parents
                os.mkdir(directory)
            except FileExistsError:
                pass
            except FileNotFoundError:
                raise errors.NotFoundError(None, None,
                                           f"{directory}; No such file or directory") from None
        try:
            self._file = open(self._tmp_data, "wb")
        except OSError as e:
            raise os_error(e, f"Failed to create a NewWriteableFile: {self._tmp_data}") \
                from None

    def add(self, name: str | bytes, value: Any, dtype: Any) -> None:
        key = _as_bytes(name)
        if not key:
            raise errors.InvalidArgumentError(None, None, "Adding an empty tensor name")
        if key in self._entries:
            raise errors.InvalidArgumentError(None, None,
                                              f"Adding duplicate key: {key.decode()}")
        dtype = dtypes_lib.as_dtype(dtype).base_dtype
        shape = tuple(np.shape(value))
        chunks, crc = encode_tensor(value, dtype)
        size = 0
        try:
            for chunk in chunks:
                _write_chunk(self._file, chunk)
                size += len(chunk)
        except BaseException:
            self.abort()
            raise
        self._entries[key] = tensor_bundle_pb2.BundleEntryProto(
            dtype=dtype.as_datatype_enum, shape=_shape_proto(shape), shard_id=0,
            offset=self._offset, size=size, crc32c=mask_crc(crc))
        self._offset += size

    def add_slice(self, name: str, full_shape: tuple[int, ...], tensor_slice: TensorSlice,
                  value: Any, dtype: Any) -> None:
        """Adds one slice of the tensor ``name`` of ``full_shape`` (TF's AddSlice)."""
        key = _as_bytes(name)
        dtype = dtypes_lib.as_dtype(dtype).base_dtype
        full = self._entries.get(key)
        if full is None:
            full = tensor_bundle_pb2.BundleEntryProto(dtype=dtype.as_datatype_enum,
                                                      shape=_shape_proto(full_shape))
            self._entries[key] = full
        elif not full.slices:
            raise errors.InvalidArgumentError(None, None,
                                              f"Adding duplicate key: {key.decode()}")
        elif full.dtype != dtype.as_datatype_enum or _entry_shape(full) != tuple(full_shape):
            raise errors.InvalidArgumentError(
                None, None, f"Slices of {key.decode()} disagree on the full tensor's dtype or "
                            "shape")
        full.slices.add().CopyFrom(tensor_slice.as_proto())
        self.add(encode_tensor_name_slice(name, tensor_slice), value, dtype)

    def finish(self) -> None:
        """Completes both files and moves them into place (data first, index last)."""
        index_path = index_filename(self.prefix)
        tmp_index = _temp_name(index_path)
        try:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            table = TableBuilder()
            header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1)
            header.version.producer = TENSOR_BUNDLE_VERSION
            table.add(HEADER_KEY, header.SerializeToString(deterministic=True))
            for key in sorted(self._entries):
                table.add(key, self._entries[key].SerializeToString(deterministic=True))
            with open(tmp_index, "wb") as f:
                _write_chunk(f, table.finish())
                f.flush()
                os.fsync(f.fileno())
            os.replace(self._tmp_data, self._data_path)
            os.replace(tmp_index, index_path)
        except OSError as e:
            self.abort()
            _remove_quietly(tmp_index)
            raise os_error(e, f"Failed to write checkpoint {self.prefix}") from None
        except BaseException:
            self.abort()
            _remove_quietly(tmp_index)
            raise
        _fsync_dir(os.path.dirname(self.prefix))

    def abort(self) -> None:
        """Drops the partial files; an existing checkpoint at ``prefix`` is untouched."""
        try:
            self._file.close()
        except OSError:
            pass
        _remove_quietly(self._tmp_data)


def not_found_message(prefix: str) -> str:
    return ("Unsuccessful TensorSliceReader constructor: Failed to find any matching files "
            f"for {prefix}")


class BundleReader:
    """Reads a V2 checkpoint written by graphcore or TensorFlow."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        try:
            with open(index_filename(prefix), "rb") as f:
                data = f.read()
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, not_found_message(prefix)) from None
        except OSError as e:
            raise os_error(e, f"Failed to read checkpoint index {index_filename(prefix)}") \
                from None
        self.header = tensor_bundle_pb2.BundleHeaderProto()
        self.entries: dict[str, tensor_bundle_pb2.BundleEntryProto] = {}
        for key, value in read_table(data):
            if key == HEADER_KEY:
                self.header.ParseFromString(value)
            else:
                entry = tensor_bundle_pb2.BundleEntryProto()
                entry.ParseFromString(value)
                self.entries[key.decode("utf-8", "surrogateescape")] = entry
        version = self.header.version
        if version.producer < 0 or TENSOR_BUNDLE_VERSION < version.min_consumer or \
                TENSOR_BUNDLE_VERSION in version.bad_consumers:
            raise errors.InvalidArgumentError(
                None, None, f"Checkpoint {prefix} needs a newer reader (producer "
                            f"{version.producer}, min consumer {version.min_consumer})")
        self.num_shards = max(self.header.num_shards, 1)
        self.big_endian = self.header.endianness == tensor_bundle_pb2.BundleHeaderProto.BIG

    def __contains__(self, name: str) -> bool:
        return name in self.entries

    def keys(self) -> list[str]:
        return sorted(self.entries)

    def variable_keys(self) -> list[str]:
        """The tensors' names, without the keys of the slices of partitioned ones."""
        slice_keys = {encode_tensor_name_slice(name, TensorSlice.from_proto(p))
                      .decode("utf-8", "surrogateescape")
                      for name, entry in self.entries.items() for p in entry.slices}
        return sorted(k for k in self.entries if k not in slice_keys)

    def entry(self, name: str) -> tensor_bundle_pb2.BundleEntryProto:
        entry = self.entries.get(name)
        if entry is None:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint")
        return entry

    def dtype(self, name: str) -> dtypes_lib.DType:
        return dtypes_lib.as_dtype(self.entry(name).dtype)

    def shape(self, name: str) -> tuple[int, ...]:
        return _entry_shape(self.entry(name))

    def read(self, name: str) -> np.ndarray:
        """The tensor ``name``, checksum-verified (assembled from its slices when it was
        saved in slices)."""
        entry = self.entry(name)
        if entry.slices:
            return self.read_slice(name, TensorSlice.full(len(entry.shape.dim)))
        return self._read_entry(name, entry)

    def read_slice(self, name: str, tensor_slice: TensorSlice) -> np.ndarray:
        """The part ``tensor_slice`` of the tensor ``name``, from whichever stored slices
        overlap it (TF's LookupSlice)."""
        entry = self.entry(name)
        shape = _entry_shape(entry)
        want = tensor_slice.bounds(shape)
        out_shape = tuple(end - start for start, end in want)
        if not entry.slices:
            value = self._read_entry(name, entry)
            return value[tuple(slice(a, b) for a, b in want)].copy()
        out = None
        covered = np.zeros(out_shape, dtype=bool)
        for proto in entry.slices:
            stored = TensorSlice.from_proto(proto)
            have = stored.bounds(shape)
            common = [(max(a, c), min(b, d)) for (a, b), (c, d) in zip(want, have)]
            if any(lo >= hi for lo, hi in common):
                continue
            key = encode_tensor_name_slice(name, stored).decode("utf-8", "surrogateescape")
            value = self._read_entry(name, self.entry(key))
            if out is None:
                out = np.empty(out_shape, dtype=value.dtype)
            dst = tuple(slice(lo - a, hi - a) for (lo, hi), (a, _) in zip(common, want))
            out[dst] = value[tuple(slice(lo - c, hi - c) for (lo, hi), (c, _)
                                   in zip(common, have))]
            covered[dst] = True
        if not covered.all():
            raise errors.InvalidArgumentError(
                None, None, f"Does not have sufficient slices for partitioned tensor {name} "
                            f"to restore in slice_spec: {tensor_slice.debug_string()}")
        if out is None:  # an empty slice
            out = np.empty(out_shape, dtype=_np_dtype(dtypes_lib.as_dtype(entry.dtype)))
        return out

    def _read_entry(self, name: str, entry: tensor_bundle_pb2.BundleEntryProto) -> np.ndarray:
        path = data_filename(self.prefix, entry.shard_id, self.num_shards)
        try:
            with open(path, "rb") as f:
                f.seek(entry.offset)
                data = f.read(entry.size)
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{path}; No such file or directory") \
                from None
        except OSError as e:
            raise os_error(e, f"Failed to read {path}") from None
        if len(data) != entry.size:
            raise errors.DataLossError(
                None, None, f"Checkpoint data file {path} is truncated (tensor {name})")
        dtype = dtypes_lib.as_dtype(entry.dtype)
        value = decode_tensor(data, dtype, _entry_shape(entry), self.big_endian, name)
        # A string tensor's crc covers its lengths as uint32s, not the bytes on disk.
        crc = encode_tensor(value, dtype)[1] if dtype == dtypes_lib.string else crc32c(data)
        if crc != unmask_crc(entry.crc32c):
            raise errors.DataLossError(
                None, None, f"Checksum does not match: stored {entry.crc32c} vs. calculated "
                            f"on the restored bytes {mask_crc(crc)} for tensor {name} in "
                            f"checkpoint {self.prefix}")
        return value


def merge_bundles(prefixes: list[str], destination: str, delete_old_dirs: bool = True,
                  allow_missing_files: bool = False) -> None:
    """Merges single- or multi-shard bundles into one checkpoint at ``destination``
    (TensorFlow's MergeV2Checkpoints): data files are renamed, the index rewritten."""
    readers = []
    for prefix in prefixes:
        if allow_missing_files and not os.path.exists(index_filename(prefix)):
            continue
        readers.append(BundleReader(prefix))
    if not readers:
        raise errors.InvalidArgumentError(
            None, None, "Expected at least one checkpoint to merge, but found none")
    total = sum(r.num_shards for r in readers)
    entries: dict[str, tensor_bundle_pb2.BundleEntryProto] = {}
    renames = []
    base = 0
    for r in readers:
        for name, entry in r.entries.items():
            if entry.slices and entries.get(name) is not None and entries[name].slices:
                entries[name].slices.extend(entry.slices)  # one partitioned tensor
                continue
            if name in entries:
                raise errors.InvalidArgumentError(
                    None, None, f"Duplicate tensor keyed by {name} encountered, when merging "
                                "prefix files")
            merged = tensor_bundle_pb2.BundleEntryProto()
            merged.CopyFrom(entry)
            merged.shard_id = base + entry.shard_id
            entries[name] = merged
        for shard in range(r.num_shards):
            renames.append((data_filename(r.prefix, shard, r.num_shards),
                            data_filename(destination, base + shard, total)))
        base += r.num_shards
    if any(r.big_endian for r in readers):
        raise errors.UnimplementedError(None, None, "merging big-endian bundles")
    table = TableBuilder()
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=total)
    header.version.producer = TENSOR_BUNDLE_VERSION
    table.add(HEADER_KEY, header.SerializeToString(deterministic=True))
    for key in sorted(entries):
        table.add(key.encode("utf-8", "surrogateescape"),
                  entries[key].SerializeToString(deterministic=True))
    index_bytes = table.finish()
    try:
        for src, dst in renames:
            os.replace(src, dst)
        atomic_write_bytes(index_filename(destination), index_bytes)
    except OSError as e:
        raise os_error(e, f"Failed to merge checkpoints into {destination}") from None
    for r in readers:
        _remove_quietly(index_filename(r.prefix))
        if delete_old_dirs:
            directory = os.path.dirname(r.prefix)
            if directory and os.path.abspath(directory) != \
                    os.path.abspath(os.path.dirname(destination) or "."):
                try:
                    os.rmdir(directory)  # only when empty, as TensorFlow's DeleteDir
                except OSError:
                    pass
