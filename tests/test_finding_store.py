"""The engine's finding store: the corpus directory, or (on a cluster) the client at the other end."""

import json
import pickle

from passfuzz.campaign.cluster import ClusterStore
from passfuzz.campaign.parallel import example_share
from passfuzz.findings import corpus
from passfuzz.findings.finding_store import CorpusStore

from .conftest import ROOT


def a_record() -> dict:
    return json.loads(sorted((ROOT / "corpus").glob("*.json"))[0].read_text())


def test_corpus_store_saves_atomically_named_files_and_knows_them(tmp_path):
    store, record = CorpusStore(tmp_path), a_record()
    assert store.known() == set()
    path = store.save(corpus.OUTSIDE_CONTRACT, record, "print('script')\n", "# report\n")
    assert path == tmp_path / corpus.OUTSIDE_CONTRACT / f"{record['id']}.json"
    assert corpus.load(path).record == record
    assert store.known() == {record["fingerprint"]}


class FakeQueue:
    def __init__(self):
        self.items = []

    def put(self, item):
        self.items.append(item)


class FakeVariable:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


def test_cluster_store_sends_the_files_and_knows_what_the_client_shares(tmp_path):
    events, shared = FakeQueue(), FakeVariable(["aaaa"])
    store, record = ClusterStore(tmp_path / "corpus", 3, events, shared), a_record()
    assert store.known() == {"aaaa"}
    path = store.save("", record, "script", "report")
    assert path == tmp_path / "corpus" / f"{record['id']}.json" and not path.exists()  # the client writes it
    assert [pickle.loads(item) for item in events.items] == [("save", 3, "", record, "script", "report")]
    assert store.known() == {"aaaa", record["fingerprint"]}  # known here before the client says so
    shared.value = ["aaaa", "bbbb"]
    assert "bbbb" in store.known()


def test_example_shares_add_up_to_the_budget():
    assert [example_share(7, 3, i) for i in range(3)] == [3, 2, 2]
    assert sum(example_share(16, 5, i) for i in range(5)) == 16
    assert example_share(None, 2, 0) is None
