"""Interoperability of the CSW endpoint with GDAL's CSW driver (`ogrinfo CSW:<url>`, what QGIS
and ogr2ogr use), run as a subprocess: the feature count (a resultType="hits" request), a full
read paged by the driver, the same in ISO 19139 (OUTPUT_SCHEMA=gmd), and the spatial and
attribute filters it sends to the server. Every count is checked against numberOfRecordsMatched
of an independent CSW 3.0 KVP request.

GDAL reads the capabilities without a version (so it gets 3.0.0, the highest) and then writes
that version into its CSW 2.0.2 requests; Cairn reads a request by its namespace.

Runs against the real API over every sample folder, on SQLite and on Elasticsearch
(`all_samples_server` in conftest.py). Needs `ogrinfo` (Debian's gdal-bin).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import requests

DC = "http://purl.org/dc/elements/1.1/"
# An area over the Sentinel-2 tiles of the samples (lon 14-18, lat 45-50).
AOI = [14, 45, 18, 50]
OGRINFO_TIMEOUT_S = 300


@pytest.fixture(scope="session")
def ogrinfo() -> str:
    path = shutil.which("ogrinfo")
    if path is None:
        pytest.fail("ogrinfo is not installed: apt-get install gdal-bin (scripts/test-all.sh does)")
    return path


@pytest.fixture(scope="session")
def csw_url(all_samples_server: dict[str, Any]) -> str:
    return f"{all_samples_server['url']}/csw"


def run_ogrinfo(ogrinfo: str, *arguments: str) -> str:
    """Runs ogrinfo and returns its output; a GDAL error (ERROR n: ...) fails the test."""
    done = subprocess.run(
        [ogrinfo, "-ro", "-al", *arguments],
        capture_output=True,
        text=True,
        timeout=OGRINFO_TIMEOUT_S,
        check=False,
    )
    errors = [line for line in done.stderr.splitlines() if line.startswith("ERROR")]
    assert done.returncode == 0 and errors == [], f"ogrinfo {arguments}: {done.stderr[-2000:]}"
    return done.stdout


def feature_count(output: str) -> int:
    found = re.search(r"^Feature Count: (-?\d+)$", output, re.MULTILINE)
    assert found is not None, output[-2000:]
    return int(found.group(1))


def features(output: str) -> list[str]:
    """The features of a full ogrinfo listing, one text block each."""
    return re.split(r"^OGRFeature\(records\):\d+$", output, flags=re.MULTILINE)[1:]


def identifier(feature: str) -> str:
    found = re.search(r"^  identifier \(String\) = (.*)$", feature, re.MULTILINE)
    return found.group(1) if found else ""


def kvp_matched(csw_url: str, **params: str) -> int:
    """numberOfRecordsMatched of a CSW 3.0 KVP GetRecords (an independent count)."""
    query = {"service": "CSW", "version": "3.0.0", "request": "GetRecords", "typeNames": "csw:Record"}
    response = requests.get(csw_url, params={**query, "maxRecords": "0", **params}, timeout=60)
    response.raise_for_status()
    results = ET.fromstring(response.content).find("{*}SearchResults")
    assert results is not None, response.text[:500]
    return int(results.attrib["numberOfRecordsMatched"])


def kvp_ids(csw_url: str) -> set[str]:
    """Every record id, paged through CSW 3.0 KVP GetRecords (brief)."""
    ids: set[str] = set()
    start = 1
    while start != 0:
        response = requests.get(
            csw_url,
            params={
                "service": "CSW",
                "version": "3.0.0",
                "request": "GetRecords",
                "typeNames": "csw:Record",
                "elementSetName": "brief",
                "startPosition": str(start),
                "maxRecords": "100",
            },
            timeout=60,
        )
        response.raise_for_status()
        results = ET.fromstring(response.content).find("{*}SearchResults")
        assert results is not None
        ids.update(
            (record.findtext(f"{{{DC}}}identifier") or "").strip() for record in results
        )
        start = int(results.attrib["nextRecord"])
    return ids


def test_feature_count_is_number_matched(
    ogrinfo: str, csw_url: str, all_samples_server: Any
) -> None:
    matched = kvp_matched(csw_url)
    assert matched == all_samples_server["records"]
    assert feature_count(run_ogrinfo(ogrinfo, "-so", f"CSW:{csw_url}")) == matched


def test_full_read_returns_every_record_once(ogrinfo: str, csw_url: str) -> None:
    read = features(run_ogrinfo(ogrinfo, "-q", f"CSW:{csw_url}"))
    ids = [identifier(feature) for feature in read]
    assert len(read) == kvp_matched(csw_url)
    assert set(ids) == kvp_ids(csw_url)
    assert len(set(ids)) == len(ids)
    # Each record with a bounding box becomes a polygon (lat/lon axis order understood).
    with_geometry = [feature for feature in read if "POLYGON ((" in feature]
    assert len(with_geometry) == kvp_matched(csw_url, bbox="-180,-90,180,90")


def test_full_read_in_iso_19139(ogrinfo: str, csw_url: str) -> None:
    output = run_ogrinfo(ogrinfo, "-q", "-oo", "OUTPUT_SCHEMA=gmd", f"CSW:{csw_url}")
    read = features(output)
    assert len(read) == kvp_matched(csw_url)
    # raw_xml holds each record; gmi:MI_Metadata records are listed as gmd:MD_Metadata.
    assert all("raw_xml (String) = <gmd:MD_Metadata" in feature for feature in read)
    with_geometry = [feature for feature in read if "POLYGON ((" in feature]
    assert len(with_geometry) > 0


def test_spatial_filter_is_sent_to_the_server(ogrinfo: str, csw_url: str) -> None:
    expected = kvp_matched(csw_url, bbox=",".join(map(str, AOI)))
    assert expected > 0
    spat = ["-spat", *map(str, AOI)]
    assert feature_count(run_ogrinfo(ogrinfo, "-so", *spat, f"CSW:{csw_url}")) == expected
    assert len(features(run_ogrinfo(ogrinfo, "-q", *spat, f"CSW:{csw_url}"))) == expected


@pytest.mark.parametrize(
    ("where", "cql"),
    [
        ("type = 'dataset'", "dc:type = 'dataset'"),
        ("anytext LIKE '%sentinel%'", "csw:AnyText LIKE '%sentinel%'"),
    ],
)
def test_attribute_filter_is_sent_to_the_server(
    ogrinfo: str, csw_url: str, where: str, cql: str
) -> None:
    # GDAL 3.6 (Debian 12) has no `title` field (GDAL 3.7 added it), so type and anytext.
    expected = kvp_matched(csw_url, constraintLanguage="CQL_TEXT", constraint=cql)
    assert expected > 0
    output = run_ogrinfo(ogrinfo, "-where", where, f"CSW:{csw_url}")
    assert len(features(output)) == expected
