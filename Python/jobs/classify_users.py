"""Classify every user's GPS history on an Apache Spark cluster (docs/python.md).

    spark-submit [--master URL] classify_users.py USERS OUT [--worldview china|international]
                 [--time-zone NAME | --utc-offset ±HH:MM] [--datum wgs84|gcj02|bd09] [--lenient]
                 [--include-plans] [--include-passed-through] [--partitions N]

Each subfolder of USERS is one user's history (files, folders, archives, export bundles, as
`unlocks classify` reads them). Each is imported by one task on an executor through the
`adminunlocks` package into the user's store, OUT/<user>.logbook (the logbook an app keeps, the
file `unlocks classify --state` makes: later histories are added to it, `unlocks show` reads it),
and its report written to OUT/<user>.json: the report of
`unlocks classify USERS/<user> --format json --jobs 1` (the paths in it are absolute, as the
job hands them to the executors). OUT/summary.json counts the users per region at every level
of the reports (countries, provinces, cities, counties, and any level the reports gain).

USERS must be at the same path on the driver and every executor (a local folder on a local
cluster; a shared file system, NFS, EFS or a FUSE mount of object storage, on a real one); OUT is
written by the driver, each file atomically, the reports and stores streamed to it a partition at
a time (an executor makes a user's store in a temporary folder of its own and sends its bytes).
Every executor needs the package (docs/python.md: a wheel installed on the nodes, or a venv
shipped with --archives).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator

SUMMARY_VERSION = 1


def parse(arguments: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="classify_users.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("users", help="a folder with one subfolder per user")
    parser.add_argument("out", help="the folder for <user>.json and summary.json (made if missing)")
    parser.add_argument("--worldview", choices=["china", "international"], default="china")
    zone = parser.add_mutually_exclusive_group()
    zone.add_argument("--time-zone", help="IANA zone of local days (default: each executor's system zone, as the CLI's)")
    zone.add_argument("--utc-offset", help="a fixed offset ±HH:MM instead")
    parser.add_argument("--datum", choices=["wgs84", "gcj02", "bd09"], default="wgs84")
    parser.add_argument("--lenient", action="store_true")
    parser.add_argument("--include-plans", action="store_true")
    parser.add_argument("--include-passed-through", action="store_true")
    parser.add_argument("--partitions", type=int, default=0, help="tasks to split the users into (default: 4 per executor core, at most one a user)")
    return parser.parse_args(arguments)


def users_of(folder: str) -> list[str]:
    """The users: the subfolders of `folder`, not hidden, in byte order of their names."""
    names = [entry.name for entry in os.scandir(folder) if entry.is_dir() and not entry.name.startswith(".")]
    return sorted(names, key=os.fsencode)


def classify_partition(users: Iterator[str], folder: str, options: dict) -> Iterator[tuple[str, str, bytes]]:
    """On an executor: each user's report as JSON text and their store's bytes. The user's
    history is imported into a new logbook in a temporary folder (closed before its bytes are
    read, so they are the whole store); the report is the logbook's. The tables are opened once
    per Python worker (adminunlocks.open_tables caches them) and reused by every user."""
    import adminunlocks

    rules = {key: options[key] for key in ("worldview", "datum", "include_plans", "time_zone", "utc_offset") if key in options}
    shaping = {"lenient": options["lenient"], "include_passed_through": options["include_passed_through"]}
    for user in users:
        scratch = tempfile.mkdtemp(prefix="adminunlocks-user-")
        try:
            store = os.path.join(scratch, "store.logbook")
            with adminunlocks.Logbook(store, **rules) as logbook:
                logbook.import_sources(os.path.join(folder, user), jobs=1)
                report = logbook.report_json(**shaping)
            with open(store, "rb") as file:
                yield user, report, file.read()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def counted(unlock: dict, options: dict) -> bool:
    """Whether a report's unlock counts in its metrics (ClassifyReport's rule: confirmed, or
    tentative with lenient, or passed through with includePassedThrough)."""
    evidence = unlock["evidence"]
    if evidence == "confirmed":
        return True
    return options["includePassedThrough"] if evidence == "passedThrough" else options["lenient"]


class Summary:
    """Users per region at every level of the reports, and the run's totals."""

    def __init__(self) -> None:
        self.users = 0
        self.points = {"read": 0, "kept": 0}
        self.failed_inputs = 0
        self.levels: dict[str, dict[str, dict]] = {}

    def add(self, report: dict) -> None:
        self.users += 1
        self.points["read"] += report["points"]["read"]
        self.points["kept"] += report["points"]["kept"]
        self.failed_inputs += report["inputs"]["partial"] + report["inputs"]["rejected"]
        for level, unlocks in report["unlocks"].items():
            regions = self.levels.setdefault(level, {})
            for unlock in unlocks:
                entry = regions.setdefault(unlock["code"], {"code": unlock["code"], "name": unlock["name"],
                                                            "englishName": unlock["englishName"], "users": 0,
                                                            "confirmed": 0, "tentative": 0, "passedThrough": 0})
                entry[unlock["evidence"]] += 1
                entry["users"] += counted(unlock, report["options"])

    def json(self, options: dict) -> dict:
        levels = {}
        for level, regions in self.levels.items():
            levels[level] = sorted(regions.values(), key=lambda r: (-r["users"], r["code"]))
        return {"summary": "adminunlocks-cluster-classify", "version": SUMMARY_VERSION, "users": self.users,
                "options": options, "points": self.points, "failedInputs": self.failed_inputs, "usersByRegion": levels}


def write_atomically(path: str, content: str | bytes) -> None:
    """`content` to `path` through a temporary file in the same folder, renamed over it."""
    folder = os.path.dirname(path) or "."
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(content.encode() if isinstance(content, str) else content)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def main(arguments: list[str]) -> int:
    args = parse(arguments)
    from pyspark.sql import SparkSession

    folder = os.path.abspath(args.users)  # executors run in folders of their own
    users = users_of(folder)
    if not users:
        print(f"classify_users: {args.users} has no user folders", file=sys.stderr)
        return 2
    options = {"worldview": args.worldview, "datum": args.datum, "lenient": args.lenient, "include_plans": args.include_plans,
               "include_passed_through": args.include_passed_through, "jobs": 1}
    if args.time_zone:
        options["time_zone"] = args.time_zone
    if args.utc_offset:
        options["utc_offset"] = args.utc_offset
    os.makedirs(args.out, exist_ok=True)

    spark = SparkSession.builder.appName("adminunlocks-classify-users").getOrCreate()
    try:
        context = spark.sparkContext
        partitions = args.partitions or min(len(users), 4 * context.defaultParallelism)
        reports = context.parallelize(users, partitions).mapPartitions(lambda part: classify_partition(part, folder, options))
        summary = Summary()
        started = time.perf_counter()
        for user, text, store in reports.toLocalIterator():
            write_atomically(os.path.join(args.out, user + ".logbook"), store)
            write_atomically(os.path.join(args.out, user + ".json"), text + "\n")
            summary.add(json.loads(text))
        seconds = time.perf_counter() - started
    finally:
        spark.stop()
    shown = {key: value for key, value in options.items() if key != "jobs"}
    write_atomically(os.path.join(args.out, "summary.json"), json.dumps(summary.json(shown), ensure_ascii=False, indent=2) + "\n")
    print(f"classify_users: {summary.users} users, {summary.points['read']} points, {summary.failed_inputs} inputs rejected or read in part; "
          f"{seconds:.2f} s from the first task to the last report", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
