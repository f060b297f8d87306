"""The one error type of fmu_build: a message that fits on one line and says what to do."""
from __future__ import annotations


class BuildError(Exception):
    """A build or inspection failed for a reason the user can act on.

    ``str(error)`` is one line naming the file (and line, where there is one), what went wrong and,
    where it helps, what to do. The CLI prints it as ``fmu-build: error: <message>`` and exits with 1.
    """

    def __init__(self, message: str):
        super().__init__(" ".join(str(message).split()) if "\n" in str(message) else str(message))
