"""``tf.train.Saver``: TF1 name-based checkpoints of variables, in TensorFlow's V2 format.

``Saver()`` adds, under a ``save`` name scope, the graph TF1 builds::

    save/filename/input  Const "model"           save/SaveV2/tensor_names    Const
    save/filename        PlaceholderWithDefault  save/SaveV2/shape_and_slices Const
    save/Const           PlaceholderWithDefault  save/SaveV2  SaveV2(save/Const, ..., v, w)
    save/control_dependency  Identity(save/Const, ^save/SaveV2)
    save/RestoreV2 (+ its tensor_names / shape_and_slices Consts, on /device:CPU:0)
    save/Assign, save/Assign_1, ...   one per variable
    save/restore_all     NoOp(^save/Assign, ...)

``save()`` feeds the checkpoint prefix to ``save/Const`` and fetches
``save/control_dependency``; ``restore()`` feeds it and runs ``save/restore_all``.
Checkpoints are TensorFlow's V2 tensor bundles (``prefix.index`` and
``prefix.data-00000-of-00001``, see :mod:`graphcore.lib.io.checkpoint_format`), so
TensorFlow reads ours and we read its.  Every file, the ``checkpoint`` state file
included, is written to a temporary name, fsynced and renamed into place.

A partitioned variable's shards (variables with a SaveSliceInfo, or a
PartitionedVariable) are saved as slices of one checkpoint tensor named after the full
variable: SaveV2/RestoreV2 get each shard's ``shape_and_slices`` spec ("7 3 3,2:0,3"),
so a checkpoint restores into any partitioning of the variable, or into an
unpartitioned one, as TensorFlow's does.

``save`` also writes the graph's MetaGraphDef to ``prefix.meta`` (see
:mod:`graphcore.train.meta_graph`).  Besides variables it saves SaveableObjects (the
mutable lookup tables: ``<name>-keys``/``<name>-values``, as TF).  Not supported: the V1
format.
"""

from __future__ import annotations

import glob
import logging
import os
import re
import time
from typing import Any

import numpy as np
from google.protobuf import text_format

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import errors, tensor_shape
from graphcore.framework import ops as ops_lib
from graphcore.framework.saveable_object import SaveableObject
from graphcore.lib.io import checkpoint_format
from graphcore.ops import array_ops, control_flow_ops, io_ops, resource_variable_ops, state_ops
from graphcore.ops.variables import PartitionedVariable
from graphcore.protobuf import checkpoint_state_pb2, saver_pb2
from graphcore.train import meta_graph

__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "Saver",
    "import_meta_graph",
    "SaverDef",
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
    "remove_checkpoint",
    "update_checkpoint_state",
]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

SaverDef = saver_pb2.SaverDef
CheckpointState = checkpoint_state_pb2.CheckpointState


class _InvalidCheckpointError(errors.NotFoundError, ValueError):
    """No checkpoint at the path given to ``Saver.restore``.

    A NotFoundError, and also a ValueError: TensorFlow 1.x raised NotFoundError from
    RestoreV2 here, later versions raise ValueError with this message."""


# -- checkpoint management (tf.train.*) ------------------------------------------------------

def _checkpoint_filename(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def _fspath(path: Any) -> str:
    if isinstance(path, bytes):
        return path.decode()
    return os.fspath(path)


def meta_graph_filename(checkpoint_filename: str, meta_graph_suffix: str = "meta") -> str:
    """``prefix.meta`` (a sharded ``-?????-of-nnnnn`` suffix stripped first)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])


def generate_checkpoint_state_proto(save_dir: str, model_checkpoint_path: str,
                                    all_model_checkpoint_paths: list | None = None,
                                    all_model_checkpoint_timestamps: list | None = None,
                                    last_preserved_timestamp: float | None = None
                                    ) -> CheckpointState:
    """A CheckpointState; relative paths made relative to a relative ``save_dir``."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and \
            len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            f"Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{paths} and timestamps {all_model_checkpoint_timestamps})")
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(model_checkpoint_path=model_checkpoint_path,
                           all_model_checkpoint_paths=paths,
                           all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
                           last_preserved_timestamp=last_preserved_timestamp)


