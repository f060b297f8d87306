"""Resource limits, checked before the work starts; each one can be raised by an environment variable.

A :class:`Limit` reads its variable on every check (so a user can raise it for one command:
``FMU_BUILD_MAX_ENTRY_BYTES=2e9 pybridge simulate ...``) and describes itself in messages.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Limit:
    """An upper bound ``default`` (in ``unit``) on ``what``, raised with the variable ``env``."""
    env: str
    default: int
    unit: str
    what: str

    def value(self) -> int:
        """The bound in force: the environment variable's value, else the default."""
        text = os.environ.get(self.env)
        if text is None:
            return self.default
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if not number >= 1 or math.isinf(number):
            raise ValueError(f"environment variable {self.env}={text!r}: expected a number >= 1 ({self.what}, "
                             f"in {self.unit})")
        return int(number)

    def describe(self) -> str:
        """'the limit of 1000 samples (raise it with SOME_VARIABLE=...)', for messages."""
        return f"the limit of {self.value():g} {self.unit} ({self.what}; raise it with {self.env}=N)"


FMU_ENTRY_BYTES = Limit("FMU_BUILD_MAX_ENTRY_BYTES", 512 * 1024 ** 2, "bytes",
                        "uncompressed size of one file in an FMU archive")
FMU_TOTAL_BYTES = Limit("FMU_BUILD_MAX_TOTAL_BYTES", 2 * 1024 ** 3, "bytes",
                        "uncompressed size of all files in an FMU archive")
