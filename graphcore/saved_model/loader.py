"""Loading a SavedModel into a session (TF1's ``saved_model.loader``): the MetaGraphDef
of a tag set is imported, its variables restored from ``variables/``, and its main op run
with the asset tensors fed their paths under ``assets/``."""

from __future__ import annotations

import os
from typing import Any

from google.protobuf import text_format

from graphcore.framework import ops as ops_lib
from graphcore.protobuf import meta_graph_pb2, saved_model_pb2
from graphcore.saved_model import constants
from graphcore.train import saver as saver_lib
from graphcore.train.meta_graph import prefixed_name

__all__ = ["contains_saved_model", "load", "maybe_saved_model_directory"]


def contains_saved_model(export_dir: Any) -> bool:
    """Whether ``export_dir`` holds a ``saved_model.pb`` or ``saved_model.pbtxt``."""
    export_dir = os.fspath(export_dir)
    return any(os.path.isfile(os.path.join(export_dir, name)) for name in (
        constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT))


maybe_saved_model_directory = contains_saved_model


def parse_saved_model(export_dir: str) -> saved_model_pb2.SavedModel:
    """The SavedModel proto of ``export_dir`` (binary first, then text)."""
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    saved_model = saved_model_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            try:
                saved_model.ParseFromString(f.read())
            except Exception as e:
                raise OSError(f"Cannot parse file {pb}: {e}.") from e
    elif os.path.isfile(pbtxt):
        with open(pbtxt) as f:
            try:
                text_format.Merge(f.read(), saved_model)
            except text_format.ParseError as e:
                raise OSError(f"Cannot parse file {pbtxt}: {e}.") from e
    else:
        raise OSError(f"SavedModel file does not exist at: {export_dir}{os.sep}"
                      f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|"
                      f"{constants.SAVED_MODEL_FILENAME_PB}}}")
    return saved_model


def _meta_graph_for(saved_model: saved_model_pb2.SavedModel,
                    tags: Any) -> meta_graph_pb2.MetaGraphDef:
    available = []
    for meta in saved_model.meta_graphs:
        available.append(set(meta.meta_info_def.tags))
        if set(meta.meta_info_def.tags) == set(tags):
            return meta
    raise RuntimeError(f"MetaGraphDef associated with tags {str(tags).strip('[]')} could not "
                       f"be found in SavedModel, with available tags '{available}'. To "
                       "inspect available tag-sets in the SavedModel, please use the "
                       "SavedModel CLI: `saved_model_cli`.")


def _asset_feeds(export_dir: str, meta: meta_graph_pb2.MetaGraphDef,
                 import_scope: str | None) -> dict:
    assets = list(meta.asset_file_def)
    if not assets and constants.ASSETS_KEY in meta.collection_def:
        for packed in meta.collection_def[constants.ASSETS_KEY].any_list.value:
            if packed.type_url.rpartition("/")[2] not in ("tensorflow.AssetFileDef",
                                                            "graphcore.AssetFileDef"):
                raise ValueError(f"The assets collection holds a {packed.type_url}, not an "
                                 "AssetFileDef")
            assets.append(meta_graph_pb2.AssetFileDef.FromString(packed.value))
    directory = os.path.join(export_dir, constants.ASSETS_DIRECTORY)
    return {prefixed_name(a.tensor_info.name, import_scope):
            os.path.join(directory, a.filename).encode() for a in assets}


def _init_op(meta: meta_graph_pb2.MetaGraphDef, import_scope: str | None) -> Any:
    graph = ops_lib.get_default_graph()
    if constants.INIT_OP_SIGNATURE_KEY in meta.signature_def:
        outputs = meta.signature_def[constants.INIT_OP_SIGNATURE_KEY].outputs
        name = outputs[constants.INIT_OP_SIGNATURE_KEY].name
        return graph.as_graph_element(prefixed_name(name, import_scope))
    for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
        if key in meta.collection_def:
            names = meta.collection_def[key].node_list.value
            if len(names) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel init op. Found "
                                   f"{len(names)}: {names}.")
            return ops_lib.get_collection(key)[0]
    return None


def load(sess: Any, tags: Any, export_dir: Any, import_scope: str | None = None,
         **saver_kwargs: Any) -> meta_graph_pb2.MetaGraphDef:
    """Imports the MetaGraphDef tagged ``tags`` from the SavedModel in ``export_dir``
    into ``sess``'s graph, restores its variables and runs its main op; returns the
    MetaGraphDef."""
    export_dir = os.fspath(export_dir)
    saved_model = parse_saved_model(export_dir)
    meta = _meta_graph_for(saved_model, tags)
    with sess.graph.as_default():
        saver = saver_lib.import_meta_graph(meta, import_scope=import_scope,
                                            **saver_kwargs)
        if saver is not None:
            saver.restore(sess, os.path.join(export_dir, constants.VARIABLES_DIRECTORY,
                                             constants.VARIABLES_FILENAME))
        init_op = _init_op(meta, import_scope)
        if init_op is not None:
            sess.run([init_op], feed_dict=_asset_feeds(export_dir, meta, import_scope))
    return meta
