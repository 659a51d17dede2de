"""``python -m xactika.frontends.cli``: the ``xactika`` command without its script."""

import sys

from xactika.frontends.cli import main

sys.exit(main())
