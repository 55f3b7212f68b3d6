"""``tf.compat.v1.train.Checkpoint`` (TF's CheckpointV1) and ``tf.train.CheckpointOptions``:
object-based checkpoints in graph mode.

A Checkpoint depends on the objects given to its constructor (sorted by keyword) and on
its ``save_counter``; the checkpoint is a V2 bundle keyed by object paths
(``model/w/.ATTRIBUTES/VARIABLE_VALUE``, slot variables under ``.OPTIMIZER_SLOT``) plus the
serialized TrackableObjectGraph under ``_CHECKPOINTABLE_OBJECT_GRAPH`` (see
:mod:`graphcore.train.trackable`), so TensorFlow restores ours and we restore its.

``save``/``write`` build one SaveV2 (rebuilt only when the object graph changes) fed the
prefix and the serialized object graph, and run it in the session.  ``restore`` matches
the checkpoint's object graph against the Python objects from the root and returns a
status; restore ops (one RestoreV2 and assigns per batch of newly matched variables,
cached) are built for what matches, and objects created after ``restore`` (slots made by
``minimize``, the save counter, layers built later) are matched again whenever the status
is used, so ``run_restore_ops``/``initialize_or_restore`` restore them too, as TF's
restore-on-creation does in graph mode (there, as in TF, ``global_variables_initializer``
alone gives such a variable its initial value).  A checkpoint without an object graph
(``tf.train.Saver``'s) is restored by variable names (NameBasedSaverStatus).
"""

from __future__ import annotations

import copy
import inspect
import logging
import os
import weakref
from typing import Any

from graphcore.framework import dtypes as dtypes_lib
from graphcore.framework import ops as ops_lib
from graphcore.framework import session_stack
from graphcore.ops import array_ops, io_ops
from graphcore.ops.variables import Variable
from graphcore.train import saver as saver_lib
from graphcore.train import trackable

__all__ = ["Checkpoint", "CheckpointOptions"]

_log = logging.getLogger("tensorflow")

_NAME_BASED_RESTORE = (
    "Restoring a name-based tf.train.Saver checkpoint using the object-based restore API. "
    "This mode uses global names to match variables, and so is somewhat fragile. It also "
    "adds new restore ops to the graph each time it is called when graph building. Prefer "
    "re-encoding training checkpoints in the object-based format: run save() on the "
    "object-based saver (the same one this message is coming from) and use that checkpoint "
    "in the future.")
_NO_CHECKPOINT = ("No checkpoint specified (save_path=None); nothing is being restored.")


class CheckpointOptions:
    """Options of ``Checkpoint.save``/``write``: the device doing the file IO, callbacks
    run after each write, and whether restores skip slot variables."""

    __slots__ = ("experimental_io_device", "experimental_enable_async_checkpoint",
                 "experimental_write_callbacks", "enable_async",
                 "experimental_sharding_callback", "experimental_skip_slot_variables")

    def __init__(self, experimental_io_device: str | None = None,
                 experimental_enable_async_checkpoint: bool = False,
                 experimental_write_callbacks: list | None = None,
                 enable_async: bool = False, experimental_skip_slot_variables: bool = False,
                 experimental_sharding_callback: Any = None):
        self.experimental_io_device = experimental_io_device
        # A V1 Checkpoint writes synchronously in graph mode whatever this says (TF's too).
        self.enable_async = experimental_enable_async_checkpoint or enable_async
        self.experimental_enable_async_checkpoint = self.enable_async
        if experimental_write_callbacks is not None:
            for callback in experimental_write_callbacks:
                assert len(inspect.signature(callback).parameters) <= 1
        self.experimental_write_callbacks = experimental_write_callbacks
        if experimental_sharding_callback is not None:
            raise ValueError("The experimental_sharding_callback checkpoint option"
                             "must be of type ShardingCallback. The option provided"
                             f"was of type {type(experimental_sharding_callback)}.")
        self.experimental_sharding_callback = experimental_sharding_callback
        self.experimental_skip_slot_variables = experimental_skip_slot_variables

    def __copy__(self) -> CheckpointOptions:
        result = CheckpointOptions.__new__(CheckpointOptions)
        for name in self.__slots__:
            setattr(result, name, getattr(self, name))
        result.experimental_write_callbacks = copy.copy(self.experimental_write_callbacks)
        return result


