"""The NOMAD parameter lines a user may pass (``nomad_options``), checked before NOMAD sees them.

NOMAD reads parameter lines of the form ``NAME VALUE...``. Some of its parameters make it run programs
(``BB_EXE``, ``SURROGATE_EXE``) or read and write files (``CACHE_FILE``, ``HISTORY_FILE``,
``SOLUTION_FILE``, ``STATS_FILE``, ``HOT_RESTART_*``, ``TMP_DIR``, ...), and others are the project's to
set (the block size, the budget, the seed, the bounds, the output type: ``pybridge.identify.nomad``);
NOMAD silently ignores, or crashes on, what it cannot use. So only the algorithmic parameters below
are accepted, each with its value checked; anything else is refused with the reason, naming the
place (config file or stage file and key) the line came from. The names and value forms are NOMAD
4.6's (``PyNomad.help()``).
"""
from __future__ import annotations

import math
import re
from collections.abc import Iterable

__all__ = ["ACCEPTED", "NomadOptionError", "check_nomad_options"]

_DIRECTIONS = {"ORTHO 2N", "ORTHO N+1 NEG", "ORTHO N+1 QUAD", "N+1 UNI", "SINGLE", "DOUBLE"}
_SORTS = {"DIR_LAST_SUCCESS", "LEXICOGRAPHICAL", "RANDOM", "QUADRATIC_MODEL"}

# name -> kind of value: bool, int (>= 1), count (>= 0), real (> 0), fraction (0..1], real_any, or a set of words
ACCEPTED: dict[str, object] = {
    "DIRECTION_TYPE": _DIRECTIONS, "DIRECTION_TYPE_SECONDARY_POLL": _DIRECTIONS,
    "ANISOTROPIC_MESH": "bool", "ANISOTROPY_FACTOR": "real", "ORTHO_MESH_REFINE_FREQ": "int",
    "INITIAL_FRAME_SIZE": "fraction", "INITIAL_MESH_SIZE": "fraction", "MIN_MESH_SIZE": "fraction",
    "EVAL_OPPORTUNISTIC": "bool", "EVAL_QUEUE_SORT": _SORTS, "EVAL_USE_CACHE": "bool",
    "FRAME_CENTER_USE_CACHE": "bool", "MAX_ITERATIONS": "int", "MAX_ITERATION_PER_MEGAITERATION": "int",
    "LH_SEARCH": "counts", "NM_SEARCH": "bool", "NM_SEARCH_STOP_ON_SUCCESS": "bool",
    "NM_SEARCH_MAX_TRIAL_PTS_NFACTOR": "int", "NM_SEARCH_RANK_EPS": "real", "NM_DELTA_E": "real",
    "NM_DELTA_IC": "real_any", "NM_DELTA_OC": "real", "NM_GAMMA": "real", "NM_SIMPLEX_INCLUDE_FACTOR": "real",
    "NM_SIMPLEX_INCLUDE_LENGTH": "real", "QUAD_MODEL_SEARCH": "bool", "QUAD_MODEL_BOX_FACTOR": "real",
    "QUAD_MODEL_SEARCH_BOUND_REDUCTION_FACTOR": "real", "QUAD_MODEL_SEARCH_BOX_FACTOR": "real",
    "QUAD_MODEL_SEARCH_DYNAMIC_ENABLE": "bool", "QUAD_MODEL_SEARCH_SIMPLE_MADS": "bool",
    "QUAD_MODEL_SLD_SEARCH": "bool", "QUAD_MODEL_MAX_EVAL": "int", "SPECULATIVE_SEARCH": "bool",
    "SPECULATIVE_SEARCH_BASE_FACTOR": "real", "SPECULATIVE_SEARCH_MAX": "int", "SIMPLE_LINE_SEARCH": "bool",
    "VNS_MADS_SEARCH": "bool", "VNS_MADS_SEARCH_TRIGGER": "fraction", "VNS_MADS_SEARCH_MAX_TRIAL_PTS_NFACTOR": "int",
    "SEARCH_METHOD_MESH_PROJECTION": "bool", "TRIAL_POINT_MAX_ADD_UP": "count", "RNG_ALT_SEEDING": "bool",
}
# refused with a reason of their own
_SET_BY_PROJECT = {"BB_OUTPUT_TYPE", "BB_INPUT_TYPE", "MAX_BB_EVAL", "MAX_EVAL", "BB_MAX_BLOCK_SIZE", "DISPLAY_DEGREE",
                   "SEED", "NB_THREADS_PARALLEL_EVAL", "MEGA_SEARCH_POLL", "MAX_TIME", "MIN_FRAME_SIZE", "DIMENSION",
                   "LOWER_BOUND", "UPPER_BOUND", "X0"}
