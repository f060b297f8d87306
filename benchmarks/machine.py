"""What the benchmark reports record about the machine they ran on (see pybridge.runinfo)."""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pybridge.runinfo import cpu_name  # noqa: E402

__all__ = ["cpu_name", "write_record"]


def write_record(out: Path, benchmark: str, **fields) -> None:
    """Write a benchmark's result JSON to ``out`` (folders made), stamped with its name, the date and the CPU."""
    record = {"benchmark": benchmark, "date": time.strftime("%Y-%m-%d %H:%M:%S"), "cpu": cpu_name(), **fields}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"written {out}")
