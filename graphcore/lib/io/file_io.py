"""File I/O of ``tf.gfile`` / ``tf.io.gfile`` over the local file system, as TF's
``python/lib/io/file_io.py``: the FileIO (GFile) class and the path functions, with TF's
errors (NotFoundError, AlreadyExistsError, FailedPreconditionError...) and messages.

Paths may carry the ``file://`` scheme; other schemes (gs://, hdfs://, ram://) are not
supported here.
"""

from __future__ import annotations

import errno as _errno
import glob as _glob
import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from graphcore.framework import errors

__all__ = ["FileIO", "FileStatistics", "copy", "create_dir", "delete_file",
           "delete_recursively", "file_exists", "get_matching_files", "get_registered_schemes",
           "is_directory", "join", "list_directory", "read_file_to_string",
           "recursive_create_dir", "rename", "stat", "walk", "write_string_to_file"]

# TF's errno -> code table (core/platform/errors.cc ErrnoToCode), for the errnos a local
# file system gives.
_ERRNO_ERRORS = {
    _errno.ENOENT: errors.NotFoundError,
    _errno.EEXIST: errors.AlreadyExistsError,
    _errno.EPERM: errors.PermissionDeniedError,
    _errno.EACCES: errors.PermissionDeniedError,
    _errno.EROFS: errors.PermissionDeniedError,
    _errno.ENOTDIR: errors.FailedPreconditionError,
    _errno.EISDIR: errors.FailedPreconditionError,
    _errno.ENOTEMPTY: errors.FailedPreconditionError,
    _errno.ENOSPC: errors.ResourceExhaustedError,
    _errno.EINVAL: errors.InvalidArgumentError,
}


def _path(path: Any) -> str:
    """``path`` (str, bytes or PathLike) as a local path, ``file://`` removed."""
    path = os.fsdecode(os.fspath(path))
    return path[len("file://"):] if path.startswith("file://") else path


def _os_error(path: str, err: OSError) -> errors.OpError:
    """TF's error for ``err``: "<path>; <strerror>" with the class of its errno."""
    cls = _ERRNO_ERRORS.get(err.errno, errors.UnknownError)
    return cls(None, None, f"{path}; {os.strerror(err.errno) if err.errno else err}")


def _call(path: str, fn: Callable, *args: Any) -> Any:
    try:
        return fn(*args)
    except OSError as err:
        raise _os_error(path, err) from None


class FileStatistics(NamedTuple):
    """What ``stat`` returns: ``length`` in bytes, ``mtime_nsec`` (whole seconds, as TF's
    POSIX file system) and ``is_directory``."""

    length: int
    mtime_nsec: int
    is_directory: bool


