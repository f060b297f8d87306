"""Simulation: FMU sessions, the in-process manoeuvre runner, scenario files and the manoeuvres run through them."""
