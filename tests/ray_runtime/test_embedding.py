"""A sharded embedding on 4 ps + 2 workers (between-graph, async Adagrad): the table's
shards live one per ps task, each ps gathers its own rows and applies their sparse
updates, so the bytes a ps moves per step follow the batch's ids, not the table
(ray_runtime/load.py's report; graphcore/ops/embedding_ops.py)."""

import numpy as np
import ray

import ray_runtime
from ray_runtime import actors

CLUSTER = {"ps": 4, "worker": 2}
DIM, BATCH, POOL, STEPS = 16, 256, 512, 30


def _main(task_index, vocab):
    import graphcore as tf

    # The ids a worker draws: POOL ids spread over the whole table, each with a target.
    pool = np.arange(POOL) * (vocab // POOL)
    targets = np.random.RandomState(0).randn(POOL, 1).astype(np.float32)
    with tf.device(tf.train.replica_device_setter(
            cluster=CLUSTER, worker_device=f"/job:worker/task:{task_index}")):
        emb = tf.get_variable("emb", [vocab, DIM], partitioner=tf.fixed_size_partitioner(4),
                              initializer=tf.random_uniform_initializer(-0.1, 0.1, seed=1))
        head = tf.get_variable("head", [DIM, 1], initializer=tf.ones_initializer())
        ids = tf.placeholder(tf.int64, [BATCH])
        y = tf.placeholder(tf.float32, [BATCH, 1])
        pred = tf.matmul(tf.nn.embedding_lookup(emb, ids), head)
        loss = tf.reduce_mean(tf.square(pred - y))
        train = tf.train.AdagradOptimizer(0.3).minimize(loss)
    cluster_spec, name = ray_runtime.launched_cluster()
    sess = ray_runtime.worker_session(cluster_spec, task_index, name)
    try:
        if task_index == 0:
            sess.run(tf.global_variables_initializer())
        else:
            ray_runtime.wait_for_variables(sess, poll=0.05)
        rng = np.random.RandomState(task_index)
        eval_pick = np.arange(BATCH)
        feed_eval = {ids: pool[eval_pick], y: targets[eval_pick]}
        first = sess.run(loss, feed_eval)
        for _ in range(STEPS):
            pick = rng.randint(0, POOL, BATCH)
            sess.run(train, {ids: pool[pick], y: targets[pick]})
        last = sess.run(loss, feed_eval)
    finally:
        sess.close()
    return first, last, [v.device for v in emb]


def test_sharded_embedding_trains_on_4_ps_and_moves_bytes_by_ids(cluster_name):
    vocab = 400_000  # 25.6 MB: four shards of 6.4 MB
    results = ray_runtime.launch(_main, CLUSTER, args=(vocab,), cluster_name=cluster_name)
    report = ray_runtime.load_report(cluster_name, CLUSTER)
    for i in range(4):
        ps = ray.get_actor(actors.actor_name(cluster_name, "ps", i), actors.NAMESPACE)
        calls = ray.get(ps.call_counts.remote())
        # A step is two calls per ps: run_begin carries the ids and answers with the
        # rows; resume carries the gradients and answers with the update's control
        # edge and the outcome. No deliver calls either way, and the partition runs on
        # the calls' own threads (suspended between them), not on a pool thread.
        assert calls["deliver"] == 0 and calls["open"] == 0 and calls["pooled"] == 0
        assert calls["run_begin"] + calls["resume"] + calls["finish"] <= 2 * report[i].steps
    shard = vocab // 4 * DIM * 4  # bytes of one shard (and of its Adagrad slot)
    for first, last, devices in results:
        assert last < 0.5 * first  # each worker sees the shared loss fall
        assert devices == [f"/job:ps/task:{i}" for i in range(4)]
    assert [t.task for t in report] == [f"/job:ps/replica:0/task:{i}" for i in range(4)]
    for t in report:
        # Each ps holds its shard and the shard's accumulator (plus at most the head).
        assert 2 * shard <= t.bytes_held <= 2 * shard + 1024
        assert t.steps >= 2 * STEPS  # both workers' steps ran a partition on every ps
        # A step moves the rows of the batch's ids (about 64 ids of 64 bytes each way
        # here), never the shard: a dense gradient or a fetched shard would move 6.4 MB.
        assert t.bytes_in_per_step + t.bytes_out_per_step < 20_000
