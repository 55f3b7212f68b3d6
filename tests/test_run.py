"""python -m graphcore.run (graphcore/run.py): a TF1 script that imports TF's internal
modules by name (tensorflow.python.framework.graph_util, platform.gfile, client.timeline,
pywrap_tensorflow, training.moving_averages) runs on graphcore's modules."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = '''
import os
import sys
import tensorflow as tf
from tensorflow.python.framework import graph_util, ops
from tensorflow.python.platform import gfile
from tensorflow.python.client import timeline
from tensorflow.python import pywrap_tensorflow
import tensorflow.python.training.moving_averages as moving_averages

out = sys.argv[1]
ops.reset_default_graph()
x = tf.placeholder(tf.float32, [None, 2], name="x")
w = tf.Variable([[1.0], [2.0]], name="w")
avg = tf.Variable(0.0, name="avg", trainable=False)
y = tf.identity(tf.matmul(x, w), name="y")
update = moving_averages.assign_moving_average(avg, tf.reduce_mean(y), 0.5, zero_debias=False)
saver = tf.train.Saver()
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    metadata = tf.RunMetadata()
    print("avg", sess.run(update, {x: [[1.0, 1.0]]}, run_metadata=metadata,
                          options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)))
    trace = timeline.Timeline(metadata.step_stats).generate_chrome_trace_format()
    print("traced", '"traceEvents"' in trace)
    path = saver.save(sess, os.path.join(out, "model"))
    frozen = graph_util.convert_variables_to_constants(sess, sess.graph_def, ["y"])
with gfile.GFile(os.path.join(out, "frozen.pb"), "wb") as f:
    f.write(frozen.SerializeToString())
print("frozen", gfile.Exists(os.path.join(out, "frozen.pb")),
      sorted({n.op for n in frozen.node}))
reader = pywrap_tensorflow.NewCheckpointReader(path)
print("checkpoint", sorted(reader.get_variable_to_shape_map().items()),
      reader.get_tensor("w").ravel().tolist())
'''


def test_script_importing_tf_internal_modules_runs(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-m", "graphcore.run", str(script), str(tmp_path)],
                         capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == [
        "avg 1.5",
        "traced True",
        "frozen True ['Const', 'Identity', 'MatMul', 'Placeholder']",
        "checkpoint [('avg', []), ('w', [2, 1])] [1.0, 2.0]",
    ]
