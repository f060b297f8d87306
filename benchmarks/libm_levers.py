"""What faster libm calls could buy the RTM FMU (issue 15): one lever measured, and the bound of all of them.

The Magic Formula's chains of atan, sin and cos are about half of a step's time. Without changing the
generator, this benchmark rewrites the default RTM14DoF build's generated C and times each variant side by
side with the unmodified build (``rtm_speed.py``'s harness: alternating rounds, thread CPU, callgrind
instructions per step), after comparing its traces with the unmodified build's through fmpy:

- ``all``, ``atan``: **paired calls**. ``continuous_equations`` is cut into top-level units (a line, or a
  block with its nested lines); each gets what it writes and what it mentions (two units conflict when one
  writes what the other mentions). At every ``const double vA = f(a);`` an independent later call of the
  same ``f`` is looked for, the units that one needs are moved in front, and both are computed by one call
  of glibc's 2-lane libmvec function (accurate to 4 ulp; compiled with -lmvec). ``all`` pairs atan, sin,
  cos, tan, exp and log; ``atan`` only atan.
- ``bound``: **trigonometry for free**. atan, sin, cos and tan become 4-flop rationals (wrong far from 0,
  so the traces move): no faster libm, paired or not, can make a step cheaper than this.

    ../.venv/bin/python libm_levers.py [--rounds 15] [--variants all atan bound]

Writes results/libm_levers.json.
"""
from __future__ import annotations

import argparse
import os
import re
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from machine import write_record
from rtm_speed import HERE, STEP, against, build, compile_harness, harness_inputs, step_steer_inputs

# libm functions with a 2-lane variant in glibc's libmvec on x86-64 (atan and tan since glibc 2.35)
PAIRABLE = ("atan", "sin", "cos", "tan", "exp", "log")
_CALL = re.compile(r"const double (v\d+) = (\w+)\((.*)\);")
_NAME = re.compile(r"\b[A-Za-z_]\w*\b")
_MEMORY = re.compile(r"m->(\w+)\[([^\[\]]*)\]")
_ASSIGNED = re.compile(r"(?:^|[;{(]\s*|\s)(\w+)(?:\[[^\]]*\])?\s*(?:[-+*/]?=)(?!=)")
_DECLARED = re.compile(r"^\s*(?:const\s+)?(?:double|int|bool|char)\s+(\w+)")
_MEMORY_WRITE = re.compile(r"m->(\w+)\[([^\[\]]*)\]\s*(?:[-+*/]?=)(?!=)")
_POINTER = re.compile(r"&\s*\(?m->(\w+)\[|\bm->(\w+)\s*\+")
# how far ahead a partner is looked for (units): the four tyres' chains lie within a few hundred
LOOKAHEAD = 400


@dataclass
class Unit:
    lines: list[str]
    writes: set                    # names assigned or written through a pointer argument
    mentions: set                  # every name in the unit
    memory_writes: dict            # array of model memory -> element indices written ("*": any)
    memory_reads: dict             # array -> element indices mentioned ("*": any)
    call: tuple | None = None      # (value name, function, argument text) of a pairable shared value


def _units(lines: list[str]) -> list[list[str]]:
    """Top-level statements: a line, or a block from its opening line to the brace that closes it."""
    units, depth = [], 0
    for line in lines:
        if depth == 0:
            units.append([line])
        else:
            units[-1].append(line)
        code = re.sub(r'"(?:\\.|[^"\\])*"', "", line.split("/*")[0])
        depth += code.count("{") - code.count("}")
    return units


def _elements(text: str) -> dict:
    """Model-memory elements in ``text``: array -> indices (literal, or "*" for a computed index or a
    pointer into the array)."""
    found: dict = {}
    for array, index in _MEMORY.findall(text):
        found.setdefault(array, set()).add(index.strip() if index.strip().isdigit() else "*")
    for a, b in _POINTER.findall(text):
        found.setdefault(a or b, set()).add("*")
    return found


