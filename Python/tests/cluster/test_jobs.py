"""The Spark jobs against the CLI: Scripts/cluster-classify (a local cluster of two worker
processes) giving reports equal to `unlocks classify USER --format json --jobs 1` and stores that
`unlocks show` reads as the same, its summary
counted here from the CLI's reports; locate_points.py's Parquet equal to `unlocks locate` on the
same points."""
from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from unlocks_cli import REPOSITORY, run_unlocks

SAMPLES = REPOSITORY / "Data/samples"
METRIC_OF_LEVEL = {"countries": "countryCount", "subdivisions": "subdivisionCount", "provinces": "chinaProvinceCount", "cities": "cityUnlockCount",
                   "counties": "countyUnlockCount"}


def make_users(folder: Path) -> list[str]:
    """Five users from the samples: the whole archive, parts of it, one with no track at all."""
    users = {
        "alice": [p.name for p in SAMPLES.iterdir()],
        "bob": ["2024-05-01-beijing-walk.gpx", "2024-05-02-hebei-tianjin.csv.gz"],
        "carol": ["takeout", "2024-05-03-hongkong-shenzhen.backup.json"],
        "dave": ["2024-05-05-flight-tokyo.zip", "2024-05-04-qingdao-coast.geojson"],
    }
    for user, names in users.items():
        (folder / user).mkdir(parents=True)
        for name in names:
            source = SAMPLES / name
            (shutil.copytree if source.is_dir() else shutil.copy)(source, folder / user / name)
    (folder / "erin").mkdir()
    (folder / "erin" / "README.txt").write_text("no tracks here\n")
    (folder / ".hidden").mkdir()  # not a user
    return sorted([*users, "erin"])


def test_cluster_classify_gives_each_user_the_clis_report(tmp_path: Path) -> None:
    users_folder, out = tmp_path / "users", tmp_path / "out"
    users = make_users(users_folder)
    done = subprocess.run([str(REPOSITORY / "Scripts/cluster-classify"), str(users_folder), str(out), "--workers", "2",
                           "--time-zone", "Asia/Shanghai"], capture_output=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")[-3000:]
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{u}.json" for u in users] + [f"{u}.logbook" for u in users] + ["summary.json"])

    expected_users: dict[str, dict[str, int]] = {}
    for user in users:
        cli = run_unlocks("classify", str(users_folder / user), "--format", "json", "--jobs", "1", "--time-zone", "Asia/Shanghai",
                          expect=(0, 3)).stdout
        assert (out / f"{user}.json").read_bytes() == cli, user
        report = json.loads(cli)
        # The user's store: the CLI reads it as the logbook of the same history.
        shown = json.loads(run_unlocks("show", str(out / f"{user}.logbook"), "--format", "json").stdout)
        assert shown["unlocks"] == report["unlocks"] and shown["metrics"] == report["metrics"], user
        for level, unlocks in report["unlocks"].items():
            # Counted as the metrics count them: the rule checked against the report's own figure.
            counted = [u["code"] for u in unlocks if u["evidence"] == "confirmed"]
            assert len(counted) == report["metrics"][METRIC_OF_LEVEL[level]], (user, level)
            for code in counted:
                expected_users.setdefault(level, {}).setdefault(code, 0)
                expected_users[level][code] += 1

    summary = json.loads((out / "summary.json").read_text())
    assert summary["users"] == len(users)
    assert summary["options"]["time_zone"] == "Asia/Shanghai"
    got = {level: {r["code"]: r["users"] for r in regions if r["users"]} for level, regions in summary["usersByRegion"].items()}
    assert got == expected_users
    assert summary["usersByRegion"]["countries"][0]["code"] == "CHN" and summary["usersByRegion"]["countries"][0]["users"] == 4
    for regions in summary["usersByRegion"].values():
        assert [(-r["users"], r["code"]) for r in regions] == sorted((-r["users"], r["code"]) for r in regions)


def test_locate_points_job_gives_the_clis_codes(tmp_path: Path) -> None:
    rng = np.random.default_rng(34)
    text_lat = [f"{x:.7f}" for x in np.concatenate([rng.uniform(18, 54, 15000), rng.uniform(-60, 75, 5000)])]
    text_lon = [f"{x:.7f}" for x in np.concatenate([rng.uniform(73, 136, 15000), rng.uniform(-180, 180, 5000)])]
    n = len(text_lat)
    lat = pa.array([float(x) for x in text_lat] + [None, 95.0], type=pa.float64())
    lon = pa.array([float(x) for x in text_lon] + [116.4, 116.4], type=pa.float64())
    table = pa.table({"id": pa.array(range(n + 2), type=pa.int64()), "latitude": lat, "longitude": lon,
                      "note": pa.array([f"p{k}" for k in range(n + 2)])})
    source = tmp_path / "points"
    source.mkdir()
    for part in range(3):  # several files, so several tasks
        pq.write_table(table.slice(part * 7000, 7000), source / f"part-{part}.parquet")
    out = tmp_path / "located"
    # Spark in one JVM with two task slots (local[2]), its Python workers processes of their own:
    # the cluster itself is the other test's; this one is about the job (and saves CI two JVMs).
    command = [os.environ["SPARK_SUBMIT"], "--master", "local[2]", *shlex.split(os.environ["SPARK_LOCAL_OPTIONS"]),
               str(REPOSITORY / "Python/jobs/locate_points.py"), str(source), str(out), "--lat", "latitude", "--lon", "longitude"]
    done = subprocess.run(command, capture_output=True, timeout=900)
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")[-3000:]
    located = pq.read_table(out).sort_by("id")
    assert located.num_rows == n + 2
    assert located.column_names == ["id", "latitude", "longitude", "note", "country", "province", "city", "county", "status", "subdivision"]
    assert located.column("note").to_pylist() == [f"p{k}" for k in range(n + 2)]

    cli = run_unlocks("locate", stdin=("lat,lon\n" + "".join(f"{a},{o}\n" for a, o in zip(text_lat, text_lon))).encode())
    # The job writes the columns the CLI prints: the four levels, the status and the subdivision.
    expected = [row.split(",")[2:8] for row in cli.stdout.decode().splitlines()[1:]]
    columns = [located.column(name).to_pylist()[:n] for name in ("country", "province", "city", "county", "status", "subdivision")]
    got = [[value if value is not None else "" for value in row] for row in zip(*columns)]
    assert got == expected
    for name in ("country", "province", "city", "county", "subdivision"):
        assert located.column(name).to_pylist()[n:] == [None, None]
    assert located.column("status").to_pylist()[n:] == ["invalid", "invalid"]
