"""adminunlocks.Logbook against independent answers: the CLI's logbook and reports of the same
inputs (`unlocks classify --state`, `unlocks show`), a walk's explored cells counted here from
the grid's definition (WGS-84 meridian distance integrated numerically, not the library's
series), the CLI-made store's cells decoded with Python's own sqlite3, and the error kinds."""
from __future__ import annotations

import datetime
import json
import math
import sqlite3
import time
from pathlib import Path

import numpy as np
import pytest

import adminunlocks as au
from unlocks_cli import run_unlocks

SAMPLES = "Data/samples"
ZONE = ("--time-zone", "UTC")

# ---- The 25 m grid, computed here (Sources/Unlocks/Grid/ExploredGrid.swift defines it): rows of
# 25 m of WGS-84 meridian arc from the equator; row r has round(parallel length at its centre
# latitude / 25 m) columns spanning 360° from -180°. The meridian arc is integrated numerically.
A, F = 6_378_137.0, 1 / 298.257223563
E2 = F * (2 - F)


def meridian_distance(latitude: float) -> float:
    phi = np.linspace(0.0, math.radians(latitude), 20_001)
    return float(np.trapezoid(A * (1 - E2) / (1 - E2 * np.sin(phi) ** 2) ** 1.5, phi))


def latitude_at(distance: float) -> float:
    low, high = -90.0, 90.0
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (middle, high) if meridian_distance(middle) < distance else (low, middle)
    return (low + high) / 2


def row_of(latitude: float) -> int:
    return math.floor(meridian_distance(latitude) / 25)


def columns_of(row: int) -> int:
    phi = math.radians(latitude_at((row + 0.5) * 25))
    parallel = A * math.cos(phi) / math.sqrt(1 - E2 * math.sin(phi) ** 2)
    return max(1, round(2 * math.pi * parallel / 25))


def column_of(longitude: float, row: int) -> int:
    return math.floor((longitude + 180) / (360 / columns_of(row)))


def cli_report(*arguments: str) -> dict:
    return json.loads(run_unlocks(*arguments, "--format", "json", expect=(0, 3)).stdout)


@pytest.fixture
def logbook_path(tmp_path: Path) -> Path:
    return tmp_path / "user.logbook"


def test_import_gives_the_clis_report(in_repository: Path, tmp_path: Path, logbook_path: Path) -> None:
    """A logbook built through Python reports what `unlocks classify PATHS --state FILE` does, and
    each side reads the other's store alike."""
    cli_store = tmp_path / "cli.logbook"
    expected = cli_report("classify", SAMPLES, "--state", str(cli_store), *ZONE, "--jobs", "1")
    with au.Logbook(logbook_path, time_zone="UTC") as book:
        assert book.is_new and book.worldview == "china"
        got = book.import_sources(SAMPLES)
        later = book.report()
    # Closed, the store is one file (its WAL checkpointed into it): what a job may copy at once.
    assert not Path(f"{logbook_path}-wal").exists() and logbook_path.read_bytes()[68:72] == b"AULB"
    assert got["unlocks"] == expected["unlocks"]
    assert got["metrics"] == expected["metrics"]
    assert got["changes"] == expected["changes"]
    assert expected["metrics"]["countyUnlockCount"] > 5 and expected["changes"]["exploredCells"] > 100
    # Without the import's changes, the logbook's report is the import's.
    assert {k: v for k, v in later.items() if k != "changes"} == {k: v for k, v in got.items() if k != "changes"}
    # The CLI reads the Python-made store, Python the CLI-made one.
    shown = cli_report("show", str(logbook_path))
    assert shown["unlocks"] == got["unlocks"] and shown["metrics"] == got["metrics"]
    with au.Logbook(cli_store, create=False) as theirs:
        assert theirs.report()["metrics"] == expected["metrics"]
        # Importing the same files again adds nothing.
        again = theirs.import_sources(SAMPLES)
        assert again["changes"]["exploredCells"] == 0 and again["metrics"] == expected["metrics"]


