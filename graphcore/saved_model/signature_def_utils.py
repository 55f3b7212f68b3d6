"""SignatureDefs: named inputs and outputs of a MetaGraphDef for serving (TF's
``saved_model.signature_def_utils``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import dtypes
from graphcore.protobuf import meta_graph_pb2
from graphcore.saved_model import signature_constants as sc
from graphcore.saved_model import utils

__all__ = ["build_signature_def", "classification_signature_def", "is_valid_signature",
           "predict_signature_def", "regression_signature_def"]


def build_signature_def(inputs: dict | None = None, outputs: dict | None = None,
                        method_name: str | None = None) -> meta_graph_pb2.SignatureDef:
    """A SignatureDef of TensorInfo maps ``inputs`` and ``outputs`` and ``method_name``."""
    signature = meta_graph_pb2.SignatureDef()
    for field, infos in (("inputs", inputs), ("outputs", outputs)):
        for key, info in (infos or {}).items():
            getattr(signature, field)[key].CopyFrom(info)
    if method_name is not None:
        signature.method_name = method_name
    return signature


def _string_input(examples: Any, what: str) -> None:
    if examples is None:
        raise ValueError(f"{what} examples cannot be None.")
    if getattr(examples, "dtype", None) != dtypes.string:
        raise ValueError(f"{what} input tensors must be of type string. Found tensors with "
                         f"type {getattr(examples, 'dtype', None)}.")


def regression_signature_def(examples: Any, predictions: Any) -> meta_graph_pb2.SignatureDef:
    """The Regress API's SignatureDef: serialized Examples in, float predictions out."""
    _string_input(examples, "Regression")
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    if predictions.dtype != dtypes.float32:
        raise ValueError("Regression output tensors must be of type float32. Found tensors "
                         f"with type {predictions.dtype}.")
    return build_signature_def(
        {sc.REGRESS_INPUTS: utils.build_tensor_info(examples)},
        {sc.REGRESS_OUTPUTS: utils.build_tensor_info(predictions)}, sc.REGRESS_METHOD_NAME)


def classification_signature_def(examples: Any, classes: Any,
                                 scores: Any) -> meta_graph_pb2.SignatureDef:
    """The Classify API's SignatureDef: serialized Examples in, string classes and/or
    float scores out."""
    _string_input(examples, "Classification")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    outputs = {}
    if classes is not None:
        if classes.dtype != dtypes.string:
            raise ValueError("Classification classes must be of type string Tensor. Found "
                             f"tensors with type {classes.dtype}.")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = utils.build_tensor_info(classes)
    if scores is not None:
        if scores.dtype != dtypes.float32:
            raise ValueError("Classification scores must be a float32 Tensor. Found tensors "
                             f"with type {scores.dtype}.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = utils.build_tensor_info(scores)
    return build_signature_def({sc.CLASSIFY_INPUTS: utils.build_tensor_info(examples)},
                               outputs, sc.CLASSIFY_METHOD_NAME)


def predict_signature_def(inputs: dict, outputs: dict) -> meta_graph_pb2.SignatureDef:
    """The Predict API's SignatureDef of named input and output tensors."""
    if inputs is None or not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def(
        {key: utils.build_tensor_info(t) for key, t in inputs.items()},
        {key: utils.build_tensor_info(t) for key, t in outputs.items()},
        sc.PREDICT_METHOD_NAME)


def _is(info: meta_graph_pb2.TensorInfo, dtype: Any) -> bool:
    return info.dtype == dtype.as_datatype_enum


def is_valid_signature(signature_def: meta_graph_pb2.SignatureDef) -> bool:
    """Whether TF Serving can serve a SignatureDef: a Predict signature with inputs and
    outputs, or a Classify/Regress signature with their keys and dtypes."""
    if signature_def is None:
        return False
    inputs, outputs = signature_def.inputs, signature_def.outputs
    method = signature_def.method_name
    if method == sc.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    if method == sc.CLASSIFY_METHOD_NAME:
        typed = ((sc.CLASSIFY_OUTPUT_CLASSES, dtypes.string),
                 (sc.CLASSIFY_OUTPUT_SCORES, dtypes.float32))
        return (set(inputs) == {sc.CLASSIFY_INPUTS}
                and _is(inputs[sc.CLASSIFY_INPUTS], dtypes.string)
                and bool(outputs) and set(outputs) <= {k for k, _ in typed}
                and all(_is(outputs[k], d) for k, d in typed if k in outputs))
    if method == sc.REGRESS_METHOD_NAME:
        return (set(inputs) == {sc.REGRESS_INPUTS}
                and _is(inputs[sc.REGRESS_INPUTS], dtypes.string)
                and set(outputs) == {sc.REGRESS_OUTPUTS}
                and _is(outputs[sc.REGRESS_OUTPUTS], dtypes.float32))
    return False
