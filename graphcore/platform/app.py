"""``tf.app``: ``run`` parses the flags from argv, then calls ``main`` with the rest."""

from __future__ import annotations

import sys as _sys
from collections.abc import Callable

from absl.app import run as _run

from graphcore.platform import flags


def _parse_flags_tolerate_undef(argv: list[str]) -> list[str]:
    """The arguments left after parsing the known flags; TF1 passes unknown ``--x`` flags
    through to ``main`` instead of failing as absl does."""
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main: Callable | None = None, argv: list[str] | None = None) -> None:
    """Runs ``main`` (default: ``__main__.main``) with ``argv`` (default: ``sys.argv``)
    left after its flags are parsed, then exits with its return value."""
    main = main or _sys.modules["__main__"].main
    _run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
