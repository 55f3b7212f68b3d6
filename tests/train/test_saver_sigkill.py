"""Checkpoints survive SIGKILL: a process killed in the middle of ``Saver.save`` of a
large variable leaves the previous checkpoint and the ``checkpoint`` state file valid
and restorable (graphcore/lib/io/checkpoint_format.py writes every file to a temporary
name and renames it into place; graphcore/train/saver.py writes the state file last,
the same way)."""

import os
import random
import select
import signal
import time

import numpy as np

import graphcore as tf

N = 4 * 1024 * 1024  # 16 MiB of float32: a save takes long enough to be hit mid-way
KILLS = 5


def _save_loop(directory: str, out_fd: int) -> None:
    """The child: saves generation g (every element of ``big`` == g) for g = 1, 2, ...,
    reporting "S g" before each save and "D g seconds" after it."""
    with tf.Graph().as_default():
        gen = tf.placeholder(tf.int64, [], name="gen_in")
        big = tf.Variable(tf.zeros([N]), name="big")
        counter = tf.Variable(tf.constant(0, tf.int64), name="gen")
        assign = tf.group(big.assign(tf.fill([N], tf.cast(gen, tf.float32))),
                          counter.assign(gen))
        saver = tf.train.Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            latest = tf.train.latest_checkpoint(directory)
            g = int(latest.rsplit("-", 1)[1]) + 1 if latest else 1
            while True:
                sess.run(assign, {gen: g})
                os.write(out_fd, f"S {g}\n".encode())
                start = time.time()
                saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=g)
                os.write(out_fd, f"D {g} {time.time() - start:.4f}\n".encode())
                g += 1


def _run_and_kill(directory: str, rng: random.Random, save_secs: float | None):
    """Forks a saving child and SIGKILLs it at a random moment inside a save (after at
    least one save of its own); returns (last generation started, last completed,
    measured save time)."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child never returns: it is killed
        os.close(read_fd)
        try:
            _save_loop(directory, write_fd)
        finally:
            os._exit(1)
    os.close(write_fd)
    started = done = None
    buffer = b""
    deadline = time.time() + 60
    try:
        while True:
            ready, _, _ = select.select([read_fd], [], [], max(deadline - time.time(), 0))
            assert ready, "the saving child stopped reporting"
            chunk = os.read(read_fd, 4096)
            assert chunk, "the saving child exited"
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                kind, g, *rest = line.decode().split()
                if kind == "D":
                    done = int(g)
                    save_secs = float(rest[0])
                else:
                    started = int(g)
            if done is not None and started == done + 1 and not buffer:
                # Mid-save of generation `started`: anywhere from its first byte to
                # just past its end (the state file is written last).
                time.sleep(rng.uniform(0, 1.1 * save_secs))
                os.kill(pid, signal.SIGKILL)
                break
    finally:
        os.waitpid(pid, 0)
        os.close(read_fd)
    return started, done, save_secs


def _restore(path: str):
    with tf.Graph().as_default():
        big = tf.Variable(tf.zeros([N]), name="big")
        counter = tf.Variable(tf.constant(0, tf.int64), name="gen")
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            return sess.run([big, counter])


def test_sigkill_during_save_leaves_the_last_checkpoint_restorable(tmp_path):
    directory = str(tmp_path)
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    save_secs = None
    generations = []
    for _ in range(KILLS):
        started, done, save_secs = _run_and_kill(directory, rng, save_secs)
        state = tf.train.get_checkpoint_state(directory)
        assert state is not None, f"seed {seed}: no valid state file"
        latest = tf.train.latest_checkpoint(directory)
        g = int(latest.rsplit("-", 1)[1])
        # The killed save either completed (state file renamed in) or left no trace.
        assert g in (done, started), (seed, g, done, started)
        big, counter = _restore(latest)
        assert counter == g
        np.testing.assert_array_equal(big, np.full(N, g, np.float32))
        # Every checkpoint the state file lists is whole.
        for path in state.all_model_checkpoint_paths:
            assert tf.train.load_variable(path, "gen") == int(path.rsplit("-", 1)[1])
        generations.append(g)
    # The runs went on from each other's checkpoints: generations only grow.
    assert generations == sorted(generations) and len(set(generations)) == KILLS
    # Some kill landed while a data file was being written (its temporary file stays
    # behind, as TF's _temp directories do); none of them is ever read.
    assert any(".tempstate" in f for f in os.listdir(directory)), seed
