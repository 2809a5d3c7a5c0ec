"""Logbook: a person's footprint kept in one SQLite file, the library's ``Logbook`` through the C
ABI (au_logbook_* in adminunlocks.h). Every rule and figure is the library's; this module turns
Python's types into the ABI's and its JSON back into dicts."""
from __future__ import annotations

import contextlib
import ctypes
import datetime
import json
import os
import threading
from collections.abc import Iterable, Iterator
from typing import TypedDict, Union

import numpy as np
import numpy.typing as npt

from . import _native
from ._classify import Datum, Inputs, PathLike, _offset_minutes, build_inputs
from ._errors import ArgumentError
from ._tables import Tables, Worldview, open_tables

#: A moment: an aware ``datetime`` (a naive one is taken as UTC), or seconds since 1970.
Moment = Union[datetime.datetime, float, int]
#: The familiarity levels of a cell, by the number :meth:`Logbook.cells` gives.
FAMILIARITY: tuple[str, ...] = ("gray", "lit", "bright", "gold")
_UNTIMED = np.iinfo(np.int64).min


class Cells(TypedDict):
    """Explored cells (25 m, the report's grid) as arrays of one length, in key order: ``key``
    (int64, the cell's key on the grid), its bounds ``south``, ``west``, ``north``, ``east``
    (float64 degrees) and ``familiarity`` (uint8: 0 gray, 1 lit, 2 bright, 3 gold; names in
    :data:`FAMILIARITY`)."""

    key: npt.NDArray[np.int64]
    south: npt.NDArray[np.float64]
    west: npt.NDArray[np.float64]
    north: npt.NDArray[np.float64]
    east: npt.NDArray[np.float64]
    familiarity: npt.NDArray[np.uint8]


