"""What the real-time harness runs: the FMU's binary and value references, the scenario's inputs at
every communication point, the parameters it sets and the PI speed driver it closes in C."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pybridge.limits import SCENARIO_SAMPLES

NO_SCENARIO = "none"
MAX_COLUMNS = 256   # inputs and outputs the harness takes (harness.c)


class RTCheckError(ValueError):
    """Bad input to the real-time check: the message names the file, the place and what was expected."""


@dataclass
class Plan:
    """One manoeuvre for the harness: ``values[k]`` are the inputs held over step k."""
    fmu: Path
    model_name: str
    library: Path
    guid: str
    resource_uri: str
    step: float
    steps: int
    scenario: str
    params: dict[str, tuple[int, float]] = field(default_factory=dict)    # name -> (vr, value)
    inputs: list[tuple[str, int]] = field(default_factory=list)           # columns of values
    values: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))
    outputs: list[tuple[str, int]] = field(default_factory=list)
    pi: dict | None = None   # vr_speed, vr_throttle, vr_brake, initial, target, kp, ki, brake_gain

    def write(self, folder: Path, runs: int, cpu: int | None, mlock: bool, trace: bool) -> tuple[Path, Path]:
        """The plan file and the binary input file of the harness, in ``folder``."""
        lines = [f"guid {self.guid}", f"uri {self.resource_uri}", f"step {self.step!r}", "start 0.0",
                 f"steps {self.steps}", f"runs {runs}", f"cpu {-1 if cpu is None else cpu}",
                 f"mlock {int(mlock)}", f"trace {int(trace)}"]
        lines += [f"real {vr} {value!r}" for vr, value in self.params.values()]
        lines += [f"input {vr}" for _, vr in self.inputs] + [f"output {vr}" for _, vr in self.outputs]
        if self.pi:
            p = self.pi
            lines.append(f"pi {p['vr_speed']} {p['vr_throttle']} {p['vr_brake']} {p['initial']!r} {p['target']!r} "
                         f"{p['kp']!r} {p['ki']!r} {p['brake_gain']!r}")
        plan, inputs = folder / "plan.txt", folder / "inputs.bin"
        plan.write_text("\n".join(lines) + "\n")
        np.ascontiguousarray(self.values, dtype="<f8").tofile(inputs)
        return plan, inputs


def read_cs_fmu(fmu: Path, folder: Path):
    """Unpack ``fmu`` into ``folder``; its model description and the path of its binary for this machine.
    RTCheckError when it is no FMI 2.0 Co-Simulation FMU with such a binary."""
    from fmpy import platform as fmpy_platform
    from fmpy import read_model_description

    from fmu_build import BuildError
    from fmu_build.inspect import extract_fmu

    try:
        extract_fmu(fmu, folder)
        description = read_model_description(str(folder), validate=False)
    except BuildError as error:
        raise RTCheckError(str(error)) from None
    except Exception as error:   # fmpy's parser raises several kinds
        raise RTCheckError(f"{fmu}: modelDescription.xml: {error}") from None
    if not description.fmiVersion.startswith("2."):
        raise RTCheckError(f"{fmu}: modelDescription.xml: fmiVersion {description.fmiVersion}; expected 2.0")
    if description.coSimulation is None:
        raise RTCheckError(f"{fmu}: modelDescription.xml: no <CoSimulation> element (a Model Exchange only FMU); "
                           "expected an FMI 2.0 Co-Simulation FMU (fmu-build --fmi-type cs)")
    identifier = description.coSimulation.modelIdentifier
    library = folder / "binaries" / fmpy_platform / f"{identifier}.so"
    if not library.is_file():
        present = sorted(p.name for p in (folder / "binaries").glob("*")) if (folder / "binaries").is_dir() else []
        raise RTCheckError(f"{fmu}: binaries/{fmpy_platform}/{identifier}.so: missing; expected the binary for "
                           f"this machine (the FMU has binaries for: {', '.join(present) or 'none'})")
    if any(c.isspace() for c in description.guid):
        raise RTCheckError(f"{fmu}: modelDescription.xml: guid {description.guid!r}; expected no white space")
    return description, library


def make_plan(fmu: str | Path, folder: Path, scenario: str = "step_steer", step: float = 1e-3,
              duration: float | None = None, references: str | Path | None = None) -> Plan:
    """The harness's plan for ``fmu`` (unpacked into ``folder``) on ``scenario`` (a scenario file or the
    name of a shipped one; ``"none"``: no inputs, the FMU's start values) at the communication ``step``."""
    fmu = Path(fmu)
    description, library = read_cs_fmu(fmu, folder)
    variables = {v.name: v for v in description.modelVariables}
    outputs = [(v.name, v.valueReference) for v in description.modelVariables
               if v.causality == "output" and v.type == "Real"][:MAX_COLUMNS]
    if not step > 0:
        raise RTCheckError(f"--step {step}: expected a communication step > 0 s")
    plan = Plan(fmu, description.modelName, library, description.guid, folder.resolve().as_uri(), step, 0,
                scenario, outputs=outputs)
    if scenario == NO_SCENARIO:
        experiment = description.defaultExperiment
        stop = duration if duration is not None else (experiment.stopTime if experiment else None)
        if stop is None:
            raise RTCheckError(f"{fmu}: no DefaultExperiment stopTime; give --duration")
        _set_steps(plan, float(stop))
        plan.values = np.zeros((plan.steps, 0))
        return plan
    _scenario_inputs(plan, variables, scenario, duration, references)
    return plan


