"""What the benchmark reports record about the machine they ran on (see pybridge.runinfo)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pybridge.runinfo import cpu_name  # noqa: E402

__all__ = ["cpu_name"]