def _update_checkpoint_state(save_dir: str, model_checkpoint_path: str,
                             all_model_checkpoint_paths: list | None = None,
                             latest_filename: str | None = None,
                             save_relative_paths: bool = False,
                             all_model_checkpoint_timestamps: list | None = None,
                             last_preserved_timestamp: float | None = None) -> None:
    coord = _checkpoint_filename(save_dir, latest_filename)
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:
        if os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [os.path.relpath(p, save_dir) if os.path.isabs(p) else p for p in paths]
    ckpt = generate_checkpoint_state_proto(save_dir, model_checkpoint_path, paths,
                                           all_model_checkpoint_timestamps,
                                           last_preserved_timestamp)
    if coord == ckpt.model_checkpoint_path:
        raise RuntimeError(f"Save path '{model_checkpoint_path}' conflicts with path used for "
                           "checkpoint state.  Please use a different save path.")
    # Atomic: a temporary file in the same directory, fsynced, then renamed.
    checkpoint_format.atomic_write_bytes(coord, text_format.MessageToString(ckpt).encode())


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str,
                            all_model_checkpoint_paths: list | None = None,
                            latest_filename: str | None = None,
                            all_model_checkpoint_timestamps: list | None = None,
                            last_preserved_timestamp: float | None = None) -> None:
    """Writes ``save_dir/checkpoint`` (text CheckpointState), atomically."""
    _update_checkpoint_state(_fspath(save_dir), _fspath(model_checkpoint_path),
                             all_model_checkpoint_paths, latest_filename, False,
                             all_model_checkpoint_timestamps, last_preserved_timestamp)


def get_checkpoint_state(checkpoint_dir: Any, latest_filename: str | None = None
                         ) -> CheckpointState | None:
    """The CheckpointState in ``checkpoint_dir`` (relative paths joined to it), or None
    when there is no readable state file."""
    checkpoint_dir = _fspath(checkpoint_dir)
    coord = _checkpoint_filename(checkpoint_dir, latest_filename)
    if not os.path.exists(coord):
        return None
    try:
        with open(coord, encoding="utf-8") as f:
            content = f.read()
        ckpt = CheckpointState()
        text_format.Merge(content, ckpt)
    except (OSError, text_format.ParseError, UnicodeDecodeError) as e:
        _log.warning("%s: %s", type(e).__name__, e)
        _log.warning("%s: Checkpoint ignored", coord)
        return None
    if not ckpt.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(ckpt.model_checkpoint_path):
        ckpt.model_checkpoint_path = os.path.join(checkpoint_dir, ckpt.model_checkpoint_path)
    for i, p in enumerate(ckpt.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            ckpt.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return ckpt


def _v2_or_v1_exists(prefix: str) -> bool:
    return bool(glob.glob(checkpoint_format.index_filename(glob.escape(prefix)))
                or glob.glob(prefix))


def latest_checkpoint(checkpoint_dir: Any, latest_filename: str | None = None) -> str | None:
    """The prefix of the newest checkpoint recorded in ``checkpoint_dir``, or None."""
    ckpt = get_checkpoint_state(checkpoint_dir, latest_filename)
    if ckpt and ckpt.model_checkpoint_path:
        if _v2_or_v1_exists(ckpt.model_checkpoint_path):
            return ckpt.model_checkpoint_path
        _log.error("Couldn't match files for checkpoint %s", ckpt.model_checkpoint_path)
    return None


def checkpoint_exists(checkpoint_prefix: Any) -> bool:
    """Whether a checkpoint (V2 ``prefix.index``, or V1 files) exists at the prefix."""
    return _v2_or_v1_exists(_fspath(checkpoint_prefix))


def get_checkpoint_mtimes(checkpoint_prefixes: list) -> list[float]:
    """Modification times of the checkpoints' index files (missing ones skipped)."""
    out = []
    for prefix in checkpoint_prefixes:
        prefix = _fspath(prefix)
        for pattern in (checkpoint_format.index_filename(glob.escape(prefix)), prefix):
            matches = glob.glob(pattern)
            if matches:
                out.append(os.stat(matches[0]).st_mtime)
                break
    return out


def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: int = SaverDef.V2,
                      meta_graph_suffix: str = "meta") -> None:
    """Deletes a checkpoint's index, data and meta graph files."""
    checkpoint_prefix = _fspath(checkpoint_prefix)
    patterns = [glob.escape(meta_graph_filename(checkpoint_prefix, meta_graph_suffix))]
    if checkpoint_format_version == SaverDef.V2:
        escaped = glob.escape(checkpoint_prefix)
        patterns += [escaped + ".index", escaped + ".data-?????-of-?????"]
    else:
        patterns.append(glob.escape(checkpoint_prefix))
    for pattern in patterns:
        for path in glob.glob(pattern):
            try:
                os.remove(path)
            except OSError as e:
                _log.warning("Ignoring: %s", e)


