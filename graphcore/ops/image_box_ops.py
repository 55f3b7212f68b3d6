"""tf.image's box and patch ops: CropAndResize (+ its gradient ops), the non-max
suppressions (V3/V4/V5, WithOverlaps, Combined), DrawBoundingBoxes(V2),
SampleDistortedBoundingBoxV2, ExtractGlimpse and ExtractImagePatches."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import op_registry, tensor_util
from graphcore.framework import ops as ops_lib
from graphcore.framework import tensor_shape as shape_lib
from graphcore.framework.indexed_slices import constant_value_as_shape
from graphcore.framework.op_def_library import apply_op, op_outputs
from graphcore.framework.tensor_conversion import convert_to_tensor
from graphcore.platform.deprecation import deprecated_argument_lookup

__all__ = [
    "combined_non_max_suppression", "crop_and_resize", "draw_bounding_boxes",
    "extract_glimpse", "extract_image_patches", "extract_patches", "non_max_suppression",
    "non_max_suppression_overlaps", "non_max_suppression_with_scores",
    "sample_distorted_bounding_box",
]

_S = shape_lib.TensorShape


def _dims(op: ops_lib.Operation, i: int, rank: int) -> list:
    return op.inputs[i].shape.with_rank(rank).as_list()


def _const_int(t: ops_lib.Tensor) -> int | None:
    value = tensor_util.constant_value(t)
    return None if value is None else int(value)


def _crop_and_resize_shape(op: ops_lib.Operation) -> list:
    image = _dims(op, 0, 4)
    boxes = _dims(op, 1, 2)
    box_ind = _dims(op, 2, 1)
    if boxes[1] not in (None, 4):
        raise ValueError(f"Dimension must be 4 but is {boxes[1]}")
    num_boxes = boxes[0] if boxes[0] is not None else box_ind[0]
    crop = constant_value_as_shape(op.inputs[3])
    h, w = crop.as_list() if crop.ndims == 2 else (None, None)
    return [_S([num_boxes, h, w, image[3]])]


def _grad_image_shape(op: ops_lib.Operation) -> list:
    size = constant_value_as_shape(op.inputs[3])
    return [size if size.ndims == 4 else shape_lib.unknown_shape(rank=4)]


_IMAGE_TYPES = "{uint8, uint16, int8, int16, int32, int64, half, float, double}"
op_registry.register_op("CropAndResize").input("image: T").input("boxes: float") \
    .input("box_ind: int32").input("crop_size: int32").output("crops: float") \
    .attr(f"T: {_IMAGE_TYPES}").attr("method: {'bilinear', 'nearest'} = 'bilinear'") \
    .attr("extrapolation_value: float = 0").shape_fn(_crop_and_resize_shape)
op_registry.register_op("CropAndResizeGradImage").input("grads: float").input("boxes: float") \
    .input("box_ind: int32").input("image_size: int32").output("output: T") \
    .attr("T: {float, half, double}").attr("method: {'bilinear', 'nearest'} = 'bilinear'") \
    .shape_fn(_grad_image_shape)
op_registry.register_op("CropAndResizeGradBoxes").input("grads: float").input("image: T") \
    .input("boxes: float").input("box_ind: int32").output("output: float") \
    .attr(f"T: {_IMAGE_TYPES}").attr("method: {'bilinear'} = 'bilinear'") \
    .shape_fn(lambda op: [op.inputs[2].shape.with_rank(2)])


def _nms_check(op: ops_lib.Operation, boxes_rank: int = 2) -> None:
    op.inputs[0].shape.with_rank(boxes_rank)
    op.inputs[1].shape.with_rank(boxes_rank - 1 if boxes_rank == 2 else 2)
    op.inputs[2].shape.with_rank(0)


def _nms_v3_shape(op: ops_lib.Operation) -> list:
    _nms_check(op)
    return [_S([None])]


def _nms_padded_shape(n_outputs: int):
    def fn(op: ops_lib.Operation) -> list:
        _nms_check(op)
        size = _const_int(op.inputs[2]) if op.get_attr("pad_to_max_output_size") else None
        return [_S([size])] * (n_outputs - 1) + [_S([])]
    return fn


op_registry.register_op("NonMaxSuppressionV3").input("boxes: T").input("scores: T") \
    .input("max_output_size: int32").input("iou_threshold: T_threshold") \
    .input("score_threshold: T_threshold").output("selected_indices: int32") \
    .attr("T: {half, float} = DT_FLOAT").attr("T_threshold: {half, float} = DT_FLOAT") \
    .shape_fn(_nms_v3_shape)
op_registry.register_op("NonMaxSuppressionV4").input("boxes: T").input("scores: T") \
    .input("max_output_size: int32").input("iou_threshold: T_threshold") \
    .input("score_threshold: T_threshold").output("selected_indices: int32") \
    .output("valid_outputs: int32") \
    .attr("T: {half, float} = DT_FLOAT").attr("T_threshold: {half, float} = DT_FLOAT") \
    .attr("pad_to_max_output_size: bool = false").shape_fn(_nms_padded_shape(2))
op_registry.register_op("NonMaxSuppressionV5").input("boxes: T").input("scores: T") \
    .input("max_output_size: int32").input("iou_threshold: T").input("score_threshold: T") \
    .input("soft_nms_sigma: T").output("selected_indices: int32") \
    .output("selected_scores: T").output("valid_outputs: int32") \
    .attr("T: {half, float} = DT_FLOAT").attr("pad_to_max_output_size: bool = false") \
    .shape_fn(_nms_padded_shape(3))
op_registry.register_op("NonMaxSuppressionWithOverlaps").input("overlaps: float") \
    .input("scores: float").input("max_output_size: int32").input("overlap_threshold: float") \
    .input("score_threshold: float").output("selected_indices: int32") \
    .shape_fn(_nms_v3_shape)


def _combined_nms_shape(op: ops_lib.Operation) -> list:
    boxes = _dims(op, 0, 4)
    scores = _dims(op, 1, 3)
    batch = boxes[0] if boxes[0] is not None else scores[0]
    total = _const_int(op.inputs[3])
    per_class = _const_int(op.inputs[2])
    if total is not None and total <= 0:
        raise ValueError("max_total_size should be > 0 ")
    if per_class is not None and per_class <= 0:
        raise ValueError("max_output_size_per_class should be > 0 ")
    size = total
    if op.get_attr("pad_per_class") and None not in (total, per_class, scores[2]):
        size = min(total, per_class * scores[2])
    return [_S([batch, size, 4]), _S([batch, size]), _S([batch, size]), _S([batch])]


op_registry.register_op("CombinedNonMaxSuppression").input("boxes: float") \
    .input("scores: float").input("max_output_size_per_class: int32") \
    .input("max_total_size: int32").input("iou_threshold: float") \
    .input("score_threshold: float").output("nmsed_boxes: float") \
    .output("nmsed_scores: float").output("nmsed_classes: float") \
    .output("valid_detections: int32").attr("pad_per_class: bool = false") \
    .attr("clip_boxes: bool = true").shape_fn(_combined_nms_shape)


def _draw_shape(op: ops_lib.Operation) -> list:
    return [op.inputs[0].shape.with_rank(4)]


op_registry.register_op("DrawBoundingBoxes").input("images: T").input("boxes: float") \
    .output("output: T").attr("T: {float, half} = DT_FLOAT").shape_fn(_draw_shape)
op_registry.register_op("DrawBoundingBoxesV2").input("images: T").input("boxes: float") \
    .input("colors: float").output("output: T").attr("T: {float, half} = DT_FLOAT") \
    .shape_fn(_draw_shape)


def _sample_box_shape(op: ops_lib.Operation) -> list:
    op.inputs[0].shape.with_rank(1)
    op.inputs[1].shape.with_rank(3)
    return [_S([3]), _S([3]), _S([1, 1, 4])]


op_registry.register_op("SampleDistortedBoundingBoxV2").input("image_size: T") \
    .input("bounding_boxes: float").input("min_object_covered: float") \
    .output("begin: T").output("size: T").output("bboxes: float") \
    .attr("T: {uint8, int8, int16, int32, int64}").attr("seed: int = 0") \
    .attr("seed2: int = 0").attr("aspect_ratio_range: list(float) = [0.75, 1.33]") \
    .attr("area_range: list(float) = [0.05, 1.0]").attr("max_attempts: int = 100") \
    .attr("use_image_if_no_bounding_boxes: bool = false").stateful() \
    .shape_fn(_sample_box_shape)


def _glimpse_shape(op: ops_lib.Operation) -> list:
    images = _dims(op, 0, 4)
    size = constant_value_as_shape(op.inputs[1])
    h, w = size.as_list() if size.ndims == 2 else (None, None)
    return [_S([images[0], h, w, images[3]])]


op_registry.register_op("ExtractGlimpse").input("input: float").input("size: int32") \
    .input("offsets: float").output("glimpse: float").attr("centered: bool = true") \
    .attr("normalized: bool = true").attr("uniform_noise: bool = true") \
    .attr("noise: string = 'uniform'").shape_fn(_glimpse_shape)


def _patches_shape(op: ops_lib.Operation) -> list:
    from graphcore.ops.window_shapes import windowed_output_size

    images = _dims(op, 0, 4)
    ksizes, strides, rates = (list(op.get_attr(a)) for a in ("ksizes", "strides", "rates"))
    for name, value in (("ksizes", ksizes), ("strides", strides), ("rates", rates)):
        if len(value) != 4:
            raise ValueError(f"ExtractImagePatches requires the {name} attribute to contain 4 "
                             f"values, but got: {len(value)}")
    if ksizes[0] != 1 or ksizes[3] != 1:
        raise ValueError("ExtractImagePatches is only supported across rows and columns "
                         "dimensions (ksizes)")
    padding = op.get_attr("padding").decode()
    out = [images[0]]
    for i in (1, 2):
        eff = ksizes[i] + (ksizes[i] - 1) * (rates[i] - 1)
        out.append(None if images[i] is None else
                   windowed_output_size(images[i], eff, 1, strides[i], padding))
    depth = None if images[3] is None else ksizes[1] * ksizes[2] * images[3]
    return [_S(out + [depth])]


op_registry.register_op("ExtractImagePatches").input("images: T").output("patches: T") \
    .attr("ksizes: list(int) >= 4").attr("strides: list(int) >= 4") \
    .attr("rates: list(int) >= 4") \
    .attr("T: {bfloat16, half, float, double, int8, int16, int32, int64, uint8, uint16, "
          "uint32, uint64, complex64, complex128, bool}") \
    .attr("padding: {'SAME', 'VALID'}").shape_fn(_patches_shape)


# -- Python API -----------------------------------------------------------------------------


def crop_and_resize(image: Any, boxes: Any, box_ind: Any = None, crop_size: Any = None,
                    method: str = "bilinear", extrapolation_value: float = 0,
                    name: str | None = None, box_indices: Any = None) -> ops_lib.Tensor:
    """Crops the normalized ``boxes`` out of ``image`` and resizes each to ``crop_size``."""
    if box_ind is not None and box_indices is not None:
        raise ValueError("Cannot specify both 'box_indices' and 'box_ind'")
    if box_indices is not None:
        box_ind = box_indices
    return apply_op("CropAndResize", name=name, image=image, boxes=boxes, box_ind=box_ind,
                    crop_size=crop_size, method=method,
                    extrapolation_value=extrapolation_value).outputs[0]


def non_max_suppression(boxes: Any, scores: Any, max_output_size: Any,
                        iou_threshold: Any = 0.5, score_threshold: Any = float("-inf"),
                        name: str | None = None) -> ops_lib.Tensor:
    """Indices of the boxes greedy non-max suppression keeps (NonMaxSuppressionV3)."""
    with ops_lib.name_scope(name, "non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        return apply_op("NonMaxSuppressionV3", boxes=boxes, scores=scores,
                        max_output_size=max_output_size, iou_threshold=iou_threshold,
                        score_threshold=score_threshold).outputs[0]


def non_max_suppression_with_scores(boxes: Any, scores: Any, max_output_size: Any,
                                    iou_threshold: Any = 0.5,
                                    score_threshold: Any = float("-inf"),
                                    soft_nms_sigma: Any = 0.0,
                                    name: str | None = None) -> tuple:
    """(indices, scores) of (soft) non-max suppression (NonMaxSuppressionV5)."""
    with ops_lib.name_scope(name, "non_max_suppression_with_scores"):
        iou_threshold = convert_to_tensor(iou_threshold, name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, name="score_threshold")
        soft_nms_sigma = convert_to_tensor(soft_nms_sigma, name="soft_nms_sigma")
        outputs = apply_op("NonMaxSuppressionV5", boxes=boxes, scores=scores,
                           max_output_size=max_output_size, iou_threshold=iou_threshold,
                           score_threshold=score_threshold, soft_nms_sigma=soft_nms_sigma,
                           pad_to_max_output_size=False).outputs
        return outputs[0], outputs[1]


def non_max_suppression_overlaps(overlaps: Any, scores: Any, max_output_size: Any,
                                 overlap_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"),
                                 name: str | None = None) -> ops_lib.Tensor:
    """Greedy non-max suppression over a precomputed ``overlaps`` matrix."""
    with ops_lib.name_scope(name, "non_max_suppression_overlaps"):
        overlap_threshold = convert_to_tensor(overlap_threshold, name="overlap_threshold")
        return apply_op("NonMaxSuppressionWithOverlaps", overlaps=overlaps, scores=scores,
                        max_output_size=max_output_size, overlap_threshold=overlap_threshold,
                        score_threshold=score_threshold).outputs[0]


def combined_non_max_suppression(boxes: Any, scores: Any, max_output_size_per_class: Any,
                                 max_total_size: Any, iou_threshold: Any = 0.5,
                                 score_threshold: Any = float("-inf"),
                                 pad_per_class: bool = False, clip_boxes: bool = True,
                                 name: str | None = None) -> tuple:
    """Per-class non-max suppression over a batch, merged and sorted by score."""
    with ops_lib.name_scope(name, "combined_non_max_suppression"):
        iou_threshold = convert_to_tensor(iou_threshold, dtype=dtypes_lib.float32,
                                          name="iou_threshold")
        score_threshold = convert_to_tensor(score_threshold, dtype=dtypes_lib.float32,
                                            name="score_threshold")
        max_total_size = convert_to_tensor(max_total_size)
        return op_outputs(apply_op(
            "CombinedNonMaxSuppression", boxes=boxes, scores=scores,
            max_output_size_per_class=max_output_size_per_class,
            max_total_size=max_total_size, iou_threshold=iou_threshold,
            score_threshold=score_threshold, pad_per_class=pad_per_class,
            clip_boxes=clip_boxes))


def draw_bounding_boxes(images: Any, boxes: Any, name: str | None = None,
                        colors: Any = None) -> ops_lib.Tensor:
    """Draws the outlines of ``boxes`` on ``images`` (DrawBoundingBoxes/V2)."""
    if colors is None:
        return apply_op("DrawBoundingBoxes", name=name, images=images, boxes=boxes).outputs[0]
    return apply_op("DrawBoundingBoxesV2", name=name, images=images, boxes=boxes,
                    colors=colors).outputs[0]


def sample_distorted_bounding_box(image_size: Any, bounding_boxes: Any,
                                  seed: int | None = None, seed2: int | None = None,
                                  min_object_covered: Any = 0.1,
                                  aspect_ratio_range: Any = None, area_range: Any = None,
                                  max_attempts: int | None = None,
                                  use_image_if_no_bounding_boxes: bool | None = None,
                                  name: str | None = None) -> tuple:
    """(begin, size, bboxes) of a random crop covering enough of one of the boxes."""
    attrs = {k: v for k, v in (("seed", seed), ("seed2", seed2),
                               ("aspect_ratio_range", aspect_ratio_range),
                               ("area_range", area_range), ("max_attempts", max_attempts),
                               ("use_image_if_no_bounding_boxes",
                                use_image_if_no_bounding_boxes)) if v is not None}
    with ops_lib.name_scope(name, "sample_distorted_bounding_box"):
        return op_outputs(apply_op("SampleDistortedBoundingBoxV2", name=name,
                                   image_size=image_size, bounding_boxes=bounding_boxes,
                                   min_object_covered=min_object_covered, **attrs))


def extract_glimpse(input: Any, size: Any, offsets: Any, centered: bool = True,  # noqa: A002
                    normalized: bool = True, uniform_noise: bool = True,
                    name: str | None = None) -> ops_lib.Tensor:
    """Windows of ``size`` from each image at ``offsets`` (ExtractGlimpse)."""
    return apply_op("ExtractGlimpse", name=name, input=input, size=size, offsets=offsets,
                    centered=centered, normalized=normalized,
                    uniform_noise=uniform_noise).outputs[0]


def extract_image_patches(images: Any, ksizes: Any = None, strides: Any = None,
                          rates: Any = None, padding: Any = None, name: str | None = None,
                          sizes: Any = None) -> ops_lib.Tensor:
    """Patches of ``ksizes`` from ``images``, flattened into the depth axis."""
    ksizes = deprecated_argument_lookup("sizes", sizes, "ksizes", ksizes)
    return apply_op("ExtractImagePatches", name=name, images=images, ksizes=ksizes,
                    strides=strides, rates=rates, padding=padding).outputs[0]


def extract_patches(images: Any, sizes: Any, strides: Any, rates: Any, padding: Any,
                    name: str | None = None) -> ops_lib.Tensor:
    """TF2's spelling of extract_image_patches."""
    return apply_op("ExtractImagePatches", name=name, images=images, ksizes=sizes,
                    strides=strides, rates=rates, padding=padding).outputs[0]
