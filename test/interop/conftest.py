"""Fixtures for the interoperability tests: the real Cairn API, started by serve.ts over a
temporary SQLite file loaded with the team's shared STAC samples and generated records.

The tests skip, with the reason shown, when the shared data folder (../shared beside the
repository, or CAIRN_SHARED_DIR) is absent.
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
SHARED = Path(os.environ.get("CAIRN_SHARED_DIR", REPO.parent / "shared"))
SAMPLES = SHARED / "data" / "samples" / "stac"
GENERATED_RECORDS = 200
START_TIMEOUT_S = 120


def _tsx() -> list[str]:
    local = REPO / "node_modules" / ".bin" / "tsx"
    return [str(local)] if local.exists() else ["npx", "--no-install", "tsx"]


@pytest.fixture(scope="session")
def server() -> Iterator[dict[str, Any]]:
    """Starts test/interop/serve.ts and yields its `{url, records, rejected}` line."""
    if not SAMPLES.is_dir():
        pytest.skip(f"shared STAC samples not found at {SAMPLES}")
    process = subprocess.Popen(
        [
            *_tsx(),
            "test/interop/serve.ts",
            "--records",
            str(GENERATED_RECORDS),
            "--shared",
            str(SHARED),
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
def record_count(server: dict[str, Any]) -> int:
    return int(server["records"])
