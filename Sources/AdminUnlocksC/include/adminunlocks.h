/*
 * adminunlocks.h: the C ABI of AdminUnlocks (the dynamic library product `AdminUnlocksC`,
 * libAdminUnlocksC.so / .dylib), what the Python package `adminunlocks` calls through ctypes.
 * docs/python.md describes it; Sources/AdminUnlocksC implements it.
 *
 * Conventions
 *  - Every function that can fail returns an `au_code`: AU_OK (0) or the kind of the error. When
 *    `error` is not NULL, a failing call stores an `au_error *` there (its code and a message
 *    naming the file, line or point), which the caller frees with au_error_free.
 *  - Handles are opaque pointers that the caller closes once (au_tables_close, au_logbook_close).
 *    An `au_tables` is immutable and may be used from any number of threads at once; an
 *    `au_logbook` too, its calls taken one at a time (it is the library's Logbook actor).
 *  - Strings are UTF-8. Strings a call returns through `char **` are the caller's, freed with
 *    au_string_free; strings a handle returns (region codes and names) live as long as the handle.
 *  - Options travel as a JSON object (UTF-8, NULL for the defaults), so that options can be added
 *    without changing a signature; an unknown key is an AU_ERROR_ARGUMENT.
 *  - Arrays a call returns through `T **` (au_logbook_cells) are the caller's, freed with
 *    au_buffer_free.
 */
#ifndef ADMINUNLOCKS_H
#define ADMINUNLOCKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when a signature or the meaning of a value changes; additions keep it. */
#define AU_ABI_VERSION 2

/* What went wrong: the library's error kinds. */
typedef enum au_code {
    AU_OK = 0,
    /* A bad argument: a NULL pointer, an unknown worldview or datum, options that are not a
       JSON object of known keys and valid values. */
    AU_ERROR_ARGUMENT = 1,
    /* The region tables cannot be found, read or validated (TableError: the message names the
       file and byte offset). */
    AU_ERROR_TABLE = 2,
    /* A point cannot be located (LocatorError: not finite, latitude beyond ±90 or longitude
       beyond ±180); au_locate with AU_LOCATE_STRICT only, the message names the point's index. */
    AU_ERROR_COORDINATE = 3,
    /* An input path does not exist (IntakeError .notFound). */
    AU_ERROR_NOT_FOUND = 4,
    /* An input folder cannot be listed (IntakeError .cannotList). */
    AU_ERROR_CANNOT_LIST = 5,
    /* The badge catalog cannot be read or is not valid (BadgeCatalogError). */
    AU_ERROR_BADGES = 6,
    /* A sum over the ledger would overflow (LedgerOverflow, a logbook's .overflow). */
    AU_ERROR_OVERFLOW = 7,
    /* A logbook's errors (LogbookError.Kind in Sources/LogbookStore; the message names the store): */
    AU_ERROR_NOT_A_LOGBOOK = 10,       /* not a logbook (nor a state to migrate); missing without "create" */
    AU_ERROR_NEWER_FORMAT = 11,        /* made by a newer version */
    AU_ERROR_UNMIGRATABLE_STATE = 12,  /* a state of an older format that cannot be migrated (here) */
    AU_ERROR_DAMAGED = 13,             /* SQLite's check, a checksum or a number out of range failed */
    AU_ERROR_RULES_DIFFER = 14,        /* opened with rules other than its own */
    AU_ERROR_WORLDVIEW_DIFFERS = 15,   /* made in the other worldview */
    AU_ERROR_UNKNOWN_REGION = 16,      /* names a region the tables lack */
    AU_ERROR_SIGNATURE_MISMATCH = 17,  /* signed, and changed by someone without the key (or a wrong key) */
    AU_ERROR_KEY_REQUIRED = 18,        /* signed, and no key given */
    AU_ERROR_NOT_SIGNED = 19,          /* a key given for a store nobody signed */
    AU_ERROR_NOTHING_MATCHED = 20,     /* forget / unforget: a path that names no input */
    AU_ERROR_MERGE_CONFLICT = 21,      /* merge: an input both read differently */
    AU_ERROR_RECORDING = 22,           /* a recording call out of turn (none begun, one in progress, an id used) */
    AU_ERROR_STORAGE = 23,             /* reading or writing the file failed; a change to a read-only logbook */
    AU_ERROR_INVALID_EXCLUSION = 24,   /* forget of an area or period: a bad area or period (no C call takes one yet) */
    AU_ERROR_UNREADABLE_INPUTS = 25,   /* forget of an area or period: inputs that cannot be read again (no C call yet) */
    /* Anything else (a bug: the message says what). */
    AU_ERROR_INTERNAL = 99
} au_code;

