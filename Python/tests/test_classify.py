"""adminunlocks.classify against `unlocks classify --format json --jobs 1` on the bundled samples:
the same report, byte for byte, for paths and for bytes, with the CLI's options; errors by kind."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

import adminunlocks as au
from unlocks_cli import run_unlocks

SAMPLES = sorted(p.name for p in Path(__file__).resolve().parents[2].joinpath("Data/samples").iterdir())


def cli_report(*arguments: str) -> str:
    done = run_unlocks("classify", *arguments, "--format", "json", "--jobs", "1")
    text = done.stdout.decode()
    assert text.endswith("\n")
    return text[:-1]


def test_the_sample_archive_gives_the_clis_report(in_repository: Path) -> None:
    expected = cli_report("Data/samples", "--time-zone", "Asia/Shanghai")
    assert au.classify_json("Data/samples", time_zone="Asia/Shanghai") == expected
    report = au.classify("Data/samples", time_zone="Asia/Shanghai")
    assert report == json.loads(expected)
    # Every sample file is accounted for, and the archive unlocks something at every level.
    assert report["inputs"]["read"] >= len(SAMPLES)
    assert all(report["unlocks"][level] for level in ("countries", "provinces", "cities", "counties"))


def test_the_system_zone_is_the_clis_default(in_repository: Path) -> None:
    assert au.classify_json(["Data/samples/2024-05-01-beijing-walk.gpx", "Data/samples/takeout"]) == cli_report(
        "Data/samples/2024-05-01-beijing-walk.gpx", "Data/samples/takeout")


@pytest.mark.parametrize("options, flags", [
    (dict(utc_offset="+05:30", lenient=True, include_passed_through=True),
     ["--utc-offset", "+05:30", "--lenient", "--include-passed-through"]),
    (dict(time_zone="Europe/Berlin", since="2024-05-02", until="2024-05-04", familiarity_levels=(1, 2, 3)),
     ["--time-zone", "Europe/Berlin", "--since", "2024-05-02", "--until", "2024-05-04", "--familiarity-levels", "1,2,3"]),
    (dict(time_zone="Asia/Shanghai", explore_max_speed_kmh=12.5, include_plans=True, worldview="international"),
     ["--time-zone", "Asia/Shanghai", "--explore-max-speed", "12.5", "--include-plans", "--worldview", "international"]),
    (dict(time_zone="Asia/Shanghai", datum="gcj02", datum_for={"*.gpx": "wgs84"}, badges="Data/badges/example.json"),
     ["--time-zone", "Asia/Shanghai", "--datum", "gcj02", "--datum-for", "*.gpx=wgs84", "--badges", "Data/badges/example.json"]),
])
def test_options_are_the_clis(in_repository: Path, options: dict, flags: list[str]) -> None:
    assert au.classify_json("Data/samples", **options) == cli_report("Data/samples", *flags)


@pytest.mark.parametrize("name", SAMPLES)
def test_bytes_named_like_the_file_give_the_files_report(in_repository: Path, name: str) -> None:
    path = f"Data/samples/{name}"
    if Path(path).is_dir():
        inputs = {str(p): p.read_bytes() for p in sorted(Path(path).rglob("*")) if p.is_file()}
    else:
        inputs = {path: Path(path).read_bytes()}
    expected = cli_report(path, "--time-zone", "Asia/Shanghai")
    assert au.classify_json(inputs, time_zone="Asia/Shanghai") == expected
    assert au.classify_json(list(inputs.items()), time_zone="Asia/Shanghai") == expected


def test_unnamed_bytes_are_recognised_by_content(in_repository: Path) -> None:
    data = Path("Data/samples/2024-05-01-beijing-walk.gpx").read_bytes()
    expected = json.loads(run_unlocks("classify", "-", "--format", "json", "--time-zone", "Asia/Shanghai", stdin=data).stdout)
    report = au.classify(data, time_zone="Asia/Shanghai")
    assert report["inputs"]["files"][0]["format"] == "gpx"
    assert report["unlocks"] == expected["unlocks"]
    assert report["metrics"] == expected["metrics"]


def test_errors_have_the_librarys_kinds(in_repository: Path, tmp_path: Path) -> None:
    with pytest.raises(au.InputNotFoundError) as raised:
        au.classify("Data/samples/no-such-file.gpx")
    assert raised.value.kind is au.ErrorKind.NOT_FOUND and isinstance(raised.value, FileNotFoundError)
    assert "no-such-file.gpx" in str(raised.value)
    catalog = tmp_path / "badges.json"
    catalog.write_text('{"badges": [{"id": "x", "track": "t", "metric": "noSuchMetric", "target": 1}]}')
    with pytest.raises(au.BadgeCatalogError, match="badges.json"):
        au.classify("Data/samples", badges=catalog)
    with pytest.raises(au.ArgumentError, match="Mars/Olympus"):
        au.classify("Data/samples", time_zone="Mars/Olympus")
    with pytest.raises(au.ArgumentError, match="utc_offset"):
        au.classify("Data/samples", utc_offset="8 hours")
    with pytest.raises(au.ArgumentError, match="since"):
        au.classify("Data/samples", since="2024-05-04", until="2024-05-01")
    with pytest.raises(au.ArgumentError):
        au.classify("Data/samples", jobs=0)
    with pytest.raises(au.ArgumentError, match="unknown option"):
        au.open_tables().classify("Data/samples", timezone="UTC")
    with pytest.raises(au.ArgumentError):
        au.classify([])


def test_a_damaged_table_is_a_table_error_naming_the_file(tmp_path: Path, repository: Path) -> None:
    for name in ("world.bin", "international.bin", "china.bin"):
        (tmp_path / name).write_bytes((repository / "Data/regions" / name).read_bytes())
    data = bytearray((tmp_path / "china.bin").read_bytes())
    data[len(data) // 2] ^= 0x40
    (tmp_path / "china.bin").write_bytes(bytes(data))
    with pytest.raises(au.TableError) as raised:
        au.Tables(directory=tmp_path)
    assert raised.value.kind is au.ErrorKind.TABLE
    assert str(tmp_path / "china.bin") in str(raised.value)


def test_threads_share_the_tables(in_repository: Path) -> None:
    expected = au.classify_json("Data/samples", time_zone="Asia/Shanghai")
    results: list[str] = []

    def run() -> None:
        results.append(au.classify_json("Data/samples", time_zone="Asia/Shanghai"))

    threads = [threading.Thread(target=run) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == [expected] * 3
