"""Interoperability of the CSW endpoint with OWSLib's CatalogueServiceWeb, CSW 2.0.2 and 3.0.0:
capabilities parsing, GetRecords with PropertyIsLike, BBox and sorting (GET-free POST requests as
OWSLib builds them), GetRecordById of one and several ids, GetDomain, harvest loops over every
record (Dublin Core and ISO 19139) that see each exactly once, and how OWSLib surfaces Cairn's
ExceptionReports (HTTP 400/404/501 in both versions).

Runs against the real API over every sample folder (STAC, ISO 19139 with two gmi:MI_Metadata
records, ISO 19115-3, Dublin Core) and generated records, on SQLite and on Elasticsearch
(`all_samples_server` in conftest.py).
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
import requests
from owslib import fes, fes2
from owslib.csw import CatalogueServiceWeb
from owslib.ows import ExceptionReport
from owslib.util import ServiceException

CSW2 = "http://www.opengis.net/cat/csw/2.0.2"
CSW3 = "http://www.opengis.net/cat/csw/3.0"
GMD = "http://www.isotc211.org/2005/gmd"
# An area over the Sentinel-2 tiles of the samples (lon 14-18, lat 45-50).
AOI = [14, 45, 18, 50]
# The ISO 19115-2 (gmi:MI_Metadata) records of data/samples/iso19139.
MI_IDS = ["NS06agg", "S2B_MSIL2A_20200902T090559_N0214_R050_T34SFG_20200902T113910.SAFE"]
# An ISO 19139 (gmd:MD_Metadata) record of the samples.
MD_ID = "de53e931-778a-4792-94ad-9fe507aca483"


@pytest.fixture(scope="session")
def csw_url(all_samples_server: dict[str, Any]) -> str:
    return f"{all_samples_server['url']}/csw"


@pytest.fixture(scope="session")
def record_count(all_samples_server: dict[str, Any]) -> int:
    return int(all_samples_server["records"])


@pytest.fixture(scope="session")
def csw2(csw_url: str) -> Any:
    return CatalogueServiceWeb(csw_url, version="2.0.2", timeout=60)


@pytest.fixture(scope="session")
def csw3(csw_url: str) -> Any:
    return CatalogueServiceWeb(csw_url, version="3.0.0", timeout=60)


def kvp_matched(csw_url: str, **params: str) -> int:
    """numberOfRecordsMatched of a CSW 3.0 KVP GetRecords (an independent count)."""
    query = {"service": "CSW", "version": "3.0.0", "request": "GetRecords", "typeNames": "csw:Record"}
    response = requests.get(csw_url, params={**query, "maxRecords": "0", **params}, timeout=60)
    response.raise_for_status()
    marker = 'numberOfRecordsMatched="'
    start = response.text.index(marker) + len(marker)
    return int(response.text[start : response.text.index('"', start)])


def intersects(box: list[float], aoi: list[float]) -> bool:
    west, south, east, north = box
    return not (east < aoi[0] or west > aoi[2] or north < aoi[1] or south > aoi[3])


# ---------------------------------------------------------------------------------------------
# Capabilities


def test_capabilities_202(csw2: Any, csw_url: str) -> None:
    assert csw2.identification.type == "CSW"
    assert "2.0.2" in csw2.identification.version or csw2.version == "2.0.2"
    assert csw2.provider.name
    names = [operation.name for operation in csw2.operations]
    for name in ["GetCapabilities", "DescribeRecord", "GetRecords", "GetRecordById", "GetDomain"]:
        assert name in names
    getrecords = csw2.get_operation_by_name("GetRecords")
    assert getrecords.parameters["outputSchema"]["values"][0] == CSW2
    assert "CQL_TEXT" in getrecords.parameters["CONSTRAINTLANGUAGE"]["values"]
    assert csw2.constraints["MaxRecordDefault"].values == ["10"]
    assert csw2.constraints["OpenSearchDescriptionDocument"].values[0].endswith("/catalogue/opensearch")
    assert "BBOX" in csw2.filters.spatial_operators
    assert "Like" in csw2.filters.scalar_comparison_operators
    get_urls = [method["url"] for method in getrecords.methods if method["type"] == "Get"]
    assert get_urls == [csw_url]


def test_capabilities_30(csw3: Any) -> None:
    assert csw3.identification.type == "CSW"
    names = [operation.name for operation in csw3.operations]
    assert names == ["GetCapabilities", "GetRecords", "GetRecordById", "GetRepositoryItem", "GetDomain"]
    conformance = "http://www.opengis.net/spec/csw/3.0/conf/"
    assert csw3.constraints[f"{conformance}OpenSearch"].values == ["TRUE"]
    assert csw3.constraints[f"{conformance}Transaction"].values == ["FALSE"]
    assert csw3.constraints["MaxRecordDefault"].values == ["10"]
    getrecords = csw3.get_operation_by_name("GetRecords")
    # OWSLib 0.35 reads OWS 2.0 parameter values as direct ows:Value children, which the OWS 2.0
    # schema does not allow (they are in ows:AllowedValues), so it sees the names only.
    assert {"typeNames", "outputSchema", "outputFormat", "ElementSetName"} <= set(getrecords.parameters)


# ---------------------------------------------------------------------------------------------
# GetRecords


def test_getrecords2_like_202(csw2: Any, csw_url: str) -> None:
    like = fes.PropertyIsLike("dc:title", "S2B%")
    csw2.getrecords2(constraints=[like], esn="summary", maxrecords=100, outputschema=CSW2)
    expected = kvp_matched(csw_url, constraintLanguage="CQL_TEXT", constraint="dc:title LIKE 'S2B%'")
    assert expected > 0
    assert csw2.results["matches"] == expected
    assert csw2.results["returned"] == min(expected, 100)
    for record in csw2.records.values():
        assert record.title.startswith("S2B")


def test_getrecords2_bbox_and_sort_202(csw2: Any) -> None:
    bbox = fes.BBox(AOI)
    sort = fes.SortBy([fes.SortProperty("dc:title", "DESC")])
    csw2.getrecords2(constraints=[bbox], sortby=sort, esn="full", maxrecords=100, outputschema=CSW2)
    assert csw2.results["matches"] > 0
    titles = [record.title for record in csw2.records.values() if record.title]
    assert titles == sorted(titles, reverse=True)
    for record in csw2.records.values():
        box = record.bbox
        assert box is not None
        # The records carry EPSG:4326 latitude/longitude; OWSLib turns them into x = longitude.
        assert intersects([float(box.minx), float(box.miny), float(box.maxx), float(box.maxy)], AOI)


def test_getrecords2_anytext_and_combined_202(csw2: Any, csw_url: str) -> None:
    anytext = fes.PropertyIsLike("csw:AnyText", "%sentinel%")
    both = fes.And([anytext, fes.BBox(AOI)])
    csw2.getrecords2(constraints=[both], esn="brief", maxrecords=50)
    expected = kvp_matched(csw_url, q="sentinel", bbox=",".join(map(str, AOI)))
    assert expected > 0
    assert csw2.results["matches"] == expected


def test_getrecords2_cql_202(csw2: Any, csw_url: str) -> None:
    csw2.getrecords2(cql="dc:title LIKE 'S2%'", esn="brief", maxrecords=5)
    assert csw2.results["matches"] == kvp_matched(
        csw_url, constraintLanguage="CQL_TEXT", constraint="dc:title LIKE 'S2%'"
    )


def test_getrecords_like_bbox_sort_30(csw3: Any, csw_url: str) -> None:
    like = fes2.PropertyIsLike("dc:title", "S2%")
    bbox = fes2.BBox(AOI)
    sort = fes2.SortBy([fes2.SortProperty("dc:title", "ASC")])
    csw3.getrecords(constraints=[fes2.And([like, bbox])], sortby=sort, esn="full", maxrecords=100)
    expected = kvp_matched(
        csw_url,
        constraintLanguage="CQL_TEXT",
        constraint="dc:title LIKE 'S2%'",
        bbox=",".join(map(str, AOI)),
    )
    assert expected > 0
    assert csw3.results["matches"] == expected
    titles = [record.title for record in csw3.records.values()]
    assert titles == sorted(titles)
    assert all(title.startswith("S2") for title in titles)


def test_getrecords_iso_output_202(csw2: Any) -> None:
    csw2.getrecords2(typenames="gmd:MD_Metadata", esn="full", outputschema=GMD, maxrecords=5)
    assert csw2.results["returned"] == 5
    for identifier, record in csw2.records.items():
        assert record.identifier == identifier
        assert record.identification


# ---------------------------------------------------------------------------------------------
# GetRecordById and GetDomain


def first_ids(csw: Any, count: int) -> list[str]:
    csw.getrecords2(esn="brief", maxrecords=count) if csw.version == "2.0.2" else csw.getrecords(
        esn="brief", maxrecords=count
    )
    return list(csw.records.keys())


def test_getrecordbyid_202(csw2: Any) -> None:
    ids = first_ids(csw2, 3)
    csw2.getrecordbyid(id=ids, esn="full", outputschema=CSW2)
    assert sorted(csw2.records.keys()) == sorted(ids)
    csw2.getrecordbyid(id=ids[:1], outputschema=GMD)
    assert list(csw2.records.keys()) == ids[:1]


def test_getrecordbyid_30(csw3: Any) -> None:
    ids = first_ids(csw3, 2)
    # CSW 3.0 answers GetRecordById with the bare record; OWSLib reads records only below the
    # document root, so Cairn answers OWSLib's request with a csw30:GetRecordsResponse.
    csw3.getrecordbyid(id=ids[:1], esn="full")
    assert list(csw3.records.keys()) == ids[:1]
    assert csw3.records[ids[0]].identifier == ids[0]
    # Several ids: OWSLib joins them with commas.
    csw3.getrecordbyid(id=ids, esn="brief")
    assert sorted(csw3.records.keys()) == sorted(ids)


def test_getrecordbyid_iso_mixing_md_and_mi_metadata(csw2: Any, csw3: Any) -> None:
    ids = [MD_ID, *MI_IDS]
    for csw in (csw2, csw3):
        csw.getrecordbyid(id=ids, outputschema=GMD)
        assert sorted(csw.records.keys()) == sorted(ids), csw.version
        for identifier in ids:
            assert csw.records[identifier].identification, (csw.version, identifier)
    csw3.getrecordbyid(id=MI_IDS[:1], outputschema=GMD)
    assert list(csw3.records.keys()) == MI_IDS[:1]


def test_getdomain(csw2: Any, csw3: Any) -> None:
    csw2.getdomain("GetRecords.ElementSetName")
    assert csw2.results["values"] == ["brief", "summary", "full"]
    csw2.getdomain("dc:type", dtype="property")
    assert len(csw2.results["values"]) > 0
    for csw in (csw2, csw3):
        # CSW 3.0 has no resultType parameter; Cairn honours it and answers its domain.
        csw.getdomain("GetRecords.resultType")
        assert csw.results["values"] == ["hits", "results", "validate"], csw.version
    csw3.getdomain("GetRecords.outputSchema")
    assert csw3.results["values"][0] == CSW3


# ---------------------------------------------------------------------------------------------
# Harvesting


def harvest(page: Callable[[int], None], csw: Any) -> list[str]:
    """Follows nextrecord from position 1, as a harvester does."""
    seen: list[str] = []
    start = 1
    matches = None
    for _ in range(1000):
        page(start)
        seen.extend(csw.records.keys())
        matches = csw.results["matches"] if matches is None else matches
        assert csw.results["matches"] == matches
        if csw.results["nextrecord"] == 0:
            assert len(seen) == matches
            return seen
        assert csw.results["nextrecord"] == start + csw.results["returned"]
        start = csw.results["nextrecord"]
    raise AssertionError("the harvest did not end")


def test_harvest_every_record_once_202(csw2: Any, record_count: int) -> None:
    seen = harvest(
        lambda start: csw2.getrecords2(esn="brief", startposition=start, maxrecords=37), csw2
    )
    assert len(seen) == record_count
    assert len(set(seen)) == record_count


def test_harvest_every_record_once_30(csw3: Any, record_count: int) -> None:
    seen = harvest(
        lambda start: csw3.getrecords(esn="brief", startposition=start, maxrecords=50), csw3
    )
    assert len(seen) == record_count
    assert len(set(seen)) == record_count


def test_harvest_every_record_in_iso_19139(csw2: Any, csw3: Any, record_count: int) -> None:
    """Pages of gmd:MD_Metadata that hold the gmi:MI_Metadata records lose none of them."""
    everything = set(
        harvest(
            lambda start: csw2.getrecords2(esn="brief", startposition=start, maxrecords=100),
            csw2,
        )
    )
    for csw, page in (
        (
            csw2,
            lambda start: csw2.getrecords2(
                typenames="gmd:MD_Metadata",
                esn="full",
                outputschema=GMD,
                startposition=start,
                maxrecords=50,
            ),
        ),
        (
            csw3,
            lambda start: csw3.getrecords(
                typenames="gmd:MD_Metadata",
                esn="full",
                outputschema=GMD,
                startposition=start,
                maxrecords=50,
            ),
        ),
    ):
        seen = harvest(page, csw)
        assert len(seen) == record_count, csw.version
        assert set(seen) == everything, csw.version
        assert set(MI_IDS) <= set(seen)


# ---------------------------------------------------------------------------------------------
# Exceptions: Cairn answers 400/404/501 with an ExceptionReport in both versions; OWSLib raises.


def test_exception_by_post_is_an_owslib_exceptionreport(csw2: Any, csw3: Any) -> None:
    with pytest.raises(ExceptionReport) as raised:
        csw2.getrecords2(typenames="csw:Dataset", esn="brief")
    assert raised.value.code == "InvalidParameterValue"
    assert raised.value.locator == "typeNames"
    with pytest.raises(ExceptionReport) as raised3:
        csw3.getrecords(typenames="csw:Dataset", esn="brief")
    assert raised3.value.code == "InvalidParameterValue"


def test_exception_by_get_is_raised(csw2: Any, csw3: Any) -> None:
    with pytest.raises(ServiceException) as raised:
        csw2.getrecordbyid(id=["x"], outputschema="urn:nothing")
    assert "InvalidParameterValue" in str(raised.value)
    with pytest.raises(requests.HTTPError) as missing:
        csw3.getrecordbyid(id=["urn:does-not-exist"], esn="full")
    assert missing.value.response.status_code == 404
    assert "NotFound" in missing.value.response.text