def _analyse(lines: list[str], output_pointers: dict) -> Unit:
    text = "\n".join(lines)
    plain = _MEMORY.sub(" ", text)
    writes = {m.group(1) for line in lines if (m := _DECLARED.match(line))}
    writes |= {m.group(1) for m in _ASSIGNED.finditer(plain)}
    memory_writes: dict = {}
    for array, index in _MEMORY_WRITE.findall(text):
        memory_writes.setdefault(array, set()).add(index.strip() if index.strip().isdigit() else "*")
    for name, positions in output_pointers.items():  # what a function writes through its pointer arguments
        for arguments in _call_arguments(text, name):
            for k in (k for k in positions if k < len(arguments)):
                writes |= set(_NAME.findall(_MEMORY.sub(" ", arguments[k])))
                for array in _elements(arguments[k]):
                    memory_writes.setdefault(array, set()).add("*")
    call = None
    if len(lines) == 1 and (m := _CALL.fullmatch(lines[0].strip())) and _balanced(m.group(3)):
        call = (m.group(1), m.group(2), m.group(3))
    return Unit(lines, writes, set(_NAME.findall(plain)), memory_writes, _elements(text), call)


def _overlap(writes: dict, reads: dict) -> bool:
    for array, indices in writes.items():
        other = reads.get(array)
        if other and ("*" in indices or "*" in other or indices & other):
            return True
    return False


def _dependencies(units: list[Unit]) -> list[set]:
    """For each unit, the earlier units it must follow (one writes what the other mentions)."""
    writers, mentioners, memory_writers = {}, {}, []
    deps = []
    for j, unit in enumerate(units):
        found = set()
        for name in unit.mentions:
            found |= writers.get(name, set())
        for name in unit.writes:
            found |= mentioners.get(name, set())
        # model memory: few units write it, so the direct test is cheap
        found |= {k for k in memory_writers if _overlap(units[k].memory_writes, unit.memory_reads)}
        if unit.memory_writes:
            found |= {k for k in range(j) if _overlap(unit.memory_writes, units[k].memory_reads)}
            memory_writers.append(j)
        deps.append(found)
        for name in unit.writes:
            writers.setdefault(name, set()).add(j)
        for name in unit.mentions:
            mentioners.setdefault(name, set()).add(j)
    return deps


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def _call_arguments(text: str, name: str) -> list[list[str]]:
    """The argument texts of every call of ``name`` in ``text``."""
    calls = []
    for match in re.finditer(r"\b" + re.escape(name) + r"\(", text):
        depth, start, arguments = 1, match.end(), []
        for k in range(match.end(), len(text)):
            char = text[k]
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    arguments.append(text[start:k])
                    break
            elif char == "," and depth == 1:
                arguments.append(text[start:k])
                start = k + 1
        calls.append(arguments)
    return calls


def output_pointer_positions(prototypes: list[str]) -> dict:
    """For each generated function, the argument positions it writes through (non-const pointers)."""
    positions = {}
    for line in prototypes:
        m = re.match(r"static\s+\w+\s+(\w+)\((.*)\);", line)
        if not m:
            continue
        parameters = [p.strip() for p in m.group(2).split(",")]
        positions[m.group(1)] = [k for k, p in enumerate(parameters)
                                 if "*" in p and not p.startswith("const") and not p.startswith("ModelInstance")]
    return positions


def pair_calls(lines: list[str], output_pointers: dict, barrier: str, functions: tuple) -> tuple[list[str], set]:
    """``lines`` (a function body, top-level lines unindented) with the calls of ``functions`` paired; also
    the set of functions paired. ``barrier``: a line nothing is moved across (the derivative-only return)."""
    if barrier in lines:
        cut = lines.index(barrier)
        before, used_before = pair_calls(lines[:cut], output_pointers, barrier, functions)
        after, used_after = pair_calls(lines[cut + 1:], output_pointers, barrier, functions)
        return before + [barrier] + after, used_before | used_after
    units = [_analyse(u, output_pointers) for u in _units(lines)]
    deps = _dependencies(units)
    done = [False] * len(units)
    out, used = [], set()
    for i, unit in enumerate(units):
        if done[i]:
            continue
        done[i] = True
        partner = _partner(units, deps, done, i) if unit.call and unit.call[1] in functions else None
        if partner is None:
            out += unit.lines
            continue
        j, needed = partner
        for k in needed:
            out += units[k].lines
            done[k] = True
        done[j] = True
        (a, function, x), (b, _, y) = unit.call, units[j].call
        out += [f"double {a}, {b};", f"RT_PAIR_{function}({x}, {y}, {a}, {b});"]
        used.add(function)
    return out, used


