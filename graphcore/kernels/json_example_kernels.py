"""CPU kernel of DecodeJSONExample (:mod:`graphcore.ops.parsing_ops`): a JSON Example
(protobuf's JSON mapping) to the bytes TF's JSON-to-binary stream writer produces: fields
and map entries in the JSON's order, repeated numbers unpacked, empty messages kept."""

from __future__ import annotations

import base64
import json
import struct
from typing import Any

import numpy as np
from google.protobuf import json_format

from graphcore.framework import errors
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.lib.io.checkpoint_format import encode_varint
from graphcore.protobuf import example_pb2

# Feature's oneof: JSON names (camelCase and proto names) -> (field number, value writer).
_LISTS = {"bytesList": 1, "bytes_list": 1, "floatList": 2, "float_list": 2,
          "int64List": 3, "int64_list": 3}


def _field(number: int, payload: bytes) -> bytes:
    return encode_varint(number << 3 | 2) + encode_varint(len(payload)) + payload


def _list(kind: int, body: dict) -> bytes:
    out = b""
    for v in body.get("value", []):
        if kind == 1:
            out += _field(1, base64.b64decode(v))
        elif kind == 2:
            out += b"\x0d" + struct.pack("<f", float(v))
        else:
            out += b"\x08" + encode_varint(int(v))
    return out


def _feature(body: dict) -> bytes:
    out = b""
    for name, value in body.items():
        out += _field(_LISTS[name], _list(_LISTS[name], value))
    return out


def _example_bytes(doc: dict) -> bytes:
    out = b""
    for features in (v for k, v in doc.items() if k == "features"):
        entries = b""
        for key in (k for k in features if k == "feature"):
            for name, feature in features[key].items():
                entries += _field(1, _field(1, name.encode()) + _field(2, _feature(feature)))
        out += _field(1, entries)
    return out


def _decode(text: Any) -> bytes:
    try:
        raw = bytes(text).decode("utf-8")
        # protobuf's parser validates names, types and values as TF's does.
        json_format.Parse(raw, example_pb2.Example())
    except (json_format.ParseError, UnicodeDecodeError) as e:
        raise errors.InvalidArgumentError(None, None,
                                          f"Error while parsing JSON: {e}") from None
    return _example_bytes(json.loads(raw))


@register_kernel("DecodeJSONExample")
def _decode_json_example(ctx: KernelContext):
    del ctx

    def compute(json_examples):
        x = np.asarray(json_examples, dtype=object)
        return (np.array([_decode(s) for s in x.reshape(-1)], dtype=object).reshape(x.shape),)

    return compute
