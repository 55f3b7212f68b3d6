"""``tf.train.warm_start``: initialize variables of a new graph from a checkpoint of a
previous one (TF's ``warm_starting_util.py``), through ``init_from_checkpoint``.

Vocabulary remapping (``var_name_to_vocab_info``, TF's VocabInfo) is not supported.
"""

from __future__ import annotations

import logging
from typing import Any

from graphcore.framework import ops as ops_lib
from graphcore.train import checkpoint_utils

__all__ = ["warm_start"]

_log = logging.getLogger("graphcore.train")


def _var_name(var: Any) -> str:
    """The checkpoint name of ``var`` (its op name, as a Saver keys it)."""
    return var.op.name


def _get_grouped_variables(vars_to_warm_start: Any) -> dict[str, list]:
    if isinstance(vars_to_warm_start, str) or vars_to_warm_start is None:
        list_of_vars = ops_lib.get_collection(ops_lib.GraphKeys.TRAINABLE_VARIABLES,
                                              scope=vars_to_warm_start)
    elif isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            list_of_vars = []
            for v in vars_to_warm_start:
                list_of_vars += ops_lib.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES,
                                                       scope=v)
        elif all(checkpoint_utils._is_variable(v) for v in vars_to_warm_start):
            list_of_vars = vars_to_warm_start
        else:
            raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or "
                             f"all `str`.  Given types are "
                             f"{[type(v) for v in vars_to_warm_start]}")
    else:
        raise ValueError("`vars_to_warm_start must be a `list` or `str`.  Given type is "
                         f"{type(vars_to_warm_start)}")
    grouped: dict[str, list] = {}
    for v in list_of_vars:
        grouped.setdefault(_var_name(v), []).append(v)
    return grouped


def warm_start(ckpt_to_initialize_from: Any, vars_to_warm_start: Any = ".*",
               var_name_to_vocab_info: dict | None = None,
               var_name_to_prev_var_name: dict | None = None) -> None:
    """Makes the initializers of ``vars_to_warm_start`` (a regex over the trainable
    variables, a list of regexes over the global variables, or a list of variables)
    load them from ``ckpt_to_initialize_from``, under their names or those in
    ``var_name_to_prev_var_name``. Call it before building the init op."""
    if var_name_to_vocab_info:
        raise NotImplementedError("warm_start: vocabulary remapping (var_name_to_vocab_info)"
                                  " is not supported by graphcore")
    grouped_variables = _get_grouped_variables(vars_to_warm_start)
    var_name_to_prev_var_name = var_name_to_prev_var_name or {}
    prev_var_name_used = set()
    vocabless_vars: dict[str, Any] = {}
    for var_name, variable in grouped_variables.items():
        prev_var_name = var_name_to_prev_var_name.get(var_name)
        if prev_var_name:
            prev_var_name_used.add(var_name)
        if not vars_to_warm_start:
            continue
        _log.debug("Warm-starting variable: %s; prev_var_name: %s", var_name,
                   prev_var_name or "Unchanged")
        if len(variable) != 1:
            raise TypeError(f"`var` = {variable} passed as arg violates the constraints.")
        prev_tensor_name = prev_var_name or var_name
        if prev_tensor_name in vocabless_vars:
            checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
            vocabless_vars.clear()
        vocabless_vars[prev_tensor_name] = variable[0]
    if vocabless_vars:
        checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless_vars)
    prev_var_name_not_used = set(var_name_to_prev_var_name) - prev_var_name_used
    if prev_var_name_not_used:
        raise ValueError("You provided the following variables in var_name_to_prev_var_name "
                         f"that were not used: {prev_var_name_not_used}.  Perhaps you "
                         "misspelled them?  Here is the list of viable variable names: "
                         f"{grouped_variables.keys()}")