def _get_session() -> Any:
    return session_stack.get_default_session()


def _run_callbacks(options: CheckpointOptions | None, save_path: str) -> None:
    if options is None or options.experimental_write_callbacks is None:
        return
    for callback in options.experimental_write_callbacks:
        if len(inspect.signature(callback).parameters) == 1:
            callback(save_path)
        else:
            callback()


# -- saving and restoring an object graph ----------------------------------------------------

class _TrackableSaver:
    """Saves and restores the objects reachable from ``root`` (TF's TrackableSaver)."""

    def __init__(self, root: Any):
        self._root = root
        self._save_key: tuple | None = None  # (keys, io device, the variables saved)
        self._save_tensor = None
        self._feeds: tuple | None = None  # (prefix tensor, object graph tensor)
        self._restore_prefix = None
        # (key, id(variable)) -> (variable, assign op); the variable kept to check the id.
        self._restore_ops: dict[tuple[str, int], tuple[Any, Any]] = {}

    def _cpu(self) -> Any:
        return ops_lib.device("/cpu:0")

    def save(self, file_prefix: Any, session: Any = None,
             options: CheckpointOptions | None = None) -> str:
        options = options or CheckpointOptions()
        file_prefix = saver_lib._fspath(file_prefix)
        graph = trackable.object_graph(self._root)
        keyed = graph.saved()
        proto = graph.proto()
        key = (tuple(k for k, _ in keyed), options.experimental_io_device,
               [v for _, v in keyed])
        if self._feeds is None:
            with ops_lib.control_dependencies(None), self._cpu():
                self._feeds = (array_ops.constant("", name="Const"),
                               array_ops.constant("", name="Const"))
        if not self._same_save(key):
            self._save_tensor = self._build_save(keyed, options)
            self._save_key = key
        if os.path.dirname(file_prefix):
            os.makedirs(os.path.dirname(file_prefix), exist_ok=True)
        session = session or _get_session()
        if session is None:
            raise RuntimeError(f"Unable to save checkpoint to \"{file_prefix}\" in graph mode "
                               "without a default session. Please use `with tf.Session():` "
                               "to create a session.")
        prefix_tensor, graph_tensor = self._feeds
        out = session.run(self._save_tensor, feed_dict={
            prefix_tensor: file_prefix, graph_tensor: proto.SerializeToString()})
        return out.decode() if isinstance(out, bytes) else str(out)

    def _same_save(self, key: tuple) -> bool:
        """Whether the cached save op saves these keys of these very variables."""
        if self._save_key is None or self._save_key[:2] != key[:2]:
            return False
        return all(a is b for a, b in zip(self._save_key[2], key[2]))

    def _build_save(self, keyed: list, options: CheckpointOptions) -> Any:
        prefix_tensor, graph_tensor = self._feeds
        specs = [spec for k, v in keyed for spec in _specs(k, v)]
        names = [s.name for s in specs] + [trackable.OBJECT_GRAPH_PROTO_KEY]
        with ops_lib.control_dependencies(None):
            tensors = [s.value() for s in specs] + [graph_tensor]
            with ops_lib.device(options.experimental_io_device or "/cpu:0"):
                save = io_ops.save_v2(prefix_tensor, names, [""] * len(names), tensors)
                with ops_lib.control_dependencies([save]):
                    return array_ops.identity(prefix_tensor)

    def restore(self, save_path: Any) -> Any:
        if save_path is None:
            return InitializationOnlyStatus(self._root)
        save_path = saver_lib._fspath(save_path)
        reader = saver_lib.CheckpointReader(save_path)
        if not reader.has_tensor(trackable.OBJECT_GRAPH_PROTO_KEY):
            _log.warning(_NAME_BASED_RESTORE)
            return NameBasedSaverStatus(self._root, save_path)
        if self._restore_prefix is None:
            with ops_lib.control_dependencies(None), self._cpu():
                self._restore_prefix = array_ops.constant("model", name="Const")
        feed_dict = {self._restore_prefix: save_path}
        proto = trackable.TrackableObjectGraph()
        proto.ParseFromString(reader.get_tensor(trackable.OBJECT_GRAPH_PROTO_KEY))
        restore = _RestoreCoordinator(self, proto)
        restore.match()
        return CheckpointLoadStatus(restore, feed_dict)

    def restore_ops(self, pairs: list[tuple[str, Any]]) -> list:
        """Ops restoring each (checkpoint key, variable or table), one RestoreV2 for the
        new ones; cached, since the prefix they read is fed."""
        new = [(k, v) for k, v in pairs
               if self._restore_ops.get((k, id(v)), (None,))[0] is not v]
        if new:
            per_object = [_specs(k, v) for k, v in new]
            specs = [spec for group in per_object for spec in group]
            with ops_lib.control_dependencies(None):
                with self._cpu():
                    restored = iter(io_ops.restore_v2(
                        self._restore_prefix, [s.name for s in specs], [""] * len(specs),
                        [s.dtype for s in specs]))
                for (k, v), group in zip(new, per_object):
                    tensors = [next(restored) for _ in group]
                    if trackable.is_variable(v):
                        op = group[0].assign(tensors[0], group[0].shape.is_fully_defined())
                    else:
                        op = group[0].saveable.restore(tensors, None)
                    self._restore_ops[(k, id(v))] = (v, op)
        return [self._restore_ops[(k, id(v))][1] for k, v in pairs]


