/// Python 3 functions that write track files for tests (run with `python3 -c`, prepended to a
/// script): what the intake's and the CLI's tests build their folders and archives from.
public enum PythonTracks {
    /// `csv(n, lat, lon, start)`: a timed CSV track of n points 1 s apart walking north;
    /// `gpx(n, lat, lon, start, waypoints)`; `fit(points)`: a minimal valid FIT activity (file
    /// header with CRC, file_id, record messages with timestamp and position, file CRC; checked
    /// with fitdecode 0.10.0); `tcx(points)`; `gz(bytes)`.
    public static let helpers = """
    import gzip, io, struct, zipfile
    def csv(n, lat, lon, start=1714525200):
        import datetime
        rows = ["lat,lon,time"]
        for i in range(n):
            t = datetime.datetime.fromtimestamp(start + i, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            rows.append("%.6f,%.6f,%s" % (lat + i * 0.00001, lon, t))
        return ("\\n".join(rows) + "\\n").encode()
    def gpx(n, lat, lon, start=1714525200, waypoints=0):
        import datetime
        out = ['<?xml version="1.0"?>\\n<gpx version="1.1" creator="test">']
        for k in range(waypoints):
            out.append('<wpt lat="%.6f" lon="%.6f"><name>pin %d</name></wpt>' % (lat, lon, k))
        out.append('<trk><type>cycling</type><trkseg>')
        for i in range(n):
            t = datetime.datetime.fromtimestamp(start + i, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append('<trkpt lat="%.6f" lon="%.6f"><time>%s</time></trkpt>' % (lat + i * 0.00001, lon, t))
        out.append('</trkseg></trk></gpx>\\n')
        return "\\n".join(out).encode()
    TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401, 0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    def crc16(data, crc=0):
        for b in data:
            t = TABLE[crc & 0xF]; crc = (crc >> 4) & 0x0FFF; crc = crc ^ t ^ TABLE[b & 0xF]
            t = TABLE[crc & 0xF]; crc = (crc >> 4) & 0x0FFF; crc = crc ^ t ^ TABLE[(b >> 4) & 0xF]
        return crc
    def fit(points):
        body = bytes([0x40, 0, 0]) + struct.pack('<HB', 0, 1) + bytes([0, 1, 0x00]) + bytes([0x00, 4])
        body += bytes([0x41, 0, 0]) + struct.pack('<HB', 20, 3) + bytes([253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
        for t, lat, lon in points:
            body += bytes([0x01]) + struct.pack('<Iii', t - 631065600, round(lat / 180 * 2**31), round(lon / 180 * 2**31))
        header = struct.pack('<BBHI4s', 14, 0x20, 2132, len(body), b'.FIT')
        header += struct.pack('<H', crc16(header))
        data = header + body
        return data + struct.pack('<H', crc16(data))
    def tcx(points):
        import datetime
        out = ['<?xml version="1.0" encoding="UTF-8"?>',
               '<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">',
               '<Activities><Activity Sport="Running"><Id>2024-05-01T01:00:00Z</Id><Lap StartTime="2024-05-01T01:00:00Z"><Track>']
        for t, lat, lon in points:
            when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            out.append('<Trackpoint><Time>%s</Time><Position><LatitudeDegrees>%.6f</LatitudeDegrees><LongitudeDegrees>%.6f</LongitudeDegrees></Position></Trackpoint>' % (when, lat, lon))
        out.append('</Track></Lap></Activity></Activities></TrainingCenterDatabase>\\n')
        return "\\n".join(out).encode()
    def gz(data):
        return gzip.compress(data, mtime=0)
    def zipped(entries):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, data in entries:
                z.writestr(name, data)
        return buffer.getvalue()

    """
}
