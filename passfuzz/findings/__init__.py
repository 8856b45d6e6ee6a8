"""A finding after it is judged: reduction, the corpus on disk, the known-bug baseline, the
reproducer script and the markdown report."""