_OUR_KEYS = {"MAX_BB_EVAL": "max_evaluations", "MAX_EVAL": "max_evaluations", "MAX_TIME": "max_time",
             "MIN_FRAME_SIZE": "min_mesh", "SEED": "seed", "MEGA_SEARCH_POLL": "fill_blocks",
             "BB_MAX_BLOCK_SIZE": "workers", "NB_THREADS_PARALLEL_EVAL": "workers"}
_RUNS_OR_WRITES = re.compile(r"(_EXE|_FILE|_FILES|_FILE_NAME|_DIR|REDIRECTION|HOT_RESTART.*|USER_CALLS_ENABLED"
                             r"|DISPLAY_STATS|ADD_SEED_TO_FILE_NAMES|USE_CACHE_FILE_FOR_RERUN|SOLUTION_FILE.*)$")
_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "1": True, "0": False, "y": True, "n": False}


class NomadOptionError(ValueError):
    """A NOMAD parameter line that is refused; the message names where it came from and why."""


def _number(word: str) -> float | None:
    try:
        value = float(word)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _value_problem(kind, words: list[str]) -> str | None:
    """What is wrong with the value ``words`` for a parameter of ``kind`` (None: it is fine)."""
    text = " ".join(words)
    if isinstance(kind, set):
        return None if text.upper() in kind else f"expected one of {sorted(kind)}"
    if kind == "bool":
        return None if len(words) == 1 and words[0].lower() in _BOOLS else "expected yes or no"
    if kind == "counts":
        ok = len(words) == 2 and all(w.isdigit() for w in words)
        return None if ok else "expected two whole numbers >= 0 (initial and per-iteration points)"
    value = _number(words[0]) if len(words) == 1 else None
    if kind in ("int", "count"):
        low = 1 if kind == "int" else 0
        ok = value is not None and value == int(value) and value >= low
        return None if ok else f"expected a whole number >= {low}"
    if kind == "fraction":
        return None if value is not None and 0 < value <= 1 else "expected a number in (0, 1] of each range"
    if kind == "real":
        return None if value is not None and value > 0 else "expected a finite number > 0"
    return None if value is not None else "expected a finite number"


def _refusal(name: str, words: list[str]) -> str | None:
    if name in _SET_BY_PROJECT:
        ours = _OUR_KEYS.get(name)
        return "set by pybridge" + (f" (use the setting '{ours}')" if ours else "")
    if _RUNS_OR_WRITES.search(name) or name in ("SURROGATE_EXE", "BB_EXE"):
        return "refused: it makes NOMAD run a program or read or write files"
    if name not in ACCEPTED:
        return f"not an accepted NOMAD parameter; accepted: {', '.join(sorted(ACCEPTED))}"
    if not words:
        return "no value given"
    problem = _value_problem(ACCEPTED[name], words)
    return None if problem is None else f"{' '.join(words)!r}: {problem}"


def check_nomad_options(lines: Iterable, where: str = "nomad_options") -> list[str]:
    """The NOMAD parameter lines ``lines`` as NOMAD gets them, each checked; NomadOptionError naming
    ``where`` and the line's position otherwise."""
    if isinstance(lines, (str, bytes)) or not isinstance(lines, Iterable):
        raise NomadOptionError(f"{where}: expected a list of NOMAD parameter lines such as 'DIRECTION_TYPE ORTHO 2N', "
                               f"got {lines!r}")
    checked = []
    for i, line in enumerate(lines):
        here = f"{where}[{i}]"
        if not isinstance(line, str) or not line.strip() or not line.isprintable() or not line.isascii():
            raise NomadOptionError(f"{here}: {line!r}, expected one printable line 'NAME VALUE'")
        name, *words = line.split()
        if any(c in line for c in "\"'$;|`<>#"):
            raise NomadOptionError(f"{here}: {line!r}: quotes and the characters $ ; | ` < > # are refused")
        refusal = _refusal(name.upper(), words)
        if refusal:
            raise NomadOptionError(f"{here}: {name}: {refusal}")
        checked.append(" ".join([name.upper(), *words]))
    return checked
