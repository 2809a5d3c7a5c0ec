"""What the Python package's tests share: the repository, the `unlocks` CLI they compare with,
and running it. Scripts/python-package --test runs them against the installed wheel."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(os.environ.get("ADMINUNLOCKS_REPOSITORY") or Path(__file__).resolve().parents[2])


def unlocks_path() -> str:
    found = os.environ.get("ADMINUNLOCKS_UNLOCKS") or shutil.which("unlocks")
    if not found:
        pytest.fail("no `unlocks` to compare with: set ADMINUNLOCKS_UNLOCKS (Scripts/python-package --test does)")
    return found


def run_unlocks(*arguments: str, stdin: bytes | None = None, expect: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess:
    """`unlocks ARGUMENTS` from the repository's folder (its relative paths are the report's)."""
    done = subprocess.run([unlocks_path(), *arguments], cwd=REPOSITORY, input=stdin, capture_output=True, timeout=600)
    if done.returncode not in expect:
        pytest.fail(f"unlocks {' '.join(arguments)} exited {done.returncode}: {done.stderr.decode(errors='replace')}")
    return done


@pytest.fixture(scope="session")
def repository() -> Path:
    return REPOSITORY


@pytest.fixture
def in_repository(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The test runs in the repository's folder, so relative paths name the same files as the CLI's."""
    monkeypatch.chdir(REPOSITORY)
    return REPOSITORY
