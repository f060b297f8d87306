"""Every resource limit pybridge enforces, with its default and the environment variable that raises it.

========================  ======================  =============================================
limit                     default                 raise with
========================  ======================  =============================================
YAML alias expansion      10 000 nodes            ``PYBRIDGE_YAML_ALIAS_NODES``
scenario samples          2 000 000 samples       ``PYBRIDGE_MAX_SAMPLES``
trace size                256 MiB (uncompressed)  ``PYBRIDGE_MAX_TRACE_BYTES``
FMU archive entry         512 MiB (uncompressed)  ``FMU_BUILD_MAX_ENTRY_BYTES``
FMU archive total         2 GiB (uncompressed)    ``FMU_BUILD_MAX_TOTAL_BYTES``
SSP archive entry         512 MiB (uncompressed)  ``PYBRIDGE_MAX_SSP_ENTRY_BYTES``
SSP archive total         2 GiB (uncompressed)    ``PYBRIDGE_MAX_SSP_TOTAL_BYTES``
co-simulation values      5 000 000 values        ``PYBRIDGE_MAX_COSIM_VALUES``
========================  ======================  =============================================

An SSP's total counts its own entries and the unpacked entries of every FMU inside it; each FMU inside
is held to the FMU archive limits too. A co-simulation keeps every communication step of every Real
output: measured 116 bytes a value at the peak (libcosim's buffers and the trace; the cruise controller
alone, 3 000 006 values: +333 MB), so the default stays near 0.6 GB; the van and the cruise controller
(38 outputs) at 1 ms may run 131 s, raise it for longer runs.

A scenario's samples are its duration times its sample rate (plus one); at 100 Hz the default allows
5.5 hours. A check happens before the work it guards (reading, unpacking, allocating the trace).
"""
from __future__ import annotations

from fmu_build.limits import FMU_ENTRY_BYTES, FMU_TOTAL_BYTES, Limit

YAML_ALIAS_NODES = Limit("PYBRIDGE_YAML_ALIAS_NODES", 10_000, "nodes",
                         "nodes that the aliases (*name) of one YAML document may repeat")
SCENARIO_SAMPLES = Limit("PYBRIDGE_MAX_SAMPLES", 2_000_000, "samples",
                         "samples of one scenario run: duration x sample rate")
TRACE_BYTES = Limit("PYBRIDGE_MAX_TRACE_BYTES", 256 * 1024 ** 2, "bytes", "uncompressed size of one trace file")

SSP_ENTRY_BYTES = Limit("PYBRIDGE_MAX_SSP_ENTRY_BYTES", 512 * 1024 ** 2, "bytes",
                        "uncompressed size of one file in an SSP archive")
SSP_TOTAL_BYTES = Limit("PYBRIDGE_MAX_SSP_TOTAL_BYTES", 2 * 1024 ** 3, "bytes",
                        "uncompressed size of an SSP archive with the FMUs inside it unpacked")
COSIM_VALUES = Limit("PYBRIDGE_MAX_COSIM_VALUES", 5_000_000, "values",
                     "values one co-simulation run keeps: communication steps x Real outputs")

ALL = (YAML_ALIAS_NODES, SCENARIO_SAMPLES, TRACE_BYTES, FMU_ENTRY_BYTES, FMU_TOTAL_BYTES, SSP_ENTRY_BYTES,
       SSP_TOTAL_BYTES, COSIM_VALUES)
