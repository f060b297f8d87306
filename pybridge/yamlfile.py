"""Reading a YAML file safely, with errors that name the file, the line and the column."""
from __future__ import annotations

from pathlib import Path

import yaml


def read_yaml(path: str | Path, error: type[Exception] = ValueError):
    """The document in ``path`` (safe loader); ``error`` for an unreadable file or invalid YAML."""
    path = Path(path)
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise error(f"{path}: cannot read ({exc.strerror or exc})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise error(f"{path}{place}: not valid YAML ({getattr(exc, 'problem', exc)})") from None
