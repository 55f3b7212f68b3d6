"""Checkpoint helpers of TF1's ``tf.train`` (TF's ``checkpoint_utils.py``):
``checkpoints_iterator`` (each new checkpoint of a directory, as evaluation loops poll)
and ``init_from_checkpoint`` (variables' initializers replaced by reads of a checkpoint).
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterator
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.ops import io_ops, resource_variable_ops, state_ops, variable_scope
from graphcore.ops.variables import Variable
from graphcore.train import saver as saver_lib

__all__ = ["checkpoints_iterator", "init_from_checkpoint"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs


def wait_for_new_checkpoint(checkpoint_dir: str, last_checkpoint: str | None = None,
                            seconds_to_sleep: float = 1, timeout: float | None = None
                            ) -> str | None:
    """The latest checkpoint of ``checkpoint_dir`` once it differs from
    ``last_checkpoint``; None after ``timeout`` seconds without one."""
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        checkpoint_path = saver_lib.latest_checkpoint(checkpoint_dir)
        if checkpoint_path is None or checkpoint_path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            _log.info("Found new checkpoint at %s", checkpoint_path)
            return checkpoint_path


def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0,
                         timeout: float | None = None, timeout_fn: Any = None
                         ) -> Iterator[str]:
    """Yields each new checkpoint of ``checkpoint_dir``, at most one per
    ``min_interval_secs``; after ``timeout`` seconds without one, stops (no
    ``timeout_fn``) or asks ``timeout_fn()`` whether to stop."""
    checkpoint_path = None
    while True:
        new_checkpoint_path = wait_for_new_checkpoint(checkpoint_dir, checkpoint_path,
                                                      timeout=timeout)
        if new_checkpoint_path:
            start = time.time()
            checkpoint_path = new_checkpoint_path
            yield checkpoint_path
            time_to_next_eval = start + min_interval_secs - time.time()
            if time_to_next_eval > 0:
                time.sleep(time_to_next_eval)
        elif timeout_fn is None:
            _log.info("Timed-out waiting for a checkpoint (without timeout_fn).")
            return
        if timeout_fn is not None and timeout_fn():
            _log.info("Done. No new checkpoints will be generated.")
            return


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable) or resource_variable_ops.is_resource_variable(x)


def _checkpoint_filename(ckpt_dir_or_file: Any) -> str:
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return saver_lib.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def _set_checkpoint_initializer(variable: Any, ckpt_file: str, tensor_name: str,
                                slice_spec: str = "") -> None:
    """``variable``'s initializer becomes an assignment of ``tensor_name`` (its slice
    ``slice_spec`` for a shard) read from ``ckpt_file`` (RestoreV2
    ``checkpoint_initializer`` on the CPU of its device)."""
    base_type = variable.dtype.base_dtype
    with ops_lib.device(variable.device), ops_lib.device("/cpu:0"):
        restore_op = io_ops.restore_v2(ckpt_file, [tensor_name], [slice_spec], [base_type],
                                       name="checkpoint_initializer")[0]
    if resource_variable_ops.is_resource_variable(variable):
        init_op = resource_variable_ops.assign_variable_op(variable.handle, restore_op)
    else:
        init_op = state_ops.assign(variable, restore_op,
                                   validate_shape=variable.get_shape().is_fully_defined())
    # A ref variable's initializer is the Assign's output Tensor here, as in TF
    # (saveable.restore returns state_ops.assign(...)): its name ends in ":0".
    variable._initializer_op = init_op
    restore_op.set_shape(variable.shape)
    variable._initial_value = restore_op


def _set_variable_or_list_initializer(variable_or_list: Any, ckpt_file: str,
                                      tensor_name: str) -> None:
    """A variable, or the shards of one partitioned variable, each from its slice."""
    if not isinstance(variable_or_list, (list, tuple)):
        _set_checkpoint_initializer(variable_or_list, ckpt_file, tensor_name)
        return
    slice_name = None
    for v in variable_or_list:
        slice_info = v._get_save_slice_info()
        if slice_name is None:
            slice_name = slice_info.full_name
        elif slice_name != slice_info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {slice_name} != "
                             f"{slice_info.full_name}")
        _set_checkpoint_initializer(v, ckpt_file, tensor_name, slice_info.spec)


def _collect_partitioned_variable(name: str, all_vars: dict) -> list | None:
    """The shards ``name/part_0``, ``name/part_1``, ... among the store's variables."""
    if name + "/part_0" not in all_vars:
        return None
    shards = []
    while f"{name}/part_{len(shards)}" in all_vars:
        shards.append(all_vars[f"{name}/part_{len(shards)}"])
    return shards


def init_from_checkpoint(ckpt_dir_or_file: Any, assignment_map: Any) -> None:
    """Makes the initializers of the variables named by ``assignment_map`` load them
    from a checkpoint: ``{"ckpt/name": var_or_its_name}``, or scopes
    ``{"ckpt_scope/": "scope/"}`` (every get_variable variable under ``scope``;
    ``"/"`` is the root on either side). Call it before building the init op."""
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    variable_map = saver_lib.load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    if hasattr(assignment_map, "items"):
        assignment_map = assignment_map.items()
    store_vars = variable_scope._store().vars
    for tensor_name_in_ckpt, current_var_or_name in sorted(assignment_map,
                                                           key=lambda pair: pair[0]):
        if _is_variable(current_var_or_name) or (
                isinstance(current_var_or_name, list)
                and all(_is_variable(v) for v in current_var_or_name)):
            var = current_var_or_name
        else:
            var = store_vars.get(current_var_or_name, None)
            if var is None:
                var = _collect_partitioned_variable(current_var_or_name, store_vars)
        if var is not None:
            if tensor_name_in_ckpt not in variable_map:
                raise ValueError(f"Tensor {tensor_name_in_ckpt} is not found in "
                                 f"{ckpt_dir_or_file} checkpoint {variable_map}")
            if _is_variable(var) and not var.get_shape().is_compatible_with(
                    variable_map[tensor_name_in_ckpt]):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                    f"shape of tensor {tensor_name_in_ckpt} "
                    f"({variable_map[tensor_name_in_ckpt]}) from checkpoint reader.")
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name_in_ckpt)
            continue
        scopes = ""
        if "/" in current_var_or_name:
            scopes = current_var_or_name[:current_var_or_name.rindex("/")]
        if not tensor_name_in_ckpt.endswith("/"):
            raise ValueError(f"Assignment map with scope only name {scopes} should map to "
                             f"scope only {tensor_name_in_ckpt}. Should be 'scope/': "
                             "'other_scope/'.")
        scope_variables = sorted({name[:name.index("/part_")] if "/part_" in name else name
                                  for name in store_vars
                                  if not scopes or name.startswith(scopes + "/")})
        for var_name in scope_variables:
            full_tensor_name = var_name[len(scopes):]
            if current_var_or_name != "/":
                full_tensor_name = full_tensor_name[1:]
            if tensor_name_in_ckpt != "/":
                full_tensor_name = tensor_name_in_ckpt + full_tensor_name
            if full_tensor_name.endswith("/"):
                full_tensor_name = full_tensor_name[:-1]
            if full_tensor_name not in variable_map:
                raise ValueError(f"Tensor {full_tensor_name} "
                                 f"({var_name[len(scopes) + 1:]} in {tensor_name_in_ckpt}) "
                                 f"is not found in {ckpt_dir_or_file} checkpoint")
            var = store_vars.get(var_name, None)
            if var is None:
                var = _collect_partitioned_variable(var_name, store_vars)
            _set_variable_or_list_initializer(var, ckpt_file, full_tensor_name)