def _specs(key: str, obj: Any) -> list:
    """What SaveV2/RestoreV2 write and read for a variable (one tensor) or a table (its
    ``-keys`` and ``-values``, from the SaveableObject the table gives for ``key``)."""
    if trackable.is_variable(obj):
        return [saver_lib._VarSpec(key, saver_lib._as_ref(obj), obj)]
    saveable = obj._checkpoint_saveable(key)
    return [saver_lib._SaveableSpec(saveable, i) for i in range(len(saveable.specs))]


class _RestoreCoordinator:
    """One ``restore()``: the checkpoint's object graph and what of it matched so far."""

    def __init__(self, saver: _TrackableSaver, proto: Any):
        self.saver = saver
        self.proto = proto
        self.object_by_proto_id: dict[int, Any] = {}
        self.restored: dict[int, Any] = {}  # id(variable) -> variable given a value
        self.unused_attributes: dict[int, list[str]] = {}
        self.restore_ops: list = []
        self._pairs: set[tuple[str, int]] = set()
        self.matched_ids: set[int] = set()
        self.expect_partial = [False]  # read by the finalizer, which must not hold self
        weakref.finalize(self, _warn_unrestored, proto, self.matched_ids,
                         self.unused_attributes, self.expect_partial)

    def match(self) -> None:
        """Binds checkpoint nodes to the objects now reachable from the root (breadth
        first by dependency name, then optimizer slots) and builds restore ops for the
        newly bound variables."""
        nodes = self.proto.nodes
        bound = self.object_by_proto_id
        bound.setdefault(0, self.saver._root)
        queue = [0]
        seen = {0}
        while queue:
            node_id = queue.pop(0)
            kids = trackable.children(bound[node_id])
            for ref in nodes[node_id].children:
                child = kids.get(ref.local_name)
                if child is None:
                    continue
                current = bound.get(ref.node_id)
                if current is None:
                    bound[ref.node_id] = child
                elif current is not child:
                    _log.warning(
                        "Inconsistent references when loading the checkpoint into this "
                        "object graph. For example, in the saved checkpoint object, "
                        "`model.layer.weight` and `model.layer_copy.weight` reference the "
                        "same variable, while in the current object these are two different"
                        f" variables. The referenced variables are:({current} and {child}).")
                    continue
                if ref.node_id not in seen:
                    seen.add(ref.node_id)
                    queue.append(ref.node_id)
        for node_id, node in enumerate(nodes):
            optimizer = bound.get(node_id)
            if optimizer is None or not node.slot_variables:
                continue
            for ref in node.slot_variables:
                original = bound.get(ref.original_variable_node_id)
                if original is None or ref.slot_variable_node_id in bound:
                    continue
                slot = optimizer.get_slot(original, ref.slot_name)
                if slot is not None:
                    bound[ref.slot_variable_node_id] = slot
        self.matched_ids.update(bound)
        new = []
        for node_id, obj in sorted(bound.items()):
            for attr in nodes[node_id].attributes:
                if attr.name == trackable.attribute_name(obj):
                    if (attr.checkpoint_key, id(obj)) not in self._pairs:
                        self._pairs.add((attr.checkpoint_key, id(obj)))
                        new.append((attr.checkpoint_key, obj))
                        self.restored[id(obj)] = obj
                elif attr.name not in self.unused_attributes.get(node_id, []):
                    self.unused_attributes.setdefault(node_id, []).append(attr.name)
        if new:
            self.restore_ops.extend(self.saver.restore_ops(new))


