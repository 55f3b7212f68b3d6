"""TF1 tutorial-style scripts run unmodified: ``python -m graphcore.run script.py`` and the
same script on TensorFlow reach the same accuracy on the same (offline stand-in) MNIST."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent


def _accuracy(cmd: list[str], tmp_path: Path) -> float:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(ROOT))
    out = subprocess.run(cmd + ["--data_dir", str(tmp_path / "mnist")], capture_output=True,
                         text=True, timeout=600, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-3000:]
    match = re.search(r"accuracy\s+([0-9.]+)", out.stdout)
    assert match, out.stdout
    return float(match.group(1))


SCRIPTS = ["mnist_softmax_style.py", "mnist_deep_style.py"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_runs_unmodified_and_reaches_tensorflows_accuracy(script, tmp_path):
    ours = _accuracy([sys.executable, "-m", "graphcore.run", str(HERE / script)], tmp_path)
    assert ours > 0.7
    try:
        import tensorflow  # noqa: F401
    except ImportError:
        pytest.skip("the TensorFlow side needs tensorflow (reference tier)")
    theirs = _accuracy([sys.executable, str(HERE / "run_with_tf.py"), str(HERE / script)],
                       tmp_path)
    assert abs(ours - theirs) < 0.03, (ours, theirs)
