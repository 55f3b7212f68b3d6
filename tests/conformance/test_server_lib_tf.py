"""Reference tier: tf.train.Server's ServerDef and ClusterSpec's ClusterDef bytes equal
TensorFlow's for the same arguments. Skipped without TensorFlow."""

import os

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402
from graphcore.train.server_lib import _server_def  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf_server_lib = pytest.importorskip("tensorflow.python.training.server_lib")

CASES = {
    "two_jobs": ({"worker": ["localhost:2222", "localhost:2223"], "ps": ["ps0:2222"]},
                 "worker", 1),
    "one_task": ({"local": ["localhost:0"]}, None, None),
    "sparse_tasks": ({"worker": {3: "w3:1", 1: "w1:1"}}, "worker", 3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_server_def_bytes_match_tf(case):
    cluster, job, task = CASES[case]
    ours = _server_def(cluster, job, task, None, None)
    theirs = tf_server_lib._make_server_def(cluster, job, task, None, None)
    assert ours.SerializeToString() == theirs.SerializeToString()
    assert (tf.train.ClusterSpec(cluster).as_cluster_def().SerializeToString()
            == tf_ref.train.ClusterSpec(cluster).as_cluster_def().SerializeToString())


def test_server_def_round_trips_through_tf():
    ours = tf.train.Server({"worker": ["localhost:52240"]}, start=False).server_def
    theirs = tf_ref.compat.v1.train.ServerDef.FromString(ours.SerializeToString())
    assert (theirs.job_name, theirs.task_index, theirs.protocol) == ("worker", 0, "grpc")
