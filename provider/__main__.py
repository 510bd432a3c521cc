"""``python -m provider`` is the ``trainjobs`` command."""

import sys

from provider.cli import main

sys.exit(main())
