"""DCAT-AP 3 / GeoDCAT-AP 3 checked by tools the team did not write: pySHACL with the official
SHACL shapes (vendored in test/fixtures/shacl, see PROVENANCE.md there) finds no violation in
the description of any sample record (every input format) or of a catalogue page, except the
ones named below, each a mandatory property the source record truly lacks; and rdflib reads
the Turtle, RDF/XML and JSON-LD of every record as one graph (isomorphic). The records are
served from SQLite and from Elasticsearch (`all_samples_server`), as an engine gives a record
back from its own stored form.
"""

from __future__ import annotations

import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from pyshacl import validate
from rdflib import Graph, Namespace, URIRef
from rdflib.compare import isomorphic
from rdflib.namespace import RDF
from rdflib.term import Node

REPO = Path(__file__).resolve().parents[2]
SHAPES_DIR = REPO / "test" / "fixtures" / "shacl"
# The shape sets every description is checked against, each file by the name the violations
# below use. GeoDCAT-AP 3.0.0 revises 2.0.0 for DCAT-AP 3; the 2.0.0 shapes are checked too,
# as they hold constraints of their own (docs/decisions/dcat-ap.md).
SHAPE_SETS = {
    "DCAT-AP 3.0.0": "dcat-ap-3.0.0-SHACL.ttl",
    "GeoDCAT-AP 3.0.0": "geodcat-ap-3.0.0-SHACL.ttl",
    "GeoDCAT-AP 2.0.0": "geodcat-ap-2.0.0-SHACL.ttl",
}
SH = Namespace("http://www.w3.org/ns/shacl#")
DCAT = Namespace("http://www.w3.org/ns/dcat#")
ITEMS = "/collections/metadata:main/items"  # under the server's URL, the catalogue root

# Violations that remain because the source record lacks a mandatory property, by record id:
# (shape set, the property's path). Nothing else may be reported.
#
# - Record_1ef30a8b… is a Dublin Core record of dc:type Service with no dc:references or any
#   other link: a dcat:DataService must have a dcat:endpointURL (DCAT-AP 3.0.0 and
#   GeoDCAT-AP 3.0.0 both say so), and the record names none.
EXPECTED_VIOLATIONS: dict[str, set[tuple[str, str]]] = {
    "urn:uuid:1ef30a8b-876d-4828-9246-c37ab4510bbd": {
        ("DCAT-AP 3.0.0", str(DCAT.endpointURL)),
        ("GeoDCAT-AP 3.0.0", str(DCAT.endpointURL)),
    },
}

# The backends the descriptions are read from: SQLite and an engine.
ON_SQLITE_AND_AN_ENGINE = pytest.mark.parametrize(
    "all_samples_server", ["sqlite", "elasticsearch"], indirect=True
)


def _get(url: str, accept: str | None = None) -> bytes:
    request = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200, url
        return response.read()


def _record_url(api: str, record_id: str) -> str:
    return f"{api}{ITEMS}/{urllib.parse.quote(record_id, safe='')}"


class Shapes:
    """The shapes of every set in one graph, and which set each shape node comes from (the
    sh:sourceShape of a result names it), so one pySHACL run reports for all the sets."""

    def __init__(self) -> None:
        self.graph = Graph()
        self.set_of: dict[Node, str] = {}
        for name, file in SHAPE_SETS.items():
            shapes = Graph().parse(SHAPES_DIR / file, format="turtle")
            for shape in shapes.subjects(unique=True):
                self.set_of.setdefault(shape, name)
            self.graph += shapes


@pytest.fixture(scope="module")
def shapes() -> Shapes:
    return Shapes()


@pytest.fixture
def api(all_samples_server: dict[str, Any]) -> str:
    return str(all_samples_server["url"])


@pytest.fixture
def sample_ids(api: str) -> list[str]:
    """Every record loaded from data/samples (the generated ones are named cairn-…)."""
    ids: list[str] = []
    offset = 0
    while True:
        page: dict[str, Any] = json.loads(_get(f"{api}{ITEMS}?f=json&limit=100&offset={offset}"))
        ids.extend(feature["id"] for feature in page["features"])
        offset += 100
        if offset >= page["numberMatched"]:
            break
    samples = [record_id for record_id in ids if not record_id.startswith("cairn-")]
    assert len(samples) >= 60, samples
    return samples


