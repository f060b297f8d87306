"""fmu_build: compile the VehicleRTM Modelica library to FMI 2.0 FMUs and check it with rumoca."""
from fmu_build.build import build_fmu
from fmu_build.errors import BuildError
from fmu_build.inspect import read_fmu
from fmu_build.modelica import (LIBRARY_DIR, ModelicaClass, find_class, library_classes, load_model, package_classes,
                                simulate_example, use_modelica_path)

__all__ = ["LIBRARY_DIR", "BuildError", "ModelicaClass", "build_fmu", "find_class", "library_classes", "load_model",
           "package_classes", "read_fmu", "simulate_example", "use_modelica_path"]
