"""Multilingual records through real clients: OWSLib (OGC API Records and CSW with ISO 19139)
and pystac-client read the Czech ČÚZK sample (Czech, with English and French translations) in
the language they ask for with Accept-Language, and the ISO 19139 they get keeps every
translation (the locales OWSLib reads)."""

from typing import Any

from owslib.csw import CatalogueServiceWeb
from owslib.fes import PropertyIsLike
from owslib.ogcapi.records import Records
from pystac_client import Client

CZECH = "CZ-CUZK-ATOM-DATA50"
ENGLISH_TITLE = "ATOM Download Service for the Data50"
FRENCH_TITLE = "Service de téléchargement ATOM pour Data50"


def test_owslib_records_reads_the_asked_language(root_url: str) -> None:
    english = Records(f"{root_url}/", headers={"Accept-Language": "en-GB, en;q=0.9"})
    record: dict[str, Any] = english.collection_item("metadata:main", CZECH)
    assert record["properties"]["title"] == ENGLISH_TITLE
    assert record["properties"]["language"] == {"code": "en"}
    # A language the record does not have: its own (OWSLib keeps headers between instances,
    # so the request names a language rather than none).
    own = Records(f"{root_url}/", headers={"Accept-Language": "de"}).collection_item(
        "metadata:main", CZECH
    )
    assert own["properties"]["title"] == "Stahovací služba ATOM pro Data50"
    hreflangs = sorted(link["hreflang"] for link in own["links"] if link.get("hreflang"))
    assert hreflangs == ["en", "fr"]


def test_owslib_csw_finds_a_translated_word_and_reads_the_locales(root_url: str) -> None:
    csw = CatalogueServiceWeb(f"{root_url}/csw", version="2.0.2")
    csw.getrecords2(
        constraints=[PropertyIsLike("csw:AnyText", "%téléchargement%")],
        outputschema="http://www.isotc211.org/2005/gmd",
        esn="full",
    )
    assert list(csw.records) == [CZECH]
    metadata = csw.records[CZECH]
    assert sorted(locale.id for locale in metadata.locales) == ["FR", "locale-en"]


def test_pystac_client_reads_the_asked_language(stac_url: str) -> None:
    client = Client.open(stac_url, headers={"Accept-Language": "fr"})
    item = client.get_collection("metadata:main").get_item(CZECH)
    assert item is not None
    assert item.properties["title"] == FRENCH_TITLE
    # The STAC Language extension: the language shown, and the others with their names.
    assert (
        "https://stac-extensions.github.io/language/v1.0.0/schema.json" in item.stac_extensions
    )
    assert item.properties["language"]["code"] == "fr"
    assert item.properties["language"]["name"] == "français"
    assert [language["code"] for language in item.properties["languages"]] == ["cs", "en"]