def _partner(units: list[Unit], deps: list[set], done: list[bool], i: int) -> tuple[int, list[int]] | None:
    """The first later call of the same function that does not depend on unit i, with the units not yet
    written that it needs (in order), or None."""
    function = units[i].call[1]
    for j in range(i + 1, min(len(units), i + 1 + LOOKAHEAD)):
        if done[j] or not units[j].call or units[j].call[1] != function:
            continue
        needed, stack = set(), [j]
        while stack:
            for k in deps[stack.pop()]:
                if k > i and not done[k] and k not in needed:
                    needed.add(k)
                    stack.append(k)
        if i not in deps[j] and not any(i in deps[k] for k in needed):
            return j, sorted(needed)
    return None


def pairing_prelude(functions: set) -> list[str]:
    """C definitions of RT_PAIR_f: one call of glibc's 2-lane SSE version (libmvec, x86-64)."""
    lines = ["#include <emmintrin.h>"]
    for name in sorted(functions):
        lines += [f"__m128d _ZGVbN2v_{name}(__m128d);",
                  f"#define RT_PAIR_{name}(x, y, a, b) do {{ __m128d r_ = _ZGVbN2v_{name}(_mm_set_pd((y), (x))); "
                  "(a) = _mm_cvtsd_f64(r_); (b) = _mm_cvtsd_f64(_mm_unpackhi_pd(r_, r_)); } while (0)"]
    return lines


def paired_source(source: str, functions: tuple) -> tuple[str, int]:
    """The generated model C with the calls of ``functions`` in continuous_equations paired; the number of
    pairs."""
    lines = source.split("\n")
    prototypes = [line for line in lines if line.startswith("static") and line.endswith(");")]
    output_pointers = output_pointer_positions(prototypes)
    start = lines.index("static void continuous_equations(ModelInstance *m, int outputs)") + 2
    end = lines.index("    (void)outputs;", start)
    body = [line[4:] for line in lines[start:end]]
    barrier = next(line for line in body if line.startswith("if (!outputs) return;"))
    paired, used = pair_calls(body, output_pointers, barrier, functions)
    first_function = next(k for k, line in enumerate(lines)
                          if line.startswith("static") and "(ModelInstance *m" in line)
    out = lines[:first_function] + pairing_prelude(used) + lines[first_function:start] + \
        ["    " + line for line in paired] + lines[end:]
    return "\n".join(out), sum(line.startswith("RT_PAIR_") for line in paired)


# the bound: each trigonometric call a rational of 4 flops, exact to first order at 0 (not the functions)
FREE_TRIGONOMETRY = ["#include <math.h>",
                     "static inline double rt_free_atan(double x) { return x / (1 + 0.28 * x * x); }",
                     "static inline double rt_free_sin(double x) { return x / (1 + x * x / 6); }",
                     "static inline double rt_free_cos(double x) { return 1 / (1 + x * x / 2); }",
                     "static inline double rt_free_tan(double x) { return x * (1 + x * x / 3); }",
                     "#define atan(x) rt_free_atan(x)", "#define sin(x) rt_free_sin(x)",
                     "#define cos(x) rt_free_cos(x)", "#define tan(x) rt_free_tan(x)"]


def rewritten_source(source: str, variant: str) -> tuple[str, int]:
    """The generated model C of ``variant`` (see VARIANTS), and its number of paired calls."""
    if variant == "bound":
        return source.replace("#include <math.h>", "\n".join(FREE_TRIGONOMETRY), 1), 0
    return paired_source(source, VARIANTS[variant])


def build_variant(base_fmu: Path, work: Path, name: str) -> tuple[Path, int]:
    """A copy of ``base_fmu`` whose binary is compiled, as the native backend compiles it, from its C
    rewritten as ``name`` says."""
    from fmu_build.native_backend import compile_library
    from fmu_build.package import zip_directory

    folder = work / name
    with zipfile.ZipFile(base_fmu) as archive:
        archive.extractall(folder)
    sources = folder / "sources"
    model_c = next(sources.glob("VehicleRTM_*.c"))
    text, pairs = rewritten_source(model_c.read_text(), name)
    model_c.write_text(text)
    compile_library([model_c, sources / "fmi2_wrapper.c"], [sources], next((folder / "binaries").rglob("*.so")),
                    libraries=("mvec",) if pairs else ())
    return zip_directory(folder, work / f"{name}.fmu"), pairs


