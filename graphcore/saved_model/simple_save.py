"""``simple_save``: a SavedModel for serving in one call (TF1's ``saved_model.simple_save``)."""

from __future__ import annotations

from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.saved_model import signature_constants, signature_def_utils, tag_constants
from graphcore.saved_model.builder import SavedModelBuilder

__all__ = ["simple_save"]


def simple_save(session: Any, export_dir: str, inputs: dict, outputs: dict,
                legacy_init_op: Any = None) -> None:
    """Writes ``session``'s graph and variables to ``export_dir`` as a SavedModel tagged
    ``serve`` with one Predict signature (``serving_default``) of ``inputs`` and
    ``outputs``, devices cleared and the ASSET_FILEPATHS collection as its assets."""
    signature_def_map = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            signature_def_utils.predict_signature_def(inputs, outputs)}
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session, tags=[tag_constants.SERVING], signature_def_map=signature_def_map,
        assets_collection=ops_lib.get_collection(ops_lib.GraphKeys.ASSET_FILEPATHS),
        main_op=legacy_init_op, clear_devices=True)
    builder.save()