# -- reading checkpoints ---------------------------------------------------------------------

class CheckpointReader:
    """``tf.train.NewCheckpointReader``: the tensors of one checkpoint by name."""

    def __init__(self, prefix: Any):
        self._prefix = _fspath(prefix)
        self._reader = checkpoint_format.BundleReader(self._prefix)

    def has_tensor(self, name: str) -> bool:
        return name in self._reader

    def get_tensor(self, name: str) -> Any:
        value = self._reader.read(name)
        return value[()] if value.ndim == 0 and value.dtype == object else value

    def get_variable_to_shape_map(self) -> dict[str, list[int]]:
        return {k: list(self._reader.shape(k)) for k in self._reader.variable_keys()}

    def get_variable_to_dtype_map(self) -> dict[str, dtypes_lib.DType]:
        return {k: self._reader.dtype(k) for k in self._reader.variable_keys()}

    def debug_string(self) -> bytes:
        lines = []
        for k in self._reader.variable_keys():
            dt = dtypes_lib.as_dtype(self._reader.entry(k).dtype)
            dims = ",".join(str(d) for d in self._reader.shape(k))
            lines.append(f"{k} (DT_{dt.name.upper()}) [{dims}]\n")
        return "".join(lines).encode()


def NewCheckpointReader(filepattern: Any) -> CheckpointReader:  # noqa: N802 - TF's name
    return CheckpointReader(filepattern)


def _checkpoint_file(ckpt_dir_or_file: Any) -> str | None:
    path = _fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        return latest_checkpoint(path)
    return path


def load_checkpoint(ckpt_dir_or_file: Any) -> CheckpointReader:
    """A CheckpointReader of a checkpoint prefix, or of the latest one in a directory."""
    filename = _checkpoint_file(ckpt_dir_or_file)
    if filename is None:
        raise ValueError("Couldn't find 'checkpoint' file or checkpoints in given directory "
                         f"{ckpt_dir_or_file}")
    return CheckpointReader(filename)


def load_variable(ckpt_dir_or_file: Any, name: str) -> Any:
    """The value of ``name`` (``:0`` suffix allowed) in a checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file: Any) -> list[tuple[str, list[int]]]:
    """(name, shape) of every tensor in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


# -- what to save ----------------------------------------------------------------------------

class _VarSpec:
    """One variable to save: its checkpoint key, its ref tensor (or, for a resource
    variable, its handle) and, for a shard of a partitioned variable, its slice spec."""

    def __init__(self, name: str, ref: ops_lib.Tensor, source: Any, slice_spec: str = ""):
        self.name = name
        self.ref = ref
        self.source = source
        self.slice_spec = slice_spec
        self.is_resource = ref.dtype == dtypes_lib.resource
        if self.is_resource:
            self.dtype = ref.op.get_attr("dtype")
            self.shape = resource_variable_ops.handle_shape(ref)
        else:
            self.dtype = ref.dtype.base_dtype
            self.shape = ref.get_shape()
        self.device = ref.device

    def value(self) -> ops_lib.Tensor:
        """The tensor SaveV2 writes: the ref itself, or a read of the resource."""
        if self.is_resource:
            with ops_lib.device(self.device):
                return resource_variable_ops.read_variable_op(self.ref, self.dtype)
        return self.ref

    def assign(self, tensor: ops_lib.Tensor, validate_shape: bool) -> Any:
        if self.is_resource:
            self.shape.assert_is_compatible_with(tensor.shape)
            return resource_variable_ops.assign_variable_op(self.ref, tensor)
        return state_ops.assign(self.ref, tensor, validate_shape=validate_shape)


