"""The C ABI (adminunlocks.h) through ctypes: loading the library, its signatures, and calls that
turn an error into the exception of its kind. Nothing here holds a rule of the library's."""
from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

from ._errors import error_for

ABI_VERSION = 2
PACKAGE_DIRECTORY = Path(__file__).resolve().parent
LIBRARY_NAME = "libAdminUnlocksC.dylib" if sys.platform == "darwin" else "libAdminUnlocksC.so"


class _Input(ctypes.Structure):
    """au_input: a path, or bytes named like a file."""

    _fields_ = [("path", ctypes.c_char_p), ("name", ctypes.c_char_p),
                ("bytes", ctypes.c_void_p), ("length", ctypes.c_size_t)]


_int32_p = ctypes.POINTER(ctypes.c_int32)
_uint8_p = ctypes.POINTER(ctypes.c_uint8)
_double_p = ctypes.POINTER(ctypes.c_double)
_int64_p = ctypes.POINTER(ctypes.c_int64)
_error_pp = ctypes.POINTER(ctypes.c_void_p)
_pointer_p = ctypes.POINTER(ctypes.c_void_p)
_size_p = ctypes.POINTER(ctypes.c_size_t)


def library_path() -> Path:
    """The shared library: ``$ADMINUNLOCKS_LIBRARY`` when set (a development build), else the one
    inside the package."""
    override = os.environ.get("ADMINUNLOCKS_LIBRARY")
    return Path(override) if override else PACKAGE_DIRECTORY / LIBRARY_NAME


def _load() -> ctypes.CDLL:
    path = library_path()
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as problem:
        raise ImportError(f"adminunlocks: cannot load its library {path}: {problem}") from problem
    signatures = {
        "au_version": ([], ctypes.c_char_p),
        "au_abi_version": ([], ctypes.c_int32),
        "au_error_code": ([ctypes.c_void_p], ctypes.c_int32),
        "au_error_message": ([ctypes.c_void_p], ctypes.c_char_p),
        "au_error_free": ([ctypes.c_void_p], None),
        "au_string_free": ([ctypes.c_void_p], None),
        "au_tables_open": ([ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), _error_pp], ctypes.c_int32),
        "au_tables_close": ([ctypes.c_void_p], None),
        "au_tables_directory": ([ctypes.c_void_p], ctypes.c_char_p),
        "au_tables_worldview": ([ctypes.c_void_p], ctypes.c_char_p),
        "au_region_count": ([ctypes.c_void_p, ctypes.c_int32], ctypes.c_int32),
        "au_region_info": ([ctypes.c_void_p, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p),
                            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p), _int32_p, _error_pp], ctypes.c_int32),
        "au_buffer_free": ([ctypes.c_void_p], None),
        "au_locate": ([ctypes.c_void_p, ctypes.c_size_t, _double_p, _double_p, ctypes.c_uint32,
                       _int32_p, _int32_p, _int32_p, _int32_p, _int32_p, _uint8_p, _error_pp], ctypes.c_int32),
        "au_classify": ([ctypes.c_void_p, ctypes.POINTER(_Input), ctypes.c_size_t, ctypes.c_char_p,
                         ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t), _error_pp], ctypes.c_int32),
        # The logbook (JSON results through `char **` and a length).
        "au_logbook_open": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                             _pointer_p, _error_pp], ctypes.c_int32),
        "au_logbook_close": ([ctypes.c_void_p], None),
        "au_logbook_info": ([ctypes.c_void_p, _pointer_p, _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_import": ([ctypes.c_void_p, ctypes.POINTER(_Input), ctypes.c_size_t, ctypes.c_char_p, _pointer_p, _size_p,
                               _error_pp], ctypes.c_int32),
        "au_logbook_begin_recording": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                        _error_pp], ctypes.c_int32),
        "au_logbook_record": ([ctypes.c_void_p, ctypes.c_size_t, _double_p, _double_p, _int64_p, _double_p, _pointer_p, _size_p,
                               _error_pp], ctypes.c_int32),
        "au_logbook_break_segment": ([ctypes.c_void_p, _error_pp], ctypes.c_int32),
        "au_logbook_end_recording": ([ctypes.c_void_p, _pointer_p, _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_report": ([ctypes.c_void_p, ctypes.c_char_p, _pointer_p, _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_changes": ([ctypes.c_void_p, ctypes.c_int64, ctypes.c_char_p, _pointer_p, _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_cells": ([ctypes.c_void_p, ctypes.c_double, ctypes.c_double, ctypes.c_double, ctypes.c_double, _size_p,
                              _pointer_p, _pointer_p, _pointer_p, _error_pp], ctypes.c_int32),
        "au_logbook_forget": ([ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_char_p, _pointer_p,
                               _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_unforget": ([ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_size_t, ctypes.c_char_p, _pointer_p,
                                 _size_p, _error_pp], ctypes.c_int32),
        "au_logbook_merge": ([ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, _pointer_p,
                              _size_p, _error_pp], ctypes.c_int32),
    }
    for name, (arguments, result) in signatures.items():
        function = getattr(lib, name)
        function.argtypes = arguments
        function.restype = result
    found = lib.au_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"adminunlocks: {path} has C ABI version {found}; this package speaks {ABI_VERSION}")
    return lib


lib = _load()


def check(code: int, error: ctypes.c_void_p) -> None:
    """Raises the exception of the error's kind when a call failed (and frees the error)."""
    if code == 0:
        return
    message = "(no message)"
    if error.value:
        raw = lib.au_error_message(error)
        message = raw.decode("utf-8", "replace") if raw else message
        lib.au_error_free(error)
    raise error_for(code, message)


def take_string(pointer: ctypes.c_void_p, length: int) -> str:
    """A string the library returned, decoded and freed."""
    try:
        return ctypes.string_at(pointer, length).decode("utf-8")
    finally:
        lib.au_string_free(pointer)


def json_call(function: object, *arguments: object) -> str:
    """Calls a function whose last three parameters are `char **text, size_t *length, au_error
    **error`, and returns the text (raising the error of its kind)."""
    text, length, error = ctypes.c_void_p(), ctypes.c_size_t(), ctypes.c_void_p()
    code = function(*arguments, ctypes.byref(text), ctypes.byref(length), ctypes.byref(error))  # type: ignore[operator]
    check(code, error)
    return take_string(text, length.value)


Input = _Input
int32_p, uint8_p, double_p, int64_p = _int32_p, _uint8_p, _double_p, _int64_p
