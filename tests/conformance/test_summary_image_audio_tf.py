"""Reference tier: tf.summary.image / tf.summary.audio against TensorFlow's compat.v1.

Both write their summaries through their own FileWriter; TF's summary_iterator reads both
event files and the Summary values must be equal, encoded PNG and WAV bytes included.
Skipped without TensorFlow."""

import os

import numpy as np
import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

RNG = np.random.default_rng(3)
FLOAT_IMAGES = RNG.normal(size=(4, 5, 6, 3)).astype(np.float32)
BAD = FLOAT_IMAGES.copy()
BAD[0, 1, 2, 0] = np.nan
BAD[1, 0, 0, 2] = np.inf
U8 = RNG.integers(0, 256, (2, 7, 5, 3)).astype(np.uint8)
STEREO = RNG.normal(size=(3, 20, 2)).astype(np.float32)


def _summaries(lib):
    return [
        lib.summary.image("u8", U8),
        lib.summary.image("positive", np.abs(FLOAT_IMAGES)[..., :1], max_outputs=5),
        lib.summary.image("signed", FLOAT_IMAGES, max_outputs=1, family="fam"),
        lib.summary.image("nonfinite", BAD, max_outputs=2),
        lib.summary.image("rgba_half", np.abs(FLOAT_IMAGES[:2, ..., :2]).repeat(2, -1)
                          .astype(np.float16)),
        lib.summary.image("zeros", np.zeros((1, 2, 2, 1), np.float64)),
        lib.summary.audio("mono", np.sin(np.arange(2 * 50).reshape(2, 50) / 3.0)
                          .astype(np.float32), 8000),
        lib.summary.audio("stereo_clipped", STEREO, 22050.6, max_outputs=1),
        lib.summary.audio("rate_tensor", np.full((1, 4), 0.25, np.float32),
                          lib.constant(16000.0)),
    ]


def _write_and_read(lib, logdir):
    with lib.Graph().as_default() as graph:
        summaries = _summaries(lib)
        merged = lib.summary.merge_all()
        nodes = sorted((n.name, n.op) for n in graph.as_graph_def().node
                       if n.op in ("ImageSummary", "AudioSummaryV2"))
        with lib.Session() as sess:
            writer = lib.summary.FileWriter(logdir)
            writer.add_summary(sess.run(merged), global_step=7)
            writer.close()
        shapes = [s.shape.as_list() for s in summaries]
    files = [os.path.join(logdir, f) for f in os.listdir(logdir)]
    values = []
    for event in tf1.train.summary_iterator(files[0]):
        if event.HasField("summary"):
            assert event.step == 7
            values.extend(event.summary.value)
    return values, nodes, shapes


def test_image_and_audio_summaries_match_tf_event_files(tmp_path):
    ours, our_nodes, our_shapes = _write_and_read(tf, str(tmp_path / "ours"))
    theirs, their_nodes, their_shapes = _write_and_read(tf1, str(tmp_path / "theirs"))
    assert our_nodes == their_nodes
    assert our_shapes == their_shapes
    assert [v.tag for v in ours] == [v.tag for v in theirs]
    for a, b in zip(ours, theirs):
        assert a == b, a.tag


ERRORS = {
    "image_rank3": lambda t: t.summary.image("x", np.zeros((2, 2, 3), np.float32)),
    "image_channels": lambda t: t.summary.image("x", np.zeros((1, 2, 2, 2), np.float32)),
    "audio_rank1": lambda t: t.summary.audio("x", np.zeros(3, np.float32), 100),
    "audio_rate": lambda t: t.summary.audio("x", np.zeros((1, 3), np.float32), -5),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_summary_kernel_errors_match_tf(case):
    classes = []
    for lib in (tf, tf1):
        with lib.Graph().as_default():
            out = ERRORS[case](lib)
            with lib.Session() as sess, pytest.raises(lib.errors.OpError) as info:
                sess.run(out)
            classes.append(type(info.value).__name__)
    assert classes[0] == classes[1]
