// gpuwatch serve: line charts drawn by uPlot (web/vendor/uplot/, embedded in the binary).
// new LineChart(canvas, {format, onZoom, onReset, xFormat, xSteps, yRange, syncKey}); chart.setData(series, markers, span);
// series: [{name, color, t: [x], v: [number|null], dash}] (null = gap); markers: [{t, label, color, rank}]
// (rank: 0 an epoch's start, 1 a phase's or a device event, 2 a mark, 3 an end: lower ranks' labels
// are drawn first and never hidden by a higher one at the same place); chart.setRefs([{v, label}]):
// horizontal reference lines (a capacity, a limit), always inside the y range. Charts given one
// syncKey share a crosshair.
// x is seconds since the start unless xFormat and xSteps say otherwise (compare by epoch); yRange
// fixes the y axis (small multiples that share one scale).
// The `canvas` given is a placeholder: it is replaced by uPlot's chart, whose canvas takes over its
// class and data-* attributes and keeps data-points = the number of non-null points drawn,
// data-series-points the same per series ("120,97") and data-x-range the data's x extent
// ("0.1,6.4"), read by the browser tests. Only uPlot's public API is used (new uPlot, uPlot.join, setData,
// setSize, setSelect, valToPos, posToVal, hooks).
'use strict';

const TIME_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
  7200, 10800, 21600, 43200, 86400];
const FONT_PX = 11;
const FONT = `${FONT_PX}px system-ui, sans-serif`;
const TEXT = '#5b6470', GRID = '#e3e6ea', FRAME = '#b8bec6', REF = '#888888';
const LABEL_ROWS = 2;

// A "nice" step (1, 2, 5 × 10^k) giving about `count` ticks over `span`.
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

// Seconds since start as "45 s", "12m30s", "1h05m".
function formatElapsed(t, step = 1) {
  const sign = t < 0 ? '-' : '';
  t = Math.abs(t);
  if (t < 60) return sign + (step < 1 ? t.toFixed(1) : Math.round(t)) + ' s';
  const h = Math.floor(t / 3600), m = Math.floor((t % 3600) / 60), s = Math.round(t % 60);
  const pad = (n) => String(n).padStart(2, '0');
  if (h === 0) return sign + m + 'm' + (s || step < 60 ? pad(s) + 's' : '');
  return sign + h + 'h' + pad(m) + 'm' + (step < 60 ? pad(s) + 's' : '');
}

// Index of the last element of sorted `arr` that is <= x (or 0).
function bisect(arr, x) {
  let lo = 0, hi = arr.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (arr[mid] <= x) lo = mid; else hi = mid - 1;
  }
  return lo;
}

const isValue = (v) => v !== null && v !== undefined;

class LineChart {
  constructor(canvas, opts = {}) {
    this.opts = opts;
    this.format = opts.format || ((v) => String(v));
    this.xFormat = opts.xFormat || formatElapsed;
    this.xSteps = opts.xSteps || TIME_STEPS;
    this.series = [];
    this.markers = [];
    this.refs = [];
    this.span = null; // [from, to] when zoomed; null = the data's extent
    this.attrs = {class: canvas.getAttribute('class') || 'chart', data: {...canvas.dataset}};
    // The element uPlot draws into; its size comes from app.css (.chart-plot, .chart-plot.small).
    this.host = document.createElement('div');
    this.host.className = 'chart-plot' + (canvas.classList.contains('small') ? ' small' : '');
    this.tip = document.createElement('div');
    this.tip.className = 'chart-tip';
    this.tip.hidden = true;
    canvas.parentNode.appendChild(this.tip); // the box (position: relative), not clipped by the plot
    canvas.replaceWith(this.host);
    this.host.addEventListener('dblclick', () => { if (this.opts.onReset) this.opts.onReset(); });
    this.host.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    this.shape = null; // the series' names, colours and dashes uPlot was built with
    this.plot = null;
    this.build();
    if (window.ResizeObserver) {
      this.observer = new ResizeObserver(() => this.resize());
      this.observer.observe(this.host);
    } else {
      window.addEventListener('resize', () => this.resize());
    }
  }

