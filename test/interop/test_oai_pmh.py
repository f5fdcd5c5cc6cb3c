"""An OAI-PMH harvester Cairn's team did not write, Sickle, against the real API on SQLite and
on Elasticsearch (two replicas over one backend): it harvests the whole catalogue in every
metadata format the provider lists (oai_dc, ISO 19139, DCAT-AP RDF/XML, which rdflib reads as
the same graph as the Records API's f=rdf), each record exactly once, through either replica (resumption
tokens made by one are answered by the other); a record deleted through the Records API on one
replica shows as deleted in an incremental harvest, from a time after the deletion, through the
other replica.
"""

from __future__ import annotations

import json
import os
import time
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from typing import Any

import pytest
from lxml import etree
from rdflib import Graph, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import RDF
from sickle import Sickle
from sickle.oaiexceptions import NoRecordsMatch

KEYCLOAK_URL = os.environ.get("KEYCLOAK_URL", "http://127.0.0.1:8180").rstrip("/")
TOKEN_ENDPOINT = f"{KEYCLOAK_URL}/realms/cairn-test/protocol/openid-connect/token"
REPOSITORY = "cairn.local"
DCAT = "http://www.w3.org/ns/dcat#"
DCAT_KINDS = {URIRef(f"{DCAT}{kind}") for kind in ("Dataset", "DatasetSeries", "DataService")}


def record_url(root: str, record_id: str) -> str:
    """A record's Records item URL, its IRI in DCAT-AP (encodeURIComponent's escaping)."""
    quoted = urllib.parse.quote(record_id, safe="!~*'()")
    return f"{root}/collections/metadata:main/items/{quoted}"


def dcat_graph(rdf_xml: str, root: str, record_id: str) -> Graph:
    """The DCAT-AP RDF/XML of a record as a graph; fails unless it types the record's IRI."""
    graph = Graph().parse(data=rdf_xml, format="xml")
    subject = URIRef(record_url(root, record_id))
    assert set(graph.objects(subject, RDF.type)) & DCAT_KINDS, record_id
    return graph


def _record_count(root: str) -> int:
    with urllib.request.urlopen(
        f"{root}/collections/metadata:main/items?limit=1&f=json", timeout=30
    ) as answer:
        return int(json.load(answer)["numberMatched"])


def _alice_token() -> str:
    """A token of the test realm's editor (password grant of its public web client)."""
    body = urllib.parse.urlencode(
        {
            "grant_type": "password",
            "client_id": "cairn-web",
            "username": "alice",
            "password": "alice-password",
        }
    ).encode()
    try:
        with urllib.request.urlopen(TOKEN_ENDPOINT, data=body, timeout=30) as answer:
            return str(json.load(answer)["access_token"])
    except OSError as error:
        pytest.fail(
            f"Keycloak's test realm is not usable at {TOKEN_ENDPOINT} ({error}): start it with "
            "`bash scripts/services.sh start keycloak`"
        )


def _now_second() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def delete_in_a_new_second(root: str, record_id: str) -> str:
    """Deletes a record through the API at `root` once a new second has begun, and returns that
    second: a time after every earlier write and not after the deletion (datestamps have seconds
    granularity)."""
    start = _now_second()
    while _now_second() == start:
        time.sleep(0.05)
    after = _now_second()
    deletion = urllib.request.Request(
        f"{root}/collections/metadata:main/items/{urllib.parse.quote(record_id, safe='')}",
        method="DELETE",
        headers={"Authorization": f"Bearer {_alice_token()}"},
    )
    with urllib.request.urlopen(deletion, timeout=30) as answer:
        assert answer.status in (200, 204)
    return after


def _prefixes(sickle: Sickle) -> list[str]:
    return [format.metadataPrefix for format in sickle.ListMetadataFormats()]


OAI = "http://www.openarchives.org/OAI/2.0/"


def test_sickle_harvests_every_record_once_in_every_format(oai_server: dict[str, Any]) -> None:
    root = oai_server["urls"][0]
    expected = _record_count(root)
    sickle = Sickle(f"{root}/oai")
    assert sickle.Identify().deletedRecord == "persistent"
    prefixes = _prefixes(sickle)
    assert prefixes == ["oai_dc", "iso19139", "dcat_ap"]
    for prefix in prefixes:
        records = list(sickle.ListRecords(metadataPrefix=prefix, ignore_deleted=True))
        identifiers = [record.header.identifier for record in records]
        assert len(identifiers) == expected, prefix
        assert len(set(identifiers)) == expected, prefix
        assert all(i.startswith(f"oai:{REPOSITORY}:") for i in identifiers)
        if prefix == "oai_dc":
            assert all(record.metadata.get("identifier") for record in records)
        elif prefix == "iso19139":
            assert all("MD_Metadata" in record.raw for record in records)
        else:
            for record in records:
                record_id = record.header.identifier[len(f"oai:{REPOSITORY}:") :]
                (rdf,) = list(record.xml.find(f"{{{OAI}}}metadata"))
                harvested = dcat_graph(etree.tostring(rdf, encoding="unicode"), root, record_id)
                with urllib.request.urlopen(
                    f"{record_url(root, record_id)}?f=rdf", timeout=30
                ) as answer:
                    served = Graph().parse(data=answer.read(), format="xml")
                assert isomorphic(harvested, served), record_id


def test_resumption_tokens_of_one_replica_are_answered_by_the_other(
    oai_server: dict[str, Any],
) -> None:
    first, second = oai_server["urls"]
    expected = _record_count(first)
    replicas = [Sickle(f"{first}/oai"), Sickle(f"{second}/oai")]
    oai = "{http://www.openarchives.org/OAI/2.0/}"
    identifiers: list[str] = []
    response = replicas[0].harvest(verb="ListIdentifiers", metadataPrefix="iso19139")
    for turn in range(1, 1000):
        identifiers += [e.text or "" for e in response.xml.iterfind(f".//{oai}identifier")]
        token = response.xml.find(f".//{oai}resumptionToken")
        if token is None or not token.text:
            break
        # Each page from the other replica than the one that made its token.
        response = replicas[turn % 2].harvest(verb="ListIdentifiers", resumptionToken=token.text)
    assert len(identifiers) == expected and len(set(identifiers)) == expected


def test_a_deletion_through_one_replica_is_harvested_through_the_other(
    oai_server: dict[str, Any],
) -> None:
    first, second = oai_server["urls"]
    sickle = Sickle(f"{second}/oai")
    header = next(iter(sickle.ListIdentifiers(metadataPrefix="oai_dc")))
    record_id = header.identifier[len(f"oai:{REPOSITORY}:") :]
    after = delete_in_a_new_second(first, record_id)
    deadline = time.monotonic() + 10  # an engine shows a write after its next refresh
    while not _has_changes(sickle, after) and time.monotonic() < deadline:
        time.sleep(0.25)
    changed = list(
        sickle.ListIdentifiers(metadataPrefix="oai_dc", ignore_deleted=False, **{"from": after})
    )
    assert [(h.identifier, h.deleted) for h in changed] == [(header.identifier, True)]
    for prefix in _prefixes(sickle):
        record = sickle.GetRecord(identifier=header.identifier, metadataPrefix=prefix)
        assert record.header.deleted


def _has_changes(sickle: Sickle, since: str) -> bool:
    """False while the provider answers noRecordsMatch for changes since `since`."""
    try:
        listing = sickle.ListIdentifiers(
            metadataPrefix="oai_dc", ignore_deleted=False, **{"from": since}
        )
        next(iter(listing))
        return True
    except (NoRecordsMatch, StopIteration):
        return False