/* The levels a point is placed at. Province, city and county regions are of one table
   (china.bin): their indices share one numbering, au_region_count(t, AU_LEVEL_PROVINCE). */
typedef enum au_level {
    AU_LEVEL_COUNTRY = 0,
    AU_LEVEL_PROVINCE = 1,
    AU_LEVEL_CITY = 2,
    AU_LEVEL_COUNTY = 3,
    /* The world's states and provinces (subdivisions.bin; ISO 3166-2 codes where they exist, in
       China's view China's are its provinces, CN-BJ…): what `unlocks locate` prints as subdivision. */
    AU_LEVEL_SUBDIVISION = 4
} au_level;

/* How a point relates to the finest level it was placed at (what `unlocks locate` prints). */
typedef enum au_placement_status {
    AU_STATUS_OUTSIDE = 0,  /* in no region at any level */
    AU_STATUS_INSIDE = 1,   /* inside the region's polygon */
    AU_STATUS_EDGE = 2,     /* within the table's buffer of a coast or national border */
    AU_STATUS_INVALID = 3   /* not a coordinate (not finite, beyond ±90 / ±180): no region */
} au_placement_status;

/* au_locate's flags. */
enum {
    /* The points are in GCJ-02 (Chinese map apps), not WGS-84 (GPS). */
    AU_LOCATE_GCJ02 = 1 << 0,
    /* Fail at the first point that is not a coordinate (AU_ERROR_COORDINATE) instead of
       marking it AU_STATUS_INVALID. */
    AU_LOCATE_STRICT = 1 << 1
};

typedef struct au_error au_error;
typedef struct au_tables au_tables;
typedef struct au_logbook au_logbook;

/* A track input for au_classify: a path (a file, folder or archive, walked as `unlocks classify`
   walks it), or bytes the caller holds, named like a file (the name's extension decides the
   format, else the content). Exactly one of `path` and `bytes` is set; `bytes` may be NULL with
   `length` 0 (an empty file). */
typedef struct au_input {
    const char *path;
    const char *name;
    const uint8_t *bytes;
    size_t length;
} au_input;

/* The package version ("0.1.0") and AU_ABI_VERSION of the library loaded. */
const char *au_version(void);
int32_t au_abi_version(void);

/* Errors. */
au_code au_error_code(const au_error *error);
const char *au_error_message(const au_error *error);
void au_error_free(au_error *error);
void au_string_free(char *string);
void au_buffer_free(void *buffer);

/* Opens the tables of `directory` (world.bin or international.bin, and china.bin): memory-mapped,
   checksummed and validated. `directory` NULL: $ADMINUNLOCKS_TABLES. `worldview`: "china" (NULL: the default) or "international". */
au_code au_tables_open(const char *directory, const char *worldview, au_tables **tables, au_error **error);
void au_tables_close(au_tables *tables);
/* The folder the tables were read from, and the worldview's name; owned by the handle. */
const char *au_tables_directory(const au_tables *tables);
const char *au_tables_worldview(const au_tables *tables);

/* The regions of a level's table: their count (-1 for an unknown level, or subdivisions when the
   folder has no subdivisions.bin), and each one's code (ISO alpha-3 or the worldview's code for
   countries, the adcode in China, ISO 3166-2 for subdivisions), name, English name and parent
   index (-1 for none; in the same table). Strings are owned by the handle. AU_ERROR_ARGUMENT for
   an unknown level or an index out of range. */
int32_t au_region_count(const au_tables *tables, int32_t level);
au_code au_region_info(const au_tables *tables, int32_t level, int32_t index, const char **code,
                       const char **name, const char **english_name, int32_t *parent, au_error **error);

