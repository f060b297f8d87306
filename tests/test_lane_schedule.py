"""The lane model's statements in critical-path order: independent vector math chains interleave, and every
dependency (temporaries, model values, blocks, arrays, pointer reads and writes of lane functions) holds."""
from __future__ import annotations

import math
import random
import re

import pytest

from fmu_build.codegen.lane_schedule import schedule, statements, writing_functions

WRITER = "static void lf_w_1(LaneInstance *M, li act, const lv *l_x, lv *l_out)"


def _chain(k: int, source: int, target: int) -> list[str]:
    return [f"const lv v{k} = latan(M->r[{source}]);", f"const lv v{k + 1} = latan(v{k});",
            f"M->r[{target}] = lsin(v{k + 1});"]


def test_independent_chains_interleave_longest_first():
    """Two tyres' atan -> atan -> sin chains written one after the other run side by side; the chain with
    more calls behind it starts first."""
    lines = _chain(1, 1, 10) + _chain(3, 2, 11) + ["const lv v9 = latan(M->r[11]);", "M->r[12] = v9;"]
    out = schedule(lines, set())
    assert sorted(out) == sorted(lines)
    assert out.index("const lv v3 = latan(M->r[2]);") < out.index("const lv v1 = latan(M->r[1]);")
    assert out.index("const lv v1 = latan(M->r[1]);") < out.index("M->r[11] = lsin(v4);")
    assert out.index("M->r[11] = lsin(v4);") < out.index("const lv v9 = latan(M->r[11]);")


def _program(rng: random.Random, size: int) -> list[str]:
    """A random straight-line lane program over M->r[0..29] with blocks, arrays and a pointer writer."""
    lines, temps, n = [], [], [100]

    def name(prefix):
        n[0] += 1
        return f"{prefix}{n[0]}"

    def operand():
        if temps and rng.random() < 0.5:
            return rng.choice(temps)
        if rng.random() < 0.15:
            return f"(&M->r[20])[{rng.randrange(4)}]"
        return f"M->r[{rng.randrange(30)}]"

    def expression():
        a, b = operand(), operand()
        return rng.choice([f"({a} + {b})", f"latan(({a} * {b}))", f"({a} - lbd({rng.random():.3f}))"])

    for _ in range(size):
        kind = rng.random()
        if kind < 0.35:
            value = expression()
            temps.append(name("v"))
            lines.append(f"const lv {temps[-1]} = {value};")
        elif kind < 0.65:
            lines.append(f"M->r[{rng.randrange(30)}] = {expression()};")
        elif kind < 0.8:
            blend, cond = name("b"), name("cnd")
            lines += [f"lv {blend} = {{0}};", f"const li {cond} = ({operand()} > lbd(0.5));"]
            for negate in ("", "~"):
                local = name("v")
                lines += [f"if (lany(act & {negate}{cond})) {{", f"    const lv {local} = {expression()};",
                          f"    {blend} = lsel(act & {negate}{cond}, {local}, {blend});",
                          f"    M->r[{rng.randrange(30)}] = ({local} + {blend});", "}"]
            temps.append(blend)
        elif kind < 0.9:
            array = name("a")
            lines += [f"lv {array}[2] = {{{operand()}, {operand()}}};", f"{array}[1] = {expression()};",
                      f"M->r[{rng.randrange(30)}] = ({array}[0] * {array}[1]);"]
        else:
            lines.append(f"lf_w_1(M, act, &M->r[{rng.randrange(30)}], &M->r[20]);")
    return lines


def _run(lines: list[str]) -> list[float]:
    """The program's model values after it ran once, lane by lane as Python (one lane)."""
    python, depth = [], 0
    for line in lines:
        text = line.strip()
        if text == "}":
            depth -= 1
            continue
        if found := re.fullmatch(r"if \(lany\(act & (~?)(\w+)\)\) \{", text):
            python.append("    " * depth + f"if {'not ' if found[1] else ''}{found[2]}:")
            depth += 1
            continue
        text = re.sub(r"\(&M->r\[20\]\)\[(\d)\]", lambda m: f"M[{20 + int(m[1])}]", text)
        text = re.sub(r"^(?:const )?l[vi] ", "", text.replace("M->r[", "M[").replace("act & ~", "not ")
                      .replace("act & ", "")).rstrip(";")
        text = re.sub(r"^(a\d+)\[2\] = \{(.*)\}$", r"\1 = [\2]", text).replace("{0}", "0.0")
        text = re.sub(r"lf_w_1\(M, act, &M\[(\d+)\], &M\[20\]\)", r"writer(M, \1)", text)
        python.append("    " * depth + text)
    model = [math.sin(k + 1.0) for k in range(34)]

    def writer(m, at):                  # reads M[20..23], writes M[at..at+3]
        values = [m[20 + k] * 0.5 + k for k in range(4)]
        m[at:at + 4] = values

    exec("\n".join(python), {"M": model, "latan": math.atan, "lsin": math.sin, "lbd": float,
                             "lsel": lambda mask, a, b: a if mask else b, "writer": writer})
    return model


@pytest.mark.parametrize("seed", range(40))
def test_a_scheduled_program_computes_what_it_computed(seed):
    """A wrong dependency (a write moved past a read of the same value, a pointer write past a read in its
    range, two blocks blending the same value swapped) changes the result of some of these programs."""
    rng = random.Random(seed)
    lines = _program(rng, 60)
    out = schedule(lines, writing_functions([WRITER + "\n{\n}"]))
    assert sorted(out) == sorted(lines)
    assert _run(out) == _run(lines)


def test_only_functions_with_an_output_pointer_write_through_pointers():
    emitted = [WRITER + "\n{\n}", "static inline li lf_seg_2(LaneInstance *M, li act, const lv *l_x, lv l_u)\n{\n}"]
    assert writing_functions(emitted) == {"lf_w_1"}


def test_an_unbalanced_block_is_refused():
    with pytest.raises(ValueError, match="unbalanced block from 'if"):
        statements(["if (lany(act & cnd1)) {", "M->r[1] = 1;"])
