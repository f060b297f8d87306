"""fmu_build: compile the VehicleRTM Modelica library to FMI 2.0 FMUs and check it with rumoca."""
from fmu_build.build import build_fmu
from fmu_build.errors import BuildError
from fmu_build.inspect import read_fmu
from fmu_build.modelica import LIBRARY_DIR, ModelicaClass, library_classes, load_model, simulate_example

__all__ = ["LIBRARY_DIR", "BuildError", "ModelicaClass", "build_fmu", "library_classes", "load_model", "read_fmu",
           "simulate_example"]
