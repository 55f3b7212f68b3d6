"""Reference tier: TF1's program scaffolding against TensorFlow's compat.v1 — tf.app.run
and tf.flags parse the same argv the same way (remaining args, --help, unknown and bad
flags, FLAGS read before parsing), tf.logging emits the same records, tf.gfile /
tf.io.gfile give the same results and errors, and TFRecord files cross between the two
in all three compressions. Skipped without TensorFlow."""

import json
import logging
import os
import subprocess
import sys

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import graphcore as tf  # noqa: E402

tf_ref = pytest.importorskip("tensorflow")
tf1 = tf_ref.compat.v1

# -- tf.app.run and tf.flags: one process per library, several argv each ------------------

APP_SCRIPT = r'''
import json, sys
if sys.argv[1] == "graphcore":
    import graphcore as tf
else:
    import tensorflow.compat.v1 as tf
flags = tf.app.flags
flags.DEFINE_string("data_dir", "/tmp/data", "Where the data is.")
flags.DEFINE_integer("steps", 10, "Training steps.", lower_bound=0)
flags.DEFINE_float("lr", 0.1, "Learning rate.")
flags.DEFINE_boolean("fake", False, "Fake data.")
tf.flags.DEFINE_bool("shuffle", True, "Shuffle.")
flags.DEFINE_list("hosts", ["a:1"], "Hosts.")
flags.DEFINE_enum("mode", "train", ["train", "eval"], "Mode.")
flags.DEFINE_multi_string("tag", [], "Tags.")
flags.DEFINE_string(flag_name="old", default_value="o", docstring="Old keyword names.")
FLAGS = flags.FLAGS
NAMES = ["data_dir", "steps", "lr", "fake", "shuffle", "hosts", "mode", "tag", "old"]
out = {"implicit": [FLAGS.steps, FLAGS.fake]}
def main(argv):
    out[case]["argv"] = argv
    out[case]["values"] = [getattr(FLAGS, n) for n in NAMES]
    return 3
CASES = {
    "plain": ["prog"],
    "set": ["prog", "--data_dir=/d", "--steps", "7", "--lr=0.5", "--fake", "--noshuffle",
            "--hosts=x:1,y:2", "--mode=eval", "--tag=a", "--tag=b", "--old=n", "rest", "--",
            "--after"],
    "unknown_flag_passes_through": ["prog", "--nope=1", "--steps=2", "pos"],
    "bad_value": ["prog", "--steps=abc"],
    "below_bound": ["prog", "--steps=-1"],
    "bad_enum": ["prog", "--mode=predict"],
    "help": ["prog", "--help"],
}
for case, argv in CASES.items():
    out[case] = {}
    FLAGS.unparse_flags()
    try:
        tf.app.run(main, argv=argv)
    except SystemExit as e:
        out[case]["exit"] = e.code
    except flags.Error as e:
        out[case]["error"] = [type(e).__name__, str(e)]
try:
    FLAGS(["prog", "--nope=1"])
except flags.Error as e:
    out["strict_unknown"] = [type(e).__name__, str(e)]
print("RESULT " + json.dumps(out))
'''


def _app(lib, tmp_path):
    script = tmp_path / "app_script.py"
    script.write_text(APP_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, str(script), lib, "--steps=5", "--fake"],
                          capture_output=True, text=True, timeout=120, env=env)
    lines = proc.stdout.splitlines()
    result = json.loads(next(ln for ln in lines if ln.startswith("RESULT "))[7:])
    help_text = [ln for ln in lines if not ln.startswith("RESULT ")]
    return result, help_text


def test_app_run_and_flags_match_tf(tmp_path):
    ours, our_help = _app("graphcore", tmp_path)
    theirs, their_help = _app("tensorflow", tmp_path)
    assert ours == theirs
    assert ours["implicit"] == [5, True]
    assert ours["set"]["argv"] == ["prog", "rest", "--", "--after"]
    assert ours["set"]["values"] == ["/d", 7, 0.5, True, False, ["x:1", "y:2"], "eval",
                                     ["a", "b"], "n"]
    assert ours["unknown_flag_passes_through"]["argv"] == ["prog", "--nope=1", "pos"]
    assert ours["strict_unknown"][0] == "UnrecognizedFlagError"
    assert ours["bad_value"]["error"] == [
        "IllegalFlagValueError", "flag --steps=abc: invalid literal for int() with base 10: 'abc'"]
    assert ours["plain"]["exit"] == 3
    # --help lists the script's flags the same way (the module path is the script's).
    assert any("--data_dir: Where the data is." in ln for ln in our_help)
    assert our_help == their_help


