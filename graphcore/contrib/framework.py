"""``tf.contrib.framework`` (TF 1.15): ``arg_scope`` / ``add_arg_scope`` and the model-variable
helpers slim builds on (``variable``, ``model_variable``, ``get_variables*``,
``get_variables_to_restore``, ``assign_from_checkpoint*``, ``assign_from_values*``), and the
core checkpoint, global-step and sort functions it re-exported."""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import Iterator
from typing import Any

from graphcore.framework import nest
from graphcore.framework import ops as ops_lib
from graphcore.ops import array_ops, control_flow_ops, variable_scope, variables
from graphcore.ops.sort_ops import argsort, sort
from graphcore.train.checkpoint_utils import init_from_checkpoint
from graphcore.train.saver import (
    Saver,
    list_variables,
    load_checkpoint,
    load_variable,
)
from graphcore.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
)

__all__ = ["add_arg_scope", "arg_scope", "arg_scope_func_key", "arg_scoped_arguments",
           "argsort", "assert_global_step", "assert_or_get_global_step", "assign_from_checkpoint",
           "assign_from_checkpoint_fn", "assign_from_values", "assign_from_values_fn",
           "create_global_step", "current_arg_scope", "filter_variables", "get_global_step",
           "get_local_variables", "get_model_variables", "get_or_create_global_step",
           "get_trainable_variables", "get_unique_variable", "get_variable_full_name",
           "get_variables", "get_variables_by_name", "get_variables_by_suffix",
           "get_variables_to_restore", "global_variable", "has_arg_scope",
           "init_from_checkpoint", "list_variables", "load_checkpoint", "load_variable",
           "local_variable", "model_variable", "nest", "sort", "variable"]

_log = logging.getLogger("tensorflow")  # tf.logging's logger, as TF logs

# -- arg_scope ---------------------------------------------------------------------------
# As in TF, the stack of scopes is process-wide (not per graph) and each decorated function
# is known by its key, mapped to the names of its keyword arguments.
_ARGSTACK: list[dict] = [{}]
_DECORATED_OPS: dict[Any, tuple] = {}


def current_arg_scope() -> dict:
    """The innermost arg scope: {function key: {argument: value}}."""
    if not _ARGSTACK:
        _ARGSTACK.append({})
    return _ARGSTACK[-1]


def arg_scope_func_key(op: Any) -> Any:
    return getattr(op, "_key_op", str(op))


def _kwarg_names(func: Any) -> tuple:
    count = len(func.__defaults__) if func.__defaults__ else 0
    return func.__code__.co_varnames[-count:func.__code__.co_argcount]


def has_arg_scope(func: Any) -> bool:
    """Whether ``func`` was decorated with ``add_arg_scope``."""
    return arg_scope_func_key(func) in _DECORATED_OPS


def arg_scoped_arguments(func: Any) -> tuple:
    """The keyword arguments an arg scope can set on ``func``."""
    assert has_arg_scope(func)
    return _DECORATED_OPS[arg_scope_func_key(func)]


def add_arg_scope(func: Any) -> Any:
    """Decorates ``func`` so that ``arg_scope([func], **kwargs)`` sets its defaults;
    arguments given at the call win over the scope's."""
    key = arg_scope_func_key(func)

    @functools.wraps(func)
    def func_with_args(*args: Any, **kwargs: Any) -> Any:
        scope = current_arg_scope()
        if key in scope:
            current = dict(scope[key])
            current.update(kwargs)
            kwargs = current
        return func(*args, **kwargs)

    _DECORATED_OPS[key] = _kwarg_names(func)
    func_with_args._key_op = key
    return func_with_args


@contextlib.contextmanager
def arg_scope(list_ops_or_scope: Any, **kwargs: Any) -> Iterator[dict]:
    """Sets default arguments of the decorated functions in ``list_ops_or_scope`` (nested
    scopes add to and override outer ones), or re-enters a scope dict yielded before."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise ValueError("When attempting to re-use a scope by suppling a dictionary, "
                             "kwargs must be empty.")
        current_scope = list_ops_or_scope.copy()
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            "(i.e. dict)")
        current_scope = current_arg_scope().copy()
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                name = (getattr(op, "__module__", None), getattr(op, "__name__", repr(op)))
                raise ValueError(f"{name} is not decorated with @add_arg_scope")
            key = arg_scope_func_key(op)
            merged = dict(current_scope.get(key, {}))
            merged.update(kwargs)
            current_scope[key] = merged
    _ARGSTACK.append(current_scope)
    try:
        yield current_scope
    finally:
        _ARGSTACK.pop()


# -- variables ---------------------------------------------------------------------------
def assert_or_get_global_step(graph: Any = None, global_step_tensor: Any = None) -> Any:
    """``global_step_tensor`` checked to be a global step, or the graph's global step."""
    if global_step_tensor is None:
        global_step_tensor = get_global_step(graph)
    else:
        assert_global_step(global_step_tensor)
    return global_step_tensor