def _warn_unrestored(proto: Any, matched_ids: set, unused_attributes: dict,
                     expect_partial: list) -> None:
    """TF's warnings when a restore is dropped with checkpoint values left unused."""
    if expect_partial[0]:
        return
    names = trackable.node_names(proto)
    unused_nodes = [names[i] for i, node in enumerate(proto.nodes)
                    if node.attributes and i not in matched_ids]
    if not unused_nodes and not unused_attributes:
        return
    _log.warning(
        "Detecting that an object or model or tf.train.Checkpoint is being deleted with "
        "unrestored values. See the following logs for the specific values in question. "
        "To silence these warnings, use `status.expect_partial()`. See "
        "https://www.tensorflow.org/api_docs/python/tf/train/Checkpoint#restorefor details "
        "about the status object returned by the restore function.")
    for path in unused_nodes:
        _log.warning("Value in checkpoint could not be found in the restored object: %s", path)
    for node_id, attribute in unused_attributes.items():
        _log.warning("An attribute in the restored object could not be found in the "
                     "checkpoint. Object: %s, attribute: %s", names[node_id], attribute)


def _initializer(obj: Any) -> Any:
    """The op initializing ``obj`` (a variable's, a static table's), as TF finds it."""
    return getattr(obj, "initializer", None)


def _list_objects(root: Any) -> list:
    return trackable.object_graph(root).objects


def _unmatched_variables(root: Any, bound: dict[int, Any]) -> list:
    matched = {id(o) for o in bound.values()}
    return [o for o in _list_objects(root) if trackable.is_variable(o) and id(o) not in matched]


def _session_or_default(session: Any) -> Any:
    session = session or _get_session()
    if session is None:
        raise RuntimeError("No session to run the restore in: pass `session` or use "
                           "`with tf.Session():` to create a default one.")
    return session