class _SaveableSpec:
    """One tensor of a SaveableObject (a mutable table's keys or values): saved like a
    variable, restored through its owner's ``restore`` once all its tensors are read."""

    is_resource = False

    def __init__(self, saveable: SaveableObject, index: int):
        spec = saveable.specs[index]
        self.saveable, self.index = saveable, index
        self.name = spec.name
        self.slice_spec = spec.slice_spec
        self._spec = spec
        handle = getattr(saveable.op, "resource_handle", None)
        self.ref = handle if handle is not None else spec.tensor
        self.dtype = spec.dtype
        self.shape = tensor_shape.unknown_shape()
        self.device = spec.device or ""

    def value(self) -> ops_lib.Tensor:
        return self._spec.tensor


def _as_ref(var: Any) -> ops_lib.Tensor:
    if hasattr(var, "_ref") and callable(var._ref):
        ref = var._ref()
    elif isinstance(var, ops_lib.Tensor):
        ref = var
    else:
        raise TypeError(f"Variable to save is not a Variable: {var!r}")
    if ref.op.type not in ("VariableV2", "Variable", "AutoReloadVariable", "VarHandleOp"):
        raise TypeError(f"names_to_saveables must be a dict mapping string names to Tensors/"
                        f"Variables. Not a variable: {var}")
    return ref


def _flatten(values: list) -> list:
    out = []
    for v in values:
        out.extend(_flatten(list(v)) if isinstance(v, (list, tuple)) else [v])
    return out


def _slice_info(var: Any) -> Any:
    get = getattr(var, "_get_save_slice_info", None)
    return get() if get is not None else None


def _op_list_to_dict(var_list: list) -> dict[str, Any]:
    """TF's op_list_to_dict: a variable's key is its op name; a PartitionedVariable's
    its name; shards (variables with a SaveSliceInfo) are grouped under the full
    variable's name."""
    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {var_list}")
    out: dict[str, Any] = {}
    for var in sorted(_flatten(list(var_list)), key=lambda x: x.name):
        if isinstance(var, PartitionedVariable):
            if var.name in out:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            out[var.name] = var
        elif _slice_info(var) is not None:
            name = _slice_info(var).full_name
            if name in out and not isinstance(out[name], list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            out.setdefault(name, []).append(var)
        elif isinstance(var, SaveableObject):
            if var.name in out:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            out[var.name] = var
        else:
            name = _as_ref(var).op.name
            if name in out:
                raise ValueError(f"At least two variables have the same name: {name}")
            out[name] = var
    return out


def _specs_of(name: str, var: Any) -> list[_VarSpec]:
    """The _VarSpecs saving ``var`` under ``name``: one, or one per slice."""
    if not isinstance(var, (list, tuple, PartitionedVariable)):
        return [_VarSpec(name, _as_ref(var), var)]
    specs = []
    full_name = None
    for shard in var:
        info = _slice_info(shard)
        if info is None:
            raise ValueError(f"Slices must all be slices: {shard}")
        if full_name is None:
            full_name = info.full_name
        elif full_name != info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {full_name} != "
                             f"{info.full_name}")
        specs.append(_VarSpec(name, _as_ref(shard), shard, info.spec))
    return specs


