"""Real-time check of an FMI 2.0 Co-Simulation FMU (``pybridge rt-check``).

A C harness (harness.c, compiled on first use) runs the FMU fixed-step as a HIL rig does and times
every fmi2DoStep; it counts allocation calls inside fmi2DoStep (interposed malloc family and the FMI
allocation callbacks) and, in a second run traced with ptrace, system calls inside it. The report
holds the step-time distribution against the task budget, the first-call and initialization costs,
what happened inside the step and the machine's load.
"""
from pybridge.rig.rtcheck.check import RTCheck, rt_check
from pybridge.rig.rtcheck.plan import RTCheckError
from pybridge.rig.rtcheck.report import format_report, plot_report

__all__ = ["RTCheck", "RTCheckError", "format_report", "plot_report", "rt_check"]