class Logbook:
    """A person's footprint, kept in one SQLite file (the *store*): every history imported and
    every recording made, what they unlocked and explored. The same file as ``unlocks classify
    --state FILE`` (either can add to what the other made) and the same figures.

    >>> with adminunlocks.Logbook("alice.logbook", time_zone="Asia/Shanghai") as book:
    ...     report = book.import_sources(["history/", "takeout.zip"])   # the report, with "changes"
    ...     with book.recording("live/2024-05-01"):
    ...         changes = book.record(lats, lons, times)                # what these points unlocked
    ...     cells = book.cells(south=39.8, west=116.2, north=40.0, east=116.5)

    ``path``: the store, created when missing (``create=False``: a missing one raises
    :class:`LogbookError` of kind NOT_A_LOGBOOK). A state file of the previous format is migrated
    in place. ``worldview``: whose borders countries follow (a logbook keeps its own: another is
    refused). The rules of a new logbook: ``time_zone`` (an IANA name) or ``utc_offset``
    ('+08:00' or a timedelta), default the system's; ``include_plans``;
    ``explore_max_speed_kmh``; ``familiarity_levels`` (lit, bright, gold). An existing logbook
    keeps its own rules: those given must be the same (else RULES_DIFFER). ``datum``: the datum
    :meth:`import_sources` reads inputs in by default, which reports name (as ``--datum`` with
    ``--state``; each input keeps the datum it was read in). ``key``: the HMAC
    signing key (bytes, or a str encoded as UTF-8): a signed logbook is refused without it
    (KEY_REQUIRED) or changed by someone without it (SIGNATURE_MISMATCH). ``read_only``: nothing
    is written. ``tables``: a folder of tables instead of the package's.

    Errors are :class:`LogbookError` with the library's ``kind`` (switch on it), and the
    package's other exceptions (:class:`InputNotFoundError`, :class:`ArgumentError` …). A
    logbook may be used from several threads (its calls are taken one at a time) and by several
    processes at once (SQLite orders their writes). Close it (or use ``with``) to release the file.
    """

    def __init__(self, path: PathLike, *, worldview: Worldview = "china", key: bytes | str | None = None, datum: Datum = "wgs84",
                 time_zone: str | None = None, utc_offset: str | datetime.timedelta | None = None,
                 include_plans: bool | None = None, explore_max_speed_kmh: float | None = None,
                 familiarity_levels: tuple[int, int, int] | None = None, read_only: bool = False, create: bool = True,
                 tables: PathLike | Tables | None = None) -> None:
        self._tables = tables if isinstance(tables, Tables) else open_tables(worldview, tables)
        options: dict[str, object] = {"readOnly": bool(read_only), "create": bool(create) and not read_only, "datum": datum}
        if time_zone is not None:
            options["timeZone"] = time_zone
        if utc_offset is not None:
            options["utcOffsetMinutes"] = _offset_minutes(utc_offset)
        if include_plans is not None:
            options["includePlans"] = bool(include_plans)
        if explore_max_speed_kmh is not None:
            options["exploreMaxSpeedKmh"] = float(explore_max_speed_kmh)
        if familiarity_levels is not None:
            options["familiarityLevels"] = [int(x) for x in familiarity_levels]
        key_bytes = _key(key)
        handle, error = ctypes.c_void_p(), ctypes.c_void_p()
        code = _native.lib.au_logbook_open(self._tables.handle, os.fsencode(path), json.dumps(options).encode(), key_bytes,
                                           len(key_bytes or b""), ctypes.byref(handle), ctypes.byref(error))
        _native.check(code, error)
        self._handle: ctypes.c_void_p | None = handle
        self._lock = threading.Lock()
        self._datum = datum
        info = self.info()
        #: The store's path (links resolved), and the worldview its countries follow.
        self.path: str = info["path"]
        self.worldview: str = info["worldview"]
        #: Whether this open created the store.
        self.is_new: bool = info["isNew"]

    # Lifetime.
    def close(self) -> None:
        """Releases the store (later calls raise :class:`ArgumentError`). A recording in
        progress is kept in the store and goes on when the logbook is opened again."""
        with self._lock:
            if self._handle is not None:
                _native.lib.au_logbook_close(self._handle)
                self._handle = None

    def __enter__(self) -> Logbook:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        if getattr(self, "_handle", None) is not None and _native is not None:
            _native.lib.au_logbook_close(self._handle)

    def __repr__(self) -> str:
        state = "closed" if self._handle is None else f"worldview={self.worldview!r}"
        return f"Logbook({self.path!r}, {state})"

    @property
    def handle(self) -> ctypes.c_void_p:
        if self._handle is None:
            raise ArgumentError("the logbook is closed")
        return self._handle

    def info(self) -> dict:
        """``path``, ``worldview``, ``isNew``, ``migratedFrom`` (the state file of the previous
        format kept beside it, or None), ``inputs`` (how many) and ``recordingId`` (or None)."""
        return json.loads(_native.json_call(_native.lib.au_logbook_info, self.handle))

    @property
    def recording_id(self) -> str | None:
        """The id of the recording in progress, None between recordings."""
        return self.info()["recordingId"]

    # Importing.
    def import_sources(self, inputs: Inputs, *, datum: Datum | None = None, datum_for: dict[str, str] | list[str] | None = None,
                       include_virtual: bool = False, jobs: int = 1, lenient: bool = False,
                       include_passed_through: bool = False, badges: PathLike | None = None) -> dict:
        """Imports histories as ``unlocks classify INPUTS --state FILE`` does: paths (files,
        folders, archives, export bundles) or bytes, as :func:`adminunlocks.classify` takes them.
        Each new input is classified and kept; one the logbook has (by content) is passed over;
        one forgotten is skipped. Returns the report of the whole logbook afterwards (a dict,
        docs/report-format.md) with ``changes``: what this import added. ``datum`` (default: the
        logbook's),
        ``datum_for`` ({glob: datum}), ``include_virtual`` and ``jobs`` say how the inputs are
        read; ``lenient``, ``include_passed_through`` and ``badges`` shape the report."""
        options: dict[str, object] = {"datum": datum or self._datum, "includeVirtual": include_virtual, "jobs": jobs,
                                      **_report_options(lenient, include_passed_through, badges)}
        if datum_for:
            options["datumFor"] = [f"{g}={d}" for g, d in datum_for.items()] if isinstance(datum_for, dict) else list(datum_for)
        sources, keep = build_inputs(inputs)
        array = (_native.Input * max(len(sources), 1))(*sources)
        text = _native.json_call(_native.lib.au_logbook_import, self.handle, array, len(sources), json.dumps(options).encode())
        del keep
        return json.loads(text)

    # Recording live.
    def begin_recording(self, id: str, *, name: str | None = None, activity_type: str | None = None,
                        datum: Datum = "wgs84") -> None:
        """Starts a recording: one new input of the logbook, ``id`` its key and its path in the
        report (unique, e.g. ``live/<uuid>``), ``name`` its activity name, ``datum`` the datum of
        the points fed (GCJ-02 from a Chinese map SDK). One recording at a time."""
        error = ctypes.c_void_p()
        code = _native.lib.au_logbook_begin_recording(self.handle, id.encode(), _text(name), _text(activity_type), datum.encode(),
                                                      ctypes.byref(error))
        _native.check(code, error)

    def record(self, latitudes: npt.ArrayLike, longitudes: npt.ArrayLike, times: npt.ArrayLike | None = None,
               accuracies: npt.ArrayLike | None = None) -> dict:
        """Classifies points of the recording in progress, in order, and keeps them (one
        transaction per call): arrays of one length of latitudes and longitudes (degrees, in the
        recording's datum), ``times`` (``datetime64`` values, or seconds since 1970; NaT or NaN:
        untimed) and ``accuracies`` (metres; NaN: unknown). Returns what they changed in the
        whole logbook: ``regions`` whose standing rose (``level``, ``code``, ``name``,
        ``englishName``, ``evidence``, ``previousEvidence`` (None when new), ``firstVisit``) and
        ``newCells``, the cells explored for the first time. Raises :class:`LogbookError` of kind
        RECORDING when no recording is in progress."""
        lat = np.ascontiguousarray(latitudes, dtype=np.float64).reshape(-1)
        lon = np.ascontiguousarray(longitudes, dtype=np.float64).reshape(-1)
        if lat.shape != lon.shape:
            raise ArgumentError(f"latitudes ({lat.size}) and longitudes ({lon.size}) differ in length")
        stamps = None if times is None else _milliseconds(times, lat.size)
        accuracy = None
        if accuracies is not None:
            accuracy = np.ascontiguousarray(accuracies, dtype=np.float64).reshape(-1)
            if accuracy.shape != lat.shape:
                raise ArgumentError(f"accuracies ({accuracy.size}) and latitudes ({lat.size}) differ in length")
        text = _native.json_call(_native.lib.au_logbook_record, self.handle, lat.size, lat.ctypes.data_as(_native.double_p),
                                 lon.ctypes.data_as(_native.double_p),
                                 None if stamps is None else stamps.ctypes.data_as(_native.int64_p),
                                 None if accuracy is None else accuracy.ctypes.data_as(_native.double_p))
        return json.loads(text)

    def break_segment(self) -> None:
        """Marks a gap the app knows of (tracking paused, the fix lost): no leg joins the points
        on either side."""
        error = ctypes.c_void_p()
        _native.check(_native.lib.au_logbook_break_segment(self.handle, ctypes.byref(error)), error)

    def end_recording(self) -> dict:
        """Ends the recording: what was still open is decided and the recording becomes an
        input like an imported file. Returns the last changes (as :meth:`record`)."""
        return json.loads(_native.json_call(_native.lib.au_logbook_end_recording, self.handle))

    @contextlib.contextmanager
    def recording(self, id: str, *, name: str | None = None, activity_type: str | None = None,
                  datum: Datum = "wgs84") -> Iterator[Logbook]:
        """``with book.recording(id): book.record(...)``: begins a recording and ends it when the
        block ends, also by an exception (the points recorded so far are kept)."""
        self.begin_recording(id, name=name, activity_type=activity_type, datum=datum)
        try:
            yield self
        finally:
            self.end_recording()

    # Reading.
    def report(self, *, lenient: bool = False, include_passed_through: bool = False, badges: PathLike | None = None) -> dict:
        """The report of the whole logbook (the recording in progress as if it ended now), as
        ``unlocks show FILE --format json`` gives it. With ``badges`` (a catalog file), each
        badge's reported percent is raised and kept (it never goes down)."""
        return json.loads(self.report_json(lenient=lenient, include_passed_through=include_passed_through, badges=badges))

    def report_json(self, *, lenient: bool = False, include_passed_through: bool = False, badges: PathLike | None = None) -> str:
        """:meth:`report` as the JSON text the library writes."""
        options = json.dumps(_report_options(lenient, include_passed_through, badges)).encode()
        return _native.json_call(_native.lib.au_logbook_report, self.handle, options)

    def changes_since(self, moment: Moment, *, lenient: bool = False, include_passed_through: bool = False,
                      badges: PathLike | None = None) -> dict:
        """What changed since ``moment``: the report's ``changes`` object (regions unlocked,
        confirmed and lost; area, distance, days, tiles, familiar cells, badges) of the logbook
        now against its figures then. The figures are kept after each change (every one of the
        last 48 hours, before that the last of each day); a moment before the first gives all."""
        options = json.dumps(_report_options(lenient, include_passed_through, badges)).encode()
        return json.loads(_native.json_call(_native.lib.au_logbook_changes, self.handle, _moment_milliseconds(moment), options))

    def cells(self, south: float, west: float, north: float, east: float) -> Cells:
        """The explored cells whose bounds meet the viewport (degrees; ``west > east`` crosses
        the antimeridian), from the store's R-tree: what a map draws, with each cell's
        familiarity. See :class:`Cells`."""
        count = ctypes.c_size_t()
        keys, bounds, levels, error = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        code = _native.lib.au_logbook_cells(self.handle, float(south), float(west), float(north), float(east), ctypes.byref(count),
                                            ctypes.byref(keys), ctypes.byref(bounds), ctypes.byref(levels), ctypes.byref(error))
        _native.check(code, error)
        n = count.value
        try:
            key = np.frombuffer(ctypes.string_at(keys, 8 * n), dtype=np.int64).copy()
            box = np.frombuffer(ctypes.string_at(bounds, 32 * n), dtype=np.float64).reshape(n, 4).copy()
            level = np.frombuffer(ctypes.string_at(levels, n), dtype=np.uint8).copy()
        finally:
            for buffer in (keys, bounds, levels):
                _native.lib.au_buffer_free(buffer)
        return {"key": key, "south": box[:, 0].copy(), "west": box[:, 1].copy(), "north": box[:, 2].copy(),
                "east": box[:, 3].copy(), "familiarity": level}

    # Forgetting and merging.
    def forget(self, paths: PathLike | Iterable[PathLike], *, lenient: bool = False, include_passed_through: bool = False,
               badges: PathLike | None = None) -> dict:
        """Forgets inputs as if never read, and keeps them forgotten (an import skips them):
        named by their path in the report (a folder or archive names every input under it), or
        files and folders on disk whose contents inputs have. Returns ``forgotten`` and
        ``duplicates`` (paths) and the ``report`` afterwards, with its ``changes``. A path that
        names nothing raises :class:`LogbookError` of kind NOTHING_MATCHED, and nothing changes."""
        return self._forget(_native.lib.au_logbook_forget, paths, lenient, include_passed_through, badges)

    def unforget(self, paths: PathLike | Iterable[PathLike], *, lenient: bool = False, include_passed_through: bool = False,
                 badges: PathLike | None = None) -> dict:
        """Undoes :meth:`forget`: the inputs at these paths are no longer skipped, and the next
        import that meets them reads them again. Returns ``restored``, ``duplicates`` and the
        ``report``."""
        return self._forget(_native.lib.au_logbook_unforget, paths, lenient, include_passed_through, badges)

    def _forget(self, function: object, paths: PathLike | Iterable[PathLike], lenient: bool, include_passed_through: bool,
                badges: PathLike | None) -> dict:
        names = [os.fsencode(p) for p in ([paths] if isinstance(paths, (str, bytes, os.PathLike)) else paths)]
        if not names:
            raise ArgumentError("no paths: name at least one input to forget")
        array = (ctypes.c_char_p * len(names))(*names)
        options = json.dumps(_report_options(lenient, include_passed_through, badges)).encode()
        return json.loads(_native.json_call(function, self.handle, array, len(names), options))

    def merge(self, other: PathLike, *, key: bytes | str | None = None, lenient: bool = False,
              include_passed_through: bool = False, badges: PathLike | None = None) -> dict:
        """Joins the logbook at ``other`` (made with the same rules; ``key`` its signing key) into
        this one, as ``unlocks merge`` does: the union of their inputs, so users' shards
        classified apart give the report one import of everything gives. Returns the report
        afterwards, with ``changes``. An input both read differently raises
        :class:`LogbookError` of kind MERGE_CONFLICT."""
        key_bytes = _key(key)
        options = json.dumps(_report_options(lenient, include_passed_through, badges)).encode()
        return json.loads(_native.json_call(_native.lib.au_logbook_merge, self.handle, os.fsencode(other), key_bytes,
                                            len(key_bytes or b""), options))