def test_a_recorded_walk_explores_the_cells_counted_here(tmp_path: Path, logbook_path: Path) -> None:
    """An L-shaped walk (north along a meridian, then east along a parallel) crosses one cell per
    row going north and one per column going east: rows + columns - 1 cells, counted here."""
    lat0, lon0 = 31.2301234, 121.4703456
    lat1, lon1 = lat0 + 0.01, lon0 + 0.012
    n = 150
    lats = np.concatenate([np.linspace(lat0, lat1, n), np.full(n - 1, lat1)])
    lons = np.concatenate([np.full(n, lon0), np.linspace(lon0, lon1, n)[1:]])
    start = np.datetime64("2024-05-01T01:00:00", "s")
    times = start + np.arange(lats.size) * np.timedelta64(6, "s")  # about 1.3 m/s: walking
    top = row_of(lat1)
    rows = top - row_of(lat0) + 1
    columns = column_of(lon1, top) - column_of(lon0, top) + 1
    expected = rows + columns - 1
    assert rows > 40 and columns > 40

    with au.Logbook(logbook_path, time_zone="UTC") as book:
        with book.recording("live/walk", name="Walk"):
            assert book.recording_id == "live/walk"
            first = book.record(lats[:n], lons[:n], times[:n], accuracies=np.full(n, 5.0))
            second = book.record(lats[n:], lons[n:], (times[n:] - np.datetime64(0, "s")) / np.timedelta64(1, "s"))
        assert book.recording_id is None
        report = book.report()
        cells = book.cells(lat0 - 0.01, lon0 - 0.01, lat1 + 0.01, lon1 + 0.01)
    assert report["metrics"]["exploredCellCount"] == expected
    assert first["newCells"] + second["newCells"] == expected
    assert len(cells["key"]) == expected
    # The first points unlocked China, Shanghai and its district, confirmed.
    codes = {(r["level"], r["code"]) for r in first["regions"] if r["evidence"] == "confirmed"}
    assert ("country", "CHN") in codes and ("province", "310000") in codes

    # The CLI, given the same points as a CSV file, explores the same cells.
    track = tmp_path / "walk.csv"
    stamps = np.datetime_as_string(times, unit="s")
    track.write_text("lat,lon,time\n" + "".join(f"{a:.7f},{o:.7f},{t}Z\n" for a, o, t in zip(lats, lons, stamps)))
    cli = cli_report("classify", str(track), *ZONE)
    assert cli["metrics"]["exploredCellCount"] == expected


def test_cells_are_the_stores_as_sqlite_reads_them(in_repository: Path, tmp_path: Path) -> None:
    """cells() of a CLI-made logbook against its cell_blocks table decoded here: blocks of 64 × 64
    cells, each cell two bytes (row offset << 8 | column offset << 2 | familiarity level)."""
    store = tmp_path / "cli.logbook"
    run_unlocks("classify", SAMPLES, "--state", str(store), *ZONE, "--jobs", "1", "--format", "json", expect=(0, 3))
    expected: dict[int, int] = {}
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as database:
        for block, blob in database.execute("SELECT block, cells FROM cell_blocks"):
            row_base, column_base = (block >> 17) << 6, (block & ((1 << 17) - 1)) << 6
            codes = np.frombuffer(blob, dtype="<u2")
            for code in codes.tolist():
                key = (row_base + (code >> 8)) << 23 | (column_base + ((code >> 2) & 63))
                expected[key] = code & 3
    assert len(expected) > 1000

    with au.Logbook(store, create=False, read_only=True) as book:
        world = book.cells(-90, -180, 90, 180)
        beijing = book.cells(39.85, 116.3, 40.0, 116.5)
    assert dict(zip(world["key"].tolist(), world["familiarity"].tolist())) == expected
    assert np.all(np.diff(world["key"]) > 0)  # in key order
    # A viewport's cells: exactly those of the world whose bounds meet it.
    meets = (world["north"] >= 39.85) & (world["south"] <= 40.0) & (world["east"] >= 116.3) & (world["west"] <= 116.5)
    assert beijing["key"].tolist() == world["key"][meets].tolist()
    assert 0 < len(beijing["key"]) < len(world["key"])
    # Each cell's bounds from the grid's definition, for a sample of cells.
    maximum_row = math.floor(meridian_distance(90.0) / 25)
    for k in np.random.default_rng(34).choice(len(world["key"]), 12, replace=False):
        key = int(world["key"][k])
        row, column = (key >> 23) - maximum_row - 1, key & ((1 << 23) - 1)
        width = 360 / columns_of(row)
        assert world["south"][k] == pytest.approx(latitude_at(row * 25), abs=1e-7)
        assert world["north"][k] == pytest.approx(latitude_at(row * 25 + 25), abs=1e-7)
        assert world["west"][k] == pytest.approx(-180 + column * width, abs=1e-9)
        assert world["east"][k] == pytest.approx(-180 + (column + 1) * width, abs=1e-9)


def test_forget_and_undo(in_repository: Path, logbook_path: Path, tmp_path: Path) -> None:
    """Forgetting a file gives the report of the other files alone; undoing it and importing
    again gives the whole report back."""
    gone = f"{SAMPLES}/2024-05-03-hongkong-shenzhen.backup.json"
    others = [str(p.relative_to(in_repository)) for p in sorted((in_repository / SAMPLES).iterdir()) if p.name != Path(gone).name]
    without = au.classify(others, time_zone="UTC")
    whole = au.classify(SAMPLES, time_zone="UTC")
    with au.Logbook(logbook_path, time_zone="UTC") as book:
        book.import_sources(SAMPLES)
        forgotten = book.forget(gone)
        assert forgotten["forgotten"] == [gone]
        assert forgotten["report"]["unlocks"] == without["unlocks"]
        assert forgotten["report"]["metrics"] == without["metrics"]
        assert forgotten["report"]["changes"]["lost"]["provinces"]  # Hong Kong's
        # Forgotten stays forgotten: importing the folder again skips it.
        assert book.import_sources(SAMPLES)["metrics"] == without["metrics"]
        restored = book.unforget(gone)
        assert restored["restored"] == [gone]
        assert book.import_sources(SAMPLES)["metrics"] == whole["metrics"]
        with pytest.raises(au.LogbookError) as raised:
            book.forget("no/such/input.gpx")
        assert raised.value.kind is au.ErrorKind.NOTHING_MATCHED


