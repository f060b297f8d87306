"""The RTM FMU as the observer's process and measurement model, through FMI 2.0 Model Exchange.

``RTMModel(fmu, params, initial_speed)`` instantiates the FMU's Model-Exchange interface once, applies
the parameter set and initialises it at ``initial_speed``. The observer's sigma points are vectors of
the RTM's continuous states (all but the position X, Y and the heading yaw, which no force depends
on) plus a road friction coefficient: ``fmi2SetContinuousStates`` puts a point into the FMU,
``fmi2GetDerivatives`` and ``fmi2GetReal`` give its derivatives and outputs, and ``propagate`` steps
all points by Heun's rule. A UKF needs exactly this: a state it can set from a vector. (FMI's
``fmi2GetFMUstate``/``fmi2SetFMUstate`` save and restore an opaque snapshot, which cannot be perturbed.)

The friction coefficient is the RTM's input ``roadFriction[1..4]`` (per wheel; it scales the Magic
Formula's LMUX and LMUY of each tyre, 1 = the tyre file's road). Inputs may be set in continuous-time
mode, so each point's friction goes in with ``fmi2SetReal`` before its states: only the FMI 2.0
interface is used, and any backend's FMU with that input works.
"""
from __future__ import annotations

import ctypes
import shutil
import tempfile
from ctypes import POINTER, c_double, c_int, c_uint, c_void_p
from pathlib import Path

import numpy as np
from fmpy import read_model_description
from fmpy.fmi2 import FMU2Model

from fmu_build.inspect import extract_fmu
from pybridge.parameters import ParameterSet
from pybridge.simulate.fmu import FMUSession, FMUSessionError

__all__ = ["FRICTION_INPUTS", "RTMModel", "UNFILTERED_STATES"]

UNFILTERED_STATES = ("X", "Y", "yaw")
_TYRES = ("FL", "FR", "RL", "RR")
FRICTION_INPUTS = tuple(f"roadFriction[{i}]" for i in range(1, 5))
OUTPUTS = ("yawRate", "axSensor", "aySensor", "speed", "sideslip", "wheelSteerAngle[1]", "wheelSteerAngle[2]",
           *(f"tire{t}.{f}" for t in _TYRES for f in ("Fx", "Fy")))


