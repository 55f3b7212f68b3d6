"""CPU kernels of FusedResizeAndPadConv2D and FusedPadConv2D (the convolutions
optimize_for_inference fuses with the ResizeBilinear / MirrorPad before them): the resize
as ResizeBilinear without half-pixel centers (in float32, as TF's), the mirror padding,
then Conv2D's convolution."""

from __future__ import annotations

import numpy as np

from graphcore.kernels.array_kernels import _check_paddings
from graphcore.kernels.conv_kernels import conv_forward
from graphcore.kernels.image_resize_kernels import _apply, _check_images, bilinear_weights
from graphcore.kernels.registry import KernelContext, register_kernel
from graphcore.kernels.window import WindowAttrs, invalid, out_dtype, work_dtype


def _fused_conv(resize: bool):
    def factory(ctx: KernelContext):
        attrs = WindowAttrs(ctx, 2, channels_first=False)
        attrs.check_conv()
        offset = 0 if ctx.node_def.attr["mode"].s == b"SYMMETRIC" else 1
        align = bool(ctx.node_def.attr["resize_align_corners"].b) if resize else False
        out, work = out_dtype(ctx), work_dtype(out_dtype(ctx))

        def compute(x, *rest):
            x = np.asarray(x)
            if x.ndim != 4:
                raise invalid(f"input must be 4-dimensional{list(x.shape)}")
            if resize:
                size, paddings, w = rest
                out_h, out_w = _check_images(x, size, align, False)
                x = _apply(bilinear_weights(x.shape[1], out_h, align, False),
                           bilinear_weights(x.shape[2], out_w, align, False), x)
            else:
                paddings, w = rest
            w = np.asarray(w)
            if w.ndim != 4:
                raise invalid(f"filter must be 4-dimensional: {list(w.shape)}")
            pairs = _check_paddings(x, paddings)
            for i, (a, b) in enumerate(pairs):
                if a > x.shape[i] - offset or b > x.shape[i] - offset:
                    raise invalid(f"paddings must be no greater than the dimension size: "
                                  f"{a}, {b} greater than {x.shape[i] - offset}")
            x = np.pad(x, pairs, mode="symmetric" if offset == 0 else "reflect")
            if x.shape[3] != w.shape[2]:
                raise invalid(f"input and filter must have the same depth: {x.shape[3]} vs "
                              f"{w.shape[2]}")
            win = attrs.window(x.shape, w.shape[:2])
            y = conv_forward(np.ascontiguousarray(x, dtype=work), w.astype(work, copy=False),
                             win)
            return (y.astype(out, copy=False),)

        return compute

    return factory


register_kernel("FusedResizeAndPadConv2D")(_fused_conv(True))
register_kernel("FusedPadConv2D")(_fused_conv(False))
