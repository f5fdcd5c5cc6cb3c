"""Harvests Cairn's OAI-PMH provider with pyoai (the `oaipmh` module), run in its own venv
(scripts/python-env.sh pyoai: pyoai 2.5.0 needs lxml < 5). Prints one JSON document on stdout
for test_pyoai.py to check; pyoai is not imported by the main interop venv.

    python harvest.py all URL         every format ListMetadataFormats lists: every record
                                      (ListRecords) and every header (ListIdentifiers)
    python harvest.py changes URL T   headers changed since T (ListIdentifiers, from=T, oai_dc),
                                      and GetRecord of each in every format
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from typing import Any

from lxml import etree
from oaipmh.client import Client
from oaipmh.error import NoRecordsMatchError
from oaipmh.metadata import MetadataRegistry, oai_dc_reader


def _payload(metadata: Any) -> str:
    """The metadata element's only child as XML text (the reader of non-DC formats)."""
    children = list(metadata)
    assert len(children) == 1, f"metadata has {len(children)} children"
    return etree.tostring(children[0], encoding="unicode")


def _client(url: str, prefixes: list[str]) -> Client:
    registry = MetadataRegistry()
    for prefix in prefixes:
        registry.registerReader(prefix, oai_dc_reader if prefix == "oai_dc" else _payload)
    client = Client(url, registry)
    client.updateGranularity()
    return client


def _prefixes(url: str) -> list[str]:
    return [prefix for prefix, _schema, _namespace in Client(url).listMetadataFormats()]


def harvest_all(url: str) -> dict[str, Any]:
    prefixes = _prefixes(url)
    client = _client(url, prefixes)
    formats: dict[str, Any] = {}
    for prefix in prefixes:
        records = []
        for header, metadata, _about in client.listRecords(metadataPrefix=prefix):
            if header.isDeleted():
                records.append({"identifier": header.identifier(), "deleted": True})
                continue
            if prefix == "oai_dc":
                content: Any = metadata.getMap()
            else:
                content = metadata
            records.append({"identifier": header.identifier(), "metadata": content})
        identifiers = [h.identifier() for h in client.listIdentifiers(metadataPrefix=prefix)]
        formats[prefix] = {"records": records, "identifiers": identifiers}
    identify = client.identify()
    return {
        "repositoryName": identify.repositoryName(),
        "deletedRecord": identify.deletedRecord(),
        "prefixes": prefixes,
        "formats": formats,
    }


def changes(url: str, since: str) -> dict[str, Any]:
    prefixes = _prefixes(url)
    client = _client(url, prefixes)
    start = datetime.strptime(since, "%Y-%m-%dT%H:%M:%SZ")
    try:
        headers = list(client.listIdentifiers(metadataPrefix="oai_dc", from_=start))
    except NoRecordsMatchError:
        headers = []
    found = []
    for header in headers:
        records = {}
        for prefix in prefixes:
            record_header, metadata, _about = client.getRecord(
                identifier=header.identifier(), metadataPrefix=prefix
            )
            records[prefix] = {"deleted": record_header.isDeleted(), "metadata": metadata is not None}
        found.append(
            {"identifier": header.identifier(), "deleted": header.isDeleted(), "records": records}
        )
    return {"changes": found}


def main() -> None:
    command, url, *rest = sys.argv[1:]
    result = harvest_all(url) if command == "all" else changes(url, rest[0])
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
