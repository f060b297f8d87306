"""Identification of the RTM's uncertain parameters: pattern search, NOMAD, executors, run records, results."""
from pybridge.identify.executor import make_executor
from pybridge.identify.nomad import nomad_search
from pybridge.identify.pattern_search import pattern_search
from pybridge.identify.record import RunRecord, RunRecordError
from pybridge.identify.result import IdentificationResult

__all__ = ["IdentificationResult", "RunRecord", "RunRecordError", "make_executor", "nomad_search", "pattern_search"]
