"""graphcore/lib/io/file_io.py through tf.gfile and tf.io.gfile: local files, TF's
errors and messages, lazy opening, text and bytes modes."""

import os

import pytest

import graphcore as tf


@pytest.fixture
def root(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "f1").write_text("hello\nworld\n")
    (tmp_path / "a" / "x.txt").write_bytes(b"xyz")
    return str(tmp_path)


CASES = {
    "exists": (lambda g, io, r: [g.Exists(r + "/f1"), io.exists("file://" + r + "/a"),
                                 g.Exists(r + "/no")], [True, True, False]),
    "listdir": (lambda g, io, r: sorted(io.listdir(r)), ["a", "f1"]),
    "listdir_missing": (lambda g, io, r: g.ListDirectory(r + "/no"),
                        (tf.errors.NotFoundError, "Could not find directory")),
    "mkdir_parent_missing": (lambda g, io, r: g.MkDir(r + "/p/q"),
                             (tf.errors.NotFoundError, "No such file or directory")),
    "makedirs": (lambda g, io, r: [io.makedirs(r + "/p/q"), g.IsDirectory(r + "/p/q")],
                 [None, True]),
    "makedirs_through_file": (lambda g, io, r: g.MakeDirs(r + "/f1/x"),
                              (tf.errors.FailedPreconditionError, "is not a directory")),
    "remove_missing": (lambda g, io, r: g.Remove(r + "/no"),
                       (tf.errors.NotFoundError, "no; No such file or directory")),
    "remove_directory": (lambda g, io, r: io.remove(r + "/a"),
                         (tf.errors.FailedPreconditionError, "Is a directory")),
    "rmtree": (lambda g, io, r: [io.rmtree(r + "/a"), g.Exists(r + "/a")], [None, False]),
    "rmtree_missing": (lambda g, io, r: g.DeleteRecursively(r + "/no"),
                       (tf.errors.NotFoundError, "no not found")),
    "copy_exists": (lambda g, io, r: g.Copy(r + "/f1", r + "/a/x.txt"),
                    (tf.errors.AlreadyExistsError, "file already exists")),
    "copy_overwrite": (lambda g, io, r: [io.copy(r + "/f1", r + "/a/x.txt", overwrite=True),
                                         g.GFile(r + "/a/x.txt").read()],
                       [None, "hello\nworld\n"]),
    "rename_exists": (lambda g, io, r: io.rename(r + "/f1", r + "/a/x.txt"),
                      (tf.errors.AlreadyExistsError, "file already exists")),
    "rename": (lambda g, io, r: [g.Rename(r + "/f1", r + "/g"), sorted(io.listdir(r))],
               [None, ["a", "g"]]),
    "stat": (lambda g, io, r: [g.Stat(r + "/f1").length, io.stat(r + "/a").is_directory],
             [12, True]),
    "walk": (lambda g, io, r: [(os.path.relpath(d, r), s, f) for d, s, f in g.Walk(r)
                               if d != r],
             [("a", ["b"], ["x.txt"]), ("a/b", [], [])]),
    "glob": (lambda g, io, r: [os.path.basename(p) for p in io.glob(r + "/a/*")],
             ["b", "x.txt"]),
    "read_lines": (lambda g, io, r: [list(g.GFile(r + "/f1")), g.Open(r + "/f1", "rb").read(2)],
                   [["hello\n", "world\n"], b"he"]),
    "read_missing_is_lazy": (lambda g, io, r: g.GFile(r + "/no").read(),
                             (tf.errors.NotFoundError, "No such file or directory")),
    "read_only_write": (lambda g, io, r: g.GFile(r + "/f1").write("x"),
                        (tf.errors.PermissionDeniedError, "File isn't open for writing")),
    "bad_mode": (lambda g, io, r: g.GFile(r + "/f1", "x"),
                 (tf.errors.InvalidArgumentError, "mode is not 'r' or 'w'")),
    "bad_whence": (lambda g, io, r: g.GFile(r + "/f1").seek(0, 3),
                   (tf.errors.InvalidArgumentError, "Invalid whence argument: 3")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_gfile(case, root):
    fn, expected = CASES[case]
    if isinstance(expected, tuple):
        with pytest.raises(expected[0], match=expected[1]):
            fn(tf.gfile, tf.io.gfile, root)
    else:
        assert fn(tf.gfile, tf.io.gfile, root) == expected


def test_write_modes_and_tell(root):
    path = root + "/w"
    with tf.gfile.GFile(path, "w") as f:
        f.write("abc")
        f.write(b"\xc3\xa9")
        assert f.tell() == 5
    with tf.gfile.GFile(path, "a") as f:
        f.write("!")
    assert tf.gfile.GFile(path).read() == "abc\u00e9!"
    with tf.gfile.GFile(path, "w"):
        pass  # nothing written: TF truncates only on the first write
    assert tf.gfile.GFile(path, "rb").read() == b"abc\xc3\xa9!"
