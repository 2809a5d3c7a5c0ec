"""The members of each archive fixture as Python's zipfile, tarfile and gzip read them (the
independent decoders): name (as the intake names it: a member of a zip in a zip as
`inner.zip:name`), size and CRC-32 (a digest of the bytes decoded), in archive order; directories left out. Written to
expected.json beside them (Scripts/make-archive-fixtures)."""
import gzip, io, json, os, sys, tarfile, zipfile, zlib

folder = sys.argv[1]
def entry(name, data):
    return {"name": name, "size": len(data), "crc32": zlib.crc32(data)}
def zip_name(info):
    """The name's bytes read as the intake reads them: UTF-8 where valid (a name without the UTF-8
    flag is its writer's code page, which zipfile takes for CP437; Info-ZIP writes UTF-8 unflagged)."""
    raw = info.filename.encode("utf-8" if info.flag_bits & 0x800 else "cp437")
    return raw.decode("utf-8", errors="backslashreplace")
expected = {}
for file in sorted(os.listdir(folder)):
    path = os.path.join(folder, file)
    members = []
    if file.endswith((".zip", ".kmz")):
        with zipfile.ZipFile(path) as z:
            for info in sorted(z.infolist(), key=lambda i: i.header_offset):
                if info.is_dir(): continue
                data = z.read(info)
                members.append(entry(zip_name(info), data))
                if info.filename.endswith(".zip"):
                    with zipfile.ZipFile(io.BytesIO(data)) as inner:
                        for i in sorted(inner.infolist(), key=lambda i: i.header_offset):
                            if not i.is_dir(): members.append(entry(zip_name(info) + ":" + zip_name(i), inner.read(i)))
    elif file.endswith((".tar", ".tgz")):
        with tarfile.open(path) as t:
            for info in t.getmembers():
                if not info.isfile(): continue
                name = info.name[2:] if info.name.startswith("./") else info.name
                members.append(entry(name, t.extractfile(info).read()))
    elif file.endswith(".gz"):
        members.append(entry("", gzip.open(path).read()))
    else:
        continue
    expected[file] = members
json.dump(expected, open(os.path.join(folder, "expected.json"), "w"), indent=1, ensure_ascii=False, sort_keys=True)
