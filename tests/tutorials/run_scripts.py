"""Runs several tutorial-style scripts in one process, each as ``__main__`` in a fresh
default graph and Keras session, its output after a ``=== name`` line: the driver the
tutorial tests hand to ``python -m graphcore.run`` and to ``run_with_tf.py`` (where
``tensorflow`` is graphcore, or TF itself), so each side pays its import once.

    python -m graphcore.run run_scripts.py a_style.py b_style.py
"""

import os
import random
import runpy
import sys

import numpy as np
import tensorflow as tf

for script in sys.argv[1:]:
    tf.reset_default_graph()
    tf.keras.backend.clear_session()
    random.seed(0)
    np.random.seed(0)
    print("=== " + os.path.basename(script), flush=True)
    sys.argv = [script]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:  # tf.app.run() exits with main's return value
        if e.code not in (None, 0):
            raise
    sys.stdout.flush()