def worst_trace_difference(base: Path, variant: Path, stop: float = 5.0) -> float:
    """Largest max|difference|/max|value| over the outputs of a 5 s step steer through fmpy."""
    from fmpy import read_model_description, simulate_fmu

    outputs = [v.name for v in read_model_description(str(base)).modelVariables if v.causality == "output"]
    options = dict(fmi_type="CoSimulation", start_values={"initialSpeed": 80 / 3.6}, stop_time=stop,
                   input=step_steer_inputs(stop, STEP), output=outputs, output_interval=STEP, validate=False)
    a, b = simulate_fmu(str(base), **options), simulate_fmu(str(variant), **options)
    return max(float(np.max(np.abs(a[n] - b[n])) / max(np.max(np.abs(a[n])), 1e-12)) for n in outputs)


def relabelled(record, names: dict):
    """``record`` with the keys (at any depth) found in ``names`` renamed."""
    if isinstance(record, dict):
        return {names.get(k, k): relabelled(v, names) for k, v in record.items()}
    return record


VARIANTS = {"all": PAIRABLE, "atan": ("atan",), "bound": ()}   # libm functions paired


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11, help="alternating rounds of the harness (default 11)")
    parser.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=["all", "atan", "bound"],
                        help="all: pair " + ", ".join(PAIRABLE) + "; atan: pair atan only; bound: trigonometry "
                             "replaced by 4-flop rationals (default: all three)")
    parser.add_argument("--reference", type=Path, metavar="FMU",
                        help="also time this RTM FMU in the same rounds (e.g. the shipped RK4 build of 9889a1d)")
    args = parser.parse_args(argv)
    from fmpy import extract

    with tempfile.TemporaryDirectory(prefix="libm-levers-") as folder:
        work = Path(folder)
        base = build(work, "imex2")
        unzipped = Path(extract(str(base), unzipdir=str(work / "unzipped")))
        library, guid, _ = harness_inputs(base, unzipped, work / "vrs.txt")
        exe = compile_harness(work)
        variants, checks = [], {}
        for name in args.variants:
            fmu, pairs = build_variant(base, work, name)
            variants.append(fmu)
            checks[name] = {"functions": list(VARIANTS[name]), "pairs": pairs,
                            "worst_relative_trace_difference": worst_trace_difference(base, fmu)}
            print(f"{name}: {pairs} pairs, traces within {checks[name]['worst_relative_trace_difference']:.1e}")
        timed = variants + ([args.reference] if args.reference else [])
        load_before = os.getloadavg()
        compared = against(timed, (exe, library, guid, unzipped, work / "vrs.txt"), work, args.rounds, "imex2", "step",
                           instructions=True)
        compared["load_average_before_after"] = [load_before, os.getloadavg()]
    labels = [*args.variants, *([f"reference {args.reference.name}"] if args.reference else [])]
    compared = relabelled(compared, {str(fmu): label for fmu, label in zip(timed, labels)})
    for label, speedup in compared["speedup_of_this_build"].items():
        print(f"{label}: {1 / speedup['median']:.3f}x the unmodified build's speed (median of per-round "
              f"ratios), {compared['callgrind_instructions_per_step'][label]:,.0f} instructions per step "
              f"(unmodified {compared['callgrind_instructions_per_step']['this build (imex2)']:,.0f})")
    if args.reference:
        median = compared["median_cpu_us_per_step"]
        for name in args.variants:
            print(f"{name}: the reference takes {median[f'reference {args.reference.name}'] / median[name]:.2f}x its "
                  "time per step (ratio of the medians)")
    write_record(HERE / "results" / "libm_levers.json", "the RTM's libm calls paired into libmvec 2-lane calls, and "
                 "the bound with trigonometry for free; 20 s step steer, fmi2DoStep every 1 ms, against the "
                 "unmodified default build", variants=checks,
                 **compared)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
