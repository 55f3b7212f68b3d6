"""Session targets resolve to engines by URL scheme (graphcore/runtime/engines.py)."""

from importlib import metadata

import pytest

import graphcore as tf
from graphcore.framework import errors
from graphcore.runtime import engines
from graphcore.runtime.engine import LocalEngine


def test_scheme_of_targets():
    assert engines.scheme_of("") == ""
    assert engines.scheme_of(None) == ""
    assert engines.scheme_of("local") == ""
    assert engines.scheme_of("ray://auto?cluster=x") == "ray"
    assert engines.scheme_of("grpc://localhost:2222") == "grpc"
    with pytest.raises(errors.InvalidArgumentError, match="Unknown session target 'nowhere'"):
        engines.scheme_of("nowhere")


def test_local_targets_make_the_local_engine():
    engine = engines.make_engine("", None)
    assert isinstance(engine, LocalEngine)
    engine.close()


def test_a_registered_scheme_builds_its_engine(monkeypatch):
    made = []

    class _Engine(LocalEngine):
        def __init__(self, target, config):
            super().__init__(config)
            made.append(target)

    monkeypatch.setitem(engines._factories, "test", _Engine)
    c = tf.constant(3.0) * 2.0
    with tf.Session("test://somewhere") as sess:
        assert sess.run(c) == 6.0
    assert made == ["test://somewhere"]


def test_unknown_scheme_is_unimplemented():
    with pytest.raises(errors.UnimplementedError, match="No engine for session target "
                                                       "'nosuch://x'"):
        tf.Session("nosuch://x")


def test_entry_point_is_loaded_on_first_use(monkeypatch):
    loaded = []

    def factory(target, config):
        loaded.append(target)
        return LocalEngine(config)

    class _EntryPoint:
        name, value = "viaep", "somepkg:factory"

        def load(self):
            return factory

    monkeypatch.setattr(metadata, "entry_points",
                        lambda group: [_EntryPoint()] if group == engines.ENTRY_POINT_GROUP
                        else [])
    monkeypatch.delitem(engines._factories, "viaep", raising=False)
    engines.make_engine("viaep://a", None).close()
    assert loaded == ["viaep://a"]
    assert "viaep" in engines.registered_schemes()
    monkeypatch.delitem(engines._factories, "viaep")


def test_ray_runtime_declares_the_ray_entry_point():
    names = {ep.name: ep.value for ep in metadata.entry_points(group=engines.ENTRY_POINT_GROUP)}
    assert names.get("ray") == "ray_runtime:make_engine"


def test_ray_scheme_loads_ray_runtime_through_the_entry_point():
    """In a fresh process: graphcore alone does not import ray_runtime; asking for the
    ray:// scheme loads it and gets its engine factory."""
    import subprocess
    import sys

    code = ("import sys, graphcore\n"
            "from graphcore.runtime import engines\n"
            "assert 'ray_runtime' not in sys.modules\n"
            "factory = engines._from_entry_point('ray')\n"
            "import ray_runtime\n"
            "assert factory is ray_runtime.make_engine\n"
            "print('ok', engines.registered_schemes())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok ['grpc', 'ray']"
