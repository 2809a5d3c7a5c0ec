"""What the Python tests share (the package's and the Spark jobs'): the repository, and the
`unlocks` CLI they compare with."""
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
