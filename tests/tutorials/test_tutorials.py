"""TF1 tutorial-style scripts run unmodified: ``python -m graphcore.run script.py`` and the
same script on TensorFlow reach the same accuracy on the same (offline stand-in) MNIST, and
what graphcore writes (event files, checkpoints) TensorFlow reads."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
# The last number a script prints after one of these is its final accuracy.
_ACCURACY = re.compile(r"(?:^accuracy|Precision @ 1:|Accuracy at step \d+:)\s+([0-9.]+)", re.M)
# script -> (its data-directory flag, extra arguments that keep the test short)
SCRIPTS = {
    "mnist_softmax_style.py": ("--data_dir", []),
    "mnist_deep_style.py": ("--data_dir", []),
    "fully_connected_feed_style.py": ("--input_data_dir", ["--max_steps", "2000"]),
    "mnist_with_summaries_style.py": ("--data_dir", ["--max_steps", "100"]),
}


def _run(runner: list[str], script: str, workdir: Path, *args: str) -> str:
    """Runs the script (TEST_TMPDIR=workdir, where its logs go); returns its stdout."""
    data_flag, extra = SCRIPTS[script]
    workdir.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=str(ROOT),
               TEST_TMPDIR=str(workdir))
    cmd = runner + [str(HERE / script), data_flag, str(workdir / "mnist"), *extra, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env,
                         cwd=workdir)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def _accuracy(stdout: str) -> float:
    found = _ACCURACY.findall(stdout)
    assert found, stdout
    return float(found[-1])


OURS = [sys.executable, "-m", "graphcore.run"]
TF_RUNNER = [sys.executable, str(HERE / "run_with_tf.py")]


def _tensorflow_or_skip():
    try:
        import tensorflow as tf_ref
    except ImportError:
        pytest.skip("the TensorFlow side needs tensorflow (reference tier)")
    return tf_ref


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_runs_unmodified_and_reaches_tensorflows_accuracy(script, tmp_path):
    ours = _accuracy(_run(OURS, script, tmp_path / "ours"))
    assert ours > 0.7
    _tensorflow_or_skip()
    theirs = _accuracy(_run(TF_RUNNER, script, tmp_path / "tf"))
    assert abs(ours - theirs) < 0.03, (ours, theirs)
    if script == "fully_connected_feed_style.py":
        _check_fully_connected_feed_files(tmp_path / "ours" / "tensorflow/mnist/logs")
    if script == "mnist_with_summaries_style.py":
        _check_summaries_files(tmp_path / "ours" / "tensorflow/mnist/logs",
                               tmp_path / "tf" / "tensorflow/mnist/logs")


def test_feature_column_script_prints_what_tensorflow_prints(tmp_path):
    """census_feature_columns_style.py (tf.data CSV -> feature columns -> input_layer and
    dense layers, linear_model): the same variables, parse spec, losses and accuracy as
    on TensorFlow, line for line."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
               PYTHONPATH=str(ROOT))

    def run(runner: list[str]) -> str:
        out = subprocess.run(runner + [str(HERE / "census_feature_columns_style.py"),
                                       "--data_dir", str(tmp_path), "--steps", "100"],
                             capture_output=True, text=True, timeout=600, env=env,
                             cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    ours = run(OURS)
    assert "dnn/input_layer/occupation_embedding/embedding_weights [50, 8]" in ours
    assert re.search(r"^accuracy 0\.[5-9]", ours, re.M), ours
    _tensorflow_or_skip()
    assert ours == run(TF_RUNNER)


# Scripts that take no arguments and print what TensorFlow prints, line for line (run
# together by run_scripts.py: one process per side).
EXACT_SCRIPTS = ["word2vec_style.py", "text_cnn_style.py", "seq_tagger_style.py",
                 "keras_graph_style.py", "vae_style.py", "policy_gradient_style.py",
                 "finetune_style.py", "tfrecord_queue_style.py", "cifar_bn_style.py",
                 "static_rnn_style.py", "towers_style.py", "nmt_data_style.py"]


def test_scripts_print_what_tensorflow_prints(tmp_path):
    """word2vec (nce/sampled softmax), a text CNN, a BiLSTM tagger + attention seq2seq,
    tf.keras in graph mode, a VAE with tf.distributions, REINFORCE with tf.multinomial,
    Saver restore + fine-tune + init_from_checkpoint, TFRecords through queue runners,
    batch norm + EMA + tf.metrics, static_rnn with its state fed back, multi-tower
    averaging with tf.app.flags and gradient overrides, an NMT tf.data pipeline with
    lookup tables captured in map functions: the same stdout as on TensorFlow."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", TF_USE_LEGACY_KERAS="1",
               PYTHONPATH=str(ROOT))
    scripts = [str(HERE / "run_scripts.py")] + [str(HERE / s) for s in EXACT_SCRIPTS]

    def run(runner: list[str]) -> str:
        out = subprocess.run(runner + scripts, capture_output=True, text=True, timeout=600,
                             env=env, cwd=tmp_path)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    ours = run(OURS)
    assert [line[4:] for line in ours.splitlines() if line.startswith("=== ")] == \
        EXACT_SCRIPTS
    _tensorflow_or_skip()
    theirs = run(TF_RUNNER)
    for ours_part, theirs_part in zip(ours.split("=== "), theirs.split("=== ")):
        assert ours_part == theirs_part


def _events(tf_ref, directory: Path) -> list:
    files = sorted(directory.glob("events.out.tfevents.*"))
    assert len(files) == 1, files
    return list(tf_ref.compat.v1.train.summary_iterator(str(files[0])))


def _check_fully_connected_feed_files(logs: Path) -> None:
    """TF reads graphcore's event file (graph, the loss scalar every 100 steps) and
    restores its last checkpoint into the same model built with TF."""
    tf_ref = _tensorflow_or_skip()
    log_dir = logs / "fully_connected_feed"
    events = _events(tf_ref, log_dir)
    assert any(e.HasField("graph_def") for e in events)
    steps = [e.step for e in events for v in e.summary.value if v.tag == "loss"]
    assert steps == list(range(0, 2000, 100))
    tf1 = tf_ref.compat.v1
    last = tf1.train.latest_checkpoint(str(log_dir))
    assert last.endswith("model.ckpt-1999")
    with tf1.Graph().as_default(), tf1.Session() as sess:
        saver = tf1.train.import_meta_graph(last + ".meta")
        saver.restore(sess, last)
        assert sess.run("global_step:0") == 2000
        names = {v.op.name for v in tf1.global_variables()}
    assert {"hidden1/weights", "hidden2/biases", "softmax_linear/weights"} <= names


def _check_summaries_files(logs: Path, tf_logs: Path) -> None:
    """TF reads both writers' event files, which hold what TF's own run wrote: the same
    tags (per-variable scalars and histograms, the input images) at the same steps, and
    the traced steps' run metadata."""
    tf_ref = _tensorflow_or_skip()

    def summary(logs: Path, writer: str) -> tuple:
        events = _events(tf_ref, logs / "mnist_with_summaries" / writer)
        return (sorted((e.step, v.tag) for e in events for v in e.summary.value),
                [e.tagged_run_metadata.tag for e in events
                 if e.HasField("tagged_run_metadata")], events)

    for writer in ("train", "test"):
        ours, ours_traced, events = summary(logs, writer)
        theirs, theirs_traced, _ = summary(tf_logs, writer)
        assert ours == theirs
        assert ours_traced == theirs_traced
    _, traced, train = summary(logs, "train")
    assert traced == ["step099"]
    images = [v.image for e in train for v in e.summary.value if v.tag.startswith("input")]
    assert images and (images[0].height, images[0].width) == (28, 28)
    histograms = [v.histo for e in train for v in e.summary.value
                  if v.tag == "layer1/weights/summaries/histogram"]
    assert len(histograms) == 90 and histograms[0].num == 784 * 500
