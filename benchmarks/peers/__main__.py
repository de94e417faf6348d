"""``python -m benchmarks.peers``: Ludothek against boardgame.io's in-memory server (see compare.py)."""

import sys

from benchmarks.peers.compare import main

raise SystemExit(main(sys.argv[1:]))
