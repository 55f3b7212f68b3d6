"""Run an unmodified TF1 script on graphcore: ``python -m graphcore.run script.py [args]``.

The script's ``import tensorflow as tf`` (and ``tf.compat.v1``) import graphcore, and
``tensorflow.examples.tutorials.mnist`` imports graphcore's stand-in; then the script runs
as ``__main__`` with its own arguments, as ``python script.py args`` would run it.
"""

from __future__ import annotations

import os
import runpy
import sys

import graphcore
from graphcore import compat
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
}


def install_aliases() -> None:
    """Makes ``import tensorflow...`` import graphcore in this process."""
    for name, module in ALIASES.items():
        existing = sys.modules.get(name)
        if existing is not None and existing is not module:
            raise RuntimeError(f"{name} is already imported in this process: graphcore.run "
                               "must start before TensorFlow is imported")
        sys.modules[name] = module


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
