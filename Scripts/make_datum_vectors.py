#!/usr/bin/env python3
"""Golden vectors for WGS-84 -> GCJ-02 -> BD-09, from two independent PyPI libraries.

Run through Scripts/make-datum-vectors, which pins the libraries in a throwaway venv.
  A = coord-convert  (coord_convert.transform: wgs2gcj, gcj2bd; argument order lon, lat)
  B = prcoords       (wgs_gcj, gcj_bd)
Each library's bd is computed from that library's own gcj value.

A's China-rectangle test (transform.outOfChina) is the same inclusive rectangle as B's
(sanity_in_china_p); main() checks that on every point and stops if it ever differs.
Neither library gates GCJ->BD.

Usage: make_datum_vectors.py OUTPUT.csv
Deterministic: fixed seed, floats written with repr() (shortest round-trip).
"""
import math
import random
import sys
import warnings
from importlib.metadata import version

# Only the pure-math submodule: coord_convert/__init__.py just sets __version__, and
# coord_convert.coordconvert (the CLI, needing click/tqdm/fiona) is never imported.
from coord_convert import transform as cc
import prcoords

EXPECTED = {"coord-convert": "0.2.1", "prcoords": "1.0.2"}
SEED = 20240229

# The usual "China rectangle" both libraries use (inclusive on all four edges).
W, E, S, N = 72.004, 137.8347, 0.8293, 55.8271

HEADER = ("kind,wgs_lat,wgs_lon,gcj_lat_a,gcj_lon_a,gcj_lat_b,gcj_lon_b,"
          "bd_lat_a,bd_lon_a,bd_lat_b,bd_lon_b")


def in_rect(lat, lon):
    return W <= lon <= E and S <= lat <= N


def gen_points():
    rng = random.Random(SEED)
    pts = []  # (kind, lat, lon)

    # ~1,500 uniform random in and around China.
    for _ in range(1500):
        pts.append(("random", rng.uniform(0.0, 57.0), rng.uniform(70.0, 140.0)))

    # ~300 in dense city boxes: (lat_min, lat_max, lon_min, lon_max)
    boxes = [
        (39.6, 40.2, 116.0, 116.8),   # Beijing
        (30.9, 31.5, 121.1, 121.9),   # Shanghai
        (22.2, 22.8, 113.8, 114.4),   # Shenzhen / Hong Kong
        (43.6, 44.1, 87.3, 87.9),     # Urumqi
        (29.5, 29.8, 90.9, 91.3),     # Lhasa
        (45.6, 45.9, 126.4, 126.9),   # Harbin
    ]
    for la0, la1, lo0, lo1 in boxes:
        for _ in range(50):
            pts.append(("city", rng.uniform(la0, la1), rng.uniform(lo0, lo1)))

    # Edges: exactly on, one ulp, 1e-9 and 1e-6 degrees either side.
    def offsets(v):
        return [v,
                math.nextafter(v, -math.inf), math.nextafter(v, math.inf),
                v - 1e-9, v + 1e-9, v - 1e-6, v + 1e-6]

    for _ in range(8):
        lat = rng.uniform(S, N)
        for lon in offsets(W):
            pts.append(("edge", lat, lon))
        lat = rng.uniform(S, N)
        for lon in offsets(E):
            pts.append(("edge", lat, lon))
        lon = rng.uniform(W, E)
        for lat in offsets(S):
            pts.append(("edge", lat, lon))
        lon = rng.uniform(W, E)
        for lat in offsets(N):
            pts.append(("edge", lat, lon))
    # Corners: every combination of {on, +-1e-9, +-1e-6} on both axes.
    for clat in (S, N):
        for clon in (W, E):
            for dlat in (0.0, -1e-9, 1e-9, -1e-6, 1e-6):
                for dlon in (0.0, -1e-9, 1e-9, -1e-6, 1e-6):
                    pts.append(("edge", clat + dlat, clon + dlon))

    # ~300 far outside: fixed specials, then whole-world random outside the rectangle.
    specials = [
        (90.0, 0.0), (-90.0, 0.0), (90.0, 180.0), (-90.0, -180.0), (90.0, 116.4),
        (-90.0, 116.4), (0.0, 0.0), (0.0, 180.0), (0.0, -180.0), (45.0, 180.0),
        (-45.0, -180.0), (39.9, -180.0), (39.9, 180.0), (51.4779, -0.0015),
        (40.7128, -74.006), (-33.8688, 151.2093), (-34.6037, -58.3816),
        (-22.9068, -43.1729), (64.1466, -21.9426), (-77.85, 166.6667),
        (35.6762, 139.6503), (1.3521, 103.8198), (-6.2088, 106.8456),
        (-39.9, 116.4), (-31.2, 121.5), (56.0, 100.0), (0.5, 100.0),
        (30.0, 70.0), (30.0, 140.0), (30.0, -116.4),
    ]
    for lat, lon in specials:
        pts.append(("outside", lat, lon))
    n = 0
    while n < 270:
        lat, lon = rng.uniform(-90.0, 90.0), rng.uniform(-180.0, 180.0)
        if in_rect(lat, lon):
            continue
        pts.append(("outside", lat, lon))
        n += 1
    return [(k, float(la), float(lo)) for k, la, lo in pts]


