"""The installed wheel: its version, its tables, its header, and that it runs where Swift is not
installed (a bare environment, the toolchain's folder hidden in a mount namespace of its own)."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import adminunlocks as au
from unlocks_cli import REPOSITORY, run_unlocks

PACKAGE = Path(au.__file__).resolve().parent


def test_versions_agree() -> None:
    cli = run_unlocks("--version").stdout.decode().split()
    assert au.__version__ == au.library_version()
    assert au.__version__ in cli[:3]


def test_the_package_is_the_installed_wheel_with_the_committed_tables() -> None:
    if os.environ.get("ADMINUNLOCKS_WHEEL"):
        assert Path(sys.prefix).resolve() in PACKAGE.parents, f"testing {PACKAGE}, not the wheel installed in {sys.prefix}"
        names = zipfile.ZipFile(os.environ["ADMINUNLOCKS_WHEEL"]).namelist()
        for required in ("adminunlocks/libAdminUnlocksC.so", "adminunlocks/adminunlocks.h", "adminunlocks/py.typed",
                         "adminunlocks/tables/china.bin", "adminunlocks/tables/world.bin", "adminunlocks/tables/international.bin",
                         "adminunlocks/tables/subdivisions.bin", "adminunlocks/tables/continents.tsv", "adminunlocks/tables/cldr-names.tsv.gz"):
            assert required in names
    for name in sorted(path.name for path in (REPOSITORY / "Data/regions").iterdir()):
        shipped = au.bundled_directory() / name
        assert hashlib.sha256(shipped.read_bytes()).digest() == hashlib.sha256((REPOSITORY / "Data/regions" / name).read_bytes()).digest()
    assert au.open_tables().directory == au.bundled_directory()


BARE_SCRIPT = r"""
import json, os, sys
import numpy as np
import adminunlocks as au
placed = au.locate(np.array([39.9163, 22.28, 35.68]), np.array([116.3972, 114.1588, 139.76]))
report = au.classify({"walk.gpx": open(sys.argv[1], "rb").read()}, time_zone="Asia/Shanghai")
maps = [line.split()[-1] for line in open("/proc/self/maps") if any(word in line for word in ("swift", "Foundation", "AdminUnlocks"))]
hidden = os.environ.get("ADMINUNLOCKS_TOOLCHAIN_HIDDEN")
print(json.dumps({"county": placed["county"].tolist(), "country": placed["country"].tolist(),
                  "metrics": report["metrics"], "maps": sorted(set(maps)),
                  "toolchainHidden": hidden is not None and not os.listdir(hidden), "environment": sorted(os.environ)}))
"""


def bare_run(command: list[str]) -> subprocess.CompletedProcess:
    """`command` with no environment but PATH, in a mount namespace where the Swift toolchain's
    folder is an empty one (when this process may make one: root on Linux)."""
    swift = shutil.which("swiftc")
    toolchain = Path(swift).resolve().parents[2] if swift else None
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    unshare = shutil.which("unshare")
    if toolchain and unshare and os.geteuid() == 0:
        hide = f"mount -t tmpfs none {toolchain} && exec \"$@\""
        probe = subprocess.run([unshare, "--mount", "sh", "-c", hide, "sh", "true"], capture_output=True)
        if probe.returncode == 0:
            command = [unshare, "--mount", "sh", "-c", hide, "sh", *command]
            env["ADMINUNLOCKS_TOOLCHAIN_HIDDEN"] = str(toolchain)
    return subprocess.run(command, env=env, capture_output=True, timeout=300)


def test_it_runs_where_swift_is_not_installed(tmp_path: Path) -> None:
    script = tmp_path / "bare.py"
    script.write_text(BARE_SCRIPT)
    done = bare_run([sys.executable, str(script), str(REPOSITORY / "Data/samples/2024-05-01-beijing-walk.gpx")])
    assert done.returncode == 0, done.stderr.decode()
    found = json.loads(done.stdout)
    assert found["county"] == ["110101", "810001", ""] and found["country"] == ["CHN", "CHN", "JPN"]
    here = au.classify({"walk.gpx": (REPOSITORY / "Data/samples/2024-05-01-beijing-walk.gpx").read_bytes()}, time_zone="Asia/Shanghai")
    assert found["metrics"] == here["metrics"]
    # The only Swift code mapped is the package's own library: no toolchain runtime.
    assert found["maps"] == [str(PACKAGE / "libAdminUnlocksC.so")], found["maps"]
    assert "LD_LIBRARY_PATH" not in found["environment"]
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("swiftc"):
        assert found["toolchainHidden"], "the toolchain's folder was not hidden"


def test_the_header_is_the_librarys_abi(tmp_path: Path) -> None:
    """A C program written against adminunlocks.h, built and run against the installed library."""
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    assert compiler, "no C compiler to build the header's check with"
    source = tmp_path / "check.c"
    source.write_text(r"""
