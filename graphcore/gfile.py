"""``tf.gfile`` (TF1): file I/O over the local file system with TF's errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphcore.lib.io import file_io
from graphcore.lib.io.file_io import FileIO

__all__ = ["Copy", "DeleteRecursively", "Exists", "FastGFile", "GFile", "Glob",
           "IsDirectory", "ListDirectory", "MakeDirs", "MkDir", "Open", "Remove", "Rename",
           "Stat", "Walk"]


class GFile(FileIO):
    """A file; ``mode`` ``r w a r+ w+ a+`` (``b`` for bytes)."""

    def __init__(self, name: Any, mode: str = "r"):
        super().__init__(name=name, mode=mode)


class FastGFile(FileIO):
    """Deprecated alias of GFile."""

    def __init__(self, name: Any, mode: str = "r"):
        super().__init__(name=name, mode=mode)


Open = GFile
Exists = file_io.file_exists
Remove = file_io.delete_file
Glob = file_io.get_matching_files
MkDir = file_io.create_dir
MakeDirs = file_io.recursive_create_dir
DeleteRecursively = file_io.delete_recursively
IsDirectory = file_io.is_directory
ListDirectory = file_io.list_directory
Stat = file_io.stat


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:  # noqa: N802
    """Copies the file ``oldpath`` to ``newpath``."""
    file_io.copy(oldpath, newpath, overwrite)


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:  # noqa: N802
    """Renames ``oldname`` to ``newname``."""
    file_io.rename(oldname, newname, overwrite)


def Walk(top: Any, in_order: bool = True) -> Iterator[tuple]:  # noqa: N802
    """``(dirname, subdirs, files)`` of ``top`` and the directories under it, parents
    first when ``in_order``."""
    return file_io.walk(top, topdown=in_order)
