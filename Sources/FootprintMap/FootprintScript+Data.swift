/// The page's script, in two parts (docs/footprint-format.md, "The viewer"): this one inflates
/// and decodes the page's data (``Footprint/pageData(views:)``) into typed arrays; the viewer
/// (``FootprintScript/viewer``) draws and moves the map. Plain JavaScript any browser of the last
/// years runs; no library, nothing fetched.
enum FootprintScript {
    static let data = #"""
    'use strict';
    // Raw deflate (RFC 1951): the page's data is compressed by zlib when written.
    function inflate(src, size) {
      var out = new Uint8Array(size), op = 0, ip = 0, bb = 0, bc = 0;
      function fail(what) { throw new Error('footprint data: ' + what); }
      function bits(n) {
        while (bc < n) { if (ip >= src.length) fail('truncated'); bb |= src[ip++] << bc; bc += 8; }
        var v = bb & ((1 << n) - 1); bb >>>= n; bc -= n; return v;
      }
      function table(lengths, n) {
        var count = new Uint16Array(16), offs = new Uint16Array(16), sym = new Uint16Array(n), fast = new Int32Array(512), i, len;
        for (i = 0; i < n; i++) count[lengths[i]]++;
        count[0] = 0;
        for (i = 1; i < 16; i++) offs[i] = offs[i - 1] + count[i - 1];
        for (i = 0; i < n; i++) if (lengths[i]) sym[offs[lengths[i]]++] = i;
        // Codes of up to 9 bits decoded by one look-up of the next 9 bits (bit-reversed: deflate
        // sends a code's first bit first).
        var code = 0, k = 0;
        for (len = 1; len <= 15; len++) {
          for (i = 0; i < count[len]; i++, k++, code++) {
            if (len > 9) continue;
            var rev = 0;
            for (var j = 0, c = code; j < len; j++, c >>= 1) rev = (rev << 1) | (c & 1);
            for (j = rev; j < 512; j += 1 << len) fast[j] = (sym[k] << 4) | len;
          }
          code <<= 1;
        }
        return { count: count, sym: sym, fast: fast };
      }
      function decode(h) {
        while (bc <= 16 && ip < src.length) { bb |= src[ip++] << bc; bc += 8; }
        var e = h.fast[bb & 511];
        if (e && (e & 15) <= bc) { bb >>>= e & 15; bc -= e & 15; return e >> 4; }
        var code = 0, first = 0, index = 0, c;
        for (var len = 1; len < 16; len++) {
          code |= bits(1);
          c = h.count[len];
          if (code - c < first) return h.sym[index + (code - first)];
          index += c; first += c; first <<= 1; code <<= 1;
        }
        fail('bad code');
      }
      var LBASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258],
          LEXT = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0],
          DBASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577],
          DEXT = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13],
          ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
      var last, type, lt, dt, i;
      do {
        last = bits(1); type = bits(2);
        if (type === 0) {
          bb >>>= bc & 7; bc -= bc & 7; ip -= bc >> 3; bb = 0; bc = 0;
          if (ip + 4 > src.length) fail('truncated');
          var n = src[ip] | (src[ip + 1] << 8);
          ip += 4;
          if (ip + n > src.length || op + n > size) fail('stored block too long');
          out.set(src.subarray(ip, ip + n), op); ip += n; op += n;
          continue;
        }
        var lengths = new Uint8Array(320);
        if (type === 1) {
          for (i = 0; i < 288; i++) lengths[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
          lt = table(lengths, 288);
          dt = table(new Uint8Array(30).fill(5), 30);
        } else if (type === 2) {
          var nlen = bits(5) + 257, ndist = bits(5) + 1, ncode = bits(4) + 4, cl = new Uint8Array(19);
          for (i = 0; i < ncode; i++) cl[ORDER[i]] = bits(3);
          var ct = table(cl, 19);
          for (i = 0; i < nlen + ndist;) {
            var s = decode(ct);
            if (s < 16) { lengths[i++] = s; continue; }
            var rep, val = 0;
            if (s === 16) { if (i === 0) fail('repeat with nothing before'); val = lengths[i - 1]; rep = 3 + bits(2); }
            else if (s === 17) rep = 3 + bits(3);
            else rep = 11 + bits(7);
            if (i + rep > nlen + ndist) fail('too many lengths');
            while (rep--) lengths[i++] = val;
          }
          lt = table(lengths.subarray(0, nlen), nlen);
          dt = table(lengths.subarray(nlen, nlen + ndist), ndist);
        } else fail('block type 3');
        for (;;) {
          var sym = decode(lt);
          if (sym < 256) { if (op >= size) fail('too long'); out[op++] = sym; continue; }
          if (sym === 256) break;
          sym -= 257;
          if (sym >= 29) fail('bad length');
          var len = LBASE[sym] + bits(LEXT[sym]), d = decode(dt);
          if (d >= 30) fail('bad distance');
          var dist = DBASE[d] + bits(DEXT[d]);
          if (dist > op || op + len > size) fail('bad copy');
          for (var k = 0; k < len; k++, op++) out[op] = out[op - dist];
        }
      } while (!last);
      if (op !== size) fail(op + ' bytes, expected ' + size);
      return out;
    }

    // LEB128 varints, unsigned (u) and zigzag (s), as PageDataWriter writes them.
    function Reader(bytes) { this.b = bytes; this.p = 0; }
    Reader.prototype.u = function () {
      var b = this.b, v = 0, m = 1, x;
      do { x = b[this.p++]; v += (x & 127) * m; m *= 128; } while (x & 128);
      return v;
    };
    Reader.prototype.s = function () { var v = this.u(); return v % 2 ? -(v + 1) / 2 : v / 2; };

    // Growable typed arrays for decoding.
    function List(Type) { this.a = new Type(1024); this.n = 0; this.Type = Type; }
    List.prototype.push = function (v) {
      if (this.n === this.a.length) { var b = new this.Type(this.n * 2); b.set(this.a); this.a = b; }
      this.a[this.n++] = v;
    };
    List.prototype.done = function () { return this.a.subarray(0, this.n); };

    // A table's overview: arcs (points in world units, each arc's coarsest border level) and
    // units (finest region, rings as arc references).
    function readOverview(r, Q) {
      var arcCount = r.u(), arcStart = new Uint32Array(arcCount + 1), arcLevel = new Uint8Array(arcCount), pts = new List(Float64Array);
      var x = 0, y = 0;
      for (var a = 0; a < arcCount; a++) {
        arcLevel[a] = r.u();
        var n = r.u();
        arcStart[a] = pts.n / 2;
        for (var k = 0; k < n; k++) { x += r.s(); y += r.s(); pts.push(x / Q); pts.push(y / Q); }
      }
      arcStart[arcCount] = pts.n / 2;
      var unitCount = r.u(), units = [];
      for (var u = 0; u < unitCount; u++) {
        var region = r.u() - 1, ringCount = r.u(), rings = [];
        for (var g = 0; g < ringCount; g++) {
          var h = r.u(), refs = new Int32Array(h >> 1), prev = 0;
          for (k = 0; k < refs.length; k++) { prev += r.s(); refs[k] = prev; }
          rings.push(refs);
        }
        units.push({ region: region, rings: rings });
      }
      return { pts: pts.done(), arcStart: arcStart, arcLevel: arcLevel, units: units };
    }

    // One detail box: its corners, then per table the clipped unit rings and border pieces.
    function readDetail(r, Q, tableCount) {
      var x = 0, y = 0;
      function point() { x += r.s(); y += r.s(); return [x / Q, y / Q]; }
      function line(n) { var p = new Float64Array(2 * n); for (var k = 0; k < n; k++) { var q = point(); p[2 * k] = q[0]; p[2 * k + 1] = q[1]; } return p; }
      var a = point(), b = point(), box = [a[0], a[1], b[0], b[1]], tables = [];
      for (var t = 0; t < tableCount; t++) {
        var units = [], count = r.u();
        for (var u = 0; u < count; u++) {
          var unit = r.u(), ringCount = r.u(), rings = [];
          for (var g = 0; g < ringCount; g++) rings.push(line(r.u()));
          units.push({ unit: unit, rings: rings });
        }
        var pieces = [];
        count = r.u();
        for (var k = 0; k < count; k++) { var level = r.u(); pieces.push({ level: level, pts: line(r.u()) }); }
        tables.push({ units: units, pieces: pieces });
      }
      return { box: box, tables: tables };
    }

    // Rows of the 25 m grid: latitude from the meridian distance (the grid's own series).
    var GF = 1 / 298.257223563, GN = GF / (2 - GF),
        GR = 6378137 / (1 + GN) * (1 + GN * GN / 4 + GN * GN * GN * GN / 64),
        GA1 = 3 * GN / 2 - 27 * GN * GN * GN / 32, GA2 = 21 * GN * GN / 16, GA3 = 151 * GN * GN * GN / 96;
    function rowLatitude(row) {
      var mu = row * 25 / GR;
      return (mu + GA1 * Math.sin(2 * mu) + GA2 * Math.sin(4 * mu) + GA3 * Math.sin(6 * mu)) * 180 / Math.PI;
    }
    function mercatorY(latitude) {
      var phi = Math.max(-85.05112878, Math.min(85.05112878, latitude)) * Math.PI / 180;
      return 0.5 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / (2 * Math.PI);
    }

    // Cells by row: each row's Mercator top and bottom and column count, its runs (first column,
    // length, index of the run's first cell), one familiarity level per cell.
    function readCells(r) {
      var rowCount = r.u(), top = new Float64Array(rowCount), bottom = new Float64Array(rowCount), cols = new Float64Array(rowCount),
          runStart = new Uint32Array(rowCount + 1), first = new List(Float64Array), length = new List(Uint32Array), cellStart = new List(Uint32Array);
      var row = 0, columns = 0, cells = 0;
      for (var i = 0; i < rowCount; i++) {
        row += r.s(); columns += r.s();
        top[i] = mercatorY(rowLatitude(row + 1)); bottom[i] = mercatorY(rowLatitude(row)); cols[i] = columns;
        runStart[i] = first.n;
        var runs = r.u(), end = 0;
        for (var k = 0; k < runs; k++) {
          var f = end + r.u(), n = r.u() + 1;
          first.push(f); length.push(n); cellStart.push(cells);
          cells += n; end = f + n;
        }
      }
      runStart[rowCount] = first.n;
      var levels = r.b.subarray(r.p, r.p + cells);
      r.p += cells;
      return { top: top, bottom: bottom, cols: cols, runStart: runStart, first: first.done(), length: length.done(),
               cellStart: cellStart.done(), levels: levels, count: cells };
    }

    // Explorer tiles of one zoom: their keys (y · 2^zoom + x), sorted.
    function readTiles(r) {
      var runs = r.u(), keys = new List(Float64Array), end = 0;
      for (var k = 0; k < runs; k++) {
        var f = end + r.u(), n = r.u() + 1;
        for (var j = 0; j < n; j++) keys.push(f + j);
        end = f + n;
      }
      return keys.done();
    }

    function readPage() {
      var el = document.getElementById('footprint-data'), text = atob(el.textContent.trim()), packed = new Uint8Array(text.length);
      for (var i = 0; i < text.length; i++) packed[i] = text.charCodeAt(i);
      var t0 = performance.now(), bytes = inflate(packed, +el.getAttribute('data-bytes')), r = new Reader(bytes), headLength = r.u();
      window.footprintInflateMs = performance.now() - t0;
      var meta = JSON.parse(new TextDecoder().decode(bytes.subarray(r.p, r.p + headLength)));
      r.p += headLength;
      var Q = meta.quantum, page = { meta: meta, overview: [], detail: [], tiles: [] };
      for (var t = 0; t < meta.tables.length; t++) page.overview.push(readOverview(r, meta.overviewQuantum));
      var boxes = r.u();
      for (var b = 0; b < boxes; b++) page.detail.push(readDetail(r, Q, meta.tables.length));
      page.cells = readCells(r);
      for (t = 0; t < meta.tiles.length; t++) page.tiles.push(readTiles(r));
      if (r.p !== bytes.length) throw new Error('footprint data: ' + (bytes.length - r.p) + ' bytes left over');
      return page;
    }
    """#
}
