"""``python -m provider`` is the ``trainjobs`` command."""

from provider.cli import entry

entry()