# -- tf.logging -----------------------------------------------------------------------

class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append((record.levelname, record.getMessage(),
                             os.path.basename(record.pathname), record.funcName))


def _logging_run(lib):
    log = lib.logging
    # Both count log_every_n calls by the first frame outside this file (pytest's, which
    # other tests share): start both counts afresh.
    sys.modules[log.log_every_n.__module__]._log_counter_per_token.clear()
    logger = logging.getLogger("tensorflow")
    handler = _Records()
    logger.addHandler(handler)
    saved = logger.level
    try:
        log.set_verbosity(log.DEBUG)
        levels = [log.DEBUG, log.INFO, log.WARN, log.ERROR, log.FATAL, log.get_verbosity()]
        log.debug("d %d", 1)
        log.info("i %s", "x")
        log.warn("w")
        log.warning("w2")
        log.error("e")
        log.fatal("f")
        log.log(log.INFO, "l %d", 2)
        log.vlog(log.WARN, "v")
        log.TaskLevelStatusMessage("status")
        for i in range(7):
            log.log_every_n(log.INFO, "every %d", 3, i)
        for i in range(4):
            log.log_first_n(log.INFO, "first %d", 2, i)
        log.log_if(log.INFO, "if %s", True, "yes")
        log.log_if(log.INFO, "if %s", False, "no")
        log.set_verbosity(log.ERROR)
        log.info("hidden")
        log.error("shown")
        levels.append(log.get_verbosity())
        with pytest.raises(NotImplementedError):
            log.flush()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved)
    return levels, handler.records


def test_logging_matches_tf():
    ours, theirs = _logging_run(tf), _logging_run(tf1)
    assert ours == theirs
    levels, records = ours
    assert levels == [10, 20, 30, 40, 50, 10, 40]
    assert [m for _, m, _, _ in records if m.startswith("every")] == \
        ["every 0", "every 3", "every 6"]
    # The records name this file and function, not the logging module's (but FATAL, whose
    # Logger.fatal -> critical frame TF's caller search stops at, as ours does).
    assert {(f, fn) for level, _, f, fn in records if level != "CRITICAL"} == \
        {("test_platform_tf.py", "_logging_run")}


# -- tf.gfile / tf.io.gfile -------------------------------------------------------------

def _tree(root):
    os.makedirs(os.path.join(root, "a", "b"))
    with open(os.path.join(root, "f1"), "w") as f:
        f.write("hello\nworld\n")
    with open(os.path.join(root, "a", "x.txt"), "wb") as f:
        f.write(b"xyz")


def _read(g, path, mode="r"):
    with g.GFile(path, mode) as f:
        return f.read()


def _write_then_read(g, path, mode, *chunks):
    with g.GFile(path, mode) as f:
        for c in chunks:
            f.write(c)
    return _read(g, path, "rb")


def _reader_session(g, path):
    f = g.GFile(path)
    out = [f.read(3), f.tell(), f.readline(), f.readlines(), f.size(), f.mode]
    f.seek(2)
    out += [f.read(), f.seekable()]
    f.seek(-3, 2)
    out.append(f.read())
    return out


