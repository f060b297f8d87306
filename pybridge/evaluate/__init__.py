"""Evaluation: output channels, the indices of a manoeuvre (kpi), the objective, and comparing parameter sets."""
