"""Multibody-model (MBM) data readers: tyre property files and other inputs of the conversion."""
