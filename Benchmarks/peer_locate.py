"""The packaged point-in-polygon peers on a `lat,lon` file, as their users call them.

Usage: peer_locate.py FILE
Prints one JSON object: points, and points/s (this thread's CPU time, best of a few runs) for
tzfpy's `get_tz(lng, lat)` called once a point (its only API) and timezonefinder's batch call
`TimezoneFinder.timezone_ids_at(lngs=, lats=)` on numpy arrays; the first call of each (which
loads its data) is made before the timing. Scripts/bench locate runs it in a venv beside
`UnlocksBench locate-points` on the same files.
"""
import json
import sys
import time

import numpy
import tzfpy
from timezonefinder import TimezoneFinder


def best(repeats, body):
    seconds = float("inf")
    for _ in range(repeats):
        start = time.thread_time()
        body()
        seconds = min(seconds, time.thread_time() - start)
    return seconds


def main():
    path = sys.argv[1]
    data = numpy.loadtxt(path, delimiter=",", skiprows=1, dtype=numpy.float64, ndmin=2)
    lats, lngs = numpy.ascontiguousarray(data[:, 0]), numpy.ascontiguousarray(data[:, 1])
    pairs = list(zip(lngs.tolist(), lats.tolist()))
    get_tz = tzfpy.get_tz
    get_tz(116.4, 39.9)
    found = 0

    def tzf():
        nonlocal found
        found = 0
        for lng, lat in pairs:
            if get_tz(lng, lat):
                found += 1

    finder = TimezoneFinder()
    finder.timezone_ids_at(lngs=lngs[:10], lats=lats[:10])

    def tf():
        finder.timezone_ids_at(lngs=lngs, lats=lats)

    tzf_seconds = best(3, tzf)
    tf_seconds = best(2, tf)
    n = len(pairs)
    print(json.dumps({"points": n, "tzfpy": n / tzf_seconds, "timezonefinder": n / tf_seconds, "tzfpyFound": found,
                      "versions": {"tzfpy": tzfpy.__version__ if hasattr(tzfpy, "__version__") else "2.1.1"}}))


if __name__ == "__main__":
    main()