/* Places `count` points (latitudes[i], longitudes[i]; WGS-84 unless AU_LOCATE_GCJ02) at every
   level, as `unlocks locate` does: each output array, when not NULL, gets `count` values: the
   region's index at that level (-1 for none), the status of the finest of country, province,
   city and county placed (au_placement_status), and `subdivision`, the index of the country's
   state or province in the subdivisions' table (AU_LEVEL_SUBDIVISION). Safe to call from many
   threads at once on one handle. */
au_code au_locate(const au_tables *tables, size_t count, const double *latitudes, const double *longitudes,
                  uint32_t flags, int32_t *country, int32_t *province, int32_t *city, int32_t *county,
                  int32_t *subdivision, uint8_t *status, au_error **error);

/* Classifies `count` inputs as one person's history, as `unlocks classify` does, into the report
   (docs/report-format.md) as JSON: `*report` (its byte length in `*length` when not NULL), freed
   with au_string_free. An input's own problems (a damaged zip, a file no reader knows) are in the
   report, not errors; an error is an input path that does not exist or cannot be listed, bad
   options or a bad badge catalog. `options` (a JSON object, NULL for the defaults):
     "timeZone": "Asia/Shanghai" (IANA name) | "utcOffsetMinutes": 480   default: the system's
     "datum": "wgs84" | "gcj02" | "bd09"          "datumFor": ["GLOB=DATUM", ...]
     "since", "until": local days since 1970-01-01
     "lenient", "includePlans", "includePassedThrough", "includeVirtual": true | false
     "exploreMaxSpeedKmh": 30                     "familiarityLevels": [1, 5, 20]
     "badges": "PATH" (a badge catalog, docs/badges.md)
     "jobs": 1 (inputs read at once; the report is the same bytes for any number) */
au_code au_classify(const au_tables *tables, const au_input *inputs, size_t count, const char *options,
                    char **report, size_t *length, au_error **error);

/* ---- The logbook: a person's footprint kept in one SQLite file (Sources/LogbookStore) ----
   What an app keeps per user: the histories imported and the recordings made, what they
   unlocked and explored, the report of it all. The file is the one `unlocks classify --state
   FILE` reads and writes; every change is one transaction (a killed process leaves it as before
   or after). The calls wait for the library's Logbook actor on the caller's thread: call them
   from threads of your own (any number), never from inside a Swift task (refused). JSON results
   are the caller's (au_string_free); `length`, when not NULL, gets their byte length. */

/* Opens the logbook at `path` over `tables` (their worldview is the logbook's; the tables must
   stay open while it is), creating it when missing. `options` (JSON, NULL for the defaults):
     the rules of a new logbook, as `unlocks classify` takes them; for an existing one those given
     must be its own (AU_ERROR_RULES_DIFFER), those not given are its own:
       "timeZone": "Asia/Shanghai" | "utcOffsetMinutes": 480   default: the system's zone
       "includePlans": false  "exploreMaxSpeedKmh": 30  "familiarityLevels": [1, 5, 20]
     "datum": "wgs84" (default) | "gcj02" | "bd09": the datum reports name as the inputs' (give
       au_logbook_import the same; each input keeps the datum it was read in);
     "readOnly": true (nothing written); "create": false (a missing logbook is AU_ERROR_NOT_A_LOGBOOK;
     default true unless readOnly).
   `key`, `key_length`: the HMAC signing key (1 byte to 1 MiB; NULL and 0 for an unsigned logbook). */
au_code au_logbook_open(const au_tables *tables, const char *path, const char *options, const uint8_t *key,
                        size_t key_length, au_logbook **logbook, au_error **error);
void au_logbook_close(au_logbook *logbook);
/* {"path", "worldview", "isNew", "migratedFrom" (the old state file kept, or null), "inputs",
   "recordingId" (or null)}. */
au_code au_logbook_info(au_logbook *logbook, char **info, size_t *length, au_error **error);

/* Imports inputs (paths or bytes, as au_classify takes them): each new one classified and kept,
   one the logbook has (by content) passed over, one forgotten skipped. `*report`: the report of
   the whole logbook afterwards, with "changes" (what this import added), as `unlocks classify
   INPUTS --state FILE --format json` writes it. `options`: "datum", "datumFor", "includeVirtual",
   "jobs" (how the inputs are read), "lenient", "includePassedThrough", "badges" (the report). */
