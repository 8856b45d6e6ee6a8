"""Where generation looks: the ops and operand forms the named passes match, from the pass catalogue,
a custom pass's source and probes run in children."""