@add_arg_scope
def variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
             regularizer: Any = None, trainable: bool = True, collections: Any = None,
             caching_device: Any = None, device: Any = None, partitioner: Any = None,
             custom_getter: Any = None, use_resource: Any = None) -> Any:
    """``tf.get_variable`` (or ``custom_getter``) in ``collections`` (default
    GLOBAL_VARIABLES), on ``device``."""
    collections = list(collections if collections is not None
                       else [ops_lib.GraphKeys.GLOBAL_VARIABLES])
    collections = list(dict.fromkeys(collections))
    getter = variable_scope.get_variable
    if custom_getter is not None:
        getter = functools.partial(custom_getter,
                                   reuse=variable_scope.get_variable_scope().reuse)
    with ops_lib.device(device or ""):
        return getter(name, shape=shape, dtype=dtype, initializer=initializer,
                      regularizer=regularizer, trainable=trainable, collections=collections,
                      caching_device=caching_device, partitioner=partitioner,
                      use_resource=use_resource)


@add_arg_scope
def model_variable(name: str, shape: Any = None, dtype: Any = None, initializer: Any = None,
                   regularizer: Any = None, trainable: bool = True, collections: Any = None,
                   caching_device: Any = None, device: Any = None, partitioner: Any = None,
                   custom_getter: Any = None, use_resource: Any = None) -> Any:
    """``variable`` also in MODEL_VARIABLES (what ``get_model_variables`` returns)."""
    collections = list(collections or [])
    collections += [ops_lib.GraphKeys.GLOBAL_VARIABLES, ops_lib.GraphKeys.MODEL_VARIABLES]
    return variable(name, shape=shape, dtype=dtype or "float32", initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=collections,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


def local_variable(initial_value: Any, validate_shape: bool = True, name: str | None = None,
                   use_resource: Any = None) -> Any:
    """A non-trainable variable in LOCAL_VARIABLES."""
    return variables.Variable(initial_value, trainable=False,
                                collections=[ops_lib.GraphKeys.LOCAL_VARIABLES],
                                validate_shape=validate_shape, use_resource=use_resource,
                                name=name)


def global_variable(initial_value: Any, validate_shape: bool = True, name: str | None = None,
                    use_resource: Any = None) -> Any:
    """A non-trainable variable in GLOBAL_VARIABLES."""
    return variables.Variable(initial_value, trainable=False,
                                collections=[ops_lib.GraphKeys.GLOBAL_VARIABLES],
                                validate_shape=validate_shape, use_resource=use_resource,
                                name=name)


def get_variables(scope: Any = None, suffix: str | None = None,
                  collection: str = ops_lib.GraphKeys.GLOBAL_VARIABLES) -> list:
    """The variables of ``collection`` whose names match ``scope`` (a prefix regex) and end
    with ``suffix``."""
    if isinstance(scope, variable_scope.VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return ops_lib.get_collection(collection, scope)


def get_model_variables(scope: Any = None, suffix: str | None = None) -> list:
    return get_variables(scope, suffix, ops_lib.GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope: Any = None, suffix: str | None = None) -> list:
    return get_variables(scope, suffix, ops_lib.GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope: Any = None, suffix: str | None = None) -> list:
    return get_variables(scope, suffix, ops_lib.GraphKeys.TRAINABLE_VARIABLES)


def get_variables_to_restore(include: Any = None, exclude: Any = None) -> list:
    """The global variables under the ``include`` scopes (all by default) and not under the
    ``exclude`` scopes."""
    if include is None:
        to_include = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        to_include = [v for scope in include for v in get_variables(scope)]
    to_exclude: set[int] = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        for scope in exclude:
            to_exclude.update(id(v) for v in get_variables(scope))
    return [v for v in to_include if id(v) not in to_exclude]


def get_variables_by_suffix(suffix: str, scope: Any = None) -> list:
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name: str, scope: Any = None) -> list:
    """The variables whose last name component is ``given_name``."""
    return get_variables(scope=scope, suffix="/" + given_name + ":|^" + given_name + ":")


def get_unique_variable(var_op_name: str) -> Any:
    """The variable named exactly ``var_op_name``."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")


def get_variable_full_name(var: Any) -> str:
    """The checkpoint name of ``var`` (the full variable's for a partition)."""
    info = getattr(var, "_save_slice_info", None)
    return info.full_name if info else var.op.name


def filter_variables(var_list: list, include_patterns: Any = None,
                     exclude_patterns: Any = None, reg_search: bool = True) -> list:
    """``var_list`` filtered by name: kept when some include pattern matches (or none is
    given) and no exclude pattern does (``re.search``, or substring without reg_search)."""
    import re

    def match(name: str, pattern: str) -> bool:
        return re.search(pattern, name) is not None if reg_search else pattern in name

    out = []
    for var in var_list:
        name = var.op.name
        if include_patterns is not None and not any(match(name, p) for p in include_patterns):
            continue
        if exclude_patterns is not None and any(match(name, p) for p in exclude_patterns):
            continue
        out.append(var)
    return out


def assign_from_checkpoint(model_path: str, var_list: Any,
                           ignore_missing_vars: bool = False) -> tuple:
    """(assign op, feed dict) loading ``var_list`` (a list, or {checkpoint name: variable
    or list of slices}) from the checkpoint at ``model_path``."""
    grouped: dict[str, list] = {}
    if isinstance(var_list, (tuple, list)):
        for var in var_list:
            grouped.setdefault(get_variable_full_name(var), []).append(var)
    else:
        for ckpt_name, value in var_list.items():
            grouped[ckpt_name] = list(value) if isinstance(value, (tuple, list)) else [value]
    reader = load_checkpoint(model_path)
    feed_dict = {}
    assign_ops = []
    for ckpt_name, group in grouped.items():
        if not reader.has_tensor(ckpt_name):
            message = f"Checkpoint is missing variable [{ckpt_name}]"
            if ignore_missing_vars:
                _log.warning(message)
                continue
            raise ValueError(message)
        ckpt_value = reader.get_tensor(ckpt_name)
        for var in group:
            placeholder = array_ops.placeholder(dtype=var.dtype.base_dtype,
                                                shape=var.get_shape(),
                                                name="placeholder/" + var.op.name)
            assign_ops.append(var.assign(placeholder))
            info = getattr(var, "_save_slice_info", None)
            if not info:
                if var.get_shape() != ckpt_value.shape:
                    raise ValueError(
                        f"Total size of new array must be unchanged for {ckpt_name} "
                        f"lh_shape: [{ckpt_value.shape}], rh_shape: [{var.get_shape()}]")
                feed_dict[placeholder] = ckpt_value
            else:
                index = tuple(slice(start, start + size)
                              for start, size in zip(info.var_offset, info.var_shape))
                feed_dict[placeholder] = ckpt_value[index].reshape(info.var_shape)
    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_checkpoint_fn(model_path: str, var_list: Any,
                              ignore_missing_vars: bool = False,
                              reshape_variables: bool = False) -> Any:
    """A ``fn(session)`` restoring ``var_list`` from ``model_path`` with a Saver (None when
    nothing is left to restore)."""
    if not var_list:
        raise ValueError("var_list cannot be empty")
    if ignore_missing_vars:
        reader = load_checkpoint(model_path)
        var_dict = var_list if isinstance(var_list, dict) else \
            {var.op.name: var for var in var_list}
        available = {}
        for name, var in var_dict.items():
            if reader.has_tensor(name):
                available[name] = var
            else:
                _log.warning("Variable %s missing in checkpoint %s", name, model_path)
        var_list = available
    if not var_list:
        _log.warning("No Variables to restore")
        return None
    saver = Saver(var_list, reshape=reshape_variables)

    def callback(session: Any) -> Any:
        return saver.restore(session, model_path)

    return callback


def assign_from_values(var_names_to_values: dict) -> tuple:
    """(assign op, feed dict) setting each named global variable to its numpy value."""
    feed_dict = {}
    assign_ops = []
    for var_name, var_value in var_names_to_values.items():
        found = ops_lib.get_collection(ops_lib.GraphKeys.GLOBAL_VARIABLES, var_name)
        if not found:
            raise ValueError(f"Variable {var_name} wasn't found")
        if len(found) > 1:
            exact = [v for v in found if v.op.name == var_name]
            if not exact:
                raise ValueError(f"Variable {var_name} doesn't uniquely identify a variable")
            found = exact
        var = found[0]
        placeholder = array_ops.placeholder(dtype=var.dtype.base_dtype, shape=var.get_shape(),
                                            name="placeholder/" + var.op.name)
        assign_ops.append(var.assign(placeholder))
        if var.get_shape() != var_value.shape:
            raise ValueError(f"Shape mismatch in assign_from_values: variable {var_name} has "
                             f"shape {var.get_shape()}, value has shape {var_value.shape}")
        feed_dict[placeholder] = var_value.reshape(var.get_shape().as_list())
    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_values_fn(var_names_to_values: dict) -> Any:
    """A ``fn(session)`` running ``assign_from_values``."""
    assign_op, feed_dict = assign_from_values(var_names_to_values)

    def callback(session: Any) -> Any:
        return session.run(assign_op, feed_dict)

    return callback