class RTMModel:
    """One Model-Exchange instance of the RTM FMU, evaluated at batches of filter points."""

    def __init__(self, fmu: str | Path, params: ParameterSet, initial_speed: float,
                 inputs: tuple[str, ...] = ("steeringWheelAngle", "throttle", "brakePedal"),
                 booleans: dict[str, bool] | None = None):
        with FMUSession(fmu) as session:
            applied = session.planned_values(params)
        self.inputs = tuple(inputs)
        self._folder = Path(tempfile.mkdtemp(prefix="observer-fmu-"))
        extract_fmu(Path(fmu), self._folder)
        md = read_model_description(str(self._folder))
        if md.modelExchange is None:
            raise FMUSessionError(f"{fmu}: the FMU has no Model-Exchange interface; the observer needs it "
                                  "(build with fmu-build --fmi-type me_cs)")
        self.variables = {v.name: v for v in md.modelVariables}
        missing = [n for n in (*OUTPUTS, *self.inputs, *FRICTION_INPUTS) if n not in self.variables]
        if missing:
            shutil.rmtree(self._folder, ignore_errors=True)
            raise FMUSessionError(f"{fmu}: no variable {missing[0]!r}; the observer needs the RTM14DoF interface "
                                  "(the input roadFriction[4] included)")
        self.model = FMU2Model(guid=md.guid, unzipDirectory=str(self._folder),
                               modelIdentifier=md.modelExchange.modelIdentifier, instanceName="observer")
        self.model.instantiate()
        self._initialise(applied, initial_speed, booleans or {})
        self.state_names = [d.variable.derivative.name for d in md.derivatives]
        self.filtered = np.array([i for i, n in enumerate(self.state_names) if n not in UNFILTERED_STATES])
        self._bind(fmu)

    def _initialise(self, applied: list[tuple], initial_speed: float, booleans: dict[str, bool]) -> None:
        m = self.model
        m.setupExperiment(startTime=0.0)
        for kind, vrs, values in applied:
            getattr(m, f"set{kind}")(list(map(int, vrs)), list(values))
        if booleans:
            m.setBoolean([self.variables[n].valueReference for n in booleans], list(booleans.values()))
        m.setReal([self.variables["initialSpeed"].valueReference], [float(initial_speed)])
        m.enterInitializationMode()
        m.exitInitializationMode()
        while True:  # event iteration at the start, then continuous time
            info = m.newDiscreteStates()
            if not info[0]:
                break
        m.enterContinuousTimeMode()

    def _bind(self, fmu) -> None:
        """Raw ctypes entry points, value references and buffers."""
        dll, self._c = self.model.dll, c_void_p(self.model.component)
        for name, args in (("fmi2SetContinuousStates", [c_void_p, POINTER(c_double), ctypes.c_size_t]),
                           ("fmi2GetContinuousStates", [c_void_p, POINTER(c_double), ctypes.c_size_t]),
                           ("fmi2GetDerivatives", [c_void_p, POINTER(c_double), ctypes.c_size_t]),
                           ("fmi2GetReal", [c_void_p, POINTER(c_uint), ctypes.c_size_t, POINTER(c_double)]),
                           ("fmi2SetReal", [c_void_p, POINTER(c_uint), ctypes.c_size_t, POINTER(c_double)]),
                           ("fmi2SetTime", [c_void_p, c_double])):
            function = getattr(dll, name)
            function.argtypes, function.restype = args, c_int
            setattr(self, f"_{name[4:]}", function)
        self.n = len(self.state_names)
        self._x, self._dx = np.zeros(self.n), np.zeros(self.n)
        self._out_vrs = np.array([self.variables[n].valueReference for n in OUTPUTS], dtype=np.uint32)
        self._in_vrs = np.array([self.variables[n].valueReference for n in self.inputs], dtype=np.uint32)
        self._mu_vrs = np.array([self.variables[n].valueReference for n in FRICTION_INPUTS], dtype=np.uint32)
        self._out, self._in, self._mu = np.zeros(len(OUTPUTS)), np.zeros(len(self.inputs)), np.ones(4)
        # ctypes pointers made once (data_as costs microseconds, a few hundred times per update)
        self._x_p, self._dx_p, self._out_p, self._in_p, self._mu_p = map(_ptr, (self._x, self._dx, self._out,
                                                                               self._in, self._mu))
        self._out_vrs_p, self._in_vrs_p, self._mu_vrs_p = map(_uptr, (self._out_vrs, self._in_vrs, self._mu_vrs))
        self._check(self._GetContinuousStates(self._c, self._x_p, self.n), "fmi2GetContinuousStates")
        self.x0 = self._x[self.filtered].copy()

    def _check(self, status: int, what: str) -> None:
        if status > 1:  # fmi2OK = 0, fmi2Warning = 1
            raise FMUSessionError(f"the RTM FMU failed in {what} (status {status})")

    def set_inputs(self, t: float, values) -> None:
        """The ``inputs`` (in their order), held over the coming step, and the time."""
        self._in[:] = values
        self._check(self._SetTime(self._c, t), "fmi2SetTime")
        self._check(self._SetReal(self._c, self._in_vrs_p, len(self.inputs), self._in_p), "fmi2SetReal")

    def _load(self, x: np.ndarray, mu: float) -> None:
        self._mu[:] = mu
        self._check(self._SetReal(self._c, self._mu_vrs_p, 4, self._mu_p), "fmi2SetReal")
        self._x[self.filtered] = x
        self._check(self._SetContinuousStates(self._c, self._x_p, self.n), "fmi2SetContinuousStates")

    def derivatives(self, X: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """d/dt of the filtered states at every row of X (friction mu per row)."""
        out = np.empty_like(X)
        for i in range(len(X)):
            self._load(X[i], mu[i])
            self._check(self._GetDerivatives(self._c, self._dx_p, self.n), "fmi2GetDerivatives")
            out[i] = self._dx[self.filtered]
        return out

    def propagate(self, X: np.ndarray, mu: np.ndarray, dt: float) -> np.ndarray:
        """Every row of X one step dt ahead (Heun's rule, inputs held)."""
        k1 = self.derivatives(X, mu)
        k2 = self.derivatives(X + dt * k1, mu)
        return X + 0.5 * dt * (k1 + k2)

    def outputs(self, X: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """The ``OUTPUTS`` at every row of X."""
        out = np.empty((len(X), len(OUTPUTS)))
        for i in range(len(X)):
            self._load(X[i], mu[i])
            self._check(self._GetReal(self._c, self._out_vrs_p, len(OUTPUTS), self._out_p), "fmi2GetReal")
            out[i] = self._out
        return out

    def commit(self, x: np.ndarray, mu: float) -> None:
        """Leave the instance at the estimate and complete the step (when-clauses: the gear)."""
        self._load(x, mu)
        self.model.completedIntegratorStep()

    def close(self) -> None:
        if getattr(self, "model", None) is not None:
            try:
                self.model.terminate()
                self.model.freeInstance()
            finally:
                self.model = None
        shutil.rmtree(self._folder, ignore_errors=True)


def _ptr(a: np.ndarray):
    return a.ctypes.data_as(POINTER(c_double))


def _uptr(a: np.ndarray):
    return a.ctypes.data_as(POINTER(c_uint))