class CheckpointLoadStatus:
    """What ``Checkpoint.restore`` returns: assertions about the match and the ops that
    restore the matched variables."""

    def __init__(self, restore: _RestoreCoordinator, feed_dict: dict):
        self._checkpoint = restore
        self._feed_dict = feed_dict
        self._root = restore.saver._root

    def assert_consumed(self) -> CheckpointLoadStatus:
        """Raises AssertionError unless every checkpointed value and every Python object
        of the dependency graph were matched."""
        self.assert_existing_objects_matched()
        proto = self._checkpoint.proto
        names = trackable.node_names(proto)
        bound = self._checkpoint.object_by_proto_id
        for node_id, node in enumerate(proto.nodes):
            if node.attributes and node_id not in bound:
                raise AssertionError(f"Unresolved object in checkpoint {names[node_id]}: "
                                     f"{node}")
        if self._checkpoint.unused_attributes:
            lines = "\n".join(f"{names[node_id]} ({bound[node_id]}): {attributes}"
                              for node_id, attributes in
                              self._checkpoint.unused_attributes.items())
            raise AssertionError("Unused attributes in these objects (the attributes exist in "
                                 f"the checkpoint but were not restored):\n{lines}")
        return self

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        """Raises AssertionError if a variable of the dependency graph has no value in the
        checkpoint (values without objects are allowed)."""
        restore = self._checkpoint
        restore.match()
        for node_id, node in enumerate(restore.proto.nodes):
            obj = restore.object_by_proto_id.get(node_id)
            if trackable.is_variable(obj) and id(obj) not in restore.restored:
                raise AssertionError(f"Object {node} not assigned a value from checkpoint.")
        unused = _unmatched_variables(self._root, restore.object_by_proto_id)
        if unused:
            shown = min(10, len(unused))
            raise AssertionError(
                f"Found {len(unused)} Python objects that were not bound to checkpointed "
                "values, likely due to changes in the Python program. Showing "
                f"{shown} of {len(unused)} unmatched objects: {unused[:shown]}")
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        """Raises AssertionError if nothing but the root matched."""
        self._checkpoint.match()
        if len(self._checkpoint.object_by_proto_id) <= 1:
            unused = _unmatched_variables(self._root, self._checkpoint.object_by_proto_id)
            if unused:
                raise AssertionError(
                    "Nothing except the root object matched a checkpointed value. Typically "
                    "this means that the checkpoint does not match the Python program. The "
                    f"following objects have no matching checkpointed value: {unused}")
            raise AssertionError("Nothing to load. No dependencies have been added to "
                                 f"{self._root} yet.")
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        """Runs the ops restoring every variable matched so far."""
        session = _session_or_default(session)
        self._checkpoint.match()
        session.run(self._checkpoint.restore_ops, feed_dict=self._feed_dict)

    def initialize_or_restore(self, session: Any = None) -> None:
        """Restores the matched variables and runs the initializers of the others."""
        session = _session_or_default(session)
        self._checkpoint.match()
        restored = self._checkpoint.restored
        initializers = [o.initializer for o in _list_objects(self._root)
                        if _initializer(o) is not None and id(o) not in restored]
        self.run_restore_ops(session)
        session.run(initializers)

    def expect_partial(self) -> CheckpointLoadStatus:
        """Silences the warnings, logged when the restore is dropped, about checkpoint
        values that matched no object."""
        self._checkpoint.expect_partial[0] = True
        return self


class InitializationOnlyStatus:
    """What ``Checkpoint.restore(None)`` returns: ``initialize_or_restore`` initializes."""

    def __init__(self, root: Any):
        self._root = root

    def assert_consumed(self) -> None:
        raise AssertionError(_NO_CHECKPOINT)

    def assert_existing_objects_matched(self) -> None:
        raise AssertionError(_NO_CHECKPOINT)

    def assert_nontrivial_match(self) -> None:
        raise AssertionError(_NO_CHECKPOINT)

    def run_restore_ops(self, session: Any = None) -> None:
        raise AssertionError("No checkpoint specified, so no restore ops are available "
                             "(save_path=None to Saver.restore).")

    def initialize_or_restore(self, session: Any = None) -> None:
        """Runs the initializers of every variable of the dependency graph."""
        session = _session_or_default(session)
        session.run([o.initializer for o in _list_objects(self._root)
                     if _initializer(o) is not None])

    def expect_partial(self) -> InitializationOnlyStatus:
        return self


class NameBasedSaverStatus:
    """What restoring a ``tf.train.Saver`` checkpoint returns: ``run_restore_ops`` restores
    every variable of the dependency graph by its graph name (a slot variable by its own,
    ``x/Adam``) with a new Saver, as TF's; the save counter is among them, so a checkpoint
    without one fails to restore there as in TF."""

    def __init__(self, root: Any, save_path: str):
        self._root = root
        self._save_path = save_path
        self._restored = False
        self._optionally_restored: list = []

    def add_to_optionally_restored(self, var: Any) -> None:
        self._optionally_restored.append(var)

    def assert_consumed(self) -> NameBasedSaverStatus:
        """Raises AssertionError until ``run_restore_ops`` has run."""
        if not self._restored:
            raise AssertionError(f"Object not restored: {self._root}")
        return self

    def assert_existing_objects_matched(self) -> NameBasedSaverStatus:
        return self.assert_consumed()

    def assert_nontrivial_match(self) -> NameBasedSaverStatus:
        return self.assert_consumed()

    def run_restore_ops(self, session: Any = None) -> None:
        session = _session_or_default(session)
        self._restored = True
        variables = {trackable.full_name(o): o for o in _list_objects(self._root)
                     if trackable.is_variable(o)}
        with ops_lib.device("/cpu:0"):
            saver = saver_lib.Saver(variables)
        saver.restore(session, self._save_path)

    def initialize_or_restore(self, session: Any = None) -> None:
        self.run_restore_ops(session)

    def expect_partial(self) -> NameBasedSaverStatus:
        return self


