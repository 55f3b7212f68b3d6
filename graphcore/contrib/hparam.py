"""``tf.contrib.training.HParams`` (TF 1.15): hyperparameters as typed attributes, overridden
from a ``"name=value,list=[a,b]"`` string (``parse``), a dict or JSON, with TF's type rules
(no float -> int, no number <-> bool or string). The HParamDef proto form is not here."""

from __future__ import annotations

import json
import numbers
import re
from typing import Any

__all__ = ["HParams", "parse_values"]

PARAM_RE = re.compile(r"""
  (?P<name>[a-zA-Z][\w\.]*)      # variable name: "var" or "x"
  (\[\s*(?P<index>\d+)\s*\])?    # (optional) index: "1" or None
  \s*=\s*
  ((?P<val>[^,\[]*)              # single value: "a" or None
   |
   \[(?P<vals>[^\]]*)\])         # list of values: None or "1,2,3"
  ($|,\s*)""", re.VERBOSE)


def _parse_fail(name: str, var_type: type, value: Any, values: str) -> None:
    raise ValueError(f"Could not parse hparam '{name}' of type '{var_type.__name__}' with "
                     f"value '{value}' in {values}")


def _reuse_fail(name: str, values: str) -> None:
    raise ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _bool_parser(name: str, values: str) -> Any:
    def parse_bool(value: str) -> bool:
        if value in ("true", "True"):
            return True
        if value in ("false", "False"):
            return False
        try:
            return bool(int(value))
        except ValueError:
            _parse_fail(name, bool, value, values)

    return parse_bool


def parse_values(values: str, type_map: dict, ignore_unknown: bool = False) -> dict:
    """{name: parsed value} of ``"name=value,..."`` (``name=[v1,v2]`` for lists,
    ``name[i]=v`` giving {i: v}), each parsed by its type in ``type_map``."""
    results: dict = {}
    pos = 0
    while pos < len(values):
        m = PARAM_RE.match(values, pos)
        if not m:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]}")
        pos = m.end()
        m_dict = m.groupdict()
        name = m_dict["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        type_ = type_map[name]
        parse = _bool_parser(name, values) if type_ is bool else type_
        if m_dict["val"] is not None:
            try:
                parsed = parse(m_dict["val"])
            except ValueError:
                _parse_fail(name, type_, m_dict["val"], values)
            if not m_dict["index"]:
                if name in results:
                    _reuse_fail(name, values)
                results[name] = parsed
            else:
                if name in results and not isinstance(results[name], dict):
                    _reuse_fail(name, values)
                indexed = results.setdefault(name, {})
                index = int(m_dict["index"])
                if index in indexed:
                    _reuse_fail(f"{name}[{index}]", values)
                indexed[index] = parsed
        elif m_dict["vals"] is not None:
            if m_dict["index"] is not None:
                raise ValueError("Assignment of a list to a list index.")
            if name in results:
                _reuse_fail(name, values)
            elements = [e for e in re.split("[ ,]", m_dict["vals"]) if e]
            try:
                results[name] = [parse(e) for e in elements]
            except ValueError:
                _parse_fail(name, type_, m_dict["vals"], values)
        else:
            _parse_fail(name, type_, "", values)
    return results


def _cast_to_type_if_compatible(name: str, param_type: type, value: Any) -> Any:
    fail_msg = f"Could not cast hparam '{name}' of type '{param_type}' from value {value!r}"
    if type(value) is param_type:
        return value
    if issubclass(param_type, type(None)):
        return value
    if issubclass(param_type, (str, bytes)) and not isinstance(value, (str, bytes)):
        raise ValueError(fail_msg)
    if issubclass(param_type, bool) != isinstance(value, bool):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise ValueError(fail_msg)
    if issubclass(param_type, numbers.Number) and not isinstance(value, numbers.Number):
        raise ValueError(fail_msg)
    return param_type(value)


def _remove_callables(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _remove_callables(v) for k, v in x.items() if not callable(v)}
    if isinstance(x, list):
        return [_remove_callables(i) for i in x if not callable(i)]
    return x


class HParams:
    """Hyperparameters as attributes (``hparams.learning_rate``), each typed by its first
    value (a list's by its first element)."""

    _HAS_DYNAMIC_ATTRIBUTES = True

    def __init__(self, hparam_def: Any = None, model_structure: Any = None,
                 **kwargs: Any) -> None:
        if hparam_def is not None:
            raise NotImplementedError("HParams(hparam_def=...): the HParamDef proto is not "
                                      "in graphcore")
        self._hparam_types: dict = {}
        self._model_structure = model_structure
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value: Any) -> None:
        """Adds hyperparameter ``name``; its type is that of ``value`` (or its elements)."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value: Any) -> None:
        """Sets ``name`` to ``value`` cast to its type (ValueError if incompatible)."""
        param_type, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast_to_type_if_compatible(name, param_type, v)
                                 for v in value])
        else:
            if is_list:
                raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
            setattr(self, name, _cast_to_type_if_compatible(name, param_type, value))

    def del_hparam(self, name: str) -> None:
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides hyperparameters from ``"name=value,..."`` (see ``parse_values``)."""
        type_map = {name: param_type for name, (param_type, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, type_map))

    def override_from_dict(self, values_dict: dict) -> HParams:
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    set_from_map = override_from_dict

    def set_model_structure(self, model_structure: Any) -> None:
        self._model_structure = model_structure

    def get_model_structure(self) -> Any:
        return self._model_structure

    def to_json(self, indent: Any = None, separators: Any = None,
                sort_keys: bool = False) -> str:
        """The values as JSON (callables left out)."""
        return json.dumps(_remove_callables(self.values()), indent=indent,
                          separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> dict:
        """{name: value} of every hyperparameter."""
        return {n: getattr(self, n) for n in self._hparam_types}

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default`` (checked against its type) when absent."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            param_type, is_param_list = self._hparam_types[key]
            type_str = f"list<{param_type}>" if is_param_list else str(param_type)
            fail_msg = (f"Hparam '{key}' of type '{type_str}' is incompatible with "
                        f"default={default}")
            if is_param_list != isinstance(default, list):
                raise ValueError(fail_msg)
            try:
                for value in (default if is_param_list else [default]):
                    _cast_to_type_if_compatible(key, param_type, value)
            except ValueError as e:
                raise ValueError(f"{fail_msg}. {e}") from None
        return getattr(self, key)

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return ",".join(f"{key}={value}" for key, value in self.values().items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self.values().items())})"
