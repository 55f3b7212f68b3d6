"""examples/train_ps_ray.py on Ray: the same accuracy as the same graph trained
in-process, and partition graphs that put variables and their updates on the ps tasks
and the compute on the workers."""

import os
import sys

import graphcore as tf
import ray_runtime

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "examples")
sys.path.insert(0, EXAMPLES)

import digits_model  # noqa: E402
import train_between_graph  # noqa: E402
import train_ps_ray  # noqa: E402

EPOCHS = "4"


def test_ray_accuracy_matches_the_local_run(cluster_name, capsys):
    on_ray = train_ps_ray.main(["--epochs", EPOCHS, "--cluster-name", cluster_name])
    local = train_ps_ray.main(["--epochs", EPOCHS, "--local"])
    out = capsys.readouterr().out
    assert "workers on Ray" in out and "in-process" in out
    assert local > 0.85  # it did learn
    assert abs(on_ray - local) <= 0.01, (on_ray, local)


def test_between_graph_clients_train_to_the_in_graph_accuracy(cluster_name, capsys):
    """2 worker clients (examples/train_between_graph.py via ray_runtime.launch), async,
    each on half the data with half the batch: the accuracy of the in-process model
    trained on the same number of examples."""
    # Trained to near convergence: async interleaving moves the accuracy of a model
    # still on the slope of its learning curve by more than the 2% asked for.
    between = train_between_graph.run(["--epochs", "15", "--cluster-name", cluster_name])
    assert "2 worker clients on Ray" in capsys.readouterr().out
    assert between >= 0.95
    assert abs(between - _one_client_accuracy(epochs=15, batch_size=32)) <= 0.02


def _one_client_accuracy(epochs, batch_size):
    """The same model and optimizer in-process: one client, all the data, the same
    batch size, so as many updates as the two async clients make together."""
    import numpy as np

    x_train, y_train, x_test, y_test = digits_model.load_digits_split()
    with tf.Graph().as_default():
        tf.set_random_seed(0)
        images = tf.placeholder(tf.float32, [None, 64])
        labels = tf.placeholder(tf.int64, [None])
        with tf.variable_scope("model"):
            logits = digits_model.inference(tf, images)
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            digits_model.loss_fn(tf, logits, labels))
        accuracy = digits_model.evaluation(tf, logits, labels)
        rng = np.random.default_rng(0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(epochs):
                for bx, by in digits_model.batches(x_train, y_train, batch_size, rng):
                    sess.run(train, {images: bx, labels: by})
            return float(sess.run(accuracy, {images: x_test, labels: y_test}))


# Ops a ps partition may hold: variables, their initial values and update ops, and the
# transfers and control plumbing around them.  No compute.
PS_OPS = {"VariableV2", "Identity", "Const", "Assign", "AssignAdd", "ApplyGradientDescent",
          "NoOp", "_Send", "_Recv", "_Arg", "_Retval"}


def test_partition_graphs_of_a_training_step(cluster_name):
    cluster = tf.train.ClusterSpec({"ps": 2, "worker": 2})
    x_train, y_train, _, _ = digits_model.load_digits_split()
    tf.set_random_seed(0)
    images, labels, train_op, loss, _, _ = train_ps_ray.build(cluster, 2, 0.1)
    sess = ray_runtime.session("ray://auto", cluster=cluster, cluster_name=cluster_name)
    sess.run(tf.global_variables_initializer())
    md = tf.RunMetadata()
    opts = tf.RunOptions(output_partition_graphs=True)
    sess.run([train_op, loss], {images: x_train[:64], labels: y_train[:64]}, options=opts,
             run_metadata=md)
    by_task = {}
    for g in md.partition_graphs:
        devices = {n.device for n in g.node}
        assert len(devices) == 1, devices
        by_task[devices.pop()] = g
    names = {f"/job:{j}/replica:0/task:{t}/device:CPU:0": (j, t)
             for j, t in [("ps", 0), ("ps", 1), ("worker", 0), ("worker", 1)]}
    assert set(by_task) == set(names)
    variables = {v.op.name: v.device for v in tf.global_variables()}
    for device, g in by_task.items():
        job, task = names[device]
        ops = {n.op for n in g.node}
        held = {n.name for n in g.node if n.op == "VariableV2"}
        if job == "ps":
            assert ops <= PS_OPS, ops - PS_OPS
            assert "ApplyGradientDescent" in ops and "MatMul" not in ops
            # Round-robin placement of replica_device_setter, exactly.
            assert held == {v for v, d in variables.items() if d == f"/job:ps/task:{task}"}
        else:
            assert "MatMul" in ops and "VariableV2" not in ops
            assert not ops & {"ApplyGradientDescent", "Assign", "AssignAdd"}
            # Each worker computes its tower's forward and backward pass: 3 forward
            # MatMuls, 2 per layer backward, less the unused gradient of the images
            # (pruned, as TF's graph optimizer prunes it).
            assert sum(n.op == "MatMul" for n in g.node) == 3 + 3 * 2 - 1
    assert len(variables) == 7  # 3 layers x (weights, biases) + global_step
    assert {d for d in variables.values()} == {"/job:ps/task:0", "/job:ps/task:1"}

    def transfers(op):
        return sorted((n.attr["tensor_name"].s, n.attr["send_device"].s,
                       n.attr["recv_device"].s, n.attr["send_device_incarnation"].i)
                      for g in md.partition_graphs for n in g.node if n.op == op)

    sends, recvs = transfers("_Send"), transfers("_Recv")
    assert sends and sends == recvs
    # Every send goes to a partition on another task, and every recv sits on its
    # recv_device's partition.
    for g in md.partition_graphs:
        for n in g.node:
            if n.op == "_Recv":
                assert n.attr["recv_device"].s.decode() == n.device
            if n.op == "_Send":
                assert n.attr["send_device"].s.decode() == n.device
                assert n.attr["recv_device"].s.decode() != n.device
    # Gradients flow worker -> ps, variable values ps -> worker.
    flows = {(s[1].decode().split("/")[1], s[2].decode().split("/")[1]) for s in sends}
    assert {("job:ps", "job:worker"), ("job:worker", "job:ps")} <= flows
