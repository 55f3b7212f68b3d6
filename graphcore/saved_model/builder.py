"""``SavedModelBuilder``: writes a SavedModel directory — ``saved_model.pb`` (one
MetaGraphDef per tag set, with SignatureDefs), ``variables/`` (a V2 checkpoint of the
variables) and ``assets/`` — that TF's loaders and TF Serving read."""

from __future__ import annotations

import os
import shutil
from typing import Any

from google.protobuf import any_pb2, text_format

from graphcore.framework import dtypes
from graphcore.framework import ops as ops_lib
from graphcore.platform import tf_logging
from graphcore.protobuf import meta_graph_pb2, saved_model_pb2
from graphcore.protobuf.saver_pb2 import SaverDef
from graphcore.saved_model import constants
from graphcore.train import saver as saver_lib

__all__ = ["SavedModelBuilder"]


def _asset_path(tensor: Any) -> bytes:
    if not isinstance(tensor, ops_lib.Tensor):
        raise TypeError(f"Asset path tensor {tensor} must be a Tensor.")
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor {tensor} must be of type constant.Has type "
                        f"{tensor.op.type} instead.")
    if tensor.dtype != dtypes.string:
        raise TypeError(f"Asset path tensor {tensor}` must be of dtype string.Has type "
                        f"{tensor.dtype} instead.")
    values = tensor.op.get_attr("value").string_val
    if len(values) != 1:
        raise TypeError(f"Asset path tensor {tensor} must be a scalar.")
    return values[0]


def _validate_tensor_info(info: meta_graph_pb2.TensorInfo) -> None:
    if info.WhichOneof("encoding") is None:
        raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in "
                             "the SignatureDefs must have one of the 'encoding' fields "
                             "(e.g., name or coo_sparse) set.")
    if info.WhichOneof("encoding") != "composite_tensor" and info.dtype == 0:  # DT_INVALID
        raise AssertionError(f"Invalid `tensor_info`: {info}. All TensorInfo protos used in "
                             "the SignatureDefs must have the dtype field set.")


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist or be empty): the
    first MetaGraphDef comes with the variables (``add_meta_graph_and_variables``),
    more tag sets over the same variables with ``add_meta_graph``; ``save`` writes
    ``saved_model.pb``."""

    def __init__(self, export_dir: str):
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION)
        self._export_dir = os.fspath(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. "
                    "Please choose a different export directory, or delete all the contents "
                    "of the specified directory.")
        else:
            os.makedirs(self._export_dir)
        self._has_saved_variables = False
        self._saved_asset_files: set[str] = set()

    def _save_and_write_assets(self, assets_collection: Any) -> None:
        filename_map: dict[bytes, bytes] = {}
        for tensor in assets_collection or []:
            source = _asset_path(tensor)
            if not source:
                raise ValueError(f"Asset filepath tensor {tensor} in is invalid.")
            basename = os.path.basename(source)
            name, i = basename, 1
            while name in filename_map and filename_map[name] != source:
                name = b"_".join([basename, str(i).encode()])
                i += 1
            asset = meta_graph_pb2.AssetFileDef(filename=name.decode())
            asset.tensor_info.name = tensor.name
            ops_lib.add_to_collection(constants.ASSETS_KEY, any_pb2.Any(
                type_url=constants.ASSET_FILE_DEF_TYPE_URL, value=asset.SerializeToString()))
            filename_map[name] = source
        if not filename_map:
            return
        assets_dir = os.path.join(self._export_dir, constants.ASSETS_DIRECTORY)
        os.makedirs(assets_dir, exist_ok=True)
        for name, source in filename_map.items():
            destination = os.path.join(assets_dir, name.decode())
            if os.path.exists(source) and os.path.abspath(source.decode()) != \
                    os.path.abspath(destination) and destination not in self._saved_asset_files:
                shutil.copyfile(source, destination)
                self._saved_asset_files.add(destination)

    def _add_collections(self, assets_collection: Any, main_op: Any) -> None:
        self._save_and_write_assets(assets_collection)
        if main_op is None:
            return
        if not isinstance(main_op, ops_lib.Operation):
            raise TypeError(f"Expected {main_op} to be an Operation but got type "
                            f"{type(main_op)} instead.")
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            if ops_lib.get_collection(key):
                raise ValueError("Graph already contains one or more main ops under the "
                                 f"collection {key}.")
        ops_lib.add_to_collection(constants.MAIN_OP_KEY, main_op)

    @staticmethod
    def _validate_signature_def_map(signature_def_map: dict) -> None:
        for signature in signature_def_map.values():
            for info in list(signature.inputs.values()) + list(signature.outputs.values()):
                _validate_tensor_info(info)
        for key in (constants.INIT_OP_SIGNATURE_KEY, "__saved_model_train_op"):
            if key in signature_def_map:
                raise KeyError(f'SignatureDef map key "{key}" is reserved. Please use a '
                               "different key.")

    @staticmethod
    def _maybe_create_saver(saver: Any) -> saver_lib.Saver:
        return saver or saver_lib.Saver(sharded=True, write_version=SaverDef.V2,
                                        allow_empty=True)

    def _tag_and_add_meta_graph(self, meta_graph_def: Any, tags: Any,
                                signature_def_map: dict) -> None:
        meta_graph_def.meta_info_def.tags.extend(tags)
        for key, signature in signature_def_map.items():
            meta_graph_def.signature_def[key].CopyFrom(signature)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    def add_meta_graph_and_variables(self, sess: Any, tags: Any,
                                     signature_def_map: dict | None = None,
                                     assets_collection: Any = None,
                                     legacy_init_op: Any = None, clear_devices: bool = False,
                                     main_op: Any = None, strip_default_attrs: bool = False,
                                     saver: Any = None) -> None:
        """Saves ``sess``'s variables under ``variables/`` and adds the graph's
        MetaGraphDef tagged ``tags`` with ``signature_def_map``, the assets and the main
        op (run after the restore when the model is loaded)."""
        if self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        self._add_collections(assets_collection, main_op or legacy_init_op)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        saver = self._maybe_create_saver(saver)
        saver.save(sess, os.path.join(variables_dir, constants.VARIABLES_FILENAME),
                   write_meta_graph=False, write_state=False)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def add_meta_graph(self, tags: Any, signature_def_map: dict | None = None,
                       assets_collection: Any = None, legacy_init_op: Any = None,
                       clear_devices: bool = False, main_op: Any = None,
                       strip_default_attrs: bool = False, saver: Any = None) -> None:
        """Adds another MetaGraphDef over the variables already saved."""
        if not self._has_saved_variables:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        signature_def_map = signature_def_map or {}
        self._validate_signature_def_map(signature_def_map)
        self._add_collections(assets_collection, main_op or legacy_init_op)
        saver = self._maybe_create_saver(saver)
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices,
                                                 strip_default_attrs=strip_default_attrs)
        self._tag_and_add_meta_graph(meta_graph_def, tags, signature_def_map)

    def save(self, as_text: bool = False) -> bytes:
        """Writes ``saved_model.pb`` (or ``.pbtxt``); returns its path."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model).encode()
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
        tf_logging.info("SavedModel written to: %s", path)
        return path.encode()