def _violations(data: Graph, shapes: Shapes) -> set[tuple[str, str, str]]:
    """(focus node, shape set, path) of every sh:Violation pySHACL reports for the graph. With
    RDFS inference, as SHACL's `sh:class rdfs:Resource` (of dcat:accessURL, dcat:downloadURL …)
    holds for every IRI only under RDFS semantics."""
    _, results, _ = validate(data, shacl_graph=shapes.graph, inference="rdfs", allow_warnings=True)
    found: set[tuple[str, str, str]] = set()
    for result in results.subjects(RDF.type, SH.ValidationResult):
        if results.value(result, SH.resultSeverity) != SH.Violation:
            continue
        focus = results.value(result, SH.focusNode)
        path = results.value(result, SH.resultPath)
        source = results.value(result, SH.sourceShape)
        shape_set = shapes.set_of.get(source, f"unknown shape {source}") if source else "?"
        found.add((str(focus), shape_set, str(path)))
    return found


def _expected(api: str, record_ids: list[str]) -> set[tuple[str, str, str]]:
    return {
        (_record_url(api, record_id), shape_set, path)
        for record_id in record_ids
        for shape_set, path in EXPECTED_VIOLATIONS.get(record_id, set())
    }


def test_each_shape_set_is_read_and_finds_a_missing_title(shapes: Shapes) -> None:
    for name in SHAPE_SETS:
        node_shapes = [
            shape
            for shape in shapes.graph.subjects(RDF.type, SH.NodeShape)
            if shapes.set_of.get(shape) == name
        ]
        assert len(node_shapes) > 10, name
    # A dataset with neither title nor description, and a contact point whose e-mail address is
    # not typed: the sets that hold these constraints report them, under their own names.
    data = Graph().parse(
        format="turtle",
        data="""
            @prefix dcat: <http://www.w3.org/ns/dcat#> .
            @prefix vcard: <http://www.w3.org/2006/vcard/ns#> .
            <https://example.org/d> a dcat:Dataset ; dcat:contactPoint [
                a vcard:Kind ; vcard:fn "Desk" ; vcard:hasEmail <mailto:desk@example.org> ] .
        """,
    )
    found = {(shape_set, path) for _, shape_set, path in _violations(data, shapes)}
    title, description = "http://purl.org/dc/terms/title", "http://purl.org/dc/terms/description"
    for name in ("DCAT-AP 3.0.0", "GeoDCAT-AP 3.0.0"):
        assert {(name, title), (name, description)} <= found, found
    assert ("GeoDCAT-AP 3.0.0", "http://www.w3.org/2006/vcard/ns#hasEmail") in found, found


@ON_SQLITE_AND_AN_ENGINE
def test_every_sample_record_conforms_to_dcat_ap(
    api: str, sample_ids: list[str], shapes: Shapes
) -> None:
    reported: set[tuple[str, str, str]] = set()
    for record_id in sample_ids:
        data = Graph().parse(data=_get(_record_url(api, record_id) + "?f=ttl"), format="turtle")
        reported |= _violations(data, shapes)
    assert reported == _expected(api, sample_ids)


@ON_SQLITE_AND_AN_ENGINE
def test_a_catalogue_page_conforms_to_dcat_ap(
    api: str, sample_ids: list[str], shapes: Shapes
) -> None:
    data = Graph().parse(data=_get(f"{api}{ITEMS}?f=ttl&limit=100"), format="turtle")
    catalogs = list(data.subjects(RDF.type, DCAT.Catalog))
    assert len(catalogs) == 1
    members = set(data.objects(catalogs[0], DCAT.dataset)) | set(data.objects(catalogs[0], DCAT.service))
    assert len(members) == 100
    on_page = [record_id for record_id in sample_ids if URIRef(_record_url(api, record_id)) in members]
    assert _violations(data, shapes) == _expected(api, on_page)


@ON_SQLITE_AND_AN_ENGINE
def test_the_three_encodings_of_every_record_are_one_graph(api: str, sample_ids: list[str]) -> None:
    for record_id in sample_ids:
        url = _record_url(api, record_id)
        turtle = Graph().parse(data=_get(url + "?f=ttl"), format="turtle")
        rdf_xml = Graph().parse(data=_get(url, accept="application/rdf+xml"), format="xml")
        json_ld = Graph().parse(data=_get(url + "?f=dcat"), format="json-ld")
        assert len(turtle) > 5, record_id
        assert isomorphic(turtle, rdf_xml), f"{record_id}: Turtle and RDF/XML differ"
        assert isomorphic(turtle, json_ld), f"{record_id}: Turtle and JSON-LD differ"