au_code au_logbook_import(au_logbook *logbook, const au_input *inputs, size_t count, const char *options,
                          char **report, size_t *length, au_error **error);

/* Live recording: one recording at a time, an input of the logbook keyed and listed by `id`
   (unique, e.g. "live/<uuid>"); `name`, `activity_type` may be NULL; `datum` "wgs84" (NULL),
   "gcj02" or "bd09". au_logbook_record classifies `count` points in order and keeps them (one
   transaction): `times` in milliseconds since 1970 (NULL: none timed; INT64_MIN: that point
   untimed), `accuracies` in metres (NULL or NaN: none). `*changes` (may be NULL): what they
   changed in the whole logbook: {"regions": [{"level", "code", "name", "englishName", "evidence",
   "previousEvidence" (null when new), "firstVisit": {"time", "lat", "lon"}}], "newCells": N}.
   au_logbook_break_segment: a gap the app knows of. au_logbook_end_recording: the recording
   becomes an input like a file; its last changes. Out of turn: AU_ERROR_RECORDING. */
au_code au_logbook_begin_recording(au_logbook *logbook, const char *id, const char *name, const char *activity_type,
                                   const char *datum, au_error **error);
au_code au_logbook_record(au_logbook *logbook, size_t count, const double *latitudes, const double *longitudes,
                          const int64_t *times, const double *accuracies, char **changes, size_t *length, au_error **error);
au_code au_logbook_break_segment(au_logbook *logbook, au_error **error);
au_code au_logbook_end_recording(au_logbook *logbook, char **changes, size_t *length, au_error **error);

/* The report of the whole logbook (the recording in progress as if it ended now), as
   `unlocks show FILE --format json`. `options`: "lenient", "includePassedThrough", "badges" (each
   badge's percent reported is raised and kept, as Game Center expects). */
au_code au_logbook_report(au_logbook *logbook, const char *options, char **report, size_t *length, au_error **error);

/* What changed since `since_ms` (milliseconds since 1970): the report's "changes" object
   (docs/report-format.md) of the logbook now against its figures then (kept for each change of
   the last 48 hours, before that the last of each day). `options` as au_logbook_report's. */
au_code au_logbook_changes(au_logbook *logbook, int64_t since_ms, const char *options, char **changes, size_t *length,
                           au_error **error);

/* The explored cells (25 m, the report's grid) whose bounds meet the viewport (degrees; west >
   east crosses the antimeridian), from the store's R-tree, in key order: `*count` cells, and
   arrays the caller frees with au_buffer_free: `*keys` (the cell's key), `*bounds` (4 per cell:
   south, west, north, east) and `*levels` (familiarity: 0 gray, 1 lit, 2 bright, 3 gold). */
au_code au_logbook_cells(au_logbook *logbook, double south, double west, double north, double east, size_t *count,
                         int64_t **keys, double **bounds, uint8_t **levels, au_error **error);

/* Forgets inputs named by path (as the report lists them, a folder or archive naming every input
   under it, or a file or folder on disk whose contents inputs have), as if never read, and keeps
   them forgotten (an import skips them); au_logbook_unforget brings them back. A path that
   matches nothing is AU_ERROR_NOTHING_MATCHED and nothing changes. `*result` (may be NULL):
   {"forgotten" (or "restored"): [paths], "duplicates": [paths], "report": the report, with
   "changes"}. `options` as au_logbook_report's. */
au_code au_logbook_forget(au_logbook *logbook, const char *const *paths, size_t count, const char *options,
                          char **result, size_t *length, au_error **error);
au_code au_logbook_unforget(au_logbook *logbook, const char *const *paths, size_t count, const char *options,
                            char **result, size_t *length, au_error **error);

/* Joins the logbook at `other` (made with the same rules; `key` its signing key, NULL for none)
   into this one, as `unlocks merge` does: the union of their inputs. `*report` (may be NULL): the
   report afterwards, with "changes". */
au_code au_logbook_merge(au_logbook *logbook, const char *other, const uint8_t *key, size_t key_length, const char *options,
                         char **report, size_t *length, au_error **error);

#ifdef __cplusplus
}
#endif

#endif /* ADMINUNLOCKS_H */