class FileIO:
    """A file, opened lazily on the first read or write (TF's FileIO, tf.gfile.GFile).

    ``mode`` is one of ``r w a r+ w+ a+``, with ``b`` for bytes; in text mode ``read``
    returns ``str``. Iterating gives its lines.
    """

    def __init__(self, name: Any, mode: str, encoding: str = "utf-8"):
        self.__name = name
        self.__mode = mode
        self.__encoding = encoding
        self._read_buf: Any = None
        self._writable_file: Any = None
        self._binary_mode = "b" in mode
        mode = mode.replace("b", "")
        if mode not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._read_check_passed = mode in ("r", "r+", "a+", "w+")
        self._write_check_passed = mode in ("a", "w", "r+", "a+", "w+")
        self._write_mode = {"w": "wb", "w+": "wb", "a": "ab", "a+": "ab", "r+": "r+b"}.get(mode)

    @property
    def name(self) -> Any:
        return self.__name

    @property
    def mode(self) -> str:
        return self.__mode

    def _preread_check(self) -> None:
        if not self._read_buf:
            if not self._read_check_passed:
                raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
            path = _path(self.__name)
            self._read_buf = _call(path, open, path, "rb")

    def _prewrite_check(self) -> None:
        if not self._writable_file:
            if not self._write_check_passed:
                raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
            path = _path(self.__name)
            self._writable_file = _call(path, open, path, self._write_mode)

    def _prepare_value(self, val: bytes) -> str | bytes:
        return val if self._binary_mode else val.decode(self.__encoding)

    def size(self) -> int:
        """The size of the file in bytes."""
        return stat(self.__name).length

    def write(self, file_content: str | bytes) -> None:
        """Appends ``file_content`` (str or bytes, in either mode)."""
        self._prewrite_check()
        if isinstance(file_content, str):
            file_content = file_content.encode(self.__encoding)
        self._writable_file.write(file_content)

    def read(self, n: int = -1) -> str | bytes:
        """``n`` bytes from the current position, or the rest of the file for -1."""
        self._preread_check()
        return self._prepare_value(self._read_buf.read(None if n == -1 else n))

    def seek(self, offset: int | None = None, whence: int = 0,
             position: int | None = None) -> None:
        """Moves the read position to ``offset`` from the start (whence 0), the current
        position (1) or the end (2); ``position`` is the deprecated name of ``offset``."""
        self._preread_check()
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            offset = position
        if whence == 1:
            offset += self.tell()
        elif whence == 2:
            offset += self.size()
        elif whence != 0:
            raise errors.InvalidArgumentError(
                None, None,
                f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2.")
        self._read_buf.seek(offset)

    def readline(self) -> str | bytes:
        """The next line with its ``\\n``; empty at the end of the file."""
        self._preread_check()
        return self._prepare_value(self._read_buf.readline())

    def readlines(self) -> list:
        """All the remaining lines."""
        self._preread_check()
        return list(iter(self.readline, self._prepare_value(b"")))

    def tell(self) -> int:
        """The current position: the read position for readable modes, else the write
        position."""
        if self._read_check_passed:
            self._preread_check()
            return self._read_buf.tell()
        self._prewrite_check()
        return self._writable_file.tell()

    def __enter__(self) -> FileIO:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> FileIO:
        return self

    def __next__(self) -> str | bytes:
        line = self.readline()
        if not line:
            raise StopIteration()
        return line

    def next(self) -> str | bytes:
        return self.__next__()

    def flush(self) -> None:
        """Hands the written bytes to the OS."""
        if self._writable_file:
            self._writable_file.flush()

    def close(self) -> None:
        """Closes the file (flushing what was written)."""
        if self._read_buf:
            self._read_buf.close()
        self._read_buf = None
        if self._writable_file:
            self._writable_file.close()
            self._writable_file = None

    def seekable(self) -> bool:
        return True


def file_exists(path: Any) -> bool:
    """Whether ``path`` (a file or a directory) exists."""
    return os.path.exists(_path(path))


def delete_file(path: Any) -> None:
    """Deletes the file ``path``; NotFoundError if absent, FailedPreconditionError for a
    directory."""
    path = _path(path)
    _call(path, os.unlink, path)


def read_file_to_string(filename: Any, binary_mode: bool = False) -> str | bytes:
    """The contents of ``filename``."""
    return FileIO(filename, "rb" if binary_mode else "r").read()


def write_string_to_file(filename: Any, file_content: str | bytes) -> None:
    """Writes ``file_content`` to ``filename``, replacing it."""
    with FileIO(filename, "w") as f:
        f.write(file_content)


def get_matching_files(pattern: Any) -> list[str]:
    """The paths matching the glob ``pattern`` (or any of a list of patterns). A pattern
    without a directory part is taken relative to "." and its matches start with "./",
    as TF's GetMatchingPaths makes them."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else pattern
    out: list[str] = []
    for p in patterns:
        p = _path(p)
        if not os.path.dirname(p):
            p = os.path.join(".", p)
        out.extend(sorted(_glob.glob(p)))
    return out


def create_dir(path: Any) -> None:
    """Creates the directory ``path`` (its parent must exist); an existing path is left
    as it is, as TF's CreateDir does."""
    path = _path(path)
    if not os.path.exists(path):
        _call(path, os.mkdir, path)


def recursive_create_dir(path: Any) -> None:
    """Creates ``path`` and its missing parents; FailedPreconditionError when one of them
    is a file."""
    path = _path(path)
    parts = [p for p in path.split("/") if p]
    current = "/" if path.startswith("/") else ""
    for part in parts:
        current = os.path.join(current, part)
        if os.path.isdir(current):
            continue
        if os.path.exists(current):
            raise errors.FailedPreconditionError(None, None, f"{current} is not a directory")
        _call(current, os.mkdir, current)


def copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:
    """Copies the file ``oldpath`` to ``newpath``; AlreadyExistsError when ``newpath``
    exists and not ``overwrite``."""
    oldpath, newpath = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(newpath):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    if not os.path.exists(oldpath):
        raise _os_error(oldpath, FileNotFoundError(_errno.ENOENT, ""))
    _call(newpath, shutil.copyfile, oldpath, newpath)


def rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:
    """Renames ``oldname`` to ``newname``; AlreadyExistsError when ``newname`` exists and
    not ``overwrite``."""
    oldname, newname = _path(oldname), _path(newname)
    if not overwrite and os.path.exists(newname):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    _call(oldname, os.rename, oldname, newname)


def delete_recursively(path: Any) -> None:
    """Deletes ``path``: a file, or a directory and everything under it."""
    path = _path(path)
    if not os.path.lexists(path):
        raise errors.NotFoundError(None, None, f"{path} not found")
    if os.path.isdir(path) and not os.path.islink(path):
        _call(path, shutil.rmtree, path)
    else:
        _call(path, os.unlink, path)


def is_directory(path: Any) -> bool:
    """Whether ``path`` is a directory."""
    return os.path.isdir(_path(path))


def list_directory(path: Any) -> list[str]:
    """The names (not paths) of the entries of the directory ``path``."""
    path = _path(path)
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return _call(path, os.listdir, path)


def join(path: Any, *paths: Any) -> str:
    """``path`` and ``paths`` joined by "/"."""
    return os.path.join(os.fspath(path), *map(os.fspath, paths))


def get_registered_schemes() -> list[str]:
    """The URI schemes these functions accept ("" is a plain path)."""
    return ["file", ""]


def walk(top: Any, topdown: bool = True,
         onerror: Callable[[errors.OpError], Any] | None = None) -> Iterator[tuple]:
    """``(dirname, subdirs, files)`` for ``top`` and every directory under it, parents
    first when ``topdown``; a directory that cannot be listed is passed to ``onerror``
    (and an absent ``top`` yields nothing)."""
    top = os.fspath(top)
    try:
        listing = list_directory(top)
    except errors.NotFoundError as err:
        if onerror:
            onerror(err)
        return
    subdirs, files = [], []
    for item in listing:
        (subdirs if is_directory(_full_path(top, item)) else files).append(item)
    here = (top, subdirs, files)
    if topdown:
        yield here
    for subdir in subdirs:
        yield from walk(_full_path(top, subdir), topdown, onerror)
    if not topdown:
        yield here


def _full_path(top: str, item: str) -> str:
    return top + item if top.endswith("/") else top + "/" + item


def stat(path: Any) -> FileStatistics:
    """The FileStatistics of ``path``."""
    path = _path(path)
    st = _call(path, os.stat, path)
    return FileStatistics(length=st.st_size, mtime_nsec=int(st.st_mtime) * 10**9,
                          is_directory=os.path.isdir(path))