def _key(key: bytes | str | None) -> bytes | None:
    if key is None:
        return None
    if isinstance(key, str):
        key = key.encode()
    if not isinstance(key, (bytes, bytearray)) or not key:
        raise ArgumentError("key: expected non-empty bytes (or a str)")
    return bytes(key)


def _text(value: str | None) -> bytes | None:
    return None if value is None else value.encode()


def _report_options(lenient: bool, include_passed_through: bool, badges: PathLike | None) -> dict[str, object]:
    options: dict[str, object] = {"lenient": bool(lenient), "includePassedThrough": bool(include_passed_through)}
    if badges is not None:
        options["badges"] = os.fspath(badges)
    return options


def _milliseconds(times: npt.ArrayLike, count: int) -> npt.NDArray[np.int64]:
    """Times as milliseconds since 1970 (INT64_MIN for untimed), from datetime64 or seconds."""
    values = np.asarray(times).reshape(-1)
    if values.size != count:
        raise ArgumentError(f"times ({values.size}) and latitudes ({count}) differ in length")
    if np.issubdtype(values.dtype, np.datetime64):
        untimed = np.isnat(values)
        stamps = values.astype("datetime64[ms]").astype(np.int64)
    elif np.issubdtype(values.dtype, np.number):
        seconds = values.astype(np.float64)
        untimed = ~np.isfinite(seconds)
        stamps = np.round(np.where(untimed, 0, seconds) * 1000).astype(np.int64)
    else:
        raise ArgumentError(f"times: expected datetime64 values or seconds since 1970, got {values.dtype}")
    return np.ascontiguousarray(np.where(untimed, _UNTIMED, stamps), dtype=np.int64)


def _moment_milliseconds(moment: Moment) -> int:
    if isinstance(moment, datetime.datetime):
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=datetime.timezone.utc)
        return int((moment - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(milliseconds=1))
    if isinstance(moment, (int, float)) and np.isfinite(moment):
        return int(np.floor(float(moment) * 1000))
    raise ArgumentError(f"moment {moment!r}: expected a datetime or seconds since 1970")
