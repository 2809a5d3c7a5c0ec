"""Tables: the region tables of one worldview, opened once per process and shared, and what is
asked of them: points located at every level, histories classified."""
from __future__ import annotations

import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt

from . import _native
from ._classify import ClassifyOptions, Inputs, build_inputs
from ._errors import ArgumentError

Worldview = Literal["china", "international"]
LocateDatum = Literal["wgs84", "gcj02"]
Level = Literal["country", "province", "city", "county", "subdivision"]

#: The administrative levels (the report's); :func:`locate` also gives each point's
#: ``subdivision`` (the world's states and provinces), as ``unlocks locate`` does.
LEVELS: tuple[Level, ...] = ("country", "province", "city", "county")
_LOCATED: tuple[Level, ...] = LEVELS + ("subdivision",)
STATUSES: tuple[str, ...] = ("outside", "inside", "edge", "invalid")
_STATUS_NAMES = np.array(STATUSES)
_FLAG_GCJ02, _FLAG_STRICT = 1, 2


class Placements(TypedDict):
    """Codes of each point at every level, as ``unlocks locate`` prints them ('' where none),
    the status of the finest of country, province, city and county placed ('inside', 'edge',
    'outside'; 'invalid' for a point that is not a coordinate, with ``invalid="mark"``), and the
    state or province of the country (``subdivision``: ISO 3166-2 where one exists, else Natural
    Earth's code; in China's view China's are its provinces, CN-BJ…CN-TW, CN-HK, CN-MO)."""

    country: npt.NDArray[np.str_]
    province: npt.NDArray[np.str_]
    city: npt.NDArray[np.str_]
    county: npt.NDArray[np.str_]
    status: npt.NDArray[np.str_]
    subdivision: npt.NDArray[np.str_]


class PlacementIndices(TypedDict):
    """Region indices of each point at every level (-1 where none; see :meth:`Tables.regions`)
    and the status code of the finest level (0 outside, 1 inside, 2 edge, 3 invalid)."""

    country: npt.NDArray[np.int32]
    province: npt.NDArray[np.int32]
    city: npt.NDArray[np.int32]
    county: npt.NDArray[np.int32]
    status: npt.NDArray[np.uint8]
    subdivision: npt.NDArray[np.int32]


@dataclass(frozen=True)
class Region:
    """A region of the tables: its index in its table, code (ISO alpha-3 or the worldview's code
    for countries, the adcode in China), names, and its parent's index (None for none)."""

    index: int
    code: str
    name: str
    english_name: str
    parent: int | None


def bundled_directory() -> Path:
    """The tables inside the package (world.bin, international.bin, china.bin, subdivisions.bin, CLDR's names and continents, manifest.json)."""
    return _native.PACKAGE_DIRECTORY / "tables"


def _default_directory() -> Path:
    """The package's tables, or ``$ADMINUNLOCKS_TABLES`` for a package run from its sources."""
    bundled = bundled_directory()
    if not bundled.is_dir() and os.environ.get("ADMINUNLOCKS_TABLES"):
        return Path(os.environ["ADMINUNLOCKS_TABLES"])
    return bundled


