extension FootprintScript {
    /// The viewer: one canvas in Web Mercator, moved by pointer (drag, pinch), wheel, keys and
    /// the zoom buttons; regions shaded by unlock at the chosen level, explored cells by
    /// familiarity, explorer tiles and the max square; a tap names what is under it.
    static let viewer = #"""
    var COLOURS = { sea: '#cfe3f1', land: '#ebe8e1', tentative: '#f3d27a', passed: '#c3cfdc',
                    cells: ['#7a7a7a', '#d7263d', '#ff8c1a', '#f2c200'], border: ['#69727c', '#858d96', '#a3aab1'] };
    // Green from pale (0.0001% explored) to dark (100%) on a logarithmic scale, as the legend.
    function shareColour(percent) {
      var t = Math.min(1, Math.max(0, (Math.log10(Math.max(percent || 0, 1e-9)) + 4) / 6));
      function mix(a, b) { return Math.round(a + (b - a) * t); }
      return 'rgb(' + mix(196, 16) + ',' + mix(232, 107) + ',' + mix(184, 50) + ')';
    }
    var LEVELS = ['country', 'province', 'city', 'county'];

    function FootprintMap(page, root) {
      var meta = page.meta, self = this;
      var canvas = root.querySelector('canvas'), ctx = canvas.getContext('2d');
      var info = document.getElementById('info');
      var view = { x: 0.5, y: 0.5, z: 2 }, width = 0, height = 0, dpr = 1;
      var levelChoice = 'auto', tileZoom = 14, showCells = true, renderMs = 0, snapshot = null, idleTimer = 0, frame = 0;
      var S = 1 << 24; // local path units per world unit

      // Regions: per table, the level index of each region and its parent chain.
      var tables = meta.tables.map(function (t, ti) {
        return { name: t.name, levels: t.levels, regions: t.regions, overview: page.overview[ti], colours: {}, paths: [], boxes: [] };
      });
      // A table's own level index for a page level (the world has only countries).
      function tableLevel(table, level) { var i = table.levels.indexOf(LEVELS[level]); return i < 0 ? table.levels.length - 1 : i; }
      function regionAt(table, region, levelIndex) {
        while (region >= 0 && table.regions[region][0] > levelIndex) region = table.regions[region][1];
        return region >= 0 && table.regions[region][0] === levelIndex ? region : -1;
      }
      function regionColour(table, region) {
        var r = region >= 0 ? table.regions[region] : null;
        if (!r || r.length < 6) return COLOURS.land;
        return r[5] === 1 ? shareColour(r[6]) : r[5] === 3 ? COLOURS.passed : COLOURS.tentative;
      }
      // Fill colour of each unit at a level (cached per level).
      function unitColours(table, levelIndex) {
        if (table.colours[levelIndex]) return table.colours[levelIndex];
        var units = table.overview.units, out = new Array(units.length);
        for (var u = 0; u < units.length; u++) out[u] = regionColour(table, regionAt(table, units[u].region, levelIndex));
        return (table.colours[levelIndex] = out);
      }

      // Paths in local units (world units · S from an origin), built once and drawn through a
      // transform: Path2D keeps single-precision floats, so an origin near the shape keeps them exact.
      function ringPath(path, pts, arcStart, refs, ox, oy) {
        var started = false;
        for (var k = 0; k < refs.length; k++) {
          var ref = refs[k], a = ref < 0 ? ~ref : ref, s = arcStart[a], e = arcStart[a + 1] - 1;
          for (var i = 0; i <= e - s; i++) {
            var p = ref < 0 ? e - i : s + i;
            if (i === 0 && started) continue;
            var x = (pts[2 * p] - ox) * S, y = (pts[2 * p + 1] - oy) * S;
            if (started) path.lineTo(x, y); else { path.moveTo(x, y); started = true; }
          }
        }
        path.closePath();
      }
      tables.forEach(function (table) {
        var o = table.overview;
        o.units.forEach(function (unit, u) {
          var minX = 1, minY = 1, maxX = 0, maxY = 0;
          unit.rings.forEach(function (refs) {
            for (var k = 0; k < refs.length; k++) {
              var a = refs[k] < 0 ? ~refs[k] : refs[k];
              for (var p = o.arcStart[a]; p < o.arcStart[a + 1]; p++) {
                var x = o.pts[2 * p], y = o.pts[2 * p + 1];
                if (x < minX) minX = x; if (x > maxX) maxX = x; if (y < minY) minY = y; if (y > maxY) maxY = y;
              }
            }
          });
          table.boxes[u] = [minX, minY, maxX, maxY];
        });
        // Borders in a 16 × 16 grid of buckets per level, each its own path near its origin.
        table.borders = {};
        for (var a = 0; a < o.arcLevel.length; a++) {
          var level = o.arcLevel[a];
          if (level >= table.levels.length) continue;
          var s = o.arcStart[a], e = o.arcStart[a + 1];
          if (e - s < 2) continue;
          var key = level + ':' + Math.floor(o.pts[2 * s] * 16) + ':' + Math.floor(o.pts[2 * s + 1] * 16);
          var b = table.borders[key];
          if (!b) {
            b = table.borders[key] = { level: level, ox: Math.floor(o.pts[2 * s] * 16) / 16, oy: Math.floor(o.pts[2 * s + 1] * 16) / 16,
                                       box: [1, 1, 0, 0], path: new Path2D() };
          }
          for (var p = s; p < e; p++) {
            var x = o.pts[2 * p], y = o.pts[2 * p + 1];
            if (p === s) b.path.moveTo((x - b.ox) * S, (y - b.oy) * S); else b.path.lineTo((x - b.ox) * S, (y - b.oy) * S);
            b.box = [Math.min(b.box[0], x), Math.min(b.box[1], y), Math.max(b.box[2], x), Math.max(b.box[3], y)];
          }
        }
      });
      function unitPath(table, u) {
        if (!table.paths[u]) {
          var o = table.overview, box = table.boxes[u], path = new Path2D();
          o.units[u].rings.forEach(function (refs) { ringPath(path, o.pts, o.arcStart, refs, box[0], box[1]); });
          table.paths[u] = path;
        }
        return table.paths[u];
      }
      // Detail boxes: their units' clipped rings and border pieces as paths from the box's corner.
      var details = page.detail.map(function (d) {
        var ox = d.box[0], oy = d.box[1];
        function path(lines, closed) {
          var p = new Path2D();
          lines.forEach(function (pts) {
            for (var i = 0; i < pts.length; i += 2) {
              if (i === 0) p.moveTo((pts[0] - ox) * S, (pts[1] - oy) * S); else p.lineTo((pts[i] - ox) * S, (pts[i + 1] - oy) * S);
            }
            if (closed) p.closePath();
          });
          return p;
        }
        return { box: d.box, tables: d.tables.map(function (t) {
          var borders = {};
          t.pieces.forEach(function (piece) { (borders[piece.level] = borders[piece.level] || []).push(piece.pts); });
          return { units: t.units.map(function (u) { return { unit: u.unit, path: path(u.rings, true) }; }),
                   borders: Object.keys(borders).map(function (level) { return { level: +level, path: path(borders[level], false) }; }) };
        }) };
      });

      // ---- view ----
      function scale() { return 256 * Math.pow(2, view.z); }
      function bounds() {
        var W = scale();
        return { left: view.x - width / 2 / W, top: view.y - height / 2 / W, right: view.x + width / 2 / W, bottom: view.y + height / 2 / W, W: W };
      }
      function minZoom() { return Math.max(0, Math.log2(Math.max(width, 1) / 256) - 0.5); }
      function clamp() {
        view.z = Math.min(19, Math.max(minZoom(), view.z));
        view.x = Math.min(1, Math.max(0, view.x));
        view.y = Math.min(0.95, Math.max(0.05, view.y));
      }
      function levelIndex() {
        if (levelChoice !== 'auto') return LEVELS.indexOf(levelChoice);
        return view.z < 5 ? 1 : view.z < 7.5 ? 2 : 3;
      }
      function setTransform(W, ox, oy, b) {
        var k = dpr * W / S;
        ctx.setTransform(k, 0, 0, k, dpr * (ox - b.left) * W, dpr * (oy - b.top) * W);
        return k;
      }
      function meets(box, b) { return box[0] <= b.right && box[2] >= b.left && box[1] <= b.bottom && box[3] >= b.top; }

      // ---- drawing ----
      function drawRegions(b, level) {
        var W = b.W;
        tables.forEach(function (table, ti) {
          if (ti > 0 && level === 0) return;
          var colours = unitColours(table, tableLevel(table, level));
          for (var u = 0; u < table.overview.units.length; u++) {
            if (!meets(table.boxes[u], b)) continue;
            setTransform(W, table.boxes[u][0], table.boxes[u][1], b);
            ctx.fillStyle = colours[u];
            ctx.fill(unitPath(table, u), 'evenodd');
          }
          drawBorders(table, ti, b, level, table.borders);
        });
      }
      // Thin lines when zoomed out, where borders crowd; coarser levels thicker.
      function borderWidth(ti, level, arcLevel) {
        var k = Math.min(1, Math.max(0.45, (view.z - 1) / 6));
        if (ti === 0) return 1.1 * k;
        return (arcLevel === 0 ? 1.6 : arcLevel === 1 ? 1 : 0.6) * k;
      }
      function drawBorders(table, ti, b, level, borders) {
        Object.keys(borders).forEach(function (key) {
          var bucket = borders[key], arcLevel = bucket.level;
          if (ti > 0 && arcLevel > tableLevel(table, level)) return;
          if (!meets(bucket.box, b)) return;
          var k = setTransform(b.W, bucket.ox, bucket.oy, b);
          ctx.lineWidth = borderWidth(ti, level, arcLevel) * dpr / k;
          ctx.strokeStyle = COLOURS.border[ti === 0 ? 0 : arcLevel];
          ctx.stroke(bucket.path);
        });
      }
      function drawDetail(d, b, level) {
        var W = b.W, box = d.box;
        ctx.save();
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.beginPath();
        ctx.rect((box[0] - b.left) * W, (box[1] - b.top) * W, (box[2] - box[0]) * W, (box[3] - box[1]) * W);
        ctx.clip();
        ctx.fillStyle = COLOURS.sea;
        ctx.fill();
        d.tables.forEach(function (t, ti) {
          if (ti > 0 && level === 0) return;
          var table = tables[ti], colours = unitColours(table, tableLevel(table, level));
          t.units.forEach(function (u) {
            setTransform(W, box[0], box[1], b);
            ctx.fillStyle = colours[u.unit];
            ctx.fill(u.path, 'evenodd');
          });
        });
        d.tables.forEach(function (t, ti) {
          if (ti > 0 && level === 0) return;
          t.borders.forEach(function (border) {
            if (ti > 0 && border.level > tableLevel(tables[ti], level)) return;
            var k = setTransform(W, box[0], box[1], b);
            ctx.lineWidth = borderWidth(ti, level, border.level) * 1.5 * dpr / k;
            ctx.strokeStyle = COLOURS.border[ti === 0 ? 0 : border.level];
            ctx.stroke(border.path);
          });
        });
        ctx.restore();
      }
      // Explored cells: squares where a cell is over a pixel wide, else 2 px dots, each showing
      // the highest familiarity level among its cells.
      function drawCells(b) {
        var c = page.cells, W = b.W, n = c.top.length;
        if (!n) return;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        // Rows are south to north: bottoms decrease. First row whose top is above the view's bottom.
        var lo = 0, hi = n;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (c.top[mid] > b.bottom) lo = mid + 1; else hi = mid; }
        var dot = 2, gw = Math.ceil(width / dot) + 1, gh = Math.ceil(height / dot) + 1, grid = null;
        var rects = [[], [], [], []];
        for (var i = lo; i < n && c.bottom[i] >= b.top; i++) {
          var cols = c.cols[i], cw = W / cols;
          var y0 = (c.top[i] - b.top) * W, y1 = (c.bottom[i] - b.top) * W;
          var firstCol = Math.floor(b.left * cols), lastCol = Math.ceil(b.right * cols);
          for (var k = c.runStart[i]; k < c.runStart[i + 1]; k++) {
            var f = c.first[k], len = c.length[k];
            if (f + len < firstCol || f > lastCol) continue;
            var from = Math.max(f, firstCol), to = Math.min(f + len, lastCol + 1), base = c.cellStart[k] - f;
            if (cw >= 1.5) {
              for (var col = from; col < to;) {
                var lv = c.levels[base + col], end = col + 1;
                while (end < to && c.levels[base + end] === lv) end++;
                rects[lv].push((col / cols - b.left) * W, y0, (end - col) * cw, y1 - y0);
                col = end;
              }
            } else {
              if (!grid) grid = new Uint8Array(gw * gh);
              var gy = Math.floor((y0 + y1) / 2 / dot);
              if (gy < 0 || gy >= gh) continue;
              for (col = from; col < to; col++) {
                var gx = Math.floor(((col + 0.5) / cols - b.left) * W / dot);
                if (gx < 0 || gx >= gw) continue;
                var v = c.levels[base + col] + 1;
                if (grid[gy * gw + gx] < v) grid[gy * gw + gx] = v;
              }
            }
          }
        }
        if (grid) {
          for (var gy2 = 0; gy2 < gh; gy2++) {
            for (var gx2 = 0; gx2 < gw;) {
              var v2 = grid[gy2 * gw + gx2];
              if (!v2) { gx2++; continue; }
              var e2 = gx2 + 1;
              while (e2 < gw && grid[gy2 * gw + e2] === v2) e2++;
              rects[v2 - 1].push(gx2 * dot, gy2 * dot, (e2 - gx2) * dot, dot);
              gx2 = e2;
            }
          }
        }
        for (var level = 0; level < 4; level++) {
          var list = rects[level];
          if (!list.length) continue;
          ctx.fillStyle = COLOURS.cells[level];
          ctx.beginPath();
          for (var j = 0; j < list.length; j += 4) ctx.rect(list[j], list[j + 1], list[j + 2], list[j + 3]);
          ctx.fill();
        }
      }
      // Explorer tiles of the chosen zoom, its max square, and the tiles that would grow it.
      function drawTiles(b) {
        var t = meta.tiles.findIndex(function (x) { return x.zoom === tileZoom; });
        if (t < 0) return;
        var m = meta.tiles[t], keys = page.tiles[t], N = Math.pow(2, m.zoom), W = b.W, px = W / N;
        if (px < 3) return;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        var y0 = Math.max(0, Math.floor(b.top * N)), y1 = Math.min(N - 1, Math.floor(b.bottom * N)),
            x0 = Math.floor(b.left * N), x1 = Math.floor(b.right * N);
        var lo = 0, hi = keys.length;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (keys[mid] < y0 * N) lo = mid + 1; else hi = mid; }
        ctx.beginPath();
        for (var k = lo; k < keys.length && keys[k] < (y1 + 1) * N; k++) {
          var x = keys[k] % N, y = (keys[k] - x) / N;
          if (x < x0 || x > x1) continue;
          ctx.rect((x / N - b.left) * W, (y / N - b.top) * W, px, px);
        }
        ctx.fillStyle = 'rgba(245,166,35,0.16)';
        ctx.fill();
        ctx.strokeStyle = '#f5a623';
        ctx.lineWidth = px > 12 ? 1 : 0.5;
        ctx.stroke();
        function square(s, colour, widthPx, dash) {
          ctx.beginPath();
          ctx.rect((s[0] / N - b.left) * W, (s[1] / N - b.top) * W, s[2] * px, s[2] * px);
          ctx.setLineDash(dash);
          ctx.strokeStyle = colour;
          ctx.lineWidth = widthPx;
          ctx.stroke();
          ctx.setLineDash([]);
        }
        if (m.missing && px >= 5) {
          ctx.beginPath();
          m.missing.forEach(function (s) { ctx.rect((s[0] / N - b.left) * W + 1, (s[1] / N - b.top) * W + 1, px - 2, px - 2); });
          ctx.setLineDash([4, 3]);
          ctx.strokeStyle = '#1f6feb';
          ctx.lineWidth = 1.5;
          ctx.stroke();
          ctx.setLineDash([]);
        }
        if (m.square) square([m.square[0], m.square[1], m.square[2]], '#1f6feb', 3, []);
      }
      // Places known without cells (a photo): a pin at each, the size of a finger's tip.
      function drawPins(b) {
        var pins = meta.pins || [];
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        pins.forEach(function (pin) {
          var x = (pin[0] - b.left) * b.W, y = (pin[1] - b.top) * b.W;
          if (x < -20 || y < -30 || x > width + 20 || y > height + 30) return;
          ctx.beginPath();
          ctx.moveTo(x, y);
          ctx.lineTo(x - 7, y - 12);
          ctx.arc(x, y - 15, 7.6, Math.PI * 0.84, Math.PI * 0.16, false);
          ctx.closePath();
          ctx.fillStyle = '#d7263d';
          ctx.fill();
          ctx.lineWidth = 2;
          ctx.strokeStyle = '#fff';
          ctx.stroke();
        });
      }
      function drawScale(b) {
        var latitude = Math.atan(Math.sinh(Math.PI * (1 - 2 * view.y))), metresPerPx = 40075016.686 * Math.cos(latitude) / b.W;
        var target = metresPerPx * 100, unit = Math.pow(10, Math.floor(Math.log10(target))), nice = unit;
        [2, 5, 10].forEach(function (f) { if (unit * f <= target) nice = unit * f; });
        var px = nice / metresPerPx, label = nice >= 1000 ? nice / 1000 + ' km' : nice + ' m';
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        ctx.fillStyle = 'rgba(255,255,255,0.8)';
        ctx.fillRect(8, height - 26, px + 56, 20);
        ctx.strokeStyle = '#333'; ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.moveTo(12, height - 14); ctx.lineTo(12, height - 10); ctx.lineTo(12 + px, height - 10); ctx.lineTo(12 + px, height - 14); ctx.stroke();
        ctx.fillStyle = '#222'; ctx.font = '12px system-ui, sans-serif';
        ctx.fillText(label, 16 + px, height - 10);
      }
      function render() {
        frame = 0;
        var started = performance.now(), b = bounds(), level = levelIndex();
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.fillStyle = COLOURS.sea;
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        var shown = view.z >= meta.detailFrom ? details.filter(function (d) { return meets(d.box, b); }) : [];
        ctx.save();
        if (shown.length) {
          // The overview everywhere but inside the detail boxes.
          ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
          ctx.beginPath();
          ctx.rect(0, 0, width, height);
          shown.forEach(function (d) { ctx.rect((d.box[0] - b.left) * b.W, (d.box[1] - b.top) * b.W, (d.box[2] - d.box[0]) * b.W, (d.box[3] - d.box[1]) * b.W); });
          ctx.clip('evenodd');
        }
        drawRegions(b, level);
        ctx.restore();
        shown.forEach(function (d) { drawDetail(d, b, level); });
        drawTiles(b);
        if (showCells) drawCells(b);
        drawPins(b);
        drawScale(b);
        renderMs = performance.now() - started;
        snapshot = null;
        root.setAttribute('data-zoom', view.z.toFixed(2));
        root.setAttribute('data-level', LEVELS[level]);
      }
      // Slow devices: while a gesture goes on, the last picture is moved and scaled; the map is
      // drawn again once the gesture pauses.
      function takeSnapshot() {
        var copy = document.createElement('canvas');
        copy.width = canvas.width; copy.height = canvas.height;
        copy.getContext('2d').drawImage(canvas, 0, 0);
        var b = bounds();
        snapshot = { image: copy, left: b.left, top: b.top, z: view.z };
      }
      function drawSnapshot() {
        var b = bounds(), s = Math.pow(2, view.z - snapshot.z);
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.fillStyle = COLOURS.sea;
        ctx.fillRect(0, 0, canvas.width, canvas.height);
        ctx.drawImage(snapshot.image, dpr * (snapshot.left - b.left) * b.W, dpr * (snapshot.top - b.top) * b.W, canvas.width * s, canvas.height * s);
      }
      function changed() {
        clamp();
        if (renderMs > 40) {
          if (!snapshot) takeSnapshot();
          drawSnapshot();
          clearTimeout(idleTimer);
          idleTimer = setTimeout(function () { snapshot = null; render(); }, 150);
          return;
        }
        if (!frame) frame = requestAnimationFrame(render);
      }
      function measure() {
        var rect = canvas.getBoundingClientRect();
        dpr = window.devicePixelRatio || 1;
        width = Math.max(1, rect.width); height = Math.max(1, rect.height);
        canvas.width = Math.round(width * dpr); canvas.height = Math.round(height * dpr);
        snapshot = null;
      }
      // Only a new size redraws (setting a canvas's size clears it).
      function resize() {
        var rect = canvas.getBoundingClientRect();
        if (Math.max(1, rect.width) === width && Math.max(1, rect.height) === height && (window.devicePixelRatio || 1) === dpr) return;
        measure();
        clamp();
        render();
      }

      // ---- moving ----
      function zoomAround(px, py, dz) {
        var b = bounds(), wx = b.left + px / b.W, wy = b.top + py / b.W;
        view.z = Math.min(19, Math.max(minZoom(), view.z + dz));
        var W = scale();
        view.x = wx - (px - width / 2) / W;
        view.y = wy - (py - height / 2) / W;
        changed();
      }
      function fit(box) {
        var bw = Math.max(box[2] - box[0], 1e-9), bh = Math.max(box[3] - box[1], 1e-9);
        view.z = Math.min(17, Math.log2(Math.min(width / bw, height / bh) / 256));
        view.x = (box[0] + box[2]) / 2; view.y = (box[1] + box[3]) / 2;
        changed();
      }
      var pointers = new Map(), gesture = null;
      function local(e) { var r = canvas.getBoundingClientRect(); return { x: e.clientX - r.left, y: e.clientY - r.top }; }
      function startGesture() {
        var ps = Array.from(pointers.values());
        if (ps.length === 1) gesture = { kind: 'pan', x: ps[0].x, y: ps[0].y, vx: view.x, vy: view.y, moved: gesture ? gesture.moved : false, t: Date.now() };
        else if (ps.length >= 2) {
          var mx = (ps[0].x + ps[1].x) / 2, my = (ps[0].y + ps[1].y) / 2, b = bounds();
          gesture = { kind: 'pinch', d: Math.hypot(ps[0].x - ps[1].x, ps[0].y - ps[1].y) || 1, z: view.z,
                      wx: b.left + mx / b.W, wy: b.top + my / b.W, moved: true };
        } else gesture = null;
      }
      canvas.addEventListener('pointerdown', function (e) {
        canvas.setPointerCapture(e.pointerId);
        pointers.set(e.pointerId, local(e));
        if (pointers.size === 1) gesture = null;
        startGesture();
      });
      canvas.addEventListener('pointermove', function (e) {
        if (!pointers.has(e.pointerId) || !gesture) return;
        pointers.set(e.pointerId, local(e));
        var ps = Array.from(pointers.values());
        if (gesture.kind === 'pan' && ps.length === 1) {
          var dx = ps[0].x - gesture.x, dy = ps[0].y - gesture.y, W = scale();
          if (Math.abs(dx) + Math.abs(dy) > 4) gesture.moved = true;
          view.x = gesture.vx - dx / W; view.y = gesture.vy - dy / W;
          changed();
        } else if (gesture.kind === 'pinch' && ps.length >= 2) {
          var d = Math.hypot(ps[0].x - ps[1].x, ps[0].y - ps[1].y) || 1, mx = (ps[0].x + ps[1].x) / 2, my = (ps[0].y + ps[1].y) / 2;
          view.z = Math.min(19, Math.max(minZoom(), gesture.z + Math.log2(d / gesture.d)));
          var W2 = scale();
          view.x = gesture.wx - (mx - width / 2) / W2; view.y = gesture.wy - (my - height / 2) / W2;
          changed();
        }
      });
      function end(e) {
        if (!pointers.has(e.pointerId)) return;
        var tap = gesture && gesture.kind === 'pan' && !gesture.moved && pointers.size === 1 && Date.now() - gesture.t < 600;
        var p = pointers.get(e.pointerId);
        pointers.delete(e.pointerId);
        startGesture();
        if (tap) describe(p.x, p.y);
      }
      canvas.addEventListener('pointerup', end);
      canvas.addEventListener('pointercancel', end);
      canvas.addEventListener('wheel', function (e) {
        e.preventDefault();
        var p = local(e), dy = e.deltaMode === 1 ? e.deltaY * 30 : e.deltaMode === 2 ? e.deltaY * 300 : e.deltaY;
        zoomAround(p.x, p.y, Math.max(-2, Math.min(2, -dy / 250)));
      }, { passive: false });
      canvas.addEventListener('dblclick', function (e) { var p = local(e); zoomAround(p.x, p.y, 1); });
      canvas.addEventListener('keydown', function (e) {
        var step = 80 / scale(), handled = true;
        if (e.key === '+' || e.key === '=') zoomAround(width / 2, height / 2, 1);
        else if (e.key === '-' || e.key === '_') zoomAround(width / 2, height / 2, -1);
        else if (e.key === 'ArrowLeft') { view.x -= step; changed(); }
        else if (e.key === 'ArrowRight') { view.x += step; changed(); }
        else if (e.key === 'ArrowUp') { view.y -= step; changed(); }
        else if (e.key === 'ArrowDown') { view.y += step; changed(); }
        else handled = false;
        if (handled) e.preventDefault();
      });
      document.getElementById('zoom-in').addEventListener('click', function () { zoomAround(width / 2, height / 2, 1); });
      document.getElementById('zoom-out').addEventListener('click', function () { zoomAround(width / 2, height / 2, -1); });
      document.getElementById('zoom-fit').addEventListener('click', function () { fit(meta.home); });
      document.getElementById('level').addEventListener('change', function (e) { levelChoice = e.target.value; changed(); });
      document.getElementById('tiles').addEventListener('change', function (e) { tileZoom = +e.target.value; changed(); });
      document.getElementById('cells').addEventListener('change', function (e) { showCells = e.target.checked; changed(); });

      // ---- what is here ----
      function describe(px, py) {
        var b = bounds(), level = levelIndex(), wx = b.left + px / b.W, wy = b.top + py / b.W, parts = [];
        var inDetail = view.z >= meta.detailFrom ? details.filter(function (d) { return wx >= d.box[0] && wx <= d.box[2] && wy >= d.box[1] && wy <= d.box[3]; })[0] : null;
        for (var ti = tables.length - 1; ti >= 0 && !parts.length; ti--) {
          if (ti > 0 && level === 0) continue;
          var table = tables[ti], found = -1;
          if (inDetail) {
            inDetail.tables[ti].units.some(function (u) {
              setTransform(b.W, inDetail.box[0], inDetail.box[1], b);
              if (ctx.isPointInPath(u.path, px * dpr, py * dpr, 'evenodd')) { found = u.unit; return true; }
            });
          } else {
            for (var u = 0; u < table.overview.units.length && found < 0; u++) {
              var box = table.boxes[u];
              if (wx < box[0] || wx > box[2] || wy < box[1] || wy > box[3]) continue;
              setTransform(b.W, box[0], box[1], b);
              if (ctx.isPointInPath(unitPath(table, u), px * dpr, py * dpr, 'evenodd')) found = u;
            }
          }
          if (found < 0) continue;
          var region = regionAt(table, table.overview.units[found].region, tableLevel(table, level));
          while (region >= 0) {
            var r = table.regions[region];
            parts.push(r[3] + (r[4] && r[4] !== r[3] ? ' ' + r[4] : '') + ' (' + table.levels[r[0]] + (r.length > 5
              ? ': ' + ['', 'confirmed', 'tentative', 'passed through'][r[5]] + (r[6] !== null ? ', ' + r[6] + '% explored' : '') + ', first ' + r[8]
              : ': not yet') + ')');
            region = r[1];
          }
        }
        var cell = cellAt(wx, wy);
        info.textContent = (parts.length ? parts.join(' · ') : 'No region here (sea)') + (cell >= 0 ? ' · explored cell: ' + ['gray', 'lit', 'bright', 'gold'][cell] : '');
      }
      function cellAt(wx, wy) {
        var c = page.cells;
        for (var i = 0; i < c.top.length; i++) {
          if (wy < c.top[i] || wy > c.bottom[i]) continue;
          var col = Math.floor(wx * c.cols[i]);
          for (var k = c.runStart[i]; k < c.runStart[i + 1]; k++) {
            if (col >= c.first[k] && col < c.first[k] + c.length[k]) return c.levels[c.cellStart[k] + col - c.first[k]];
          }
        }
        return -1;
      }

      // ---- for the page and for tests ----
      this.show = function (v) {
        var select = document.getElementById('level');
        if (v.level !== 'auto' || levelChoice !== 'auto') { levelChoice = v.level; select.value = v.level; }
        fit(v.box);
      };
      this.view = function () { return { x: view.x, y: view.y, zoom: view.z, level: LEVELS[levelIndex()], renderMs: renderMs }; };
      this.setView = function (x, y, z) { view.x = x; view.y = y; view.z = z; changed(); };
      this.describeAt = describe;
      this.cellCount = page.cells.count;
      this.detailCount = details.length;
      this.pinCount = (meta.pins || []).length;
      measure();
      fit(meta.home);
      render();
      if (window.ResizeObserver) new ResizeObserver(resize).observe(canvas); else window.addEventListener('resize', resize);
    }

    (function () {
      var root = document.getElementById('map');
      try {
        var t0 = performance.now(), page = readPage(), t1 = performance.now(), map = new FootprintMap(page, root);
        window.footprintTimings = { start: t0, read: t1 - t0, build: performance.now() - t1 };
        window.footprintMap = map;
        map.readyMs = performance.now();
        document.querySelectorAll('button[data-view]').forEach(function (button) {
          button.addEventListener('click', function () {
            map.show(page.meta.views[+button.getAttribute('data-view')]);
            root.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
          });
        });
        document.documentElement.setAttribute('data-ready', '1');
      } catch (error) {
        root.textContent = 'The map could not be drawn: ' + error.message;
        throw error;
      }
    })();
    """#
}
