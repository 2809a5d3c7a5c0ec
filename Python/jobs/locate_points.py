"""Locate a table of points on an Apache Spark cluster: Parquet in, Parquet out (docs/python.md).

    spark-submit [--master URL] locate_points.py IN OUT [--lat COLUMN] [--lon COLUMN]
                 [--worldview china|international] [--datum wgs84|gcj02] [--overwrite]

IN is Parquet (a file or a folder of parts, any URL Spark reads: file:, hdfs:, s3a:) with a
latitude and a longitude column (degrees, default `lat` and `lon`); OUT gets every row with six
columns added: country, province, city, county (the codes `unlocks locate` prints; null where
none), status (of the finest level placed: inside, edge, outside, or invalid for a point that
is not a coordinate, null coordinates included) and subdivision (the country's state or
province, ISO 3166-2 where one exists; null where none). Each Arrow batch is located by one call into
the `adminunlocks` package on an executor; rows keep their order within each part.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator

COLUMNS = ("country", "province", "city", "county", "status", "subdivision")


def parse(arguments: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="locate_points.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("input")
    parser.add_argument("output")
    parser.add_argument("--lat", default="lat")
    parser.add_argument("--lon", default="lon")
    parser.add_argument("--worldview", choices=["china", "international"], default="china")
    parser.add_argument("--datum", choices=["wgs84", "gcj02"], default="wgs84")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists (default: fail)")
    return parser.parse_args(arguments)


def locate_batches(batches: Iterator, lat: str, lon: str, worldview: str, datum: str) -> Iterator:
    """On an executor: each Arrow record batch with the six columns appended."""
    import numpy as np
    import pyarrow as pa

    import adminunlocks

    for batch in batches:
        lats = batch.column(lat).cast(pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False)
        lons = batch.column(lon).cast(pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False)
        placed = adminunlocks.locate(lats, lons, worldview=worldview, datum=datum, invalid="mark")
        columns = list(batch.columns)
        names = list(batch.schema.names)
        for name in COLUMNS:
            values = placed[name]
            columns.append(pa.array(values, type=pa.string(), mask=(values == "") if name != "status" else None))
            names.append(name)
        yield pa.RecordBatch.from_arrays(columns, names=names)


def main(arguments: list[str]) -> int:
    args = parse(arguments)
    from pyspark.sql import SparkSession
    from pyspark.sql.types import StringType, StructField, StructType

    spark = SparkSession.builder.appName("adminunlocks-locate-points").getOrCreate()
    try:
        table = spark.read.parquet(args.input)
        for column in (args.lat, args.lon):
            if column not in table.columns:
                print(f"locate_points: {args.input} has no column {column!r} (it has {', '.join(table.columns)})", file=sys.stderr)
                return 2
        clash = [name for name in COLUMNS if name in table.columns]
        if clash:
            print(f"locate_points: {args.input} already has the column(s) {', '.join(clash)}", file=sys.stderr)
            return 2
        schema = StructType(table.schema.fields + [StructField(name, StringType(), nullable=name != "status") for name in COLUMNS])
        located = table.mapInArrow(lambda batches: locate_batches(batches, args.lat, args.lon, args.worldview, args.datum), schema)
        located.write.mode("overwrite" if args.overwrite else "errorifexists").parquet(args.output)
    finally:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