GFILE_CASES = {
    "exists": lambda g, io, r: [g.Exists(r + "/f1"), g.Exists(r + "/a"), io.exists(r + "/no")],
    "is_directory": lambda g, io, r: [g.IsDirectory(r + "/a"), io.isdir(r + "/f1"),
                                      io.isdir(r + "/no")],
    "list_directory": lambda g, io, r: [sorted(g.ListDirectory(r)), sorted(io.listdir(r + "/a"))],
    "list_missing": lambda g, io, r: g.ListDirectory(r + "/no"),
    "list_file": lambda g, io, r: io.listdir(r + "/f1"),
    "mkdir": lambda g, io, r: [g.MkDir(r + "/n"), g.IsDirectory(r + "/n"), g.MkDir(r + "/n")],
    "mkdir_missing_parent": lambda g, io, r: g.MkDir(r + "/p/q"),
    "makedirs": lambda g, io, r: [g.MakeDirs(r + "/p/q/s"), io.makedirs(r + "/p/q/s"),
                                  io.isdir(r + "/p/q/s")],
    "makedirs_through_file": lambda g, io, r: g.MakeDirs(r + "/f1/x"),
    "remove": lambda g, io, r: [g.Remove(r + "/f1"), g.Exists(r + "/f1")],
    "remove_missing": lambda g, io, r: io.remove(r + "/no"),
    "remove_directory": lambda g, io, r: g.Remove(r + "/a"),
    "delete_recursively": lambda g, io, r: [g.DeleteRecursively(r + "/a"), g.Exists(r + "/a"),
                                            io.rmtree(r + "/f1"), g.Exists(r + "/f1")],
    "delete_recursively_missing": lambda g, io, r: g.DeleteRecursively(r + "/no"),
    "copy": lambda g, io, r: [g.Copy(r + "/f1", r + "/f2"), _read(g, r + "/f2")],
    "copy_exists": lambda g, io, r: g.Copy(r + "/f1", r + "/a/x.txt"),
    "copy_overwrite": lambda g, io, r: [io.copy(r + "/f1", r + "/a/x.txt", overwrite=True),
                                        _read(g, r + "/a/x.txt")],
    "copy_missing": lambda g, io, r: g.Copy(r + "/no", r + "/f3"),
    "rename": lambda g, io, r: [g.Rename(r + "/f1", r + "/g"), g.Exists(r + "/f1"),
                                _read(g, r + "/g")],
    "rename_exists": lambda g, io, r: io.rename(r + "/f1", r + "/a/x.txt"),
    "rename_overwrite": lambda g, io, r: [g.Rename(r + "/f1", r + "/a/x.txt", overwrite=True),
                                          _read(g, r + "/a/x.txt")],
    "rename_missing": lambda g, io, r: g.Rename(r + "/no", r + "/z"),
    "stat": lambda g, io, r: [(s.length, s.is_directory, type(s.mtime_nsec).__name__)
                              for s in (g.Stat(r + "/f1"), io.stat(r + "/a"))],
    "stat_missing": lambda g, io, r: io.stat(r + "/no"),
    "walk": lambda g, io, r: [sorted((d, sorted(s), sorted(f)) for d, s, f in g.Walk(r)),
                              [d for d, _, _ in io.walk(r + "/a", topdown=False)],
                              list(g.Walk(r + "/no"))],
    "glob": lambda g, io, r: [g.Glob(r + "/f*"), sorted(io.glob(r + "/a/*")),
                              g.Glob(r + "/none*"), sorted(io.glob([r + "/f1", r + "/a"]))],
    "read_text_and_bytes": lambda g, io, r: [_read(g, r + "/f1"), _read(g, r + "/f1", "rb"),
                                             list(g.GFile(r + "/f1"))],
    "reader": lambda g, io, r: _reader_session(g, r + "/f1"),
    "read_missing": lambda g, io, r: g.GFile(r + "/no").read(),
    "write_modes": lambda g, io, r: [_write_then_read(g, r + "/w", "w", "abc", b"def"),
                                     _write_then_read(g, r + "/w", "a", "gh"),
                                     _write_then_read(g, r + "/w", "wb", b"\x00")],
    "open_without_write_creates_nothing": lambda g, io, r: [g.GFile(r + "/w", "w").close(),
                                                            g.Exists(r + "/w")],
    "write_missing_dir": lambda g, io, r: g.Open(r + "/no/x", "w").write("x"),
    "bad_mode": lambda g, io, r: g.GFile(r + "/f1", "q"),
    "read_write_only": lambda g, io, r: g.GFile(r + "/f1", "w").read(),
    "write_read_only": lambda g, io, r: g.FastGFile(r + "/f1").write("x"),
    "join": lambda g, io, r: io.join("a", "b", "c.txt"),
}


