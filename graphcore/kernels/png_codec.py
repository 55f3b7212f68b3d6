"""PNG in numpy and zlib: decode (every colour type, bit depths 1-16, tRNS, Adam7) to
[height, width, channels] uint8/uint16 as libpng's transforms in TF's png_io do, and encode
uint8/uint16 images byte for byte as TF's libpng does (its per-row filter heuristic, zlib
settings and IDAT chunking)."""

from __future__ import annotations

import struct
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_ADAM7 = ((0, 0, 8, 8), (0, 4, 8, 8), (4, 0, 4, 8), (0, 2, 4, 4), (2, 0, 2, 4), (0, 1, 2, 2),
          (1, 0, 1, 2))
_SAMPLES = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


class PngError(ValueError):
    pass


def _chunks(data: bytes):
    if not data.startswith(SIGNATURE):
        raise PngError("Invalid PNG header, data size " + str(len(data)))
    pos = 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if len(body) != length:
            raise PngError("Invalid PNG data, size " + str(len(data)))
        yield kind, body
        pos += 12 + length
        if kind == b"IEND":
            return


def _paeth(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    return np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))


def _unfilter(raw: np.ndarray, rows: int, stride: int, bpp: int) -> np.ndarray:
    out = np.zeros((rows, stride), np.uint8)
    prev = np.zeros(stride, np.int32)
    pos = 0
    for y in range(rows):
        kind = raw[pos]
        line = raw[pos + 1:pos + 1 + stride].astype(np.int32)
        pos += 1 + stride
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 0xFF
        elif kind == 1:
            pad = (-stride) % bpp
            groups = np.concatenate([line, np.zeros(pad, np.int32)]).reshape(-1, bpp)
            cur = (np.cumsum(groups, axis=0) & 0xFF).reshape(-1)[:stride]
        elif kind in (3, 4):
            cur = np.zeros(stride, np.int32)
            for x in range(stride):
                left = cur[x - bpp] if x >= bpp else 0
                if kind == 3:
                    pred = (left + prev[x]) >> 1
                else:
                    up_left = prev[x - bpp] if x >= bpp else 0
                    pa, pb, pc = abs(prev[x] - up_left), abs(left - up_left), \
                        abs(left + prev[x] - 2 * up_left)
                    pred = left if pa <= pb and pa <= pc else (prev[x] if pb <= pc else up_left)
                cur[x] = (line[x] + pred) & 0xFF
        else:
            raise PngError(f"Invalid PNG filter type {kind}")
        out[y] = cur
        prev = cur
    return out


def _samples(rows: np.ndarray, width: int, samples: int, depth: int) -> np.ndarray:
    if depth == 16:
        return rows.reshape(rows.shape[0], -1).view(">u2")[:, :width * samples] \
            .astype(np.uint16).reshape(rows.shape[0], width, samples)
    if depth == 8:
        return rows[:, :width * samples].reshape(rows.shape[0], width, samples)
    bits = np.unpackbits(rows, axis=1).reshape(rows.shape[0], -1, depth)
    weights = 1 << np.arange(depth - 1, -1, -1)
    values = (bits * weights).sum(axis=2).astype(np.uint8)
    return values[:, :width * samples].reshape(rows.shape[0], width, samples)


