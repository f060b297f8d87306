"""The generated C is the same text whatever Python's hash seed: builds are reproducible and the
FMU of one Modelica source does not change from one run to the next (a branch of an if-statement
in a function used to list its assigned variables in set order)."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import REPO

GENERATE = """
import hashlib, sys
from fmu_build.codegen import generate_model
from fmu_build.native_backend import native_model
name = sys.argv[1]
print(hashlib.sha256(generate_model(name, native_model(name).variables).source.encode()).hexdigest())
"""


def _digest(model: str, seed: int) -> str:
    env = {**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(REPO)}
    run = subprocess.run([sys.executable, "-c", GENERATE, model], env=env, capture_output=True, text=True,
                         timeout=300, cwd=REPO)
    assert run.returncode == 0, run.stderr
    return run.stdout.strip()


def test_the_tyre_models_c_does_not_depend_on_the_hash_seed():
    """The tyre's Magic Formula functions hold if-statements that assign several variables."""
    assert _digest("VehicleRTM.Tires.Tire", 1) == _digest("VehicleRTM.Tires.Tire", 2)


def test_the_order_of_parameter_bindings_does_not_depend_on_the_hash_seed():
    """KCSweptSine binds two parameters independent of each other: their order came from a set of names."""
    digests = {_digest("VehicleRTM.Examples.KCSweptSine", seed) for seed in (0, 1, 2)}
    assert len(digests) == 1, digests