def _set_steps(plan: Plan, duration: float) -> None:
    if not duration > 0:
        raise RTCheckError(f"--duration {duration}: expected a duration > 0 s")
    plan.steps = max(1, round(duration / plan.step))
    if plan.steps > SCENARIO_SAMPLES.value():
        raise RTCheckError(f"--duration {duration:g} s at --step {plan.step:g} s is {plan.steps} steps, more than "
                           f"{SCENARIO_SAMPLES.describe()}")


def _vr(variables: dict, name: str, fmu: Path, why: str) -> int:
    if name not in variables:
        raise RTCheckError(f"{fmu}: no variable {name!r} ({why}); expected the RTM14DoF interface, or --scenario none "
                           "to run the FMU on its start values")
    return variables[name].valueReference


def _scenario_inputs(plan: Plan, variables: dict, name: str, duration: float | None, references) -> None:
    """Inputs, initial speed and PI driver of a full-vehicle scenario, as pybridge simulate drives them."""
    from pybridge.simulate.manoeuvres import FMU_CHANNELS, FMU_INPUTS, INITIAL_SPEED, ManifestReferences
    from pybridge.simulate.scenarios import load_scenario

    scenario = load_scenario(name)
    if scenario.kind != "full_vehicle":
        raise RTCheckError(f"{scenario.path}: kind: {scenario.kind}; rt-check drives full_vehicle scenarios "
                           "(or --scenario none)")
    _set_steps(plan, scenario.duration if duration is None else duration)
    if scenario.references() and references is None:
        raise RTCheckError(f"{scenario.path}: inputs need {scenario.references()[0].name}; give --references")
    resolve = ManifestReferences(references) if scenario.references() else None
    mid_steps = (np.arange(plan.steps) + 0.5) * plan.step     # held over a step at its mid-step value
    columns = []
    for input_name in scenario.inputs:
        fmu_name = FMU_INPUTS[input_name]
        plan.inputs.append((fmu_name, _vr(variables, fmu_name, plan.fmu, f"input {input_name} of {scenario.name}")))
        columns.append(np.asarray(scenario.signal(input_name, resolve)(mid_steps), dtype=float))
    plan.values = np.column_stack(columns) if columns else np.zeros((plan.steps, 0))
    if scenario.initial_speed is not None:
        plan.params[INITIAL_SPEED] = (_vr(variables, INITIAL_SPEED, plan.fmu, "initial speed"),
                                      float(scenario.initial_speed))
    control = scenario.speed_control
    if control is not None:
        plan.pi = {"vr_speed": _vr(variables, FMU_CHANNELS["speed"], plan.fmu, "speed of the PI driver"),
                   "vr_throttle": _vr(variables, FMU_INPUTS["throttle"], plan.fmu, "PI driver"),
                   "vr_brake": _vr(variables, FMU_INPUTS["brake"], plan.fmu, "PI driver"),
                   "initial": float(scenario.initial_speed or 0.0), "target": control.target, "kp": control.kp,
                   "ki": control.ki, "brake_gain": control.brake_gain}