def decode(data: bytes, channels: int = 0, bits: int = 8) -> np.ndarray:
    """[height, width, channels] uint8 (bits=8) or uint16 (bits=16)."""
    header, idat, palette, trns = None, [], None, None
    for kind, body in _chunks(data):
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"PLTE":
            palette = np.frombuffer(body, np.uint8).reshape(-1, 3)
        elif kind == b"tRNS":
            trns = body
        elif kind == b"IDAT":
            idat.append(body)
    if header is None:
        raise PngError("Invalid PNG data, size " + str(len(data)))
    width, height, depth, color, _, _, interlace = header
    samples = _SAMPLES[color]
    try:
        raw = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8)
    except zlib.error as e:
        raise PngError(f"Invalid PNG data: {e}") from None
    bpp = max(1, samples * depth // 8)
    if interlace:
        image = np.zeros((height, width, samples), np.uint16 if depth == 16 else np.uint8)
        pos = 0
        for y0, x0, dy, dx in _ADAM7:
            w = (width - x0 + dx - 1) // dx if width > x0 else 0
            h = (height - y0 + dy - 1) // dy if height > y0 else 0
            if not w or not h:
                continue
            stride = (w * samples * depth + 7) // 8
            rows = _unfilter(raw[pos:], h, stride, bpp)
            pos += h * (stride + 1)
            image[y0::dy, x0::dx] = _samples(rows, w, samples, depth)
    else:
        stride = (width * samples * depth + 7) // 8
        image = _samples(_unfilter(raw, height, stride, bpp), width, samples, depth)
    return _transform(image, color, depth, palette, trns, channels, bits)


def _transform(image: np.ndarray, color: int, depth: int, palette, trns, channels: int,
               bits: int) -> np.ndarray:
    alpha = None
    # libpng adds an alpha channel before expanding low bit depths: its filler stays
    # (1 << depth) - 1 (TF's decode shows 1 for 1-bit images, 15 for 4-bit palettes).
    filler = (1 << depth) - 1 if depth < 8 else None
    if color == 3:
        index = image[..., 0]
        rgb = palette[np.minimum(index, len(palette) - 1)]
        if trns is not None:
            table = np.full(256, 255, np.uint8)
            table[:len(trns)] = np.frombuffer(trns, np.uint8)
            alpha = table[index][..., None]
        image, depth = rgb, 8
    elif depth < 8:
        image = (image.astype(np.uint16) * (255 // ((1 << depth) - 1))).astype(np.uint8)
        if trns is not None and color == 0:
            key = struct.unpack(">H", trns[:2])[0] * (255 // ((1 << depth) - 1))
            alpha = np.where(image[..., :1] == key, 0, 255).astype(np.uint8)
        depth = 8
    elif trns is not None and color in (0, 2):
        key = np.array(struct.unpack(f">{len(trns) // 2}H", trns), np.uint16)
        match = np.all(image == key[:image.shape[-1]], axis=-1, keepdims=True)
        alpha = np.where(match, 0, (1 << depth) - 1).astype(image.dtype)
    if alpha is not None:
        image = np.concatenate([image, alpha.astype(image.dtype)], axis=-1)
    if depth == 16 and bits == 8:
        image = (image >> 8).astype(np.uint8)
    elif depth == 8 and bits == 16:
        image = image.astype(np.uint16) * 257
    have = image.shape[-1]
    if channels in (0, have):
        return np.ascontiguousarray(image)
    color_part = image[..., :1] if have <= 2 else image[..., :3]
    alpha_part = image[..., have - 1:] if have in (2, 4) else None
    if channels in (1, 2) and color_part.shape[-1] == 3:
        color_part = _rgb_to_gray(color_part, bits)
    elif channels in (3, 4) and color_part.shape[-1] == 1:
        color_part = np.repeat(color_part, 3, axis=-1)
    if channels in (2, 4):
        if alpha_part is None:
            value = (1 << bits) - 1 if filler is None else filler * (257 if bits == 16 else 1)
            alpha_part = np.full(color_part.shape[:-1] + (1,), value, image.dtype)
        return np.concatenate([color_part, alpha_part], axis=-1)
    return np.ascontiguousarray(color_part)


def _rgb_to_gray(rgb: np.ndarray, bits: int) -> np.ndarray:
    # libpng's fixed-point coefficients for TF's png_set_rgb_to_gray(1, 0.299, 0.587).
    r, g = 9798, 19235
    b = 32768 - r - g
    v = rgb.astype(np.int64)
    gray = (r * v[..., 0] + g * v[..., 1] + b * v[..., 2] + 16384) >> 15
    return gray[..., None].astype(rgb.dtype)


def _filter_rows(rows: np.ndarray, bpp: int) -> bytes:
    """libpng's default heuristic: per row, the filter of least sum of |signed bytes|
    (all five filters computed for every row at once; ties to the lowest filter)."""
    height, stride = rows.shape
    cur = rows.astype(np.int32)
    prev = np.zeros_like(cur)
    prev[1:] = cur[:-1]
    left = np.zeros_like(cur)
    left[:, bpp:] = cur[:, :-bpp]
    up_left = np.zeros_like(cur)
    up_left[:, bpp:] = prev[:, :-bpp]
    candidates = np.stack([cur, cur - left, cur - prev, cur - ((left + prev) >> 1),
                           cur - _paeth(left, prev, up_left)]) & 0xFF
    costs = np.where(candidates < 128, candidates, 256 - candidates).sum(axis=2)
    kind = np.argmin(costs, axis=0)
    out = np.empty((height, stride + 1), np.uint8)
    out[:, 0] = kind
    out[:, 1:] = candidates[kind, np.arange(height)]
    return out.tobytes()


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + \
        struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def encode(image: np.ndarray, compression: int = -1) -> bytes:
    """PNG bytes of a [height, width, channels] uint8 or uint16 image."""
    height, width, channels = image.shape
    depth = 16 if image.dtype == np.uint16 else 8
    color = {1: 0, 2: 4, 3: 2, 4: 6}[channels]
    data = image.astype(">u2") if depth == 16 else image
    rows = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8) \
        .reshape(height, width * channels * depth // 8)
    bpp = channels * depth // 8
    body = _filter_rows(rows, bpp) if height and width else b""
    ihdr = struct.pack(">IIBBBBB", width, height, depth, color, 0, 0, 0)
    stream = _deflate(body, rows.shape[1] + 1, 6 if compression < 0 else compression)
    idat = b"".join(_chunk(b"IDAT", stream[i:i + _IDAT_SIZE])
                    for i in range(0, len(stream), _IDAT_SIZE))
    return SIGNATURE + _chunk(b"IHDR", ihdr) + idat + _chunk(b"IEND", b"")


# libpng writes IDAT chunks of its zlib buffer's size.
_IDAT_SIZE = 8192


def _deflate(data: bytes, row_size: int, level: int) -> bytes:
    """zlib as TF's libpng drives it: Z_FILTERED, memLevel 9, the smallest window for the size
    (png_deflate_claim), and the header's window field shrunk further (optimize_cmf)."""
    size = len(data)
    window_bits = 15
    if size <= 16384:
        half = 1 << (window_bits - 1)
        while size + 262 <= half:
            half >>= 1
            window_bits -= 1
    packer = zlib.compressobj(level, zlib.DEFLATED, max(window_bits, 9), 9, zlib.Z_FILTERED)
    # Row by row, as libpng feeds zlib: the window slides at the same points.
    stream = bytearray()
    for start in range(0, size, row_size):
        stream += packer.compress(data[start:start + row_size])
    stream += packer.flush()
    cmf = stream[0]
    if size <= 16384 and (cmf & 0x0F) == 8 and (cmf & 0xF0) <= 0x70:
        cinfo = cmf >> 4
        half = 1 << (cinfo + 7)
        if size <= half:
            while True:
                half >>= 1
                cinfo -= 1
                if not (cinfo > 0 and size <= half):
                    break
            cmf = (cmf & 0x0F) | (cinfo << 4)
            flags = stream[1] & 0xE0
            flags += 0x1F - ((cmf << 8) + flags) % 0x1F
            stream[0], stream[1] = cmf, flags
    return bytes(stream)