def _gfile_run(lib, root, case):
    _tree(root)
    try:
        value = GFILE_CASES[case](lib.gfile, lib.io.gfile, root)
    except Exception as e:
        value = [type(e).__name__, str(e)]
    return json.loads(json.dumps(value, default=repr).replace(root, "<root>"))


@pytest.mark.parametrize("case", sorted(GFILE_CASES))
def test_gfile_matches_tf(case, tmp_path):
    ours = _gfile_run(tf, str(tmp_path / "ours"), case)
    assert ours == _gfile_run(tf1, str(tmp_path / "theirs"), case)


def test_glob_without_a_directory_matches_tf(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _tree(str(tmp_path))
    assert tf.gfile.Glob("f*") == tf1.gfile.Glob("f*") == ["./f1"]
    assert sorted(tf.io.gfile.glob("a/*")) == sorted(tf1.io.gfile.glob("a/*"))


# -- TFRecords --------------------------------------------------------------------------

RECORDS = [b"first", b"", b"\x00\xff" * 500, b"last"]
COMPRESSIONS = {
    "none": lambda lib: None,
    "none_string": lambda lib: "",
    "zlib_string": lambda lib: "ZLIB",
    "zlib_type": lambda lib: lib.python_io.TFRecordCompressionType.ZLIB,
    "gzip_options": lambda lib: lib.python_io.TFRecordOptions(
        lib.python_io.TFRecordCompressionType.GZIP),
    "gzip_level": lambda lib: lib.io.TFRecordOptions("GZIP", compression_level=9),
}


def _write(lib, path, options):
    with lib.python_io.TFRecordWriter(path, options) as w:
        for r in RECORDS[:2]:
            w.write(r)
        w.flush()
        for r in RECORDS[2:]:
            w.write(r)


@pytest.mark.parametrize("compression", sorted(COMPRESSIONS))
def test_tf_records_cross_between_graphcore_and_tf(compression, tmp_path):
    ours, theirs = str(tmp_path / "ours.tfr"), str(tmp_path / "theirs.tfr")
    _write(tf, ours, COMPRESSIONS[compression](tf))
    _write(tf1, theirs, COMPRESSIONS[compression](tf1))
    assert list(tf1.python_io.tf_record_iterator(ours, COMPRESSIONS[compression](tf1))) \
        == RECORDS
    assert list(tf.python_io.tf_record_iterator(theirs, COMPRESSIONS[compression](tf))) \
        == RECORDS
    if compression.startswith("none"):  # uncompressed files are the same bytes
        assert open(ours, "rb").read() == open(theirs, "rb").read()


def _iterate_error(lib, path, options=None):
    try:
        list(lib.python_io.tf_record_iterator(path, options))
    except Exception as e:
        return type(e).__name__, str(e).replace(os.path.dirname(path), "<dir>")
    return None


def test_tf_record_errors_match_tf(tmp_path):
    path = str(tmp_path / "r.tfr")
    _write(tf, path, None)
    data = open(path, "rb").read()
    bad = {"header_crc": data[:5] + b"x" + data[6:], "data_crc": data[:13] + b"x" + data[14:]}
    for name, content in bad.items():
        with open(tmp_path / name, "wb") as f:
            f.write(content)
        assert _iterate_error(tf, str(tmp_path / name)) == \
            _iterate_error(tf1, str(tmp_path / name))
    truncated = str(tmp_path / "truncated")
    with open(truncated, "wb") as f:
        f.write(data[:-2])
    assert _iterate_error(tf, truncated)[0] == _iterate_error(tf1, truncated)[0] == \
        "DataLossError"
    assert _iterate_error(tf, path, "GZIP")[0] == _iterate_error(tf1, path, "GZIP")[0]
    assert _iterate_error(tf, str(tmp_path / "no")) == _iterate_error(tf1, str(tmp_path / "no"))
    for lib in (tf, tf1):
        with pytest.raises(ValueError, match='Not a valid compression_type: "BAD"'):
            lib.python_io.TFRecordOptions("BAD")
        w = lib.python_io.TFRecordWriter(str(tmp_path / "closed"))
        w.close()
        with pytest.raises(lib.errors.FailedPreconditionError, match="Writer is closed."):
            w.write(b"x")
