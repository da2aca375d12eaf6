"""``python -m corefbias``: the ``corefbias`` command."""

import sys

from .cli import main

sys.exit(main())
