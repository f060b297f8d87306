"""The rig layer: what takes an identified RTM to a HIL rig and runs it there.

``export`` (the FMU with the identified set, ``export_build``/``export_system`` its build and system
descriptions), ``ssp`` (System Structure and Parameterization archives, with ``ssp_archive`` and
``ssp_checks``), ``cosim`` (closed loop with ADAS-function FMUs on libcosim) and ``rtcheck`` (real-time
check of an FMU stepped fixed-step as a rig does).
"""
