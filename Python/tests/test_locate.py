"""adminunlocks.locate against `unlocks locate` on the same points: random points over the world,
in China's box and along the borders where the answer is hardest, in both worldviews and datums;
points that are not coordinates; threads, shapes and the index API."""
from __future__ import annotations

import numpy as np
import pytest

import adminunlocks as au
from unlocks_cli import run_unlocks

LEVELS = ("country", "province", "city", "county")


def points(seed: int) -> tuple[list[str], list[str]]:
    """Seeded points as the text both sides read (7 decimals, as GPS logs write them)."""
    rng = np.random.default_rng(seed)
    boxes = [  # (count, lat from, lat to, lon from, lon to)
        (6000, -90, 90, -180, 180),         # the world
        (6000, 18, 54, 73, 136),            # China's box
        (2000, 22.45, 22.6, 113.85, 114.35),  # Shenzhen and Hong Kong's border
        (1500, 24.35, 24.55, 118.1, 118.5),   # Kinmen and Xiamen
        (1500, 27.0, 29.5, 91.5, 97.5),       # Arunachal Pradesh (disputed)
        (1000, 39.7, 40.1, 116.2, 116.6),     # Beijing's districts
    ]
    lats, lons = [], []
    for count, a, b, c, d in boxes:
        lats += [f"{x:.7f}" for x in rng.uniform(a, b, count)]
        lons += [f"{x:.7f}" for x in rng.uniform(c, d, count)]
    # The edges of the coordinate space: poles, the antimeridian both ways, null island.
    for lat, lon in [("90", "0"), ("-90", "0"), ("-16.8", "-180"), ("-16.8", "180"), ("0", "0"), ("-89.9999999", "179.9999999")]:
        lats.append(lat)
        lons.append(lon)
    return lats, lons


def cli_locate(lats: list[str], lons: list[str], *options: str) -> list[list[str]]:
    text = "lat,lon\n" + "".join(f"{a},{o}\n" for a, o in zip(lats, lons))
    done = run_unlocks("locate", *options, stdin=text.encode())
    rows = done.stdout.decode().splitlines()
    assert rows[0] == "lat,lon,country,province,city,county,status,subdivision"
    return [row.split(",")[2:8] for row in rows[1:]]


@pytest.mark.parametrize("worldview", ["china", "international"])
@pytest.mark.parametrize("datum", ["wgs84", "gcj02"])
def test_codes_are_the_clis(worldview: str, datum: str) -> None:
    lats, lons = points(seed=34 + len(worldview) + len(datum))
    expected = cli_locate(lats, lons, "--worldview", worldview, "--datum", datum)
    placed = au.locate(np.array(lats, dtype=float), np.array(lons, dtype=float), worldview=worldview, datum=datum)
    got = np.stack([placed[level] for level in LEVELS] + [placed["status"], placed["subdivision"]], axis=1).tolist()
    assert len(got) == len(expected)
    mismatches = [(k, lats[k], lons[k], got[k], expected[k]) for k in range(len(got)) if got[k] != expected[k]]
    assert not mismatches, f"{len(mismatches)} points differ from unlocks locate, e.g. {mismatches[:5]}"
    # The points reach every level and every status, so the comparison covers them.
    assert {"inside", "edge", "outside"} <= set(placed["status"].tolist())
    assert (placed["county"] != "").sum() > 1000
    assert len(set(placed["subdivision"].tolist())) > 100  # states and provinces over the world


def test_worldviews_differ_where_they_should() -> None:
    taipei, hong_kong = (25.0330, 121.5654), (22.2800, 114.1588)
    lat, lon = np.array([taipei[0], hong_kong[0]]), np.array([taipei[1], hong_kong[1]])
    china = au.locate(lat, lon)
    international = au.locate(lat, lon, worldview="international")
    assert china["country"].tolist() == ["CHN", "CHN"]
    assert china["province"].tolist() == ["710000", "810000"]
    assert international["country"].tolist() == ["TWN", "HKG"]
    assert international["province"].tolist() == ["", ""]


def test_points_that_are_not_coordinates() -> None:
    lats = ["39.9", "nan", "95", "39.9", "-91", "inf", "10"]
    lons = ["116.4", "116.4", "116.4", "181", "0", "0", "-180.5"]
    valid = [0]
    done = run_unlocks("locate", stdin=("lat,lon\n" + "".join(f"{a},{o}\n" for a, o in zip(lats, lons))).encode(), expect=(3,))
    assert len(done.stdout.decode().splitlines()) == 1 + len(valid)  # the CLI rejects the others' lines
    placed = au.locate(np.array(lats, dtype=float), np.array(lons, dtype=float), invalid="mark")
    assert placed["status"].tolist() == ["inside"] + ["invalid"] * 6
    assert placed["county"].tolist() == ["110101"] + [""] * 6
    with pytest.raises(au.CoordinateError) as raised:
        au.locate(np.array(lats, dtype=float), np.array(lons, dtype=float))
    assert raised.value.kind is au.ErrorKind.COORDINATE
    assert str(raised.value).startswith("point 1:")
    assert isinstance(raised.value, ValueError)


def test_threads_shapes_and_indices() -> None:
    rng = np.random.default_rng(7)
    lat, lon = rng.uniform(18, 54, 30001), rng.uniform(73, 136, 30001)
    one = au.open_tables().locate_indices(lat, lon)
    three = au.open_tables().locate_indices(lat, lon, threads=3)
    for key in one:
        assert np.array_equal(one[key], three[key]), key
    # A bad point in a later thread's share is named by its index in the whole array.
    lat[25000] = 1000
    with pytest.raises(au.CoordinateError, match="^point 25000:"):
        au.locate(lat, lon, threads=3)
    lat[25000] = 30
    grid = au.locate(lat[:30000].reshape(100, 300), lon[:30000].reshape(100, 300))
    assert grid["county"].shape == (100, 300)
    flat = au.locate(lat[:30000], lon[:30000])
    assert np.array_equal(grid["county"].reshape(-1), flat["county"])
    # Indices name regions of the level's table; their codes are the codes locate gives.
    tables = au.open_tables()
    regions = tables.regions("county")
    found = tables.locate_indices(lat[:1000], lon[:1000])
    codes = [regions[i].code if i >= 0 else "" for i in found["county"]]
    assert codes == flat["county"][:1000].tolist()
    beijing = next(r for r in regions if r.code == "110101")
    assert regions[beijing.parent].code == "110100" and beijing.english_name


def test_arguments_are_checked() -> None:
    with pytest.raises(au.ArgumentError):
        au.locate([1.0, 2.0], [3.0])
    with pytest.raises(au.ArgumentError):
        au.locate([1.0], [3.0], datum="bd09")  # type: ignore[arg-type]
    with pytest.raises(au.ArgumentError, match="worldview 'taiwan'"):
        au.locate([1.0], [3.0], worldview="taiwan")  # type: ignore[arg-type]
    empty = au.locate(np.array([]), np.array([]))
    assert empty["country"].shape == (0,)
