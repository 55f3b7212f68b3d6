"""The convnet workload's model (bench/convnet.py) in-process, at its quick size: graphcore
and TF agree on the first batch's loss, and the summaries case writes a histogram of every
weight and gradient and the scalar loss each step (TF-free parts run without TF)."""

import glob

import numpy as np
import pytest

from bench import common, convnet


def test_convnet_summaries_step_writes_every_histogram():
    import graphcore as tf
    from graphcore.protobuf import event_pb2

    model, batches, _ = convnet.make_model("graphcore", "summaries", quick=True)
    try:
        step = common.cycling_steps(model, batches)
        for _ in range(3):
            step()
        model.writer.flush()
        files = glob.glob(f"{model.logdir}/events.out.tfevents.*")
        assert len(files) == 1
        tags: dict[int, set] = {}
        for record in tf.python_io.tf_record_iterator(files[0]):
            event = event_pb2.Event.FromString(record)
            if event.HasField("summary"):
                tags.setdefault(event.step, set()).update(
                    (v.tag, v.WhichOneof("value")) for v in event.summary.value)
    finally:
        model.close()
    names = sorted(convnet.init_params(convnet.QUICK_FC))
    # A summary's tag is its op's name, made unique against the variable's ("W_fc1_1").
    want = {(n + "_1", "histo") for n in names} | {(n + "/gradient", "histo") for n in names} | \
        {("cross_entropy", "simple_value")}
    assert sorted(tags) == [0, 1, 2]
    for t in tags.values():
        assert t == want


@pytest.mark.parametrize("case", ["deep-mnist", "mobilenet"])
def test_convnet_first_loss_matches_tf(case):
    pytest.importorskip("tensorflow")
    losses = []
    for impl in ("graphcore", "tensorflow"):
        model, batches, _ = convnet.make_model(impl, case, quick=True)
        try:
            x, y = batches[0]
            losses.append(model.first_loss(x, y))
            common.cycling_steps(model, batches)()
        finally:
            model.close()
    assert np.isclose(losses[0], losses[1], rtol=1e-4)
