/*
 * adminunlocks.h: the C ABI of AdminUnlocks (the dynamic library product `AdminUnlocksC`,
 * libAdminUnlocksC.so / .dylib), what the Python package `adminunlocks` calls through ctypes.
 * docs/python.md describes it; Sources/AdminUnlocksC implements it.
 *
 * Conventions
 *  - Every function that can fail returns an `au_code`: AU_OK (0) or the kind of the error. When
 *    `error` is not NULL, a failing call stores an `au_error *` there (its code and a message
 *    naming the file, line or point), which the caller frees with au_error_free.
 *  - Handles are opaque pointers that the caller closes once (au_tables_close). An `au_tables`
 *    is immutable and may be used from any number of threads at once.
 *  - Strings are UTF-8. Strings a call returns through `char **` are the caller's, freed with
 *    au_string_free; strings a handle returns (region codes and names) live as long as the handle.
 *  - Options travel as a JSON object (UTF-8, NULL for the defaults), so that options can be added
 *    without changing a signature; an unknown key is an AU_ERROR_ARGUMENT.
 *
 * Reserved for the footprint session (issue 31, an SQLite store): an `au_footprint` handle opened
 * over an `au_tables` (au_footprint_open / import / record / report / forget / merge / close),
 * the same conventions; the codes below leave room for its errors.
 */
#ifndef ADMINUNLOCKS_H
#define ADMINUNLOCKS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Raised when a signature or the meaning of a value changes; additions keep it. */
#define AU_ABI_VERSION 1

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
    /* A sum over the ledger would overflow (LedgerOverflow). */
    AU_ERROR_OVERFLOW = 7,
    /* Anything else (a bug: the message says what). */
    AU_ERROR_INTERNAL = 99
} au_code;

/* The levels a point is placed at. Province, city and county regions are of one table
   (china.bin): their indices share one numbering, au_region_count(t, AU_LEVEL_PROVINCE). */
typedef enum au_level {
    AU_LEVEL_COUNTRY = 0,
    AU_LEVEL_PROVINCE = 1,
    AU_LEVEL_CITY = 2,
    AU_LEVEL_COUNTY = 3
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

/* Opens the tables of `directory` (world.bin or international.bin, and china.bin): memory-mapped,
   checksummed and validated. `directory` NULL: $ADMINUNLOCKS_TABLES. `worldview`: "china" (NULL: the default) or "international". */
au_code au_tables_open(const char *directory, const char *worldview, au_tables **tables, au_error **error);
void au_tables_close(au_tables *tables);
/* The folder the tables were read from, and the worldview's name; owned by the handle. */
const char *au_tables_directory(const au_tables *tables);
const char *au_tables_worldview(const au_tables *tables);

/* The regions of a level's table: their count, and each one's code (ISO alpha-3 or the
   worldview's code for countries, the adcode in China), name, English name and parent index (-1
   for none; in the same table). Strings are owned by the handle. AU_ERROR_ARGUMENT for an
   unknown level or an index out of range. */
int32_t au_region_count(const au_tables *tables, int32_t level);
au_code au_region_info(const au_tables *tables, int32_t level, int32_t index, const char **code,
                       const char **name, const char **english_name, int32_t *parent, au_error **error);

/* Places `count` points (latitudes[i], longitudes[i]; WGS-84 unless AU_LOCATE_GCJ02) at every
   level, as `unlocks locate` does: each output array, when not NULL, gets `count` values: the
   region's index at that level (-1 for none) and the status of the finest level placed
   (au_placement_status). Safe to call from many threads at once on one handle. */
au_code au_locate(const au_tables *tables, size_t count, const double *latitudes, const double *longitudes,
                  uint32_t flags, int32_t *country, int32_t *province, int32_t *city, int32_t *county,
                  uint8_t *status, au_error **error);

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

#ifdef __cplusplus
}
#endif

#endif /* ADMINUNLOCKS_H */
