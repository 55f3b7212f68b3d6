"""``tf.resource_loader``: paths of data files next to the calling script (TF's
py_binary data files; without Bazel runfiles, a caller's own directory)."""

from __future__ import annotations

import inspect
import os
import sys

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]


def load_resource(path: str) -> bytes:
    """The bytes of ``path``, relative to this module's directory (as TF's is to its own)."""
    with open(get_path_to_datafile(path), "rb") as f:
        return f.read()


def get_data_files_path() -> str:
    """The directory of the calling script."""
    return os.path.dirname(inspect.getfile(sys._getframe(1)))


def get_root_dir_with_all_resources() -> str:
    """The root of the enclosing ``*.runfiles`` tree, or this module's directory without
    one."""
    script_dir = get_data_files_path()
    directories = [script_dir]
    data_files_dir = ""
    while True:
        candidate = directories[-1]
        if ".runfiles" in os.path.basename(candidate):
            if len(directories) > 1:
                data_files_dir = directories[-2]
            break
        parent = os.path.dirname(candidate)
        if parent == candidate:
            break
        directories.append(parent)
    return data_files_dir or script_dir


def get_path_to_datafile(path: str) -> str:
    """``path`` joined to the calling script's directory."""
    return os.path.join(os.path.dirname(inspect.getfile(sys._getframe(1))), path)


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """``path`` unchanged (TF's readahead is a no-op too)."""
    del readahead
    return path
