"""``python -m agentlab``: the instructor CLI (see ``agentlab/cli.py``)."""

import sys

from .cli import main

sys.exit(main())