def conv_a(lat, lon):
    # coord_convert.transform takes and returns (lon, lat).
    g_lon, g_lat = cc.wgs2gcj(lon, lat)
    b_lon, b_lat = cc.gcj2bd(g_lon, g_lat)
    return (float(g_lat), float(g_lon)), (float(b_lat), float(b_lon))


def conv_b(lat, lon):
    with warnings.catch_warnings():
        # prcoords warns "Non-Chinese coords found, returning as-is" outside the rectangle.
        warnings.simplefilter("ignore")
        g = prcoords.wgs_gcj((lat, lon))
        b = prcoords.gcj_bd(g)
    return (float(g.lat), float(g.lon)), (float(b.lat), float(b.lon))


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_datum_vectors.py OUTPUT.csv")
    for name, want in EXPECTED.items():
        got = version(name)
        if got != want:
            sys.exit(f"{name} {got} installed, {want} expected")

    points = gen_points()
    # A's column is A's own gated wgs2gcj; that is only "raw shift inside, input outside B's
    # rectangle" because A's rectangle test is B's. Check it rather than assume it.
    bad = [(la, lo) for _, la, lo in points
           if cc.outOfChina(lo, la) != (not in_rect(la, lo))
           or cc.outOfChina(lo, la) != (not prcoords.sanity_in_china_p(prcoords.Coords(la, lo)))]
    if bad:
        sys.exit(f"A's outOfChina differs from prcoords' rectangle at {len(bad)} points, "
                 f"e.g. {bad[0]!r}")

    rows = []
    for kind, lat, lon in points:
        ga, ba = conv_a(lat, lon)
        gb, bb = conv_b(lat, lon)
        rows.append((kind, lat, lon, ga, gb, ba, bb))

    with open(sys.argv[1], "w", encoding="ascii", newline="\n") as f:
        f.write(HEADER + "\n")
        for kind, lat, lon, ga, gb, ba, bb in rows:
            vals = (lat, lon, ga[0], ga[1], gb[0], gb[1], ba[0], ba[1], bb[0], bb[1])
            f.write(kind + "," + ",".join(repr(v) for v in vals) + "\n")

    report(rows)