  // The canvas that carries the attributes (uPlot's).
  get canvas() { return this.plot ? this.plot.ctx.canvas : null; }

  size() {
    const small = this.host.classList.contains('small');
    return {width: Math.max(100, this.host.clientWidth || 600), height: this.host.clientHeight || (small ? 130 : 190)};
  }

  resize() {
    const {width, height} = this.size();
    if (this.plot && (this.plot.width !== width || this.plot.height !== height)) this.plot.setSize({width, height});
  }

  setData(series, markers, span) {
    this.series = series;
    this.markers = markers || this.markers;
    this.span = span || null;
    this.draw();
  }

  setRefs(refs) {
    this.refs = refs || [];
    if (this.plot) this.plot.redraw(true, true);
  }

  // Another x axis (time, steps, epochs): the chart is built again with its ticks.
  setAxis(xFormat, xSteps) {
    this.xFormat = xFormat || formatElapsed;
    this.xSteps = xSteps || TIME_STEPS;
    this.shape = null;
  }

  // Live samples: append points to the series named `name` (created when new).
  append(name, color, t, v) {
    let s = this.series.find((x) => x.name === name);
    if (!s) { s = {name, color, t: [], v: []}; this.series.push(s); }
    s.t.push(...t);
    s.v.push(...v);
    this.draw();
  }

  // Width of the plot in CSS pixels (what /series?points= should ask for).
  plotWidth() {
    this.resize();
    return Math.max(50, Math.round(this.plot.bbox.width / (window.devicePixelRatio || 1)));
  }

  // uPlot's data: one x array for all series. Each series keeps its own x (GPUs sample at
  // different times, compared runs differ), so they are joined. uPlot tells a gap (null) from a
  // missing point (undefined, which a line spans with spanGaps false): the fillers the join adds
  // where only other series have a point are undefined, so lines run through them, and a series'
  // own null stays a gap. uPlot.join's NULL_EXPAND mode (2) also turns the fillers next to a null
  // into nulls, so that a gap runs from the series' last point before it to its first one after,
  // as the series itself says, not from the neighbouring series' x.
  data() {
    if (!this.series.length) return [[]];
    const NULL_EXPAND = 2;
    return uPlot.join(this.series.map((s) => [s.t, s.v]), this.series.map(() => [null, NULL_EXPAND]));
  }

  draw() {
    const shape = JSON.stringify(this.series.map((s) => [s.name, s.color, !!s.dash]));
    if (shape !== this.shape) {
      this.build();
    } else {
      this.plot.setData(this.data());
    }
    // What was drawn, for the browser tests: the points per series, their total, the x extent.
    const counts = this.series.map((s) => s.v.filter(isValue).length);
    this.canvas.dataset.points = String(counts.reduce((a, b) => a + b, 0));
    this.canvas.dataset.seriesPoints = counts.join(',');
    const ends = this.series.flatMap((s) => s.t.length ? [s.t[0], s.t[s.t.length - 1]] : []);
    this.canvas.dataset.xRange = ends.length ? `${Math.min(...ends)},${Math.max(...ends)}` : '';
  }