# -- tf.compat.v1.train.Checkpoint --------------------------------------------------------

class Checkpoint:
    """Groups trackable objects (variables, modules, optimizers, Keras models), saving
    and restoring them by their dependency names."""

    _INTERNAL = frozenset({"_deps", "_save_counter", "_save_assign_op", "_saver"})

    def __init__(self, **kwargs: Any):
        object.__setattr__(self, "_deps", {})
        for k, v in sorted(kwargs.items(), key=lambda item: item[0]):
            setattr(self, k, v)
            if not trackable.is_trackable(v):
                raise ValueError(
                    "`Checkpoint` was expecting a trackable object (an object derived from "
                    f"`Trackable`), got {v}. If you believe this object should be trackable "
                    "(i.e. it is part of the TensorFlow Python API and manages state), "
                    "please open an issue.")
        self._save_counter = None
        self._save_assign_op = None
        self._saver = _TrackableSaver(self)

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)
        if name in self._INTERNAL:
            return
        if trackable.is_trackable(value):
            self._deps[name] = value
        else:
            self._deps.pop(name, None)

    def __delattr__(self, name: str) -> None:
        object.__delattr__(self, name)
        self._deps.pop(name, None)

    def _trackable_children(self) -> dict[str, Any]:
        return dict(self._deps)

    def _maybe_create_save_counter(self) -> None:
        if self._save_counter is None:
            with ops_lib.control_dependencies(None), ops_lib.device("/cpu:0"):
                counter = Variable(0, name="save_counter", dtype=dtypes_lib.int64,
                                   trainable=False, use_resource=True)
            self._save_counter = counter
            self._deps["save_counter"] = counter

    @property
    def save_counter(self) -> Variable:
        """An int64 variable, incremented by ``save``, numbering the checkpoints."""
        self._maybe_create_save_counter()
        return self._save_counter

    def write(self, file_prefix: Any, session: Any = None,
              options: CheckpointOptions | None = None) -> str:
        """Writes ``file_prefix.index``/``.data-*`` (no numbering, no ``checkpoint``
        file); returns ``file_prefix``."""
        output = self._saver.save(file_prefix, session=session, options=options)
        _run_callbacks(options, output)
        return output

    def save(self, file_prefix: Any, session: Any = None,
             options: CheckpointOptions | None = None) -> str:
        """Increments ``save_counter``, writes ``file_prefix-<save_counter>`` and records
        it in the directory's ``checkpoint`` file."""
        session = session or _get_session()
        if session is None:
            raise RuntimeError(f"Unable to save checkpoint to \"{file_prefix}\" in graph mode "
                               "without a default session. Please use `with tf.Session():` "
                               "to create a session.")
        if self._save_counter is None:
            session.run(self.save_counter.initializer)
        if self._save_assign_op is None:
            with ops_lib.colocate_with(self.save_counter):
                self._save_assign_op = self.save_counter.assign_add(1, read_value=True)
        checkpoint_number = session.run(self._save_assign_op)
        file_prefix = saver_lib._fspath(file_prefix)
        file_path = self.write(f"{file_prefix}-{int(checkpoint_number)}", session=session,
                               options=options)
        saver_lib._update_checkpoint_state(os.path.dirname(file_prefix), file_path,
                                           [file_path], save_relative_paths=True)
        return file_path

    def restore(self, save_path: Any) -> Any:
        """Matches the checkpoint's objects with these and returns a load status (restore
        ops are built, not run: use the status's ``run_restore_ops`` or
        ``initialize_or_restore``)."""
        status = self._saver.restore(save_path)
        self._maybe_create_save_counter()
        if isinstance(status, NameBasedSaverStatus):
            status.add_to_optionally_restored(self.save_counter)
        return status