def report(rows):
    def md(pairs):
        return max((abs(x - y) for x, y in pairs), default=0.0)

    p = print
    p(f"rows: {len(rows)}  " + "  ".join(
        f"{k}={sum(r[0] == k for r in rows)}" for k in ("random", "city", "edge", "outside")))

    p(f"max |A-B| gcj (all points): lat {md((r[3][0], r[4][0]) for r in rows)!r}  "
      f"lon {md((r[3][1], r[4][1]) for r in rows)!r}")
    p(f"max |A-B| bd  (all points): lat {md((r[5][0], r[6][0]) for r in rows)!r}  "
      f"lon {md((r[5][1], r[6][1]) for r in rows)!r}")
    inside = [r for r in rows if in_rect(r[1], r[2])]
    p(f"max |A-B| gcj (wgs inside rectangle, {len(inside)} pts): "
      f"lat {md((r[3][0], r[4][0]) for r in inside)!r}  lon {md((r[3][1], r[4][1]) for r in inside)!r}")

    # BD-09 formula alone: both libraries' gcj->bd on the same input (B's gcj).
    same = [(cc.gcj2bd(r[4][1], r[4][0]), r[6]) for r in rows]
    p(f"max |A-B| bd  (same gcj input, formula only): "
      f"lat {md((x[1], y[0]) for x, y in same)!r}  lon {md((x[0], y[1]) for x, y in same)!r}")

    # gcj delta ratio A/B: 1 when both scale by the same ellipsoid (eviltransform gave 1.000016933).
    ratios = [(r[3][1] - r[2]) / (r[4][1] - r[2]) for r in rows
              if r[4][1] != r[2] and abs(r[4][1] - r[2]) > 1e-4]
    if ratios:
        p(f"gcj lon-delta ratio A/B: min {min(ratios)!r} max {max(ratios)!r}")
    p(f"A's ee (from f = 1/298.3): {cc.ee!r}  B's ee: {prcoords.GCJ_EE!r}  "
      f"A's a: {cc.a!r}  B's a: {prcoords.GCJ_A!r}")
    # What A's computed ee (1 ulp-ish off the published literal) costs: rerun A with the literal.
    shipped_ee = cc.ee
    try:
        cc.ee = 0.00669342162296594323
        lit = [cc.wgs2gcj(r[2], r[1]) for r in inside]
    finally:
        cc.ee = shipped_ee
    p(f"max |A(shipped ee) - A(literal ee)| gcj: lat {md((r[3][0], g[1]) for r, g in zip(inside, lit))!r}"
      f"  lon {md((r[3][1], g[0]) for r, g in zip(inside, lit))!r}")

    un_a = {i for i, r in enumerate(rows) if r[3] == (r[1], r[2])}
    un_b = {i for i, r in enumerate(rows) if r[4] == (r[1], r[2])}
    outside = {i for i, r in enumerate(rows) if not in_rect(r[1], r[2])}
    p(f"gcj unchanged: A {len(un_a)}  B {len(un_b)}  "
      f"(closed-rectangle predicate says outside: {len(outside)})")
    p(f"A and B agree on which points are outside: {un_a == un_b}; "
      f"both equal the inclusive (<=) predicate: {un_a == outside and un_b == outside}")
    on_edge = [r for r in rows if r[0] == "edge" and in_rect(r[1], r[2])
               and (r[1] in (S, N) or r[2] in (W, E))]
    conv_a_edge = sum(r[3] != (r[1], r[2]) for r in on_edge)
    conv_b_edge = sum(r[4] != (r[1], r[2]) for r in on_edge)
    p(f"exactly-on-edge points: {len(on_edge)}; converted by A {conv_a_edge}, by B {conv_b_edge}"
      " (all converted => all four edges inclusive)")

    # BD-09 gating: neither library leaves bd equal to its own gcj.
    gate_a = sum(r[5] == r[3] for r in rows)
    gate_b = sum(r[6] == r[4] for r in rows)
    p(f"bd unchanged from own gcj: A {gate_a}  B {gate_b}")
    probe_a = cc.gcj2bd(-0.1, 51.5)
    probe_b = prcoords.gcj_bd((51.5, -0.1))
    p(f"gcj->bd probe at (51.5,-0.1): A (lat,lon) {(probe_a[1], probe_a[0])}  B {tuple(probe_b)}")


if __name__ == "__main__":
    main()