  build() {
    if (this.plot) this.plot.destroy();
    this.shape = JSON.stringify(this.series.map((s) => [s.name, s.color, !!s.dash]));
    const {width, height} = this.size();
    const axis = {
      font: FONT, stroke: TEXT,
      grid: {stroke: GRID, width: 1},
      ticks: {stroke: GRID, width: 1, size: 4},
    };
    let ySize = 50;
    const opts = {
      width, height,
      legend: {show: false},
      padding: [8, 12, 0, 0],
      cursor: {
        x: true, y: false,
        drag: {x: !!this.opts.onZoom, y: false, setScale: false},
        bind: {dblclick: () => null}, // double-click is onReset (the listener on the host)
        sync: this.opts.syncKey ? {key: this.opts.syncKey, setSeries: false} : undefined,
      },
      scales: {
        x: {time: false, range: (u, lo, hi) => this.xRange(lo, hi)},
        y: {range: (u, lo, hi) => this.yRange(u, lo, hi)},
      },
      axes: [
        {...axis, space: 90, incrs: this.xSteps, size: 24,
          values: (u, splits, i, space, incr) => splits.map((t) => this.xFormat(t, incr))},
        {...axis, space: 40, gap: 6,
          values: (u, splits, i, space, incr) => splits.map((v) => this.format(v, incr)),
          // Wide enough for the longest label (units make them long).
          size: (u, values, i, cycle) => {
            if (cycle > 1 || !values) return ySize;
            const ctx = u.ctx, dpr = window.devicePixelRatio || 1;
            ctx.save();
            ctx.font = `${FONT_PX * dpr}px system-ui, sans-serif`;
            const widest = Math.max(0, ...values.map((s) => ctx.measureText(s).width / dpr));
            ctx.restore();
            ySize = Math.ceil(widest + 4 + 6 + 6);
            return ySize;
          }},
      ],
      series: [{}, ...this.series.map((s) => ({
        label: s.name, stroke: s.color, width: 1.5, spanGaps: false,
        dash: s.dash ? [5, 4] : undefined,
        points: s.dash ? {show: false} : {size: 4},
      }))],
      hooks: {
        draw: [(u) => this.drawOver(u)],
        setSelect: [(u) => this.onSelect(u)],
        setCursor: [(u) => this.onCursor(u)],
      },
    };
    this.plot = new uPlot(opts, this.data(), this.host);
    const c = this.plot.ctx.canvas;
    c.setAttribute('class', this.attrs.class);
    Object.assign(c.dataset, this.attrs.data);
  }

  xRange(lo, hi) {
    if (this.span) return [this.span[0], this.span[1]];
    if (!isValue(lo) || !isValue(hi)) return [0, 1];
    return hi > lo ? [lo, hi] : [lo, lo + 1];
  }

  // From zero unless the data sits far from it; a flat line gets a band around it; the ends
  // rounded to a step of about one tick per 40 px.
  yRange(u, lo, hi) {
    if (this.opts.yRange) return [this.opts.yRange[0], this.opts.yRange[1]];
    let y0 = lo, y1 = hi;
    if (!isValue(y0) || !isValue(y1) || !isFinite(y0) || !isFinite(y1)) { y0 = 0; y1 = 1; }
    for (const r of this.refs) { y0 = Math.min(y0, r.v); y1 = Math.max(y1, r.v * 1.04); }
    if (y0 > 0 && y0 < (y1 - y0) * 0.5) y0 = 0;
    if (y1 === y0) {
      const d = Math.abs(y0) * 0.1 || 1;
      y0 = y0 === 0 ? 0 : y0 - d;
      y1 += d;
    }
    const h = u.bbox && u.bbox.height ? u.bbox.height / (window.devicePixelRatio || 1) : this.size().height - 30;
    const step = niceStep(y1 - y0, Math.max(2, Math.floor(h / 40)));
    return [Math.floor(y0 / step) * step, Math.ceil(y1 / step) * step];
  }

  // After uPlot has drawn: the frame, and the markers (dashed vertical lines with labels).
  drawOver(u) {
    const ctx = u.ctx, dpr = window.devicePixelRatio || 1;
    const {left, top, width, height} = u.bbox;
    ctx.save();
    ctx.setLineDash([]); // uPlot leaves the last series' dash set: a dashed last series dashed the frame
    ctx.lineWidth = dpr;
    ctx.strokeStyle = FRAME;
    ctx.strokeRect(left + 0.5, top + 0.5, width, height);
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    ctx.font = `${FONT_PX * dpr}px system-ui, sans-serif`;
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    this.drawRefs(u);
    this.drawMarkers(u);
    ctx.restore();
  }

