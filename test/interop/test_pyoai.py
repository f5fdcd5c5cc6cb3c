"""A second OAI-PMH harvester Cairn's team did not write, pyoai (the `oaipmh` module), against
the real API on SQLite and on Elasticsearch (two replicas over one backend): it harvests the
whole catalogue in every metadata format the provider lists, each record exactly once (by
ListRecords and by ListIdentifiers, over POST, pyoai's default), and an incremental harvest
through one replica, from a time after a deletion made through the other, reports that record
as deleted in every format.

pyoai 2.5.0 needs an lxml older than 5, which the other clients cannot share, so it runs in a
venv of its own (scripts/python-env.sh pyoai) as a subprocess, test/interop/pyoai/harvest.py,
which prints what it harvested as JSON; the checks are made here.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from test_oai_pmh import REPOSITORY, _record_count, dcat_graph, delete_in_a_new_second

REPO = Path(__file__).resolve().parents[2]
HARVEST = REPO / "test" / "interop" / "pyoai" / "harvest.py"


@pytest.fixture(scope="module")
def pyoai_python() -> str:
    """The Python of the pyoai venv (made on first use)."""
    made = subprocess.run(
        ["bash", "scripts/python-env.sh", "pyoai"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if made.returncode != 0:
        pytest.fail(f"could not set up the pyoai venv: {made.stderr}")
    return f"{made.stdout.strip()}/bin/python"


def _harvest(python: str, *arguments: str) -> dict[str, Any]:
    run = subprocess.run(
        [python, str(HARVEST), *arguments], capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, run.stderr
    return dict(json.loads(run.stdout))


def test_pyoai_harvests_every_record_once_in_every_format(
    oai_server: dict[str, Any], pyoai_python: str
) -> None:
    root = oai_server["urls"][0]
    expected = _record_count(root)
    harvested = _harvest(pyoai_python, "all", f"{root}/oai")
    assert harvested["deletedRecord"] == "persistent"
    assert harvested["prefixes"] == ["oai_dc", "iso19139", "dcat_ap"]
    for prefix, listing in harvested["formats"].items():
        records = listing["records"]
        identifiers = [record["identifier"] for record in records]
        assert len(identifiers) == expected, prefix
        assert len(set(identifiers)) == expected, prefix
        assert sorted(listing["identifiers"]) == sorted(identifiers), prefix
        assert not any(record.get("deleted") for record in records), prefix
        assert all(i.startswith(f"oai:{REPOSITORY}:") for i in identifiers)
        for record in records:
            metadata = record["metadata"]
            if prefix == "oai_dc":
                assert metadata["identifier"], record["identifier"]
            elif prefix == "iso19139":
                assert "MD_Metadata" in metadata, record["identifier"]
            else:
                dcat_graph(metadata, root, record["identifier"][len(f"oai:{REPOSITORY}:") :])


def test_pyoai_harvests_a_deletion_made_through_the_other_replica(
    oai_server: dict[str, Any], pyoai_python: str
) -> None:
    first, second = oai_server["urls"]
    listing = _harvest(pyoai_python, "all", f"{second}/oai")
    identifier = listing["formats"]["oai_dc"]["records"][0]["identifier"]
    record_id = identifier[len(f"oai:{REPOSITORY}:") :]
    after = delete_in_a_new_second(first, record_id)
    deadline = time.monotonic() + 10  # an engine shows a write after its next refresh
    changes = _harvest(pyoai_python, "changes", f"{second}/oai", after)["changes"]
    while not changes and time.monotonic() < deadline:
        time.sleep(0.25)
        changes = _harvest(pyoai_python, "changes", f"{second}/oai", after)["changes"]
    assert [(change["identifier"], change["deleted"]) for change in changes] == [(identifier, True)]
    for prefix, record in changes[0]["records"].items():
        assert record == {"deleted": True, "metadata": False}, prefix
