"""On board, in parallel with the vehicle: the RTM driven by a recorded vehicle log (``replay``), with
the log's inputs resampled onto the RTM's 1 ms step (``log_inputs``, ``resample``)."""
