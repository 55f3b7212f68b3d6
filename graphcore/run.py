"""Run an unmodified TF1 script on graphcore: ``python -m graphcore.run script.py [args]``.

The script's ``import tensorflow as tf`` (and ``tf.compat.v1``) import graphcore, and
``tensorflow.examples.tutorials.mnist`` imports graphcore's stand-in, ``tensorflow.keras...``
imports graphcore.keras, and the
``tensorflow.python`` modules that TF1 scripts import by their internal names (``platform.
gfile``, ``framework.graph_util``, ``client.timeline``, ``pywrap_tensorflow``... see
``INTERNAL_ALIASES``) import the graphcore modules that hold the same functions; then the
script runs as ``__main__`` with its own arguments, as ``python script.py args`` would.
"""

from __future__ import annotations

import importlib
import os
import runpy
import sys
import types

import graphcore
from graphcore import compat, keras
from graphcore.tutorials import mnist
from graphcore.tutorials.mnist import input_data
from graphcore.tutorials.mnist import mnist as mnist_model

ALIASES = {
    "tensorflow": graphcore,
    "tensorflow.compat": compat,
    "tensorflow.compat.v1": graphcore,
    "tensorflow.examples": sys.modules["graphcore.tutorials"],
    "tensorflow.examples.tutorials": sys.modules["graphcore.tutorials"],
    "tensorflow.examples.tutorials.mnist": mnist,
    "tensorflow.examples.tutorials.mnist.input_data": input_data,
    "tensorflow.examples.tutorials.mnist.mnist": mnist_model,
    "tensorflow.keras": keras,
    "tensorflow.compat.v1.keras": keras,
}
# ``from tensorflow.keras.layers import Dense`` and the like.
ALIASES.update({f"{prefix}.{name}": getattr(keras, name)
                for prefix in ("tensorflow.keras", "tensorflow.compat.v1.keras")
                for name in ("activations", "backend", "callbacks", "initializers", "layers",
                             "losses", "metrics", "models", "optimizers", "regularizers",
                             "utils")})

# TF's internal module -> the graphcore module with the same public functions.
INTERNAL_ALIASES = {
    "tensorflow.python.client.timeline": "graphcore.client.timeline",
    "tensorflow.python.framework.dtypes": "graphcore.framework.dtypes",
    "tensorflow.python.framework.errors": "graphcore.errors",
    "tensorflow.python.framework.errors_impl": "graphcore.errors",
    "tensorflow.python.framework.graph_io": "graphcore.framework.graph_io",
    "tensorflow.python.framework.graph_util": "graphcore.graph_util",
    "tensorflow.python.framework.importer": "graphcore.framework.importer",
    "tensorflow.python.framework.ops": "graphcore.framework.ops",
    "tensorflow.python.framework.tensor_shape": "graphcore.framework.tensor_shape",
    "tensorflow.python.platform.app": "graphcore.app",
    "tensorflow.python.platform.flags": "graphcore.flags",
    "tensorflow.python.platform.gfile": "graphcore.gfile",
    "tensorflow.python.platform.tf_logging": "graphcore.logging",
    "tensorflow.python.summary.summary": "graphcore.summary",
    "tensorflow.python.training.moving_averages": "graphcore.train.moving_averages",
    "tensorflow.python.training.saver": "graphcore.train.saver",
    "tensorflow.python.training.training_util": "graphcore.train.training_util",
    "tensorflow.python.tools.freeze_graph": "graphcore.tools.freeze_graph",
    "tensorflow.python.tools.optimize_for_inference":
        "graphcore.tools.optimize_for_inference",
    "tensorflow.python.tools.optimize_for_inference_lib":
        "graphcore.tools.optimize_for_inference_lib",
    "tensorflow.python.tools.strip_unused_lib": "graphcore.tools.strip_unused_lib",
}


def _pywrap_tensorflow() -> types.ModuleType:
    """TF1's ``pywrap_tensorflow``, for what scripts take from it: the checkpoint reader."""
    module = types.ModuleType("tensorflow.python.pywrap_tensorflow")
    module.NewCheckpointReader = graphcore.train.NewCheckpointReader
    module.CheckpointReader = graphcore.train.saver.CheckpointReader
    return module


def _internal_modules() -> dict[str, types.ModuleType]:
    """The ``tensorflow.python...`` modules, with a package for each parent name that
    holds its aliased children."""
    modules = {name: importlib.import_module(target)
               for name, target in INTERNAL_ALIASES.items()}
    modules["tensorflow.python.pywrap_tensorflow"] = _pywrap_tensorflow()
    for name in sorted(modules):
        parts = name.split(".")
        for depth in range(2, len(parts)):
            parent = ".".join(parts[:depth])
            if parent not in modules:
                package = types.ModuleType(parent, f"graphcore's stand-in for {parent}")
                package.__path__ = []
                modules[parent] = package
    for name in sorted(modules, key=lambda n: -n.count(".")):
        parent, _, child = name.rpartition(".")
        if parent in modules and parent != "tensorflow":
            setattr(modules[parent], child, modules[name])
    return modules


def install_aliases() -> None:
    """Makes ``import tensorflow...`` import graphcore in this process."""
    internal = _internal_modules()
    for name, module in {**ALIASES, **internal}.items():
        existing = sys.modules.get(name)
        if existing is not None and existing is not module and \
                not (name.startswith("tensorflow.python") and
                     getattr(existing, "__name__", "") == module.__name__):
            raise RuntimeError(f"{name} is already imported in this process: graphcore.run "
                               "must start before TensorFlow is imported")
        sys.modules[name] = module
    # ``import tensorflow.python.x.y as z`` reads the attribute chain from ``tensorflow``.
    graphcore.python = internal["tensorflow.python"]


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip())
        raise SystemExit(0 if argv else 2)
    script = argv[0]
    install_aliases()
    sys.argv = argv
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
