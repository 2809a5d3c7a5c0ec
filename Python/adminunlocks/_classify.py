"""What :func:`adminunlocks.classify` takes: inputs (paths, or bytes named like files) and the
options of ``unlocks classify``, turned into the C ABI's au_input array and options JSON."""
from __future__ import annotations

import ctypes
import datetime
import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Union

from . import _native
from ._errors import ArgumentError

PathLike = Union[str, "os.PathLike[str]"]
BytesLike = Union[bytes, bytearray, memoryview]
#: One input: a path (a file, folder or archive), bytes (recognised by content), or
#: ``(name, bytes)`` (the name's extension decides the format, as a file's would).
Input = Union[PathLike, BytesLike, tuple[str, BytesLike]]
#: One input, several, or a mapping of names to bytes.
Inputs = Union[Input, Iterable[Input], Mapping[str, BytesLike]]
Datum = Literal["wgs84", "gcj02", "bd09"]

_EPOCH = datetime.date(1970, 1, 1)


def build_inputs(inputs: Inputs) -> tuple[list[_native.Input], list[object]]:
    """The au_input records, and the Python objects whose memory they point into (kept alive by
    the caller for the call)."""
    if isinstance(inputs, (str, bytes, bytearray, memoryview, os.PathLike, tuple)):
        items: list[object] = [inputs]
    elif isinstance(inputs, Mapping):
        items = list(inputs.items())
    else:
        items = list(inputs)
    if not items:
        raise ArgumentError("no inputs: give at least one path or bytes")
    records, keep = [], []
    for k, item in enumerate(items):
        if isinstance(item, (str, os.PathLike)):
            path = os.fsencode(item)
            keep.append(path)
            records.append(_native.Input(path, None, None, 0))
            continue
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            name, data = item
        elif isinstance(item, (bytes, bytearray, memoryview)):
            name, data = f"input-{k + 1}", item
        else:
            raise ArgumentError(f"input {k + 1}: expected a path, bytes or (name, bytes), got {type(item).__name__}")
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentError(f"input {name!r}: expected bytes, got {type(data).__name__}")
        buffer = bytes(data)
        encoded = name.encode()
        keep += [buffer, encoded]
        pointer = ctypes.cast(ctypes.c_char_p(buffer), ctypes.c_void_p) if buffer else None
        records.append(_native.Input(None, encoded, pointer, len(buffer)))
    return records, keep


@dataclass
class ClassifyOptions:
    """The options of ``unlocks classify``, typed (see :func:`adminunlocks.classify`)."""

    time_zone: str | None = None
    utc_offset: str | datetime.timedelta | None = None
    datum: Datum = "wgs84"
    datum_for: Mapping[str, str] | Iterable[str] = field(default_factory=list)
    since: datetime.date | str | None = None
    until: datetime.date | str | None = None
    lenient: bool = False
    include_plans: bool = False
    include_passed_through: bool = False
    include_virtual: bool = False
    explore_max_speed_kmh: float | None = None
    familiarity_levels: tuple[int, int, int] | None = None
    badges: PathLike | None = None
    jobs: int = 1

    @classmethod
    def from_keywords(cls, options: Mapping[str, object]) -> ClassifyOptions:
        known = cls.__dataclass_fields__
        for key in options:
            if key not in known:
                raise ArgumentError(f"unknown option {key!r} (expected one of {', '.join(sorted(known))})")
        return cls(**options)  # type: ignore[arg-type]

    def json(self) -> str:
        """The options as the C ABI's JSON object (adminunlocks.h, au_classify)."""
        out: dict[str, object] = {"datum": self.datum, "jobs": self.jobs, "lenient": self.lenient,
                                  "includePlans": self.include_plans, "includePassedThrough": self.include_passed_through,
                                  "includeVirtual": self.include_virtual}
        if self.time_zone is not None:
            out["timeZone"] = self.time_zone
        if self.utc_offset is not None:
            out["utcOffsetMinutes"] = _offset_minutes(self.utc_offset)
        rules = self.datum_for.items() if isinstance(self.datum_for, Mapping) else None
        out["datumFor"] = [f"{glob}={datum}" for glob, datum in rules] if rules is not None else list(self.datum_for)
        for key, day in (("since", self.since), ("until", self.until)):
            if day is not None:
                out[key] = _days(day, key)
        if self.explore_max_speed_kmh is not None:
            out["exploreMaxSpeedKmh"] = float(self.explore_max_speed_kmh)
        if self.familiarity_levels is not None:
            out["familiarityLevels"] = [int(x) for x in self.familiarity_levels]
        if self.badges is not None:
            out["badges"] = os.fspath(self.badges)
        return json.dumps(out)


def _offset_minutes(offset: str | datetime.timedelta) -> int:
    if isinstance(offset, datetime.timedelta):
        seconds = offset.total_seconds()
        if seconds % 60:
            raise ArgumentError(f"utc_offset {offset}: not a whole number of minutes")
        return int(seconds // 60)
    match = re.fullmatch(r"([+-])(\d\d):?(\d\d)?", offset)
    if not match:
        raise ArgumentError(f"utc_offset {offset!r} is not ±HH:MM (e.g. +08:00, -05:30)")
    sign = -1 if match.group(1) == "-" else 1
    hours, minutes = int(match.group(2)), int(match.group(3) or 0)
    if hours > 14 or minutes >= 60:
        raise ArgumentError(f"utc_offset {offset!r} is not ±HH:MM within ±14:00")
    return sign * (hours * 60 + minutes)


def _days(day: datetime.date | str, key: str) -> int:
    if isinstance(day, str):
        try:
            day = datetime.date.fromisoformat(day)
        except ValueError:
            raise ArgumentError(f"{key} {day!r} is not a date YYYY-MM-DD") from None
    if isinstance(day, datetime.datetime):
        raise ArgumentError(f"{key}: give a date (a local day), not a datetime")
    return (day - _EPOCH).days
