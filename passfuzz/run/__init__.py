"""One side of an example in an isolated child: builds, targets, calling adapters, tuning and timed
sides -> Outcome."""
