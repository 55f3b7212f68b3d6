"""``tf.io.gfile``: the lower-case file functions over the local file system."""

from __future__ import annotations

from typing import Any

from graphcore.gfile import GFile
from graphcore.lib.io import file_io

__all__ = ["GFile", "copy", "exists", "get_registered_schemes", "glob", "isdir", "join",
           "listdir", "makedirs", "mkdir", "remove", "rename", "rmtree", "stat", "walk"]

exists = file_io.file_exists
get_registered_schemes = file_io.get_registered_schemes
glob = file_io.get_matching_files
isdir = file_io.is_directory
join = file_io.join
listdir = file_io.list_directory
makedirs = file_io.recursive_create_dir
mkdir = file_io.create_dir
remove = file_io.delete_file
rmtree = file_io.delete_recursively
stat = file_io.stat
walk = file_io.walk


def copy(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Copies the file ``src`` to ``dst``; AlreadyExistsError when ``dst`` exists and not
    ``overwrite``."""
    file_io.copy(src, dst, overwrite)


def rename(src: Any, dst: Any, overwrite: bool = False) -> None:
    """Renames ``src`` to ``dst``; AlreadyExistsError when ``dst`` exists and not
    ``overwrite``."""
    file_io.rename(src, dst, overwrite)
