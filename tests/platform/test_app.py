"""tf.app.run (graphcore/platform/app.py): flags parsed from argv, main called with the
rest (unknown --flags included, as TF1 tolerates them), its return the exit status."""

import os
import subprocess
import sys

SCRIPT = r'''
import sys
import graphcore as tf
tf.app.flags.DEFINE_integer("steps", 1, "Steps.")
FLAGS = tf.app.flags.FLAGS
def main(argv):
    print("ARGV", argv[1:], "STEPS", FLAGS.steps)
    return int(FLAGS.steps > 5)
if __name__ == "__main__":
    tf.app.run()
'''


def _run(tmp_path, *args):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, str(script), *args], capture_output=True,
                          text=True, timeout=120, env=env)


def test_app_run_parses_flags_and_calls_main(tmp_path):
    ok = _run(tmp_path, "--steps=3", "--unknown=1", "pos")
    assert ok.returncode == 0, ok.stderr
    assert "ARGV ['--unknown=1', 'pos'] STEPS 3" in ok.stdout
    assert _run(tmp_path, "--steps", "9").returncode == 1
    helped = _run(tmp_path, "--help")
    assert "--steps: Steps." in helped.stdout and "ARGV" not in helped.stdout
    bad = _run(tmp_path, "--steps=x")
    assert bad.returncode != 0 and "IllegalFlagValueError" in bad.stderr