#include <stdio.h>
#include <string.h>
#include "adminunlocks.h"
int main(int argc, char **argv) {
    au_tables *tables = NULL; au_error *error = NULL;
    if (au_abi_version() != AU_ABI_VERSION) return 10;
    if (au_tables_open(argv[1], "china", &tables, &error) != AU_OK) { printf("open: %s\n", au_error_message(error)); return 11; }
    double lat[2] = {39.9163, 95}, lon[2] = {116.3972, 0};
    int32_t country[2], province[2], city[2], county[2], subdivision[2]; uint8_t status[2];
    if (au_locate(tables, 2, lat, lon, 0, country, province, city, county, subdivision, status, NULL) != AU_OK) return 12;
    const char *code = NULL, *name = NULL, *english = NULL, *division = NULL; int32_t parent = -2;
    if (au_region_info(tables, AU_LEVEL_COUNTY, county[0], &code, &name, &english, &parent, NULL) != AU_OK) return 13;
    if (au_region_info(tables, AU_LEVEL_SUBDIVISION, subdivision[0], &division, NULL, NULL, NULL, NULL) != AU_OK) return 13;
    printf("%s %s %d %d %d %s\n", code, english, status[0], status[1], county[1], division);
    if (au_locate(tables, 2, lat, lon, AU_LOCATE_STRICT, country, NULL, NULL, NULL, NULL, NULL, &error) != AU_ERROR_COORDINATE) return 14;
    printf("%d %s\n", au_error_code(error), au_error_message(error)); au_error_free(error);
    au_input input = {"/no/such/path", NULL, NULL, 0}; char *report = NULL; size_t length = 0;
    au_code code2 = au_classify(tables, &input, 1, NULL, &report, &length, &error);
    printf("%d %d\n", code2, au_error_code(error)); au_error_free(error);
    const char *gpx = "<gpx version=\"1.1\"><trk><trkseg><trkpt lat=\"39.9163\" lon=\"116.3972\"><time>2024-05-01T01:00:00Z</time></trkpt>"
                      "<trkpt lat=\"39.9164\" lon=\"116.3973\"><time>2024-05-01T01:00:10Z</time></trkpt>"
                      "<trkpt lat=\"39.9165\" lon=\"116.3974\"><time>2024-05-01T01:00:20Z</time></trkpt></trkseg></trk></gpx>";
    au_input bytes = {NULL, "walk.gpx", (const uint8_t *)gpx, strlen(gpx)};
    if (au_classify(tables, &bytes, 1, "{\"timeZone\": \"UTC\"}", &report, &length, NULL) != AU_OK) return 15;
    printf("%zu %d\n", length, strstr(report, "\"110101\"") != NULL);
    au_string_free(report);
    if (au_classify(tables, &bytes, 1, "{\"timezone\": \"UTC\"}", &report, &length, &error) != AU_ERROR_ARGUMENT) return 16;
    au_error_free(error);
    /* A logbook: the walk imported, three live points recorded, its cells read back. */
    au_logbook *logbook = NULL;
    if (au_logbook_open(tables, argv[2], "{\"timeZone\": \"UTC\"}", NULL, 0, &logbook, &error) != AU_OK) { printf("logbook: %s\n", au_error_message(error)); return 17; }
    if (au_logbook_import(logbook, &bytes, 1, NULL, &report, &length, NULL) != AU_OK) return 18;
    au_string_free(report);
    if (au_logbook_begin_recording(logbook, "live/1", NULL, NULL, NULL, NULL) != AU_OK) return 19;
    double rlat[3] = {31.2304, 31.2306, 31.2308}, rlon[3] = {121.4737, 121.4739, 121.4741};
    int64_t times[3] = {1714525200000, 1714525210000, 1714525220000};
    if (au_logbook_record(logbook, 3, rlat, rlon, times, NULL, &report, &length, NULL) != AU_OK) return 20;
    au_string_free(report);
    if (au_logbook_end_recording(logbook, NULL, NULL, NULL) != AU_OK) return 21;
    size_t cells = 0; int64_t *keys = NULL; double *bounds = NULL; uint8_t *levels = NULL;
    if (au_logbook_cells(logbook, -90, -180, 90, 180, &cells, &keys, &bounds, &levels, NULL) != AU_OK) return 22;
    printf("%d %d\n", cells > 0, bounds[0] <= bounds[2]);
    au_buffer_free(keys); au_buffer_free(bounds); au_buffer_free(levels);
    const char *nothing[1] = {"no/such/input.gpx"};
    if (au_logbook_forget(logbook, nothing, 1, NULL, NULL, NULL, &error) != AU_ERROR_NOTHING_MATCHED) return 23;
    au_error_free(error);
    au_logbook_close(logbook);
    au_tables_close(tables);
    return 0;
}
""")
    binary = tmp_path / "check"
    subprocess.run([compiler, "-std=c11", "-Wall", "-Werror", "-I", str(PACKAGE), str(source), "-o", str(binary),
                    str(PACKAGE / "libAdminUnlocksC.so"), f"-Wl,-rpath,{PACKAGE}"], check=True)
    done = bare_run([str(binary), str(au.bundled_directory()), str(tmp_path / "user.logbook")])
    assert done.returncode == 0, (done.returncode, done.stdout, done.stderr)
    lines = done.stdout.decode().splitlines()
    assert lines[0] == "110101 Dongcheng District 1 3 -1 CN-BJ"
    assert lines[1].startswith("3 point 1: latitude 95.0")
    assert lines[2] == "4 4"
    assert lines[3].endswith(" 1")
    assert lines[4] == "1 1"
    assert (tmp_path / "user.logbook").read_bytes()[68:72] == b"AULB"  # the logbook's SQLite application id
