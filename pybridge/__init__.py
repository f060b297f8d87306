"""pybridge: MBM data to RTM parameters, manoeuvres through FMUs, scoring, identification and reports."""
