"""A fuzzing run: the engine's Hypothesis rounds, the run directory, workers on this machine and on a
Dask cluster, events and statistics, seeds, and the checks made before the first example."""
