"""Writes tile vectors from mercantile (see Scripts/make-tile-fixtures).

Columns: longitude, latitude (as Python's repr: they round-trip exactly), then for zoom 14 and
17: the tile's x and y, and its bounds west, south, east, north (repr)."""
import random
import sys

import mercantile

ZOOMS = (14, 17)


def points():
    rng = random.Random(20261201)
    out = []
    for _ in range(400):  # anywhere in Web Mercator's range
        out.append((rng.uniform(-180, 180), rng.uniform(-85.05, 85.05)))
    for _ in range(100):  # China, where most tracks are
        out.append((rng.uniform(73, 135), rng.uniform(18, 54)))
    for _ in range(60):  # near the Mercator limit, both poles
        lat = rng.uniform(84.9, 85.0511)
        out.append((rng.uniform(-180, 180), lat if rng.random() < 0.5 else -lat))
    for _ in range(60):  # the antimeridian
        out.append((rng.choice((-1, 1)) * rng.uniform(179.99, 180), rng.uniform(-60, 70)))
    out += [(-180.0, 0.0), (180.0, 0.0), (179.99999999999997, 10.0), (-179.99999999999997, -10.0)]
    # Tile corners and points a hair either side of them, at both zooms.
    for _ in range(80):
        zoom = rng.choice(ZOOMS)
        t = mercantile.tile(rng.uniform(-180, 180), rng.uniform(-80, 80), zoom)
        west, south, east, north = mercantile.bounds(t)
        for dx, dy in ((0, 0), (1e-9, -1e-9), (-1e-9, 1e-9), (1e-12, 0), (0, -1e-12)):
            out.append((west + dx, north + dy))
        out.append(((west + east) / 2, (south + north) / 2))
    return out


def main(path):
    with open(path, "w", newline="\n") as f:
        header = ["longitude", "latitude"]
        for z in ZOOMS:
            header += [f"x{z}", f"y{z}", f"west{z}", f"south{z}", f"east{z}", f"north{z}"]
        f.write(",".join(header) + "\n")
        for lon, lat in points():
            row = [repr(lon), repr(lat)]
            for z in ZOOMS:
                t = mercantile.tile(lon, lat, z)
                b = mercantile.bounds(t)
                row += [str(t.x), str(t.y), repr(b.west), repr(b.south), repr(b.east), repr(b.north)]
            f.write(",".join(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
