"""The startd tests' helpers (startd_script.py) live beside this file."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
