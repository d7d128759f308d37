"""``python -m aspectattn`` runs the command line (see :mod:`aspectattn.cli`)."""

import sys

from .cli import main

sys.exit(main())