class Tables:
    """The region tables of one worldview (from ``directory``, else the package's,
    :func:`bundled_directory`): memory-mapped, checksummed and validated when opened
    (milliseconds), immutable, safe to share between threads. Open once and reuse
    (:func:`open_tables` caches one per worldview): the locator builds its leaf grids as points
    reach them and keeps them."""

    def __init__(self, worldview: Worldview = "china", directory: str | os.PathLike[str] | None = None) -> None:
        folder = os.fsencode(directory if directory is not None else _default_directory())
        handle = ctypes.c_void_p()
        error = ctypes.c_void_p()
        code = _native.lib.au_tables_open(folder, worldview.encode(), ctypes.byref(handle), ctypes.byref(error))
        _native.check(code, error)
        self._handle: ctypes.c_void_p | None = handle
        self.worldview: str = _native.lib.au_tables_worldview(handle).decode()
        self.directory: Path = Path(os.fsdecode(_native.lib.au_tables_directory(handle)))
        self._codes: dict[int, npt.NDArray[np.str_]] = {}
        self._lock = threading.Lock()

    # Lifetime.
    def close(self) -> None:
        """Releases the tables (a later call on them raises ArgumentError)."""
        with self._lock:
            if self._handle is not None:
                _native.lib.au_tables_close(self._handle)
                self._handle = None

    def __enter__(self) -> Tables:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None and _native is not None:
            _native.lib.au_tables_close(self._handle)

    def __repr__(self) -> str:
        return f"Tables(worldview={self.worldview!r}, directory={str(self.directory)!r})"

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise ArgumentError("the tables are closed")
        return self._handle

    # Regions.
    def regions(self, level: Level) -> list[Region]:
        """Every region of the level's table. Province, city and county share one table
        (china.bin) and so one numbering: the list holds all three levels' regions. Subdivisions
        have a table of their own (subdivisions.bin; empty when the folder lacks it)."""
        number = _level_number(level)
        count = max(0, _native.lib.au_region_count(self.handle, number))
        regions = []
        code, name, english = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_char_p()
        parent, error = ctypes.c_int32(), ctypes.c_void_p()
        for index in range(count):
            status = _native.lib.au_region_info(self.handle, number, index, ctypes.byref(code), ctypes.byref(name),
                                                ctypes.byref(english), ctypes.byref(parent), ctypes.byref(error))
            _native.check(status, error)
            regions.append(Region(index, code.value.decode(), name.value.decode(), english.value.decode(),
                                  None if parent.value < 0 else parent.value))
        return regions

    def codes(self, level: Level) -> npt.NDArray[np.str_]:
        """The codes of the level's table by region index, with '' appended, so that
        ``codes(level)[indices]`` maps the index -1 (none) to ''."""
        number = _level_number(level)
        table = 0 if number == 0 else 2 if number == 4 else 1
        with self._lock:
            if table not in self._codes:
                self._codes[table] = np.array([r.code for r in self.regions(level)] + [""])
            return self._codes[table]

    # Locating.
    def locate_indices(self, latitudes: npt.ArrayLike, longitudes: npt.ArrayLike, *, datum: LocateDatum = "wgs84",
                       invalid: Literal["raise", "mark"] = "raise", threads: int = 1) -> PlacementIndices:
        """Region indices of each point at every level (see :class:`PlacementIndices`); the
        arrays have the inputs' shape. ``threads`` > 1 splits the points among that many threads
        (the library runs without the GIL)."""
        lat = np.ascontiguousarray(latitudes, dtype=np.float64)
        lon = np.ascontiguousarray(longitudes, dtype=np.float64)
        if lat.shape != lon.shape:
            raise ArgumentError(f"latitudes {lat.shape} and longitudes {lon.shape} differ in shape")
        if datum not in ("wgs84", "gcj02"):
            raise ArgumentError(f"datum {datum!r}: expected 'wgs84' or 'gcj02'")
        if invalid not in ("raise", "mark"):
            raise ArgumentError(f"invalid {invalid!r}: expected 'raise' or 'mark'")
        if threads < 1:
            raise ArgumentError(f"threads {threads}: expected at least 1")
        flags = (_FLAG_GCJ02 if datum == "gcj02" else 0) | (_FLAG_STRICT if invalid == "raise" else 0)
        flat_lat, flat_lon = lat.reshape(-1), lon.reshape(-1)
        n = flat_lat.size
        out = {level: np.empty(n, dtype=np.int32) for level in _LOCATED}
        status = np.empty(n, dtype=np.uint8)
        handle = self.handle

        def run(start: int, stop: int) -> None:
            error = ctypes.c_void_p()
            pointers = [out[level][start:].ctypes.data_as(_native.int32_p) for level in _LOCATED]
            code = _native.lib.au_locate(handle, stop - start, flat_lat[start:].ctypes.data_as(_native.double_p),
                                         flat_lon[start:].ctypes.data_as(_native.double_p), flags, *pointers,
                                         status[start:].ctypes.data_as(_native.uint8_p), ctypes.byref(error))
            if code != 0 and error.value and start > 0:
                # The library names the point by its index in the slice: name it in the whole.
                message = _native.lib.au_error_message(error).decode("utf-8", "replace")
                _native.lib.au_error_free(error)
                raise _native.error_for(code, _shift_point_index(message, start))
            _native.check(code, error)

        if threads == 1 or n < 2 * threads:
            run(0, n)
        else:
            bounds = np.linspace(0, n, threads + 1).astype(np.int64)
            with ThreadPoolExecutor(threads) as pool:
                for job in [pool.submit(run, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]:
                    job.result()
        result = {level: out[level].reshape(lat.shape) for level in LEVELS}
        result["status"] = status.reshape(lat.shape)
        result["subdivision"] = out["subdivision"].reshape(lat.shape)
        return result  # type: ignore[return-value]

    def locate(self, latitudes: npt.ArrayLike, longitudes: npt.ArrayLike, *, datum: LocateDatum = "wgs84",
               invalid: Literal["raise", "mark"] = "raise", threads: int = 1) -> Placements:
        """The codes of each point at every level and the finest level's status, exactly as
        ``unlocks locate`` prints them (see :class:`Placements`). ``invalid="raise"`` (the
        default) raises :class:`CoordinateError` at the first point that is not a coordinate;
        ``"mark"`` gives it the status 'invalid' and no codes."""
        found = self.locate_indices(latitudes, longitudes, datum=datum, invalid=invalid, threads=threads)
        # np.take, not fancy indexing: a third faster on the string tables.
        result = {level: np.take(self.codes(level), found[level]) for level in LEVELS}
        result["status"] = np.take(_STATUS_NAMES, found["status"])
        result["subdivision"] = np.take(self.codes("subdivision"), found["subdivision"])
        return result  # type: ignore[return-value]

    # Classifying.
    def classify_json(self, inputs: Inputs, **options: object) -> str:
        """:meth:`classify`'s report as the JSON text ``unlocks classify --format json`` writes
        (without its final newline)."""
        sources, keep = build_inputs(inputs)
        text = ClassifyOptions.from_keywords(options).json()
        report = ctypes.c_void_p()
        length = ctypes.c_size_t()
        error = ctypes.c_void_p()
        array = (_native.Input * max(len(sources), 1))(*sources)
        code = _native.lib.au_classify(self.handle, array, len(sources), text.encode(), ctypes.byref(report),
                                       ctypes.byref(length), ctypes.byref(error))
        del keep
        _native.check(code, error)
        return _native.take_string(report, length.value)

    def classify(self, inputs: Inputs, **options: object) -> dict:
        """Classifies ``inputs`` as one person's history: see :func:`adminunlocks.classify`."""
        import json

        return json.loads(self.classify_json(inputs, **options))


def _level_number(level: str) -> int:
    try:
        return _LOCATED.index(level)  # type: ignore[arg-type]
    except ValueError:
        raise ArgumentError(f"level {level!r}: expected one of {', '.join(_LOCATED)}") from None


def _shift_point_index(message: str, offset: int) -> str:
    import re

    return re.sub(r"^point (\d+):", lambda m: f"point {int(m.group(1)) + offset}:", message)


_opened: dict[tuple[str, str | None], Tables] = {}
_opened_lock = threading.Lock()


def open_tables(worldview: Worldview = "china", directory: str | os.PathLike[str] | None = None) -> Tables:
    """The tables of ``worldview`` (from ``directory``, else those inside the package), opened
    once per process and shared: what :func:`locate` and :func:`classify` use."""
    key = (worldview, None if directory is None else os.fspath(directory))
    with _opened_lock:
        tables = _opened.get(key)
        if tables is None or tables._handle is None:
            tables = Tables(worldview, directory)
            _opened[key] = tables
        return tables
