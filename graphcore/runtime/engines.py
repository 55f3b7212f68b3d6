"""Session targets -> engines: a registry keyed by the target's URL scheme.

``""`` (and ``"local"``) is the local engine. Other schemes (``ray://``, ``grpc://``) belong
to packages built on graphcore: they register a factory here when imported, or declare one
under the ``graphcore.engines`` entry-point group, which is loaded the first time a session
asks for that scheme. So ``tf.Session("ray://auto")`` works without importing the package by
hand, and graphcore never imports it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib import metadata
from typing import Any

from graphcore.framework import errors

EngineFactory = Callable[[str, Any], Any]

ENTRY_POINT_GROUP = "graphcore.engines"

_factories: dict[str, EngineFactory] = {}
_lock = threading.Lock()


def register_engine(scheme: str, factory: EngineFactory) -> None:
    """Makes ``factory(target, config)`` the engine of session targets ``scheme://...``."""
    with _lock:
        _factories[scheme] = factory


def registered_schemes() -> list[str]:
    """The schemes with a registered factory (entry points not yet loaded excluded)."""
    with _lock:
        return sorted(_factories)


def scheme_of(target: str | None) -> str:
    """``"ray"`` for ``"ray://auto"``; ``""`` for the local targets ``""``/``"local"``."""
    if not target or target == "local":
        return ""
    scheme, sep, _ = target.partition("://")
    if not sep:
        raise errors.InvalidArgumentError(None, None, f"Unknown session target '{target}'")
    return scheme


def _from_entry_point(scheme: str) -> EngineFactory | None:
    for ep in metadata.entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == scheme:
            try:
                factory = ep.load()
            except ImportError as e:
                raise errors.UnimplementedError(
                    None, None, f"{scheme}:// targets need {ep.value.partition(':')[0]}, "
                    f"which does not import: {e}") from None
            with _lock:
                return _factories.setdefault(scheme, factory)
    return None


def make_engine(target: str | None, config: Any) -> Any:
    """The engine behind ``tf.Session(target, config=config)``."""
    scheme = scheme_of(target)
    if scheme == "":
        from graphcore.runtime.engine import LocalEngine

        return LocalEngine(config)
    with _lock:
        factory = _factories.get(scheme)
    if factory is None:
        factory = _from_entry_point(scheme)
    if factory is None:
        raise errors.UnimplementedError(
            None, None, f"No engine for session target '{target}': no package registered the "
            f"'{scheme}://' scheme (ray:// comes with graphcore's ray_runtime package)")
    return factory(target, config)


# -- server backends ----------------------------------------------------------------------
# ``tf.train.Server`` asks these, in registration order, for a backend serving its task
# (``factory(server_def, config)`` answers one, or None when it does not apply, e.g. the
# process is not on a Ray cluster); with none, the Server serves in process.  Packages
# register here when imported, or under the ``graphcore.servers`` entry-point group.

ServerBackendFactory = Callable[[Any, Any], Any]

SERVER_ENTRY_POINT_GROUP = "graphcore.servers"

_server_backends: dict[str, ServerBackendFactory] = {}
_server_entry_points_loaded = False


def register_server_backend(name: str, factory: ServerBackendFactory) -> None:
    """Makes ``factory(server_def, config)`` a candidate backend of ``tf.train.Server``."""
    with _lock:
        _server_backends[name] = factory


def _load_server_entry_points() -> None:
    global _server_entry_points_loaded
    with _lock:
        if _server_entry_points_loaded:
            return
        _server_entry_points_loaded = True
        loaded = set(_server_backends)
    for ep in metadata.entry_points(group=SERVER_ENTRY_POINT_GROUP):
        if ep.name in loaded:
            continue
        try:
            factory = ep.load()
        except ImportError:  # the package is optional: its servers are simply not offered
            continue
        with _lock:
            _server_backends.setdefault(ep.name, factory)


def server_backend_names() -> list[str]:
    """The registered server backends (entry points included), in the order asked."""
    _load_server_entry_points()
    with _lock:
        return list(_server_backends)


def make_server_backend(server_def: Any, config: Any = None) -> Any:
    """The first backend that serves ``server_def`` here, or None (serve in process)."""
    _load_server_entry_points()
    with _lock:
        factories = list(_server_backends.values())
    for factory in factories:
        backend = factory(server_def, config)
        if backend is not None:
            return backend
    return None