def test_merge_and_changes_since(in_repository: Path, tmp_path: Path) -> None:
    """Two shards merged report what one import of everything does; changes since a moment."""
    files = sorted(str(p.relative_to(in_repository)) for p in (in_repository / SAMPLES).iterdir())
    whole = au.classify(SAMPLES, time_zone="UTC")
    with au.Logbook(tmp_path / "a.logbook", time_zone="UTC") as a, au.Logbook(tmp_path / "b.logbook", time_zone="UTC") as b:
        a.import_sources(files[:3])
        b.import_sources(files[3:])
        b.close()
        time.sleep(0.01)  # the figures are kept by the millisecond: a moment after a's import, before the merge
        before = datetime.datetime.now(datetime.timezone.utc)
        time.sleep(0.01)
        merged = a.merge(tmp_path / "b.logbook")
        assert merged["unlocks"] == whole["unlocks"] and merged["metrics"] == whole["metrics"]
        everything = a.changes_since(0)
        assert everything["exploredCells"] == whole["metrics"]["exploredCellCount"]
        since = a.changes_since(before)
        assert since["exploredCells"] == merged["changes"]["exploredCells"] > 0


def test_error_kinds(tmp_path: Path, logbook_path: Path) -> None:
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(tmp_path)  # a folder
    assert raised.value.kind is au.ErrorKind.NOT_A_LOGBOOK and str(tmp_path) in str(raised.value)
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(tmp_path / "missing.logbook", create=False)
    assert raised.value.kind is au.ErrorKind.NOT_A_LOGBOOK
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(tmp_path / "no" / "such" / "folder" / "x.logbook")
    assert raised.value.kind is au.ErrorKind.STORAGE
    not_sqlite = tmp_path / "notes.txt"
    not_sqlite.write_text("not a logbook\n" * 100)
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(not_sqlite)
    assert raised.value.kind is au.ErrorKind.NOT_A_LOGBOOK

    with au.Logbook(logbook_path, time_zone="UTC", key=b"the right key") as book:
        book.import_sources(("walk.gpx", WALK))
        with pytest.raises(au.InputNotFoundError):
            book.import_sources(str(tmp_path / "no-such.gpx"))
        with pytest.raises(au.LogbookError) as raised:
            book.record([31.23], [121.47], [1714525200.0])
        assert raised.value.kind is au.ErrorKind.RECORDING
        book.begin_recording("live/1")
        with pytest.raises(au.LogbookError) as raised:
            book.begin_recording("live/2")
        assert raised.value.kind is au.ErrorKind.RECORDING
        with pytest.raises(au.ArgumentError):
            book.record([31.23, 31.24], [121.47], [1714525200.0])
    for key, kind in [(b"a wrong key", au.ErrorKind.SIGNATURE_MISMATCH), (None, au.ErrorKind.KEY_REQUIRED)]:
        with pytest.raises(au.LogbookError) as raised:
            au.Logbook(logbook_path, key=key)
        assert raised.value.kind is kind, raised.value
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(logbook_path, key=b"the right key", time_zone="Asia/Tokyo")
    assert raised.value.kind is au.ErrorKind.RULES_DIFFER
    with pytest.raises(au.LogbookError) as raised:
        au.Logbook(logbook_path, key=b"the right key", worldview="international")
    assert raised.value.kind is au.ErrorKind.WORLDVIEW_DIFFERS
    # The right key opens it, the recording still in progress.
    with au.Logbook(logbook_path, key="the right key") as book:
        assert book.recording_id == "live/1"
        book.close()
        with pytest.raises(au.ArgumentError, match="closed"):
            book.report()
    with pytest.raises(au.ArgumentError, match="unknown key|timeZone"):
        au.Logbook(tmp_path / "other.logbook", time_zone="Mars/Olympus")


WALK = (b'<gpx version="1.1"><trk><trkseg>'
        + b"".join(b'<trkpt lat="%.5f" lon="116.3972"><time>2024-05-01T01:%02d:00Z</time></trkpt>' % (39.9163 + k * 0.0005, k)
                   for k in range(10))
        + b"</trkseg></trk></gpx>")
