"""fmu_build: compile the VehicleRTM Modelica library to FMI 2.0 FMUs and check it with rumoca."""
from fmu_build.modelica import LIBRARY_DIR, ModelicaClass, library_classes, load_model, simulate_example

__all__ = ["LIBRARY_DIR", "ModelicaClass", "library_classes", "load_model", "simulate_example"]
