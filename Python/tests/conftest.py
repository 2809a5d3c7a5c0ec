"""The package's tests (Scripts/python-package --test runs them against the installed wheel)."""
from __future__ import annotations

from pathlib import Path

import pytest

from unlocks_cli import REPOSITORY


@pytest.fixture(scope="session")
def repository() -> Path:
    return REPOSITORY


@pytest.fixture
def in_repository(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test runs in the repository's folder, so relative paths name the same files as the CLI's."""
    monkeypatch.chdir(REPOSITORY)
    return REPOSITORY
