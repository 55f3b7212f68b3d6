"""CPU kernels of the box and patch ops of tf.image (TF's crop_and_resize_op,
non_max_suppression_op, draw_bounding_box_op, sample_distorted_bounding_box_op,
extract_glimpse and extract_image_patches kernels), in float32 as TF computes them."""

from __future__ import annotations

import heapq
import math

import numpy as np

from graphcore.framework import errors
from graphcore.kernels.random_kernels import stream_of
from graphcore.kernels.registry import KernelContext, register_kernel

_F = np.float32


def _invalid(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


# -- CropAndResize ----------------------------------------------------------------------------


def _crop_inputs(image_shape: tuple, boxes: np.ndarray, box_ind: np.ndarray,
                 crop_size: tuple) -> None:
    if len(image_shape) != 4:
        raise _invalid(f"input image must be 4-D{list(image_shape)}")
    if image_shape[1] <= 0 or image_shape[2] <= 0:
        raise _invalid("image dimensions must be positive")
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise _invalid(f"boxes must be 2-D{list(boxes.shape)}")
    if box_ind.ndim != 1:
        raise _invalid(f"box_index must be 1-D{list(box_ind.shape)}")
    if box_ind.shape[0] != boxes.shape[0]:
        raise _invalid("box_index has incompatible shape")
    if len(crop_size) != 2:
        raise _invalid(f"crop_size must be a length-2 vector, got {len(crop_size)}")
    if crop_size[0] <= 0 or crop_size[1] <= 0:
        raise _invalid("crop dimensions must be positive")
    if box_ind.size and (box_ind.min() < 0 or box_ind.max() >= image_shape[0]):
        raise errors.OutOfRangeError(None, None, "box_index has values outside [0, batch_size)")


def _sample_axis(lo: np.float32, hi: np.float32, in_size: int, out_size: int):
    """Sample positions along one axis of a box, TF's formula, and whether in range."""
    limit = _F(in_size - 1)
    if out_size > 1:
        scale = (hi - lo) * limit / _F(out_size - 1)
        pos = lo * limit + np.arange(out_size, dtype=_F) * scale
    else:
        pos = np.full(1, _F(0.5) * (lo + hi) * limit, _F)
    pos = pos.astype(_F)
    return pos, (pos >= 0) & (pos <= limit)


def _lerp_parts(pos: np.ndarray, valid: np.ndarray, in_size: int):
    safe = np.where(valid, pos, 0).astype(_F)
    lo = np.floor(safe).astype(np.int64)
    hi = np.minimum(np.ceil(safe).astype(np.int64), in_size - 1)
    return lo, hi, (safe - lo).astype(_F)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return (np.sign(x) * np.floor(np.abs(x) + _F(0.5))).astype(np.int64)


@register_kernel("CropAndResize")
def _crop_and_resize(ctx: KernelContext):
    method = ctx.attr("method").decode()
    extrapolation = _F(ctx.attr("extrapolation_value"))

    def compute(image, boxes, box_ind, crop_size):
        image = np.asarray(image)
        boxes = np.asarray(boxes, _F)
        box_ind = np.asarray(box_ind)
        ch, cw = (int(v) for v in np.asarray(crop_size).reshape(-1)[:2])
        _crop_inputs(image.shape, boxes, box_ind, tuple(np.asarray(crop_size).reshape(-1)))
        _, height, width, depth = image.shape
        out = np.empty((boxes.shape[0], ch, cw, depth), _F)
        for b in range(boxes.shape[0]):
            y1, x1, y2, x2 = boxes[b]
            img = image[box_ind[b]].astype(_F)
            ys, y_ok = _sample_axis(y1, y2, height, ch)
            xs, x_ok = _sample_axis(x1, x2, width, cw)
            if method == "bilinear":
                t, bo, yl = _lerp_parts(ys, y_ok, height)
                lf, rt, xl = _lerp_parts(xs, x_ok, width)
                xl, yl = xl[None, :, None], yl[:, None, None]
                top = img[t][:, lf] + (img[t][:, rt] - img[t][:, lf]) * xl
                bottom = img[bo][:, lf] + (img[bo][:, rt] - img[bo][:, lf]) * xl
                crop = top + (bottom - top) * yl
            else:
                iy = _round_half_away(np.where(y_ok, ys, 0))
                ix = _round_half_away(np.where(x_ok, xs, 0))
                crop = img[iy][:, ix]
            ok = y_ok[:, None, None] & x_ok[None, :, None]
            out[b] = np.where(ok, crop, extrapolation)
        return (out,)

    return compute


@register_kernel("CropAndResizeGradImage")
def _crop_and_resize_grad_image(ctx: KernelContext):
    method = ctx.attr("method").decode()
    out_dtype = np.dtype(ctx.output_types[0].as_numpy_dtype)

    def compute(grads, boxes, box_ind, image_size):
        grads = np.asarray(grads, _F)
        boxes = np.asarray(boxes, _F)
        box_ind = np.asarray(box_ind)
        size = [int(v) for v in np.asarray(image_size).reshape(-1)]
        if len(size) != 4:
            raise _invalid("image_size must be 1-D with 4 elements")
        if grads.ndim != 4:
            raise _invalid(f"grads image must be 4-D{list(grads.shape)}")
        _crop_inputs(tuple(size), boxes, box_ind, grads.shape[1:3])
        batch, height, width, depth = size
        if grads.shape[3] != depth:
            raise _invalid("image_size and grads are incompatible")
        out = np.zeros((batch, height, width, depth), _F)
        ch, cw = grads.shape[1], grads.shape[2]
        for b in range(boxes.shape[0]):
            y1, x1, y2, x2 = boxes[b]
            ys, y_ok = _sample_axis(y1, y2, height, ch)
            xs, x_ok = _sample_axis(x1, x2, width, cw)
            g = grads[b] * (y_ok[:, None, None] & x_ok[None, :, None])
            target = out[box_ind[b]]
            if method == "bilinear":
                t, bo, yl = _lerp_parts(ys, y_ok, height)
                lf, rt, xl = _lerp_parts(xs, x_ok, width)
                yl, xl = yl[:, None, None], xl[None, :, None]
                dtop, dbottom = (1 - yl) * g, yl * g
                for rows, part in ((t, dtop), (bo, dbottom)):
                    np.add.at(target, (rows[:, None], lf[None, :]), (1 - xl) * part)
                    np.add.at(target, (rows[:, None], rt[None, :]), xl * part)
            else:
                iy = _round_half_away(np.where(y_ok, ys, 0))
                ix = _round_half_away(np.where(x_ok, xs, 0))
                np.add.at(target, (iy[:, None], ix[None, :]), g)
        return (out.astype(out_dtype),)

    return compute


@register_kernel("CropAndResizeGradBoxes")
def _crop_and_resize_grad_boxes(ctx: KernelContext):
    def compute(grads, image, boxes, box_ind):
        grads = np.asarray(grads, _F)
        image = np.asarray(image)
        boxes = np.asarray(boxes, _F)
        box_ind = np.asarray(box_ind)
        if grads.ndim != 4:
            raise _invalid(f"grads image must be 4-D{list(grads.shape)}")
        _crop_inputs(image.shape, boxes, box_ind, grads.shape[1:3])
        _, height, width, _ = image.shape
        ch, cw = grads.shape[1], grads.shape[2]
        out = np.zeros((boxes.shape[0], 4), _F)
        h_ratio = _F(height - 1) / _F(ch - 1) if ch > 1 else _F(0)
        w_ratio = _F(width - 1) / _F(cw - 1) if cw > 1 else _F(0)
        for b in range(boxes.shape[0]):
            y1, x1, y2, x2 = boxes[b]
            img = image[box_ind[b]].astype(_F)
            ys, y_ok = _sample_axis(y1, y2, height, ch)
            xs, x_ok = _sample_axis(x1, x2, width, cw)
            t, bo, yl = _lerp_parts(ys, y_ok, height)
            lf, rt, xl = _lerp_parts(xs, x_ok, width)
            yl, xl = yl[:, None, None], xl[None, :, None]
            tl, tr = img[t][:, lf], img[t][:, rt]
            bl, br = img[bo][:, lf], img[bo][:, rt]
            ok = y_ok[:, None, None] & x_ok[None, :, None]
            g = np.where(ok, grads[b], 0)
            grad_y = ((1 - xl) * (bl - tl) + xl * (br - tr)) * g
            grad_x = ((1 - yl) * (tr - tl) + yl * (br - bl)) * g
            gy = grad_y.sum(axis=(1, 2), dtype=_F)
            gx = grad_x.sum(axis=(0, 2), dtype=_F)
            yv = np.arange(ch, dtype=_F)
            xv = np.arange(cw, dtype=_F)
            if ch > 1:
                out[b, 0] = np.sum(gy * (_F(height - 1) - yv * h_ratio), dtype=_F)
                out[b, 2] = np.sum(gy * (yv * h_ratio), dtype=_F)
            else:
                out[b, 0] = out[b, 2] = np.sum(gy, dtype=_F) * _F(0.5) * _F(height - 1)
            if cw > 1:
                out[b, 1] = np.sum(gx * (_F(width - 1) - xv * w_ratio), dtype=_F)
                out[b, 3] = np.sum(gx * (xv * w_ratio), dtype=_F)
            else:
                out[b, 1] = out[b, 3] = np.sum(gx, dtype=_F) * _F(0.5) * _F(width - 1)
        return (out,)

    return compute


# -- non-max suppression ----------------------------------------------------------------------


class _BoxIou:
    """TF's IOU of one box against others (corners canonicalised, zero for empty boxes),
    computed per candidate: no num_boxes^2 matrix."""

    def __init__(self, boxes: np.ndarray):
        boxes = boxes.astype(_F)
        self.ymin = np.minimum(boxes[:, 0], boxes[:, 2])
        self.xmin = np.minimum(boxes[:, 1], boxes[:, 3])
        self.ymax = np.maximum(boxes[:, 0], boxes[:, 2])
        self.xmax = np.maximum(boxes[:, 1], boxes[:, 3])
        self.area = (self.ymax - self.ymin) * (self.xmax - self.xmin)

    def __getitem__(self, key: tuple) -> np.ndarray:
        i, js = key
        iy = np.maximum(np.minimum(self.ymax[i], self.ymax[js]) -
                        np.maximum(self.ymin[i], self.ymin[js]), 0)
        ix = np.maximum(np.minimum(self.xmax[i], self.xmax[js]) -
                        np.maximum(self.xmin[i], self.xmin[js]), 0)
        inter = (iy * ix).astype(_F)
        with np.errstate(divide="ignore", invalid="ignore"):
            iou = (inter / (self.area[i] + self.area[js] - inter)).astype(_F)
        empty = (self.area[i] <= 0) | (self.area[js] <= 0)
        return np.where(empty, _F(0), iou)


def greedy_nms(similarity, scores: np.ndarray, max_output_size: int,
               threshold: float, score_threshold: float,
               soft_nms_sigma: float = 0.0) -> tuple[list, list]:
    """TF's DoNonMaxSuppressionOp: a priority queue by (score, -index); each candidate
    is compared against the boxes selected since it was last looked at, newest first.
    ``similarity[i, js]`` gives candidate i's similarities to the boxes ``js``."""
    dtype = scores.dtype.type
    threshold, score_threshold = dtype(threshold), dtype(score_threshold)
    soft = soft_nms_sigma > 0.0
    scale = dtype(-0.5 / soft_nms_sigma) if soft else dtype(0.0)
    heap = [(-scores[i], i, 0) for i in range(len(scores)) if scores[i] > score_threshold]
    heapq.heapify(heap)
    selected: list[int] = []
    selected_scores: list = []
    while len(selected) < max_output_size and heap:
        neg_score, index, begin = heapq.heappop(heap)
        original = -neg_score
        score = original
        hard = False
        # Similarities to the boxes selected since this candidate was last compared.
        sims = similarity[index, selected[begin:]] if len(selected) > begin else ()
        for j in range(len(selected) - 1, begin - 1, -1):
            sim = sims[j - begin]
            score = dtype(score * (np.exp(scale * sim * sim) if sim <= threshold else 0))
            if not soft and sim > threshold:
                hard = True
                break
            if score <= score_threshold:
                break
        if hard:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            heapq.heappush(heap, (-score, index, len(selected)))
    return selected, selected_scores


def _nms_args(boxes: np.ndarray, scores: np.ndarray, max_output_size, iou_threshold,
              what: str = "iou_threshold") -> tuple[int, float]:
    if np.ndim(max_output_size) != 0:
        raise _invalid(f"max_output_size must be 0-D, got shape {list(np.shape(max_output_size))}")
    if np.ndim(iou_threshold) != 0:
        raise _invalid(f"{what} must be 0-D, got shape {list(np.shape(iou_threshold))}")
    threshold = float(iou_threshold)
    if what == "iou_threshold" and not 0 <= threshold <= 1:
        raise _invalid("iou_threshold must be in [0, 1]")
    size = int(max_output_size)
    if size < 0:
        raise _invalid("max_output_size must be non-negative")
    return size, threshold


def _boxes_scores(boxes: np.ndarray, scores: np.ndarray) -> None:
    if boxes.ndim != 2:
        raise _invalid(f"boxes must be 2-D{list(boxes.shape)}")
    if boxes.shape[1] != 4:
        raise _invalid(f"boxes must have 4 columns{list(boxes.shape)}")
    if scores.ndim != 1:
        raise _invalid(f"scores must be 1-D{list(scores.shape)}")
    if scores.shape[0] != boxes.shape[0]:
        raise _invalid("scores has incompatible shape")


def _nms_kernel(version: int):
    def factory(ctx: KernelContext):
        pad = bool(ctx.attr("pad_to_max_output_size")) if version >= 4 else False

        def compute(boxes, scores, max_output_size, iou_threshold, score_threshold,
                    soft_nms_sigma=0.0):
            boxes, scores = np.asarray(boxes), np.asarray(scores)
            _boxes_scores(boxes, scores)
            size, threshold = _nms_args(boxes, scores, max_output_size, iou_threshold)
            sigma = float(soft_nms_sigma)
            if sigma < 0:
                raise _invalid("soft_nms_sigma must be non-negative")
            work = scores.astype(_F)
            selected, sel_scores = greedy_nms(_BoxIou(boxes), work, size, threshold,
                                              float(score_threshold), sigma)
            valid = np.int32(len(selected))
            idx = np.array(selected, np.int32)
            vals = np.array(sel_scores, scores.dtype)
            if pad:
                idx = np.concatenate([idx, np.zeros(size - len(idx), np.int32)])
                vals = np.concatenate([vals, np.zeros(size - len(vals), scores.dtype)])
            if version == 3:
                return (idx,)
            if version == 4:
                return idx, valid
            return idx, vals.astype(scores.dtype), valid

        return compute

    return factory


register_kernel("NonMaxSuppressionV3")(_nms_kernel(3))
register_kernel("NonMaxSuppressionV4")(_nms_kernel(4))
register_kernel("NonMaxSuppressionV5")(_nms_kernel(5))


@register_kernel("NonMaxSuppressionWithOverlaps")
def _nms_overlaps(ctx: KernelContext):
    def compute(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        overlaps, scores = np.asarray(overlaps, _F), np.asarray(scores, _F)
        if overlaps.ndim != 2 or overlaps.shape[0] != overlaps.shape[1]:
            raise _invalid(f"overlaps must be 2-D and square{list(overlaps.shape)}")
        if scores.ndim != 1 or scores.shape[0] != overlaps.shape[0]:
            raise _invalid("scores has incompatible shape")
        size, threshold = _nms_args(overlaps, scores, max_output_size, overlap_threshold,
                                    "overlap_threshold")
        selected, _ = greedy_nms(overlaps, scores, size, threshold, float(score_threshold))
        return (np.array(selected, np.int32),)

    return compute


@register_kernel("CombinedNonMaxSuppression")
def _combined_nms(ctx: KernelContext):
    pad_per_class = bool(ctx.attr("pad_per_class"))
    clip = bool(ctx.attr("clip_boxes"))

    def compute(boxes, scores, max_per_class, max_total, iou_threshold, score_threshold):
        boxes, scores = np.asarray(boxes, _F), np.asarray(scores, _F)
        if boxes.ndim != 4:
            raise _invalid(f"boxes must be 4-D{list(boxes.shape)}")
        if scores.ndim != 3:
            raise _invalid(f"scores must be 3-D{list(scores.shape)}")
        batch, num_boxes, q, _ = boxes.shape
        num_classes = scores.shape[2]
        if q not in (1, num_classes):
            raise _invalid("third dimension of boxes must be either 1 or num classes")
        per_class, threshold = _nms_args(boxes, scores, max_per_class, iou_threshold)
        total = int(max_total)
        if total <= 0:
            raise _invalid("max_total_size must be > 0")
        size = min(total, per_class * num_classes) if pad_per_class else total
        out_boxes = np.zeros((batch, size, 4), _F)
        out_scores = np.zeros((batch, size), _F)
        out_classes = np.zeros((batch, size), _F)
        valid = np.zeros(batch, np.int32)
        for b in range(batch):
            found = []
            for c in range(num_classes):
                class_boxes = boxes[b, :, 0 if q == 1 else c]
                sel, sel_scores = greedy_nms(_BoxIou(class_boxes), scores[b, :, c],
                                             per_class, threshold, float(score_threshold))
                found += [(s, c, class_boxes[i]) for i, s in zip(sel, sel_scores)]
            found.sort(key=lambda item: -item[0])
            found = found[:size]
            for k, (s, c, box) in enumerate(found):
                out_boxes[b, k] = np.clip(box, 0, 1) if clip else box
                out_scores[b, k] = s
                out_classes[b, k] = c
            valid[b] = len(found)
        return out_boxes, out_scores, out_classes, valid

    return compute


# -- DrawBoundingBoxes ------------------------------------------------------------------------

_DEFAULT_COLORS = [[1, 1, 0, 1], [0, 0, 1, 1], [1, 0, 0, 1], [0, 1, 0, 1], [0.5, 0, 0.5, 1],
                   [0.5, 0.5, 0, 1], [0.5, 0, 0, 1], [0, 0, 0.5, 1], [0, 1, 1, 1], [1, 0, 1, 1]]


def _draw(images: np.ndarray, boxes: np.ndarray, colors: np.ndarray | None) -> np.ndarray:
    if images.ndim != 4:
        raise _invalid("The rank of the images should be 4")
    batch, height, width, depth = images.shape
    if depth not in (1, 3, 4):
        raise _invalid("Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA)")
    if boxes.ndim != 3 or boxes.shape[0] != batch or boxes.shape[2] != 4:
        raise _invalid("boxes must be 3-D [batch, num_boxes, 4]")
    table = (np.array(_DEFAULT_COLORS, _F) if colors is None or colors.size == 0
             else np.array(colors, _F).reshape(len(colors), -1))
    if colors is not None and colors.size and table.shape[1] < depth:
        raise _invalid("Channel depth is greater than color table depth")
    if depth == 1 and (colors is None or colors.size == 0):
        # Boxes on grayscale images are white (TF resets the default table's first channel).
        table = table.copy()
        table[:, 0] = 1
    canvas = images.copy()
    for b in range(batch):
        for bb in range(boxes.shape[1]):
            color = table[bb % len(table), :depth].astype(images.dtype)
            y1, x1, y2, x2 = boxes[b, bb].astype(_F)
            min_row, max_row = int(y1 * _F(height - 1)), int(y2 * _F(height - 1))
            min_col, max_col = int(x1 * _F(width - 1)), int(x2 * _F(width - 1))
            if min_row > max_row or min_col > max_col:
                continue
            if min_row >= height or max_row < 0 or min_col >= width or max_col < 0:
                continue
            r0, r1 = max(min_row, 0), min(max_row, height - 1)
            c0, c1 = max(min_col, 0), min(max_col, width - 1)
            if min_row >= 0:
                canvas[b, min_row, c0:c1 + 1] = color
            if max_row < height:
                canvas[b, max_row, c0:c1 + 1] = color
            if min_col >= 0:
                canvas[b, r0:r1 + 1, min_col] = color
            if max_col < width:
                canvas[b, r0:r1 + 1, max_col] = color
    return canvas


@register_kernel("DrawBoundingBoxes")
def _draw_boxes(ctx: KernelContext):
    def compute(images, boxes):
        return (_draw(np.asarray(images), np.asarray(boxes), None),)
    return compute


@register_kernel("DrawBoundingBoxesV2")
def _draw_boxes_v2(ctx: KernelContext):
    def compute(images, boxes, colors):
        return (_draw(np.asarray(images), np.asarray(boxes), np.asarray(colors)),)
    return compute


# -- SampleDistortedBoundingBoxV2 -------------------------------------------------------------


def _lrint(x: float) -> int:
    return int(np.rint(np.float32(x)))


def _random_crop(rng, width: int, height: int, min_area_frac: float, max_area_frac: float,
                 aspect: float):
    """TF's GenerateRandomCrop: (x, y, w, h) or None."""
    if max_area_frac <= 0 or aspect <= 0 or width <= 0 or height <= 0 or \
            min_area_frac > max_area_frac:
        return None
    min_area = _F(min_area_frac) * width * height
    max_area = _F(max_area_frac) * width * height
    h = _lrint(math.sqrt(min_area / aspect))
    max_h = _lrint(math.sqrt(max_area / aspect))
    if _lrint(max_h * aspect) > width:
        max_h = int((width + 0.5 - 1e-7) / aspect)
        if _lrint(max_h * aspect) > width:
            max_h -= 1
    max_h = min(max_h, height)
    h = min(h, max_h)
    if h < max_h:
        h += int(rng.integers(0, max_h - h + 1))
    w = _lrint(h * aspect)
    area = float(w * h)
    if area < min_area:
        h += 1
        w = _lrint(h * aspect)
        area = float(w * h)
    if area > max_area:
        h -= 1
        w = _lrint(h * aspect)
        area = float(w * h)
    if area < min_area or area > max_area or w > width or h > height or w <= 0 or h <= 0:
        return None
    y = int(rng.integers(0, height - h)) if h < height else 0
    x = int(rng.integers(0, width - w)) if w < width else 0
    return x, y, w, h


def _covers(crop: tuple, min_covered: float, boxes: list) -> bool:
    x, y, w, h = crop
    if w * h < 1.0:
        return False
    for bx0, by0, bx1, by1 in boxes:
        area = (bx1 - bx0) * (by1 - by0)
        if area < 1.0:
            continue
        ix = min(x + w, bx1) - max(x, bx0)
        iy = min(y + h, by1) - max(y, by0)
        inter = ix * iy if ix > 0 and iy > 0 else 0
        if inter / area >= min_covered:
            return True
    return False


@register_kernel("SampleDistortedBoundingBoxV2")
def _sample_distorted_box(ctx: KernelContext):
    stream = stream_of(ctx)
    aspect_range = [float(v) for v in ctx.attr("aspect_ratio_range")]
    area_range = [float(v) for v in ctx.attr("area_range")]
    attempts = int(ctx.attr("max_attempts"))
    use_image = bool(ctx.attr("use_image_if_no_bounding_boxes"))
    out_dtype = np.dtype(ctx.output_types[0].as_numpy_dtype)
    if len(aspect_range) != 2 or len(area_range) != 2:
        raise _invalid("aspect_ratio_range and area_range must each hold 2 values")
    if attempts <= 0:
        raise _invalid(f"max_attempts must be positive: {attempts}")

    def compute(image_size, bounding_boxes, min_object_covered):
        size = np.asarray(image_size)
        if size.ndim != 1 or size.shape[0] != 3:
            raise _invalid(f"image_size must be 1-dimensional with 3 elements: "
                           f"{list(size.shape)}")
        height, width = int(size[0]), int(size[1])
        boxes = np.asarray(bounding_boxes, _F)
        if boxes.ndim != 3 or boxes.shape[2] != 4:
            raise _invalid(f"input boxes must be 3-dimensional [batch, num_boxes, coords]: "
                           f"{list(boxes.shape)}")
        covered = float(np.asarray(min_object_covered))
        if covered < 0:
            raise _invalid(f"min_object_covered must be non-negative: {covered}")
        rects = []
        for box in boxes.reshape(-1, 4):
            if np.any(box < 0) or np.any(box > 1):
                raise _invalid(f"All bounding box coordinates must be in [0.0, 1.0]: "
                               f"{box[0]}, {box[1]}, {box[2]}, {box[3]}")
            rects.append((int(box[1] * width), int(box[0] * height),
                          int(box[3] * width), int(box[2] * height)))
        if not rects:
            if not use_image:
                raise _invalid("No bounding boxes provided as input. One must enable "
                               "use_image_if_no_bounding_boxes if you wish to not provide "
                               "any bounding boxes.")
            rects.append((0, 0, width, height))
        crop = (0, 0, width, height)
        with stream.lock:
            for _ in range(attempts):
                aspect = float(_F(stream.rng.random()) * _F(aspect_range[1] - aspect_range[0])
                               + _F(aspect_range[0]))
                found = _random_crop(stream.rng, width, height, area_range[0], area_range[1],
                                     aspect)
                if found is not None and _covers(found, covered, rects):
                    crop = found
                    break
        x, y, w, h = crop
        begin = np.array([y, x, 0], out_dtype)
        size_out = np.array([h, w, -1], out_dtype)
        bboxes = np.array([[[_F(y) / _F(height), _F(x) / _F(width), _F(y + h) / _F(height),
                             _F(x + w) / _F(width)]]], _F)
        return begin, size_out, bboxes

    return compute


# -- ExtractGlimpse ---------------------------------------------------------------------------


@register_kernel("ExtractGlimpse")
def _extract_glimpse(ctx: KernelContext):
    centered = bool(ctx.attr("centered"))
    normalized = bool(ctx.attr("normalized"))
    uniform = bool(ctx.attr("uniform_noise"))
    noise = ctx.attr("noise").decode()
    if uniform and noise not in ("", "uniform"):
        raise _invalid("The uniform_noise and noise should not be specified at the same time")
    mode = "uniform" if uniform else ("zero" if noise == "zero" else "gaussian")
    rng = np.random.default_rng()

    def compute(images, size, offsets):
        images = np.asarray(images, _F)
        size = np.asarray(size)
        offsets = np.asarray(offsets, _F)
        if images.ndim != 4:
            raise _invalid(f"input must be 4-dimensional{list(images.shape)}")
        if size.shape != (2,):
            raise _invalid(f"input must be a vector of size 2 (height, width){list(size.shape)}")
        gh, gw = int(size[0]), int(size[1])
        batch, height, width, depth = images.shape
        if offsets.shape != (batch, 2):
            raise _invalid("input and offsets must have the same batch size and offsets must "
                           "be a matrix with 2 columns")
        out = np.empty((batch, gh, gw, depth), _F)
        for b in range(batch):
            y, x = offsets[b]
            if normalized:
                x, y = x * _F(width), y * _F(height)
            if centered:
                x = x / _F(2) + _F(width) / _F(2)
                y = y / _F(2) + _F(height) / _F(2)
            x, y = int(x - _F(gw) / _F(2)), int(y - _F(gh) / _F(2))
            img = images[b]
            if mode == "uniform":
                lo, hi = img.min(), img.max()
                out[b] = rng.uniform(lo, hi, out[b].shape)
            elif mode == "gaussian":
                out[b] = rng.normal(img.mean(), img.std(), out[b].shape)
            else:
                out[b] = 0
            y0, y1 = max(y, 0), min(y + gh, height)
            x0, x1 = max(x, 0), min(x + gw, width)
            if y0 < y1 and x0 < x1:
                out[b, y0 - y:y1 - y, x0 - x:x1 - x] = img[y0:y1, x0:x1]
        return (out,)

    return compute


# -- ExtractImagePatches ----------------------------------------------------------------------


@register_kernel("ExtractImagePatches")
def _extract_image_patches(ctx: KernelContext):
    ksizes, strides, rates = (list(ctx.attr(a)) for a in ("ksizes", "strides", "rates"))
    padding = ctx.attr("padding").decode()

    def axis(in_size: int, i: int) -> tuple[int, int]:
        eff = ksizes[i] + (ksizes[i] - 1) * (rates[i] - 1)
        if padding == "VALID":
            out = (in_size - eff + strides[i]) // strides[i]
            return max(out, 0), 0
        out = (in_size + strides[i] - 1) // strides[i]
        return out, max((out - 1) * strides[i] + eff - in_size, 0) // 2

    def compute(images):
        images = np.asarray(images)
        if images.ndim != 4:
            raise _invalid(f"input must be 4-dimensional{list(images.shape)}")
        batch, height, width, depth = images.shape
        out_h, pad_top = axis(height, 1)
        out_w, pad_left = axis(width, 2)
        kh, kw = ksizes[1], ksizes[2]
        out = np.zeros((batch, out_h, out_w, kh, kw, depth), images.dtype)
        rows = np.arange(out_h) * strides[1] - pad_top
        cols = np.arange(out_w) * strides[2] - pad_left
        for r in range(kh):
            ry = rows + r * rates[1]
            oky = (ry >= 0) & (ry < height)
            for c in range(kw):
                cx = cols + c * rates[2]
                okx = (cx >= 0) & (cx < width)
                patch = images[:, np.clip(ry, 0, height - 1)][:, :, np.clip(cx, 0, width - 1)]
                mask = (oky[:, None] & okx[None, :])[None, :, :, None]
                out[:, :, :, r, c] = np.where(mask, patch, np.zeros((), images.dtype))
        return (out.reshape(batch, out_h, out_w, kh * kw * depth),)

    return compute
