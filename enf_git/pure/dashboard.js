"use strict";
// enf-git dashboard: draws every chart (SVG) and table from the page's JSON data block,
// and again whenever a filter changes. Text from memory is untrusted: it is only ever set
// with textContent or as an attribute value, never parsed as markup.
(function () {
  performance.mark("enf-start");
  var M = JSON.parse(document.getElementById("enf-data").textContent);

  // --- the data's columns (dashboard_codec.py: read there how they are written) ---------
  var DIGIT = new Int8Array(128).fill(-1);
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".split("").forEach(function (c, i) {
    DIGIT[c.charCodeAt(0)] = i;
  });
  // A column string back into its numbers (null where the data has none); a list as it is.
  // Doubles, not 32-bit operators: a figure can pass 2**31 (the encoder keeps under 2**50).
  function column(v) {
    if (typeof v !== "string") { return v || []; }
    if (v.charAt(0) === "#") { return fixed(v); }
    var out = [], delta = v.charAt(0) === "+", prev = 0, last = 0, at = 1;
    var number = function () {
      var n = 0, d;
      do { d = DIGIT[v.charCodeAt(at++)]; n = n * 32 + (d & 31); } while (d >= 32);
      return n;
    };
    var emit = function (code) {
      if (code === 0) { out.push(null); return; }
      var z = code - 2, x = z % 2 ? -(z + 1) / 2 : z / 2;
      if (delta) { prev += x; x = prev; }
      out.push(x);
    };
    while (at < v.length) {
      var code = number();
      if (code === 1) { for (var k = number(); k > 0; k--) { emit(last); } } else { emit(code); last = code; }
    }
    return out;
  }
  function fixed(v) {
    var width = DIGIT[v.charCodeAt(1)], out = new Array((v.length - 2) / width);
    for (var i = 0, at = 2; i < out.length; i++) {
      var n = 0;
      for (var k = 0; k < width; k++) { n = n * 64 + DIGIT[v.charCodeAt(at++)]; }
      out[i] = n;
    }
    return out;
  }
  // The rows as the script reads them: a list per field, and each row's tags as a list.
  function rowsOf(data) {
    var R = {};
    ["day", "author", "done", "dec", "rev", "fri", "err"].forEach(function (f) { R[f] = column(data[f]); });
    R.tags = column(data.tagset).map(function (k) { return data.tagsets[k]; });
    return R;
  }
  function hex8(n) { return n === null ? "" : ("0000000" + n.toString(16)).slice(-8); }
  ["day", "in", "out", "cw", "cr", "row"].forEach(function (f) { M.usage[f] = column(M.usage[f]); });
  M.usage.id = Array.isArray(M.usage.id) ? M.usage.id : column(M.usage.id.hex).map(hex8);
  M.usage.cost = Array.isArray(M.usage.cost) ? M.usage.cost
    : column(M.usage.cost.micro).map(function (n) { return n === null ? null : n / 1e6; });
  ["day", "tokens", "row"].forEach(function (f) { M.context[f] = column(M.context[f]); });
  M.recurring.forEach(function (e) { e[2] = column(e[2]); });

  var SVG = "http://www.w3.org/2000/svg";
  var DAY = 86400000;
  var DAY0 = Date.parse(M.day0 + "T00:00:00Z");
  var R = rowsOf(M.rows);
  var N = R.day.length;
  var PER_SESSION_MAX = 60;  // token chart: one bar per session up to this many, else per week
  var W = 760, H = 260, PAD = {l: 56, r: 48, t: 12, b: 34};

  // --- dates --------------------------------------------------------------------------
  function iso(d) { return new Date(DAY0 + d * DAY).toISOString().slice(0, 10); }
  function dayOf(text) { return text ? Math.round((Date.parse(text + "T00:00:00Z") - DAY0) / DAY) : null; }
  function monday(d) { return d - (new Date(DAY0 + d * DAY).getUTCDay() + 6) % 7; }
  function isoWeek(d) {
    var thursday = new Date(DAY0 + (monday(d) + 3) * DAY);
    var year = thursday.getUTCFullYear();
    var week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / DAY / 7);
    return year + "-W" + (week < 10 ? "0" : "") + week;
  }

  // --- numbers ------------------------------------------------------------------------
  function rate(part, whole) { return whole ? Math.round(part / whole * 10000) / 10000 : null; }
  function pct(r) { return r === null || r === undefined ? "–" : (r * 100).toFixed(1) + "%"; }
  function num(n) { return n === null || n === undefined ? "–" : String(n); }
  function big(n) {
    if (n === null || n === undefined) { return "–"; }
    if (n >= 1e9) { return (n / 1e9).toFixed(1) + "G"; }
    if (n >= 1e6) { return (n / 1e6).toFixed(1) + "M"; }
    if (n >= 1e4) { return (n / 1e3).toFixed(0) + "k"; }
    return String(n);
  }
  function usd(n) { return n === null || n === undefined ? "–" : "$" + n.toFixed(2); }
  function median(values) {
    if (!values.length) { return null; }
    var s = values.slice().sort(function (a, b) { return a - b; });
    var m = s.length >> 1;
    return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
  function sum(values) { var t = 0; for (var i = 0; i < values.length; i++) { t += values[i]; } return t; }

  // --- DOM ----------------------------------------------------------------------------
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) { if (attrs[k] !== null && attrs[k] !== undefined) { e.setAttribute(k, attrs[k]); } }
    if (text !== undefined && text !== null) { e.textContent = text; }
    return e;
  }
  function sv(tag, attrs, text) {
    var e = document.createElementNS(SVG, tag);
    for (var k in attrs) { e.setAttribute(k, attrs[k]); }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function place(kind, key) { return document.querySelector("[data-" + kind + "='" + key + "']"); }
  function plot(key, label, height) {
    var s = sv("svg", {viewBox: "0 0 " + W + " " + (height || H), role: "img", "aria-label": label,
                       "class": "plot", "data-plot": key});
    s.appendChild(sv("title", {}, label));
    return s;
  }
  function empty(fig, text) { fig.replaceChildren(el("p", {"class": "empty"}, text)); }

  // A table: head is a list of column names; each row a list of [text, value] cells (value:
  // the exact number, kept in data-value for whoever reads the page by machine).
  function table(caption, head, rows, key) {
    var t = el("table", {"data-key": key});
    t.appendChild(el("caption", {}, caption));
    var hr = el("tr");
    head.forEach(function (h) { hr.appendChild(el("th", {scope: "col"}, h)); });
    t.appendChild(el("thead")).appendChild(hr);
    var body = t.appendChild(el("tbody"));
    rows.forEach(function (row) {
      var tr = body.appendChild(el("tr"));
      row.forEach(function (cell, i) {
        var numeric = typeof cell[1] === "number";
        tr.appendChild(el(i ? "td" : "th", {scope: i ? null : "row", "class": numeric ? "n" : null,
                                            "data-value": cell[1] === null ? "null" : cell[1]}, cell[0]));
      });
    });
    return t;
  }
  function legend(names) {
    var l = el("ul", {"class": "legend"});
    names.forEach(function (name, i) {
      var li = l.appendChild(el("li"));
      li.appendChild(el("span", {"class": "sw s" + (i % 8), "aria-hidden": "true"}));
      li.appendChild(document.createTextNode(name));
    });
    return l;
  }

  // --- charts -------------------------------------------------------------------------
  // Stacked bars: xs labels, series [{name, values}], optional line (0..1, right axis).
  function stacked(key, label, xs, series, line) {
    var s = plot(key, label);
    var pw = W - PAD.l - PAD.r, ph = H - PAD.t - PAD.b;
    var totals = xs.map(function (_, i) { return sum(series.map(function (se) { return se.values[i]; })); });
    var max = Math.max(1, Math.max.apply(null, totals.concat([0])));
    var bw = pw / Math.max(xs.length, 1), gap = bw > 6 ? Math.max(bw * 0.15, 1) : 0.4;
    var g = s.appendChild(sv("g", {"class": "bars"}));
    xs.forEach(function (x, i) {
      var y = PAD.t + ph;
      series.forEach(function (se, k) {
        var v = se.values[i];
        if (!v) { return; }
        var h = v / max * ph;
        y -= h;
        var r = g.appendChild(sv("rect", {"class": "mark s" + (k % 8), x: (PAD.l + i * bw + gap / 2).toFixed(2),
                                          y: y.toFixed(2), width: Math.max(bw - gap, 0.6).toFixed(2),
                                          height: Math.max(h, 0.5).toFixed(2)}));
        r.appendChild(sv("title", {}, x + " · " + se.name + ": " + v));
      });
    });
    axes(s, max, xs, big);
    if (line) {
      var pts = [];
      line.values.forEach(function (v, i) {
        if (v !== null) { pts.push((PAD.l + (i + 0.5) * bw).toFixed(1) + "," + (PAD.t + ph - v * ph).toFixed(1)); }
      });
      if (pts.length) {
        var pl = s.appendChild(sv("polyline", {"class": "line", points: pts.join(" ")}));
        pl.appendChild(sv("title", {}, line.name));
      }
      s.appendChild(sv("text", {"class": "axis", x: W - PAD.r + 6, y: PAD.t + 10}, "100%"));
      s.appendChild(sv("text", {"class": "axis", x: W - PAD.r + 6, y: PAD.t + ph}, "0%"));
    }
    return s;
  }
  function axes(s, max, xs, fmt) {
    var ph = H - PAD.t - PAD.b;
    s.appendChild(sv("line", {"class": "axisline", x1: PAD.l, x2: W - PAD.r, y1: PAD.t + ph, y2: PAD.t + ph}));
    s.appendChild(sv("text", {"class": "axis end", x: PAD.l - 6, y: PAD.t + 10}, fmt(max)));
    s.appendChild(sv("text", {"class": "axis end", x: PAD.l - 6, y: PAD.t + ph}, "0"));
    if (xs.length) {
      s.appendChild(sv("text", {"class": "axis", x: PAD.l, y: H - 10}, xs[0]));
      if (xs.length > 1) { s.appendChild(sv("text", {"class": "axis end", x: W - PAD.r, y: H - 10}, xs[xs.length - 1])); }
    }
  }
  // Horizontal bars: items [{label, value, max?}], one row each.
  function hbars(key, label, items, max, fmt) {
    var row = 22, h = PAD.t + items.length * row + 8;
    var s = plot(key, label, h);
    var left = 220, pw = W - left - 70;
    items.forEach(function (it, i) {
      var y = PAD.t + i * row;
      s.appendChild(sv("text", {"class": "label end", x: left - 8, y: y + 15}, clip(it.label, 34)));
      s.appendChild(sv("rect", {"class": "track", x: left, y: y + 3, width: pw, height: row - 8}));
      var r = s.appendChild(sv("rect", {"class": "mark s0", x: left, y: y + 3,
                                        width: Math.max(it.value / max * pw, 0.5).toFixed(2), height: row - 8}));
      r.appendChild(sv("title", {}, it.label + ": " + fmt(it.value)));
      s.appendChild(sv("text", {"class": "label", x: left + pw + 6, y: y + 15}, fmt(it.value)));
    });
    return s;
  }
  function clip(text, n) { return text.length > n ? text.slice(0, n - 1) + "…" : text; }

  // --- filters ------------------------------------------------------------------------
  function filters() {
    var a = document.getElementById("f-author").value, t = document.getElementById("f-tag").value;
    return {author: a === "" ? -1 : +a, tag: t === "" ? -1 : +t,
            since: dayOf(document.getElementById("f-since").value),
            until: dayOf(document.getElementById("f-until").value)};
  }
  function inRange(f, d) {
    if (f.since === null && f.until === null) { return true; }
    return d !== null && (f.since === null || d >= f.since) && (f.until === null || d <= f.until);
  }
  function keep(f, i) {
    return (f.author < 0 || R.author[i] === f.author) && (f.tag < 0 || R.tags[i].indexOf(f.tag) >= 0) &&
      inRange(f, R.day[i]);
  }
  // A transcript's or a SessionStart's figures: through its session's row when the data joins
  // them, else by date alone (author and tag cannot apply).
  // (git enf stats keeps them the same way: with --author or --tag, those of the kept
  // sessions; and by their own date.)
  function keepJoined(f, kept, row, d) {
    if ((f.author >= 0 || f.tag >= 0) && M.joined && !(row >= 0 && kept[row] === 1)) { return false; }
    return inRange(f, d);
  }

  // --- figures ------------------------------------------------------------------------
  function compute(f) {
    var kept = new Uint8Array(N), rows = [];
    for (var i = 0; i < N; i++) { if (keep(f, i)) { kept[i] = 1; rows.push(i); } }
    var c = {f: f, kept: kept, rows: rows, sessions: rows.length, active: 0, completed: 0, made: 0, written: 0,
             friction: 0, withFriction: 0, errors: 0};
    rows.forEach(function (i) {
      if (R.done[i] === 0) { c.active++; } else if (R.done[i] === 1) { c.completed++; }
      c.made += R.dec[i]; c.written += R.rev[i]; c.friction += R.fri[i]; c.errors += R.err[i];
      if (R.fri[i]) { c.withFriction++; }
    });
    c.reversals = M.reversals.filter(function (r) {
      return r[5] >= 0 ? kept[r[5]] === 1 : f.author < 0 && f.tag < 0 && inRange(f, r[0]);
    });
    c.recurring = [];
    M.recurring.forEach(function (e) {
      var seen = e[2].filter(function (row) { return kept[row] === 1; });
      if (seen.length >= 2) { c.recurring.push({key: e[0], text: e[1], rows: seen}); }
    });
    c.recurring.sort(function (a, b) { return b.rows.length - a.rows.length || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0); });
    c.usage = [];
    for (var u = 0; u < M.usage.day.length; u++) {
      if (keepJoined(f, kept, M.usage.row[u], M.usage.day[u])) { c.usage.push(u); }
    }
    c.context = [];
    for (var s = 0; s < M.context.day.length; s++) {
      if (keepJoined(f, kept, M.context.row[s], M.context.day[s])) { c.context.push(s); }
    }
    return c;
  }
  function weeks(indexes, dayAt) {
    var by = new Map();
    indexes.forEach(function (i) {
      var d = dayAt(i);
      if (d === null) { return; }
      var m = monday(d);
      if (!by.has(m)) { by.set(m, []); }
      by.get(m).push(i);
    });
    return Array.from(by.keys()).sort(function (a, b) { return a - b; }).map(function (m) {
      return {monday: m, week: isoWeek(m), members: by.get(m)};
    });
  }

  // Every week from the first to the last, the empty ones too: a chart over time shows the
  // quiet weeks as gaps (tables list only the weeks that have something, as stats does).
  function allWeeks(ws) {
    if (!ws.length) { return ws; }
    var have = new Map(ws.map(function (w) { return [w.monday, w]; })), out = [];
    for (var m = ws[0].monday; m <= ws[ws.length - 1].monday; m += 7) {
      out.push(have.get(m) || {monday: m, week: isoWeek(m), members: []});
    }
    return out;
  }

  // --- sections -----------------------------------------------------------------------
  function kpis(c) {
    var tokens = c.usage.reduce(function (t, u) { return t + M.usage["in"][u] + M.usage.out[u] + M.usage.cw[u] + M.usage.cr[u]; }, 0);
    var read = sum(c.usage.map(function (u) { return M.usage.cr[u]; }));
    var prompt = sum(c.usage.map(function (u) { return M.usage["in"][u] + M.usage.cw[u] + M.usage.cr[u]; }));
    var priced = c.usage.map(function (u) { return M.usage.cost[u]; }).filter(function (v) { return v !== null; });
    var days = c.reversals.map(function (r) { return r[2]; });
    var items = [
      ["sessions", "Sessions", c.sessions], ["active", "Active", c.active], ["completed", "Completed", c.completed],
      ["decisions", "Decisions made", c.made], ["reversed", "Decisions reversed", c.reversals.length],
      ["reversal_rate", "Reversal rate", rate(c.reversals.length, c.made), pct],
      ["median_days", "Median days to reversal", median(days)],
      ["within_7", "Reversed within 7 days", days.filter(function (d) { return d <= 7; }).length],
      ["friction", "Friction events", c.friction], ["errors", "Errors", c.errors],
      ["recurring", "Recurring errors", c.recurring.length],
      ["tokens", "Tokens (transcripts)", tokens, big], ["cache_hit_rate", "Cache hit rate", rate(read, prompt), pct],
      ["cost", "Estimated cost", priced.length ? Math.round(sum(priced) * 10000) / 10000 : null, usd],
      ["context_median", "Median SessionStart context", median(c.context.map(function (s) { return M.context.tokens[s]; })), big]
    ];
    var dl = document.getElementById("kpis");
    dl.replaceChildren();
    items.forEach(function (it) {
      var div = dl.appendChild(el("div"));
      div.appendChild(el("dt", {}, it[1]));
      div.appendChild(el("dd", {"data-kpi": it[0], "data-value": it[2] === null ? "null" : it[2]}, (it[3] || num)(it[2])));
    });
  }

  function sessionsSection(c) {
    var fig = place("chart", "sessions"), tab = place("table", "sessions");
    var ws = weeks(c.rows, function (i) { return R.day[i]; });
    if (!ws.length) { empty(fig, "No session passes the filters."); tab.replaceChildren(); return; }
    var counts = new Map();
    c.rows.forEach(function (i) { counts.set(R.author[i], (counts.get(R.author[i]) || 0) + 1); });
    var top = Array.from(counts.keys()).sort(function (a, b) { return counts.get(b) - counts.get(a) || a - b; });
    var shown = top.length > 8 ? top.slice(0, 7) : top;
    var name = function (a) { return a < 0 ? "(unknown)" : M.authors[a]; };
    var names = shown.map(name).concat(top.length > shown.length ? ["others"] : []);
    var series = names.map(function (n) { return {name: n, values: []}; });
    var perWeek = function (w) {
      var per = names.map(function () { return 0; });
      w.members.forEach(function (i) {
        var k = shown.indexOf(R.author[i]);
        per[k < 0 ? names.length - 1 : k]++;
      });
      return per;
    };
    var every = allWeeks(ws);
    every.forEach(function (w) { perWeek(w).forEach(function (v, k) { series[k].values.push(v); }); });
    var rows = ws.map(function (w) {
      return [[w.week, w.week], [String(w.members.length), w.members.length]].concat(perWeek(w).map(function (v) { return [String(v), v]; }));
    });
    var label = "Sessions per week by author, " + ws[0].week + " to " + ws[ws.length - 1].week + ": " + c.sessions + " sessions";
    fig.replaceChildren(stacked("sessions", label, every.map(function (w) { return w.week; }), series), legend(names));
    tab.replaceChildren(table("Sessions per week", ["Week", "Total"].concat(names), rows, "sessions"));
  }

  function timelineSection(c) {
    var fig = place("chart", "timeline"), tab = place("table", "timeline");
    var rs = c.reversals.slice().sort(function (a, b) { return a[0] - b[0] || a[1] - b[1]; });
    if (!rs.length) { empty(fig, "No decision in these sessions was reversed."); tab.replaceChildren(); return; }
    var lo = Math.min.apply(null, rs.map(function (r) { return r[0]; })), hi = Math.max.apply(null, rs.map(function (r) { return r[1]; }));
    var span = Math.max(hi - lo, 1), pw = W - PAD.l - PAD.r;
    var h = Math.min(Math.max(rs.length * 6, 80), 360) + PAD.t + PAD.b, ph = h - PAD.t - PAD.b;
    var s = plot("timeline", rs.length + " reversed decisions, " + iso(lo) + " to " + iso(hi), h);
    var x = function (d) { return PAD.l + (d - lo) / span * pw; };
    rs.forEach(function (r, i) {
      var y = (PAD.t + (rs.length === 1 ? ph / 2 : i / (rs.length - 1) * ph)).toFixed(2);
      var x1 = x(r[0]), x2 = Math.max(x(r[1]), x1 + 2);  // a same-day reversal still shows
      var l = s.appendChild(sv("line", {"class": "mark chain", x1: x1.toFixed(2), x2: x2.toFixed(2), y1: y, y2: y}));
      l.appendChild(sv("title", {}, (r[3] || "General") + ": made " + iso(r[0]) + ", reversed " + iso(r[1]) + " (" + r[2] + " days)"));
    });
    s.appendChild(sv("text", {"class": "axis", x: PAD.l, y: h - 10}, iso(lo)));
    s.appendChild(sv("text", {"class": "axis end", x: W - PAD.r, y: h - 10}, iso(hi)));
    fig.replaceChildren(s);
    tab.replaceChildren(table("Reversed decisions", ["Topic", "Made", "Reversed", "Days", "Decision → replacement", "Reason"],
      rs.map(function (r) {
        return [[r[3] || "General", r[3]], [iso(r[0]), iso(r[0])], [iso(r[1]), iso(r[1])], [String(r[2]), r[2]],
                [r[6] + " → " + r[7], r[6]], [r[8], r[8]]];
      }), "timeline"));
  }

  function topicsSection(c) {
    var fig = place("chart", "topics"), tab = place("table", "topics");
    var made = new Map(), rev = new Map();
    c.rows.forEach(function (i) { R.tags[i].forEach(function (t) { if (R.dec[i]) { made.set(t, (made.get(t) || 0) + R.dec[i]); } }); });
    c.reversals.forEach(function (r) { r[4].forEach(function (t) { rev.set(t, (rev.get(t) || 0) + 1); }); });
    var tags = Array.from(made.keys()).sort(function (a, b) { return made.get(b) - made.get(a) || (M.tags[a] < M.tags[b] ? -1 : 1); });
    if (!tags.length) { empty(fig, "No decision made in a tagged session."); tab.replaceChildren(); return; }
    var items = tags.map(function (t) { return {label: M.tags[t], value: rate(rev.get(t) || 0, made.get(t)), made: made.get(t), rev: rev.get(t) || 0}; });
    fig.replaceChildren(hbars("topics", "Reversal rate by tag, " + items.length + " tags", items, 1, pct));
    tab.replaceChildren(table("Reversal rate by tag", ["Tag", "Made", "Reversed", "Rate"], items.map(function (it) {
      return [[it.label, it.label], [String(it.made), it.made], [String(it.rev), it.rev], [pct(it.value), it.value]];
    }), "topics"));
  }

  function frictionSection(c) {
    var fig = place("chart", "friction"), tab = place("table", "friction");
    var ws = weeks(c.rows.filter(function (i) { return R.fri[i] > 0; }), function (i) { return R.day[i]; });
    if (!ws.length) { empty(fig, "No friction recorded in these sessions."); tab.replaceChildren(); return; }
    var events = ws.map(function (w) { return sum(w.members.map(function (i) { return R.fri[i]; })); });
    var every = allWeeks(ws);
    fig.replaceChildren(stacked("friction", "Friction events per week: " + c.friction + " in " + c.withFriction + " sessions",
      every.map(function (w) { return w.week; }),
      [{name: "friction events", values: every.map(function (w) { return sum(w.members.map(function (i) { return R.fri[i]; })); })}]));
    tab.replaceChildren(table("Friction per week", ["Week", "Events", "Sessions"], ws.map(function (w, k) {
      return [[w.week, w.week], [String(events[k]), events[k]], [String(w.members.length), w.members.length]];
    }), "friction"));
  }

  function errorsSection(c) {
    var fig = place("chart", "errors"), tab = place("table", "errors");
    if (!c.recurring.length) { empty(fig, "No error came back in a second session."); tab.replaceChildren(); return; }
    var top = c.recurring.slice(0, 20);
    fig.replaceChildren(hbars("errors", c.recurring.length + " recurring errors, by sessions", top.map(function (e) {
      return {label: e.key, value: e.rows.length};
    }), top[0].rows.length, String));
    tab.replaceChildren(table("Recurring errors", ["Error", "Sessions", "First seen", "Last seen", "As written"],
      c.recurring.map(function (e) {
        var days = e.rows.map(function (i) { return R.day[i]; });
        var first = iso(Math.min.apply(null, days)), last = iso(Math.max.apply(null, days));
        return [[e.key, e.key], [String(e.rows.length), e.rows.length], [first, first], [last, last], [e.text, e.text]];
      }), "errors"));
  }

  function tokensSection(c) {
    var fig = place("chart", "tokens"), tab = place("table", "tokens");
    var U = M.usage;
    if (!c.usage.length) { empty(fig, "No transcript figures for these sessions (this machine's sessions, or shared totals)."); tab.replaceChildren(); return; }
    var groups = c.usage.length <= PER_SESSION_MAX
      ? c.usage.map(function (u) { return {label: iso(U.day[u]) + " " + U.id[u], members: [u]}; })
      : allWeeks(weeks(c.usage, function (u) { return U.day[u]; })).map(function (w) { return {label: w.week, members: w.members}; });
    var total = function (g, f) { return sum(g.members.map(function (u) { return U[f][u]; })); };
    var kinds = [["in", "input"], ["out", "output"], ["cw", "cache write"], ["cr", "cache read"]];
    var series = kinds.map(function (k) { return {name: k[1], values: groups.map(function (g) { return total(g, k[0]); })}; });
    var hits = groups.map(function (g) { return rate(total(g, "cr"), total(g, "in") + total(g, "cw") + total(g, "cr")); });
    var per = groups.length === c.usage.length ? "session" : "week";
    fig.replaceChildren(stacked("tokens", "Tokens per " + per + " by type, with the cache hit rate as a line",
      groups.map(function (g) { return g.label; }), series, {name: "cache hit rate", values: hits}),
      legend(kinds.map(function (k) { return k[1]; }).concat(["cache hit rate (line)"])));
    tab.replaceChildren(table("Tokens per " + per, [per === "session" ? "Session" : "Week", "Input", "Output", "Cache write", "Cache read", "Cache hit rate", "Cost (USD)"],
      groups.map(function (g, k) { return [g, k]; }).filter(function (x) { return x[0].members.length; }).map(function (x) {
        var g = x[0], k = x[1];
        var costs = g.members.map(function (u) { return U.cost[u]; });
        var cost = costs.indexOf(null) >= 0 ? null : Math.round(sum(costs) * 10000) / 10000;
        return [[g.label, g.label]].concat(series.map(function (se) { return [String(se.values[k]), se.values[k]]; }))
          .concat([[pct(hits[k]), hits[k]], [usd(cost), cost]]);
      }), "tokens"));
    unjoined(c, tab);
    if (M.cost.disclaimer) { tab.appendChild(el("p", {"class": "note"}, "Cost: " + M.cost.disclaimer + " Prices as of " + M.cost.prices_as_of + ".")); }
  }

  // Without session ids in the rows, transcripts and starts cannot follow author or tag.
  function unjoined(c, tab) {
    if (!M.joined && (c.f.author >= 0 || c.f.tag >= 0)) {
      tab.appendChild(el("p", {"class": "note"}, "Filtered by time range only: this data does not say which session is whose."));
    }
  }

  function contextSection(c) {
    var fig = place("chart", "context"), tab = place("table", "context");
    var ws = weeks(c.context, function (s) { return M.context.day[s]; });
    if (!ws.length) { empty(fig, "No SessionStart was measured on this machine for these sessions."); tab.replaceChildren(); return; }
    var tokensOf = function (w) { return sum(w.members.map(function (s) { return M.context.tokens[s]; })); };
    var totals = ws.map(tokensOf), every = allWeeks(ws);
    fig.replaceChildren(stacked("context", "Tokens of memory context at SessionStart, per week",
      every.map(function (w) { return w.week; }), [{name: "context tokens", values: every.map(tokensOf)}]));
    tab.replaceChildren(table("SessionStart context per week", ["Week", "Starts", "Tokens", "Median per start"], ws.map(function (w, k) {
      var med = median(w.members.map(function (s) { return M.context.tokens[s]; }));
      return [[w.week, w.week], [String(w.members.length), w.members.length], [String(totals[k]), totals[k]], [String(med), med]];
    }), "context"));
    unjoined(c, tab);
  }

  function wholeSection() {
    var box = document.getElementById("whole-tables"), mem = M.memory || {};
    var parts = [];
    parts.push(table("Decisions by context (the Y-statement's \"In the context of\")", ["Context", "Made", "Reversed", "Rate"],
      (M.by_topic || []).map(function (t) { return [[t.topic, t.topic], [String(t.made), t.made], [String(t.reversed), t.reversed], [pct(t.rate), t.rate]]; }), "by_topic"));
    parts.push(table("Friction by kind", ["Kind", "Events"], Object.keys(M.friction_kinds || {}).map(function (k) {
      return [[k, k], [String(M.friction_kinds[k]), M.friction_kinds[k]]];
    }), "friction_kinds"));
    var comp = (mem.compression && mem.compression.by_tier) || [];
    parts.push(table("Compression savings by tier", ["Tier", "Sessions", "Bytes before", "Bytes after", "Saved"], comp.map(function (t) {
      return [[t.tier, t.tier], [String(t.sessions), t.sessions], [String(t.bytes_before), t.bytes_before], [String(t.bytes_after), t.bytes_after], [String(t.saved), t.saved]];
    }), "compression"));
    var p = mem.pointers || {}, pins = mem.pins || {}, facts = mem.facts || {}, d = M.decisions || {};
    var pairs = [["Prompts logged", p.prompts], ["Pointers injected", p.injected], ["Pointers per prompt", p.per_prompt],
                 ["Pointers followed", p.followed], ["Followed rate", p.followed_rate], ["Permanent pins", pins.permanent],
                 ["Temporary pins", pins.temporary], ["Facts", facts.total], ["Expired facts", facts.expired],
                 ["Live instincts", (M.instincts || {}).live], ["Open disagreements", d.open_disagreements],
                 ["Unresolved reversals", d.unresolved_reversals], ["Opted-out sessions (this machine)", M.opted_out],
                 ["Malformed session files", M.malformed]];
    parts.push(table("Memory itself", ["Figure", "Value"], pairs.map(function (x) {
      var v = x[1] === undefined ? null : x[1];
      return [[x[0], x[0]], [num(v), v]];
    }), "memory"));
    var inst = ((M.instincts || {}).by_corroboration || []).slice(0, 15);
    parts.push(table("Instincts by corroboration", ["Rule", "Sessions", "Authors"], inst.map(function (i) {
      return [[i.rule, i.rule], [String(i.sessions), i.sessions], [String(i.authors), i.authors]];
    }), "instincts"));
    box.replaceChildren.apply(box, parts);
  }

  // --- page ---------------------------------------------------------------------------
  function draw() {
    var c = compute(filters());
    kpis(c); sessionsSection(c); timelineSection(c); topicsSection(c); frictionSection(c); errorsSection(c);
    tokensSection(c); contextSection(c);
    var days = c.rows.map(function (i) { return R.day[i]; }).filter(function (d) { return d !== null; });
    document.getElementById("meta").textContent = c.sessions + " of " + N + " sessions" +
      (days.length ? ", " + iso(Math.min.apply(null, days)) + " to " + iso(Math.max.apply(null, days)) : "") +
      (M.generated ? " · generated " + M.generated : "") + (M.tip ? " · claude-memory " + String(M.tip).slice(0, 12) : "");
  }
  function setUp() {
    var a = document.getElementById("f-author"), t = document.getElementById("f-tag");
    M.authors.forEach(function (name, i) { a.appendChild(el("option", {value: i}, name)); });
    M.tags.forEach(function (name, i) { t.appendChild(el("option", {value: i}, name)); });
    var days = R.day.filter(function (d) { return d !== null; });
    if (days.length) {
      var lo = iso(Math.min.apply(null, days)), hi = iso(Math.max.apply(null, days));
      ["f-since", "f-until"].forEach(function (id) { var e = document.getElementById(id); e.min = lo; e.max = hi; });
    }
    var form = document.getElementById("filters");
    form.addEventListener("change", draw);
    form.addEventListener("input", draw);
    form.addEventListener("reset", function () { setTimeout(draw, 0); });
    form.addEventListener("submit", function (e) { e.preventDefault(); });
    var modes = ["auto", "light", "dark"], button = document.getElementById("theme");
    var mode = "auto";
    try { mode = localStorage.getItem("enf-theme") || "auto"; } catch (e) { mode = "auto"; }
    var apply = function () {
      if (mode === "auto") { delete document.documentElement.dataset.theme; } else { document.documentElement.dataset.theme = mode; }
      button.textContent = "Theme: " + mode;
    };
    button.addEventListener("click", function () {
      mode = modes[(modes.indexOf(mode) + 1) % modes.length];
      try { localStorage.setItem("enf-theme", mode); } catch (e) { /* a file:// page may have no storage */ }
      apply();
    });
    apply();
  }
  setUp();
  draw();
  wholeSection();
  performance.mark("enf-drawn");
  performance.measure("enf-draw", "enf-start", "enf-drawn");
  // The frame after the draw is painted once its animation-frame callback has run and the
  // task queue comes round again: that is when a person sees every chart.
  requestAnimationFrame(function () {
    setTimeout(function () { performance.mark("enf-painted"); document.body.dataset.ready = "1"; }, 0);
  });
})();
