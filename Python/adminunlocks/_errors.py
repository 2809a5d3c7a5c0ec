"""The library's error kinds as Python exceptions (au_code in adminunlocks.h)."""
from __future__ import annotations

import enum


class ErrorKind(enum.Enum):
    """What went wrong, as the library says: switch on this, never on a message's text."""

    ARGUMENT = 1
    TABLE = 2
    COORDINATE = 3
    NOT_FOUND = 4
    CANNOT_LIST = 5
    BADGES = 6
    OVERFLOW = 7
    # A logbook's (LogbookError.Kind in the library), raised as LogbookError.
    NOT_A_LOGBOOK = 10
    NEWER_FORMAT = 11
    UNMIGRATABLE_STATE = 12
    DAMAGED = 13
    RULES_DIFFER = 14
    WORLDVIEW_DIFFERS = 15
    UNKNOWN_REGION = 16
    SIGNATURE_MISMATCH = 17
    KEY_REQUIRED = 18
    NOT_SIGNED = 19
    NOTHING_MATCHED = 20
    MERGE_CONFLICT = 21
    RECORDING = 22
    STORAGE = 23
    INVALID_EXCLUSION = 24
    UNREADABLE_INPUTS = 25
    INTERNAL = 99


class AdminUnlocksError(Exception):
    """An error the library reported: ``kind`` (an :class:`ErrorKind`) and the library's message,
    which names the file, byte offset or point."""

    kind: ErrorKind = ErrorKind.INTERNAL

    def __init__(self, message: str, kind: ErrorKind | None = None) -> None:
        super().__init__(message)
        self.message = message
        if kind is not None:
            self.kind = kind

    def __str__(self) -> str:
        return self.message


class ArgumentError(AdminUnlocksError, ValueError):
    """A bad argument: an unknown worldview or datum, an option out of range, arrays of
    different lengths."""

    kind = ErrorKind.ARGUMENT


class TableError(AdminUnlocksError, OSError):
    """The region tables cannot be found, read or validated (the message names the file and the
    byte offset)."""

    kind = ErrorKind.TABLE


class CoordinateError(AdminUnlocksError, ValueError):
    """A point is not a coordinate (not finite, latitude beyond ±90, longitude beyond ±180);
    the message names the point's index."""

    kind = ErrorKind.COORDINATE


class InputNotFoundError(AdminUnlocksError, FileNotFoundError):
    """An input path of :func:`classify` does not exist."""

    kind = ErrorKind.NOT_FOUND


class CannotListError(AdminUnlocksError, OSError):
    """An input folder of :func:`classify` cannot be listed."""

    kind = ErrorKind.CANNOT_LIST


class BadgeCatalogError(AdminUnlocksError, ValueError):
    """The badge catalog cannot be read or is not valid (docs/badges.md)."""

    kind = ErrorKind.BADGES


class LedgerOverflowError(AdminUnlocksError, OverflowError):
    """A sum over the ledger would overflow."""

    kind = ErrorKind.OVERFLOW


class LogbookError(AdminUnlocksError):
    """A logbook cannot be opened, changed or read: ``kind`` says why (NOT_A_LOGBOOK,
    NEWER_FORMAT, UNMIGRATABLE_STATE, DAMAGED, RULES_DIFFER, WORLDVIEW_DIFFERS, UNKNOWN_REGION,
    SIGNATURE_MISMATCH, KEY_REQUIRED, NOT_SIGNED, NOTHING_MATCHED, MERGE_CONFLICT, RECORDING,
    STORAGE); the message names the store."""

    kind = ErrorKind.STORAGE


LOGBOOK_KINDS = frozenset(kind for kind in ErrorKind if 10 <= kind.value < 99)


class InternalError(AdminUnlocksError):
    """Anything else: a bug in the library (please report it with the message)."""

    kind = ErrorKind.INTERNAL


_BY_KIND: dict[ErrorKind, type[AdminUnlocksError]] = {
    cls.kind: cls
    for cls in (ArgumentError, TableError, CoordinateError, InputNotFoundError, CannotListError,
                BadgeCatalogError, LedgerOverflowError, InternalError)
}


def error_for(code: int, message: str) -> AdminUnlocksError:
    """The exception for a library error code (an unknown code is an InternalError naming it)."""
    try:
        kind = ErrorKind(code)
    except ValueError:
        return InternalError(f"error code {code}: {message}")
    if kind in LOGBOOK_KINDS:
        return LogbookError(message, kind)
    return _BY_KIND[kind](message)
