"""Where a Fuzzer saves its findings and learns which bugs are known already.

The fuzz loop asks its store for the known fingerprints at every round (and while shrinking), and
hands it each finding's files to save. On one machine that is the corpus directory itself
(``CorpusStore``); on a Dask cluster the store sends the files to the client, which writes the
corpus and shares the known fingerprints back (``passfuzz.campaign.cluster``), so the loop is the same
wherever it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from . import corpus


class FindingStore(Protocol):
    def known(self) -> set[str]:
        """The fingerprints saved so far (by this or any other fuzzer of the run)."""

    def save(self, folder: str, record: dict, script: str, report: str) -> Path:
        """Save one finding's record, script and report under ``folder`` of the corpus ("",
        corpus.OUTSIDE_CONTRACT or corpus.VARIANTS); return the path of its record as the user will find it."""


class CorpusStore:
    """The corpus directory on this machine, shared by every fuzzer that writes to it (writes
    are atomic and named by fingerprint)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def known(self) -> set[str]:
        return corpus.known_fingerprints(self.directory)

    def save(self, folder: str, record: dict, script: str, report: str) -> Path:
        return corpus.save(self.directory / folder, record, script, report)
