"""AdminUnlocks for Python: GPS points to country, province, city and county, and GPS histories
to the unlocks, explored area and badge metrics of ``unlocks classify``, through the Swift
library's C ABI (the region tables ship inside the package; no Swift needed).

>>> import adminunlocks, numpy as np
>>> adminunlocks.locate(np.array([39.9163]), np.array([116.3972]))["county"]
array(['110101'], dtype='<U6')
>>> report = adminunlocks.classify("Data/samples", time_zone="Asia/Shanghai")
>>> report["metrics"]["countyUnlockCount"]
>>> with adminunlocks.Logbook("alice.logbook", time_zone="Asia/Shanghai") as book:   # a user's store
...     book.import_sources("Data/samples")["changes"]

The docs: docs/python.md in the repository.
"""
from __future__ import annotations

import datetime
import os
from typing import Literal

import numpy.typing as npt

from ._classify import Datum, Input, Inputs
from ._errors import (AdminUnlocksError, ArgumentError, BadgeCatalogError, CannotListError, CoordinateError, ErrorKind,
                      InputNotFoundError, InternalError, LedgerOverflowError, LogbookError, TableError)
from ._logbook import FAMILIARITY, Cells, Logbook, Moment
from ._native import lib as _lib
from ._tables import (LEVELS, Level, LocateDatum, PlacementIndices, Placements, Region, Tables, Worldview, bundled_directory,
                      open_tables)
from ._version import __version__

__all__ = [
    "AdminUnlocksError", "ArgumentError", "BadgeCatalogError", "CannotListError", "Cells", "CoordinateError", "Datum", "ErrorKind",
    "FAMILIARITY", "Input", "InputNotFoundError", "Inputs", "InternalError", "LEVELS", "LedgerOverflowError", "Level", "LocateDatum",
    "Logbook", "LogbookError", "Moment",
    "PlacementIndices", "Placements", "Region", "TableError", "Tables", "Worldview", "__version__", "bundled_directory",
    "classify", "classify_json", "library_version", "locate", "open_tables",
]


def library_version() -> str:
    """The version of the Swift library loaded (the package's, ``unlocks --version``'s)."""
    return _lib.au_version().decode()


def locate(latitudes: npt.ArrayLike, longitudes: npt.ArrayLike, *, worldview: Worldview = "china",
           datum: LocateDatum = "wgs84", invalid: Literal["raise", "mark"] = "raise", threads: int = 1,
           tables: str | os.PathLike[str] | None = None) -> Placements:
    """Places each point (WGS-84 degrees, or GCJ-02 with ``datum="gcj02"``) at every level and
    returns the codes exactly as ``unlocks locate`` prints them: a dict of string arrays
    ``country``, ``province``, ``city``, ``county`` ('' where none), ``status`` (of the finest
    of those placed: 'inside', 'edge', 'outside') and ``subdivision`` (the country's state or
    province: ISO 3166-2 where one exists), each of the inputs' shape (``pandas.DataFrame``
    takes it as is).

    ``worldview``: whose borders the countries follow: 'china' (China's official view, the
    default) or 'international'. ``invalid``: 'raise' (default) raises :class:`CoordinateError`
    at the first point that is not a coordinate (not finite, beyond ±90/±180); 'mark' gives it
    the status 'invalid'. ``threads``: split the points among threads. ``tables``: a folder of
    tables instead of the package's.
    """
    return open_tables(worldview, tables).locate(latitudes, longitudes, datum=datum, invalid=invalid, threads=threads)


def classify(inputs: Inputs, *, worldview: Worldview = "china", time_zone: str | None = None,
             utc_offset: str | datetime.timedelta | None = None, datum: Datum = "wgs84",
             datum_for: dict[str, str] | list[str] | None = None, since: datetime.date | str | None = None,
             until: datetime.date | str | None = None, lenient: bool = False, include_plans: bool = False,
             include_passed_through: bool = False, include_virtual: bool = False,
             explore_max_speed_kmh: float | None = None, familiarity_levels: tuple[int, int, int] | None = None,
             badges: str | os.PathLike[str] | None = None, jobs: int = 1,
             tables: str | os.PathLike[str] | None = None) -> dict:
    """Classifies one person's history into the report of ``unlocks classify --format json``
    (docs/report-format.md), as a dict.

    ``inputs``: a path (a file, a folder walked recursively, a zip, .gz, .tar or .tgz, an export
    bundle), bytes (recognised by their content), ``(name, bytes)`` (the name's extension decides
    the format), a list of these, or a dict of names to bytes. Every file met is in the report
    (read, partial, rejected or skipped, with the reason): an input's own problems are not
    exceptions. Raises :class:`InputNotFoundError` for a path that does not exist,
    :class:`CannotListError` for a folder that cannot be listed, :class:`ArgumentError` for bad
    options, :class:`BadgeCatalogError` for a bad ``badges`` catalog.

    The options are those of ``unlocks classify``: ``time_zone`` (an IANA name) or
    ``utc_offset`` ('+08:00' or a timedelta) for local days (default: the system's, as the CLI);
    ``datum`` of the inputs and ``datum_for`` ({glob: datum}); ``since``/``until`` (local days,
    inclusive); ``lenient``; ``include_plans``; ``include_passed_through``; ``include_virtual``;
    ``explore_max_speed_kmh``; ``familiarity_levels`` (lit, bright, gold); ``badges`` (a catalog
    file); ``jobs`` (inputs read at once: the same report for any number).
    """
    return open_tables(worldview, tables).classify(
        inputs, time_zone=time_zone, utc_offset=utc_offset, datum=datum, datum_for=datum_for or [], since=since,
        until=until, lenient=lenient, include_plans=include_plans, include_passed_through=include_passed_through,
        include_virtual=include_virtual, explore_max_speed_kmh=explore_max_speed_kmh,
        familiarity_levels=familiarity_levels, badges=badges, jobs=jobs)


def classify_json(inputs: Inputs, *, worldview: Worldview = "china", tables: str | os.PathLike[str] | None = None,
                  **options: object) -> str:
    """:func:`classify`'s report as the JSON text ``unlocks classify --format json`` writes
    (the same bytes, without the final newline); the same keyword options."""
    return open_tables(worldview, tables).classify_json(inputs, **options)