  // Reference lines: dashed, grey, labelled at the right end.
  drawRefs(u) {
    const ctx = u.ctx, dpr = window.devicePixelRatio || 1;
    const {left, top, width} = u.bbox;
    ctx.textAlign = 'right';
    ctx.textBaseline = 'bottom';
    for (const r of this.refs) {
      const y = Math.round(u.valToPos(r.v, 'y', true)) + 0.5;
      ctx.strokeStyle = REF;
      ctx.setLineDash([6 * dpr, 4 * dpr]);
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + width, y); ctx.stroke();
      ctx.setLineDash([]);
      ctx.fillStyle = REF;
      ctx.fillText(String(r.label), left + width - 4 * dpr, Math.max(top + FONT_PX * dpr + 2 * dpr, y - 2 * dpr));
    }
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
  }

  // The markers: a dashed vertical line each; their labels in up to LABEL_ROWS rows, an
  // epoch's first, then phases and device events, marks, and ends last, so an "end" at the
  // same time as a start never hides it. A label that fits no row is left out (the line stays).
  drawMarkers(u) {
    const ctx = u.ctx, dpr = window.devicePixelRatio || 1;
    const {top, height} = u.bbox;
    const [x0, x1] = [u.scales.x.min, u.scales.x.max];
    const shown = this.markers.filter((m) => m.t >= x0 && m.t <= x1)
      .map((m) => ({...m, x: Math.round(u.valToPos(m.t, 'x', true)) + 0.5}));
    for (const m of shown) {
      ctx.strokeStyle = m.color || '#999';
      ctx.setLineDash([4 * dpr, 3 * dpr]);
      ctx.beginPath(); ctx.moveTo(m.x, top); ctx.lineTo(m.x, top + height); ctx.stroke();
    }
    ctx.setLineDash([]);
    const rows = Array.from({length: LABEL_ROWS}, () => []); // taken [from, to] per row
    const ranked = shown.filter((m) => m.label).sort((a, b) => (a.rank || 0) - (b.rank || 0) || a.x - b.x);
    const drawn = [];
    for (const m of ranked) {
      const from = m.x + 3 * dpr, to = from + ctx.measureText(m.label).width + 6 * dpr;
      const row = rows.findIndex((taken) => taken.every(([a, b]) => to <= a || from >= b));
      if (row < 0) continue;
      rows[row].push([from, to]);
      ctx.fillStyle = m.color || '#666';
      ctx.fillText(m.label, from, top + 2 * dpr + row * (FONT_PX + 2) * dpr);
      drawn.push(m.label);
    }
    u.ctx.canvas.dataset.labels = drawn.join('|'); // what a reader can see (the browser tests)
  }

  // A drag across the plot: onZoom(from, to) in x units; the selection box is then cleared.
  onSelect(u) {
    const {left, width} = u.select;
    if (width <= 0) return;
    u.setSelect({left: 0, top: 0, width: 0, height: 0}, false);
    if (width < 5 || !this.opts.onZoom) return;
    const a = u.posToVal(left, 'x'), b = u.posToVal(left + width, 'x');
    if (b > a) this.opts.onZoom(a, b);
  }

  // The tooltip: every series' value nearest the cursor, built from nodes, never from markup
  // (series names are run names from the store).
  onCursor(u) {
    const x = u.cursor.left;
    if (x === undefined || x === null || x < 0 || !this.series.length) { this.tip.hidden = true; return; }
    const t = u.posToVal(x, 'x');
    const head = document.createElement('b');
    head.textContent = this.xFormat(t, 0.1);
    const rows = [head];
    for (const s of this.series) {
      if (!s.t.length) continue;
      const i = bisect(s.t, t);
      const j = i + 1 < s.t.length && Math.abs(s.t[i + 1] - t) < Math.abs(s.t[i] - t) ? i + 1 : i;
      const v = s.v[j];
      const swatch = document.createElement('span');
      swatch.style.color = s.color;
      swatch.textContent = '■';
      const row = document.createElement('div');
      row.append(swatch, ` ${s.name}: ${isValue(v) ? this.format(v) : '—'}`);
      rows.push(row);
    }
    this.tip.replaceChildren(...rows);
    this.tip.hidden = false;
    const box = this.tip.offsetParent || this.host.parentNode;
    const over = u.over.getBoundingClientRect(), origin = box.getBoundingClientRect();
    const at = over.left - origin.left + x;
    const left = at + 14 + this.tip.offsetWidth > box.clientWidth ? at - 14 - this.tip.offsetWidth : at + 14;
    this.tip.style.left = left + 'px';
    this.tip.style.top = over.top - origin.top + 6 + 'px';
  }
}

window.LineChart = LineChart;
window.formatElapsed = formatElapsed;
