"""graphcore.client."""

from graphcore.client import timeline  # noqa: F401 - ``from graphcore.client import timeline``
