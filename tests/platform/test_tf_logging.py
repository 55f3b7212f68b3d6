"""tf.logging (graphcore/platform/tf_logging.py): the "tensorflow" logger, TF1's levels,
verbosity, counted logging and the caller's file and line in records."""

import logging

import pytest

import graphcore as tf
from graphcore.platform import tf_logging


@pytest.fixture
def records():
    logger = logging.getLogger("tensorflow")
    seen = []

    class Handler(logging.Handler):
        def emit(self, record):
            seen.append(record)

    handler = Handler(logging.DEBUG)
    saved = logger.level
    logger.addHandler(handler)
    tf.logging.set_verbosity(tf.logging.DEBUG)
    tf_logging._log_counter_per_token.clear()  # counts start afresh in every test
    yield seen
    logger.removeHandler(handler)
    logger.setLevel(saved)


def test_levels_and_verbosity(records):
    assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR,
            tf.logging.FATAL) == (10, 20, 30, 40, 50)
    tf.logging.set_verbosity(tf.logging.WARN)
    assert tf.logging.get_verbosity() == 30
    tf.logging.info("hidden")
    tf.logging.warning("shown %d", 1)
    tf.logging.TaskLevelStatusMessage("status")
    assert [(r.levelname, r.getMessage()) for r in records] == [("WARNING", "shown 1"),
                                                                ("ERROR", "status")]
    assert records[0].name == "tensorflow"
    assert records[0].filename == "test_tf_logging.py"
    assert records[0].funcName == "test_levels_and_verbosity"


def test_counted_logging(records):
    # The count is keyed by the first frame outside the calling file (TF's
    # _GetFileAndLine): here pytest's, so every call from this file shares one count.
    for i in range(10):
        tf.logging.log_every_n(tf.logging.INFO, "every %d", 4, i)
    for i in range(4):
        tf.logging.log_first_n(tf.logging.INFO, "first %d", 12, i)
    tf.logging.log_if(tf.logging.INFO, "if %s", 1 > 2, "no")
    tf.logging.log_if(tf.logging.INFO, "if %s", 2 > 1, "yes")
    tf.logging.vlog(tf.logging.INFO, "vlog")
    assert [r.getMessage() for r in records] == [
        "every 0", "every 4", "every 8", "first 0", "first 1", "if yes", "vlog"]


def test_flush_is_not_implemented_as_in_tf():
    with pytest.raises(NotImplementedError):
        tf.logging.flush()
