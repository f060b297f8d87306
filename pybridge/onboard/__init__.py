"""On board, in parallel with the vehicle: the RTM driven by logged sensor signals, and the state observer."""
