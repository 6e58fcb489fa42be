"""``python -m agentlab``: the instructor CLI (see ``agentlab/cli.py``)."""

import sys

from .ops.cli import main

sys.exit(main())