def _specs(names_to_saveables: Any) -> list[_VarSpec]:
    if not isinstance(names_to_saveables, dict):
        names_to_saveables = _op_list_to_dict(list(names_to_saveables))
    specs = []
    seen: set[int] = set()
    for name, var in sorted(names_to_saveables.items(), key=lambda x: x[0]):
        if not isinstance(name, str):
            raise TypeError(f"names_to_saveables must be a dict mapping string names to "
                            f"checkpointable objects. Name is not a string: {name}")
        if isinstance(var, SaveableObject):
            if id(var) in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(id(var))
            specs.extend(_SaveableSpec(var, i) for i in range(len(var.specs)))
            continue
        for spec in _specs_of(name, var):
            if id(spec.ref.op) in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(id(spec.ref.op))
            specs.append(spec)
    return specs


def _global_step_value(sess: Any, global_step: Any) -> int:
    return int(sess.run(global_step))


# -- the Saver ---------------------------------------------------------------------------------

class Saver:
    """Saves and restores variables (TF1 ``tf.train.Saver``).

    ``save(sess, prefix, global_step=...)`` writes ``prefix-<step>.index`` and
    ``prefix-<step>.data-00000-of-00001``, records it in ``<dir>/checkpoint``, and
    deletes the oldest checkpoint beyond ``max_to_keep`` (0/None: keep all).
    """

    def __init__(self, var_list: Any = None, reshape: bool = False, sharded: bool = False,
                 max_to_keep: int | None = 5, keep_checkpoint_every_n_hours: float = 10000.0,
                 name: str | None = None, restore_sequentially: bool = False,
                 saver_def: SaverDef | None = None, builder: Any = None,
                 defer_build: bool = False, allow_empty: bool = False,
                 write_version: int = SaverDef.V2, pad_step_number: bool = False,
                 save_relative_paths: bool = False, filename: str | None = None):
        if defer_build and var_list:
            raise ValueError("If `var_list` is provided then build cannot be deferred. Either "
                             "set defer_build=False or var_list=None.")
        if builder is not None:
            raise NotImplementedError("Saver(builder=...) is not supported")
        if write_version != SaverDef.V2:
            raise NotImplementedError("Only the V2 checkpoint format is supported "
                                      "(write_version=tf.train.SaverDef.V2)")
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially  # V2 restores in one op anyway
        self.saver_def = saver_def
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty: bool | None = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints: list[tuple[str, float]] = []
        self._checkpoints_to_be_deleted: list[tuple[str, float]] = []
        self._save_relative_paths = save_relative_paths
        self._next_checkpoint_time = 0.0
        if not defer_build:
            self.build()
        if self.saver_def is not None:
            self._check_saver_def()

    # -- building ---------------------------------------------------------------------
    def build(self) -> None:
        """Adds the save and restore ops (once)."""
        if self._is_built:
            return
        self._is_built = True
        if self.saver_def is None:
            if self._var_list is None:
                graph = ops_lib.get_default_graph()
                self._var_list = (graph.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES)
                                  + graph.get_collection(
                                      ops_lib.GraphKeys.SAVEABLE_OBJECTS))
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._build_graph(_specs(self._var_list))
        else:
            self._is_empty = False
            if self._name:
                for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
                    setattr(self.saver_def, field,
                            f"{self._name}/{getattr(self.saver_def, field)}")
        self._check_saver_def()
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600)

    def _check_saver_def(self) -> None:
        if not isinstance(self.saver_def, SaverDef):
            raise ValueError(f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def _build_graph(self, specs: list[_VarSpec]) -> SaverDef:
        graph = specs[0].ref.graph
        max_to_keep = self._max_to_keep or 0
        with graph.as_default(), \
                ops_lib.name_scope(self._name, "save", [s.ref for s in specs]):
            filename = array_ops.placeholder_with_default(
                self._filename or "model", shape=(), name="filename")
            # Keep the name "Const" for backwards compatibility (TF's comment).
            filename = array_ops.placeholder_with_default(filename, shape=(), name="Const")
            if self._sharded:
                save_tensor = self._add_sharded_save(filename, specs)
                restore_op = self._add_sharded_restore(filename, specs)
            else:
                save_tensor = self._add_save(filename, specs)
                restore_op = self._add_restore(filename, specs, "restore_all")
        return SaverDef(filename_tensor_name=filename.name, save_tensor_name=save_tensor.name,
                        restore_op_name=restore_op.name, max_to_keep=max_to_keep,
                        sharded=self._sharded,
                        keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                        version=self._write_version)

    @staticmethod
    def _save_op(filename: ops_lib.Tensor, specs: list[_VarSpec]) -> ops_lib.Operation:
        return io_ops.save_v2(filename, [s.name for s in specs],
                              [s.slice_spec for s in specs], [s.value() for s in specs])

    def _add_save(self, filename: ops_lib.Tensor, specs: list[_VarSpec]) -> ops_lib.Tensor:
        save = self._save_op(filename, specs)
        return control_flow_ops.with_dependencies([save], filename)

    def _add_restore(self, filename: ops_lib.Tensor, specs: list[_VarSpec],
                     name: str) -> ops_lib.Operation:
        with ops_lib.device("cpu:0"):
            restored = io_ops.restore_v2(filename, [s.name for s in specs],
                                         [s.slice_spec for s in specs],
                                         [s.dtype for s in specs])
        assigns = []
        saveables: dict[int, tuple[SaveableObject, dict]] = {}
        for spec, tensor in zip(specs, restored):
            if isinstance(spec, _SaveableSpec):
                saveables.setdefault(id(spec.saveable), (spec.saveable, {}))[1][
                    spec.index] = tensor
                continue
            shape = spec.shape
            if self._reshape:
                target = shape if shape.is_fully_defined() else array_ops.shape(spec.value())
                if shape.is_fully_defined():
                    target = shape.as_list()
                tensor = array_ops.reshape(tensor, target)
                validate = False
            else:
                validate = shape.is_fully_defined()
            assigns.append(spec.assign(tensor, validate))
        for saveable, tensors in saveables.values():
            assigns.append(saveable.restore([tensors[i] for i in sorted(tensors)], None))
        return control_flow_ops.group(*assigns, name=name)

    @staticmethod
    def _group_by_devices(specs: list[_VarSpec]) -> list[tuple[str, list[_VarSpec]]]:
        per_device: dict[str, list[_VarSpec]] = {}
        for spec in specs:
            per_device.setdefault(spec.device or "", []).append(spec)
        return sorted(per_device.items(), key=lambda t: t[0])

    def _add_sharded_save(self, filename: ops_lib.Tensor,
                          specs: list[_VarSpec]) -> ops_lib.Tensor:
        """One SaveV2 per device into ``<prefix>-0000i-of-0000n`` (TF writes
        ``<prefix>_temp/part-...``; without a StringJoin op we use ShardedFilename of the
        prefix itself), then MergeV2Checkpoints into ``<prefix>``."""
        per_device = self._group_by_devices(specs)
        num_shards = array_ops.constant(len(per_device), name="num_shards")
        sharded_saves = []
        sharded_prefixes = []
        last_device = ""
        for shard, (device, dev_specs) in enumerate(per_device):
            last_device = device
            with ops_lib.device(_cpu0(device)):
                prefix = io_ops.sharded_filename(filename, shard, num_shards)
                sharded_prefixes.append(prefix)
                sharded_saves.append(self._add_save(prefix, dev_specs))
        with ops_lib.control_dependencies([t.op for t in sharded_saves]):
            with ops_lib.device(_cpu0(last_device)):
                merge = io_ops.merge_v2_checkpoints(array_ops.stack(sharded_prefixes),
                                                    filename, delete_old_dirs=True)
                with ops_lib.control_dependencies([merge]):
                    return array_ops.identity(filename)

    def _add_sharded_restore(self, filename: ops_lib.Tensor,
                             specs: list[_VarSpec]) -> ops_lib.Operation:
        restores = []
        for device, dev_specs in self._group_by_devices(specs):
            with ops_lib.device(device or None):
                restores.append(self._add_restore(filename, dev_specs, "restore_shard"))
        return control_flow_ops.group(*restores, name="restore_all")

    # -- bookkeeping ------------------------------------------------------------------
    @property
    def last_checkpoints(self) -> list[str]:
        """The kept checkpoints, oldest first."""
        return [p[0] for p in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints: list[str]) -> None:
        if not isinstance(last_checkpoints, list):
            raise TypeError("last_checkpoints must be a list.")
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time: list) -> None:
        if not isinstance(last_checkpoints_with_time, list):
            raise TypeError("last_checkpoints_with_time must be a list.")
        self._last_checkpoints = list(last_checkpoints_with_time)

    def recover_last_checkpoints(self, checkpoint_paths: list[str]) -> None:
        """Adopts existing checkpoints (e.g. ``get_checkpoint_state(...)
        .all_model_checkpoint_paths``) as this saver's, with their mtimes."""
        with_times = []
        for path in checkpoint_paths:
            mtimes = get_checkpoint_mtimes([path])
            if mtimes:
                with_times.append((path, mtimes[0]))
        self.set_last_checkpoints_with_time(with_times)

    def as_saver_def(self) -> SaverDef:
        return self.saver_def

    def to_proto(self, export_scope: str | None = None) -> SaverDef | None:
        if export_scope is None:
            return self.saver_def
        names = (self.saver_def.filename_tensor_name, self.saver_def.save_tensor_name,
                 self.saver_def.restore_op_name)
        if not all(n.startswith(export_scope) for n in names):
            return None
        out = SaverDef()
        out.CopyFrom(self.saver_def)
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            value = getattr(out, field)
            setattr(out, field, re.sub(rf"^{re.escape(export_scope)}/", "", value))
        return out

    @staticmethod
    def from_proto(saver_def: SaverDef, import_scope: str | None = None) -> Saver:
        return Saver(saver_def=saver_def, name=import_scope)

    def _record_last_checkpoint(self, latest_save_path: str) -> None:
        if not self.saver_def.max_to_keep:
            return
        for p in self._last_checkpoints[:]:
            if latest_save_path == p[0]:
                self._last_checkpoints.remove(p)
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _maybe_delete_old_checkpoints(self, meta_graph_suffix: str = "meta") -> None:
        if self._checkpoints_to_be_deleted:
            p = self._checkpoints_to_be_deleted.pop(0)
            # keep_checkpoint_every_n_hours: keep one checkpoint per N hours.
            if p[1] > self._next_checkpoint_time:
                self._next_checkpoint_time += (
                    self.saver_def.keep_checkpoint_every_n_hours * 3600)
                return
            try:
                remove_checkpoint(p[0], self.saver_def.version, meta_graph_suffix)
            except Exception as e:  # noqa: BLE001 - TF ignores (and logs) these
                _log.warning("Ignoring: %s", e)

    # -- save / restore ---------------------------------------------------------------
    def save(self, sess: Any, save_path: Any, global_step: Any = None,
             latest_filename: str | None = None, meta_graph_suffix: str = "meta",
             write_meta_graph: bool = True, write_state: bool = True,
             strip_default_attrs: bool = False, save_debug_info: bool = False) -> str | None:
        """Saves the variables; returns the checkpoint prefix (``save_path-<step>``
        with ``global_step``), or None for an empty saver.

        With ``write_meta_graph`` it also writes the graph's MetaGraphDef (with this
        saver's SaverDef and the graph's collections) to ``<prefix>.meta``.
        """
        del save_debug_info
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = _fspath(save_path)
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                global_step = _global_step_value(sess, global_step)
            if self._pad_step_number:
                checkpoint_file = f"{save_path}-{int(global_step):08d}"
            else:
                checkpoint_file = f"{save_path}-{int(global_step)}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(f"'latest_filename' collides with 'save_path': "
                                 f"'{latest_filename}' and '{save_path}'")
        if not hasattr(sess, "run"):
            raise TypeError(f"'sess' must be a Session; {sess}")
        if self._is_empty:
            return None
        save_path_parent = os.path.dirname(save_path)
        try:
            model_checkpoint_path = sess.run(
                self.saver_def.save_tensor_name,
                {self.saver_def.filename_tensor_name: checkpoint_file})
        except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
            if save_path_parent and not os.path.isdir(save_path_parent):
                raise ValueError(f"Parent directory of {save_path} doesn't exist, can't "
                                 "save.") from exc
            raise
        if isinstance(model_checkpoint_path, bytes):
            model_checkpoint_path = model_checkpoint_path.decode()
        model_checkpoint_path = str(model_checkpoint_path)
        if write_meta_graph:
            self.export_meta_graph(meta_graph_filename(model_checkpoint_path,
                                                       meta_graph_suffix),
                                   strip_default_attrs=strip_default_attrs,
                                   graph=getattr(sess, "graph", None))
        if write_state:
            self._record_last_checkpoint(model_checkpoint_path)
            _update_checkpoint_state(save_path_parent, model_checkpoint_path,
                                     self.last_checkpoints, latest_filename,
                                     self._save_relative_paths)
            self._maybe_delete_old_checkpoints(meta_graph_suffix)
        return model_checkpoint_path

    def export_meta_graph(self, filename: str | None = None, collection_list: list | None = None,
                          as_text: bool = False, export_scope: str | None = None,
                          clear_devices: bool = False, clear_extraneous_savers: bool = False,
                          strip_default_attrs: bool = False, save_debug_info: bool = False,
                          graph: Any = None) -> Any:
        """The MetaGraphDef of the graph with this saver's SaverDef (written to
        ``filename`` when given)."""
        return meta_graph.export_meta_graph(
            filename=filename, saver_def=self.saver_def, collection_list=collection_list,
            as_text=as_text, export_scope=export_scope, clear_devices=clear_devices,
            graph=graph)

    def restore(self, sess: Any, save_path: Any) -> None:
        """Restores the variables from the checkpoint ``save_path`` (a prefix)."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = _fspath(save_path)
        if not checkpoint_exists(prefix):
            raise _InvalidCheckpointError(
                None, None, f"The passed save_path is not a valid checkpoint: {prefix}")
        _log.info("Restoring parameters from %s", prefix)
        try:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: prefix})
        except errors.NotFoundError as err:
            raise _wrap_restore_error(
                err, "a Variable name or other graph key that is missing") from None
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(
                err, "a mismatch between the current graph and the graph") from None


def _wrap_restore_error(err: errors.OpError, extra_verbiage: str) -> errors.OpError:
    message = (f"Restoring from checkpoint failed. This is most likely due to {extra_verbiage} "
               "from the checkpoint. Please ensure that you have not altered the graph "
               f"expected based on the checkpoint. Original error:\n\n{err.message}")
    return type(err)(err.node_def, err.op, message)


def _cpu0(device: str) -> str:
    """``device`` with its device type/index replaced by CPU:0 (TF's set_cpu0)."""
    from graphcore.framework.device import DeviceSpec

    spec = DeviceSpec.from_string(device or "")
    return spec.replace(device_type="CPU", device_index=0).to_string()


def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                      import_scope: str | None = None, **kwargs: Any) -> Saver | None:
    """Imports a MetaGraphDef (or ``.meta`` file) into the default graph; returns a
    Saver built from its SaverDef, or None when it has none (TF's behaviour)."""
    del kwargs
    meta = meta_graph.import_scoped_meta_graph(meta_graph_or_file, clear_devices,
                                               import_scope)
    if not meta.HasField("saver_def"):
        return None
    saver_def = SaverDef.FromString(meta.saver_def.SerializeToString())
    if import_scope:
        for field in ("filename_tensor_name", "save_tensor_name", "restore_op_name"):
            setattr(saver_def, field,
                    meta_graph.prefixed_name(getattr(saver_def, field), import_scope))
    return Saver(saver_def=saver_def)


meta_graph.register_proto_function(
    ops_lib.GraphKeys.SAVERS,
    lambda raw, scope: Saver.from_proto(SaverDef.FromString(raw), import_scope=scope))
