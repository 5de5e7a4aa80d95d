"""`python -m hardware`: light every LED in turn and echo the buttons (see hardware/check.py)."""

import sys

from .check import main

sys.exit(main())
