"""Fixtures for the interoperability tests: the real Cairn API, started by serve.ts over a
temporary SQLite file loaded with every sample record of the repository (data/samples: STAC,
ISO 19139, ISO 19115-3 and Dublin Core) and generated records, so that every client is tried
on every kind of record.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
from pathlib import Path
from typing import Any, Iterator

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLES = REPO / "data" / "samples"
GENERATED_RECORDS = 200
START_TIMEOUT_S = 120


def _tsx() -> list[str]:
    local = REPO / "node_modules" / ".bin" / "tsx"
    return [str(local)] if local.exists() else ["npx", "--no-install", "tsx"]


@pytest.fixture(scope="session")
def server() -> Iterator[dict[str, Any]]:
    """Starts test/interop/serve.ts and yields its `{url, records, rejected}` line."""
    assert SAMPLES.is_dir(), f"sample records not found at {SAMPLES}"
    process = subprocess.Popen(
        [
            *_tsx(),
            "test/interop/serve.ts",
            "--records",
            str(GENERATED_RECORDS),
            "--samples",
            "all",
        ],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], START_TIMEOUT_S)
        line = process.stdout.readline() if ready else ""
        if not line:
            raise RuntimeError(
                f"serve.ts did not start within {START_TIMEOUT_S}s (exit {process.poll()})"
            )
        info = json.loads(line)
        assert info["rejected"] == [], f"sample records were rejected: {info['rejected']}"
        yield info
    finally:
        if process.stdin:
            process.stdin.close()
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@pytest.fixture(scope="session")
def root_url(server: dict[str, Any]) -> str:
    return str(server["url"])


@pytest.fixture(scope="session")
def stac_url(root_url: str) -> str:
    """The STAC API root (Collections and Features besides item search)."""
    return f"{root_url}/stac"


@pytest.fixture(scope="session")
def record_count(server: dict[str, Any]) -> int:
    return int(server["records"])
