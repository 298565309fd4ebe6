// gpuwatch serve: a small canvas line chart (no library).
// new LineChart(canvas, {format, onZoom, onReset, xFormat, xSteps, yRange}); chart.setData(series, markers, span);
// series: [{name, color, t: [x], v: [number|null], dash}] (null = gap); markers: [{t, label, color}].
// x is seconds since the start unless xFormat and xSteps say otherwise (compare by epoch); yRange
// fixes the y axis (small multiples that share one scale).
// The canvas keeps data-points = the number of non-null points drawn (read by the browser tests).
'use strict';

const PAD = {left: 58, right: 12, top: 8, bottom: 22};
const TIME_STEPS = [0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600,
  7200, 10800, 21600, 43200, 86400];

// A "nice" step (1, 2, 5 × 10^k) giving about `count` ticks over `span`.
function niceStep(span, count) {
  const raw = span / Math.max(1, count);
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

function ticks(lo, hi, step) {
  const out = [];
  for (let v = Math.ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9; v += step) {
    out.push(Math.abs(v) < step * 1e-9 ? 0 : v);
  }
  return out;
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

class LineChart {
  constructor(canvas, opts = {}) {
    this.canvas = canvas;
    this.opts = opts;
    this.format = opts.format || ((v) => String(v));
    this.xFormat = opts.xFormat || formatElapsed;
    this.xSteps = opts.xSteps || TIME_STEPS;
    this.series = [];
    this.markers = [];
    this.span = null; // [from, to] when zoomed; null = the data's extent
    this.drag = null;
    this.hoverX = null;
    this.tip = document.createElement('div');
    this.tip.className = 'chart-tip';
    this.tip.hidden = true;
    canvas.parentNode.appendChild(this.tip);
    canvas.addEventListener('mousedown', (e) => { this.drag = {x0: this.localX(e), x1: this.localX(e)}; });
    canvas.addEventListener('mousemove', (e) => this.onMove(e));
    canvas.addEventListener('mouseleave', () => { this.hoverX = null; this.tip.hidden = true; this.draw(); });
    window.addEventListener('mouseup', () => this.onUp());
    canvas.addEventListener('dblclick', () => { if (this.opts.onReset) this.opts.onReset(); });
    if (window.ResizeObserver) {
      this.observer = new ResizeObserver(() => this.draw());
      this.observer.observe(canvas);
    } else {
      window.addEventListener('resize', () => this.draw());
    }
  }

  setData(series, markers, span) {
    this.series = series;
    this.markers = markers || this.markers;
    this.span = span || null;
    this.draw();
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
    return Math.max(50, Math.round(this.canvas.clientWidth - PAD.left - PAD.right));
  }

  localX(e) { return e.clientX - this.canvas.getBoundingClientRect().left; }

  extent() {
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (const s of this.series) {
      if (s.t.length) { x0 = Math.min(x0, s.t[0]); x1 = Math.max(x1, s.t[s.t.length - 1]); }
    }
    if (this.span) [x0, x1] = this.span;
    if (!isFinite(x0)) { x0 = 0; x1 = 1; }
    if (x1 <= x0) x1 = x0 + 1;
    for (const s of this.series) {
      for (let i = 0; i < s.t.length; i++) {
        const v = s.v[i];
        if (v === null || s.t[i] < x0 || s.t[i] > x1) continue;
        if (v < y0) y0 = v;
        if (v > y1) y1 = v;
      }
    }
    if (this.opts.yRange) [y0, y1] = this.opts.yRange;
    if (!isFinite(y0)) { y0 = 0; y1 = 1; }
    if (y0 > 0 && y0 < (y1 - y0) * 0.5) y0 = 0; // start at 0 unless the data sits far from it
    if (y1 === y0) { // a flat line: a band around it (0 to 1 for all zeros)
      const d = Math.abs(y0) * 0.1 || 1;
      y0 = y0 === 0 ? 0 : y0 - d;
      y1 += d;
    }
    return {x0, x1, y0, y1};
  }

  draw() {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    if (!w || !h) return;
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
      c.width = Math.round(w * dpr);
      c.height = Math.round(h * dpr);
    }
    const ctx = c.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, h);
    const ex = this.extent();
    const yStep = niceStep(ex.y1 - ex.y0, Math.max(2, Math.floor(h / 40)));
    const yLo = Math.floor(ex.y0 / yStep) * yStep, yHi = Math.ceil(ex.y1 / yStep) * yStep;
    const pw = w - PAD.left - PAD.right, ph = h - PAD.top - PAD.bottom;
    const sx = (t) => PAD.left + (t - ex.x0) / (ex.x1 - ex.x0) * pw;
    const sy = (v) => PAD.top + ph - (v - yLo) / (yHi - yLo || 1) * ph;
    this.scale = {ex, sx, pw};

    ctx.font = '11px system-ui, sans-serif';
    ctx.lineWidth = 1;
    ctx.strokeStyle = '#e3e6ea';
    ctx.fillStyle = '#5b6470';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    for (const v of ticks(yLo, yHi, yStep)) {
      const y = Math.round(sy(v)) + 0.5;
      ctx.beginPath(); ctx.moveTo(PAD.left, y); ctx.lineTo(w - PAD.right, y); ctx.stroke();
      ctx.fillText(this.format(v, yStep), PAD.left - 6, y);
    }
    const want = (ex.x1 - ex.x0) / Math.max(2, pw / 90);
    const xStep = this.xSteps.find((s) => s >= want) || niceStep(ex.x1 - ex.x0, pw / 90);
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    for (const t of ticks(ex.x0, ex.x1, xStep)) {
      const x = Math.round(sx(t)) + 0.5;
      ctx.beginPath(); ctx.moveTo(x, PAD.top); ctx.lineTo(x, PAD.top + ph); ctx.stroke();
      ctx.fillText(this.xFormat(t, xStep), x, PAD.top + ph + 5);
    }

    ctx.save();
    ctx.beginPath(); ctx.rect(PAD.left, PAD.top, pw, ph); ctx.clip();
    this.drawMarkers(ctx, ex, sx, ph);
    let drawn = 0;
    ctx.lineWidth = 1.5;
    ctx.lineJoin = 'round';
    for (const s of this.series) {
      ctx.strokeStyle = s.color;
      ctx.setLineDash(s.dash ? [5, 4] : []);
      ctx.beginPath();
      let pen = false;
      for (let i = 0; i < s.t.length; i++) {
        const v = s.v[i];
        if (v === null || v === undefined) { pen = false; continue; }
        drawn++;
        const x = sx(s.t[i]), y = sy(v);
        if (pen) ctx.lineTo(x, y); else { ctx.moveTo(x, y); ctx.lineTo(x + 0.5, y); pen = true; }
      }
      ctx.stroke();
    }
    ctx.setLineDash([]);
    if (this.drag) {
      ctx.fillStyle = 'rgba(40, 110, 200, 0.15)';
      const a = Math.min(this.drag.x0, this.drag.x1), b = Math.max(this.drag.x0, this.drag.x1);
      ctx.fillRect(a, PAD.top, b - a, ph);
    } else if (this.hoverX !== null) {
      ctx.strokeStyle = '#888';
      ctx.lineWidth = 1;
      ctx.beginPath(); ctx.moveTo(this.hoverX + 0.5, PAD.top); ctx.lineTo(this.hoverX + 0.5, PAD.top + ph); ctx.stroke();
    }
    ctx.restore();
    ctx.strokeStyle = '#b8bec6';
    ctx.lineWidth = 1;
    ctx.strokeRect(PAD.left + 0.5, PAD.top + 0.5, pw, ph);
    c.dataset.points = String(drawn);
  }

  drawMarkers(ctx, ex, sx, ph) {
    ctx.textAlign = 'left';
    ctx.textBaseline = 'top';
    let lastLabelEnd = -Infinity;
    for (const m of this.markers) {
      if (m.t < ex.x0 || m.t > ex.x1) continue;
      const x = Math.round(sx(m.t)) + 0.5;
      ctx.strokeStyle = m.color || '#999';
      ctx.setLineDash([4, 3]);
      ctx.beginPath(); ctx.moveTo(x, PAD.top); ctx.lineTo(x, PAD.top + ph); ctx.stroke();
      ctx.setLineDash([]);
      const width = ctx.measureText(m.label).width;
      if (x + 3 > lastLabelEnd) { // skip labels that would overlap the previous one
        ctx.fillStyle = m.color || '#666';
        ctx.fillText(m.label, x + 3, PAD.top + 2);
        lastLabelEnd = x + 3 + width + 6;
      }
    }
  }

  onMove(e) {
    const x = this.localX(e);
    if (this.drag) { this.drag.x1 = x; this.draw(); return; }
    if (!this.scale || x < PAD.left || x > PAD.left + this.scale.pw) {
      this.hoverX = null; this.tip.hidden = true; this.draw(); return;
    }
    this.hoverX = x;
    this.draw();
    const {ex, pw} = this.scale;
    const t = ex.x0 + (x - PAD.left) / pw * (ex.x1 - ex.x0);
    // Built from nodes, never from markup: series names are run names from the store.
    const rows = [document.createElement('b')];
    rows[0].textContent = this.xFormat(t, 0.1);
    for (const s of this.series) {
      if (!s.t.length) continue;
      const i = bisect(s.t, t);
      const j = i + 1 < s.t.length && Math.abs(s.t[i + 1] - t) < Math.abs(s.t[i] - t) ? i + 1 : i;
      const v = s.v[j];
      const swatch = document.createElement('span');
      swatch.style.color = s.color;
      swatch.textContent = '■';
      const row = document.createElement('div');
      row.append(swatch, ` ${s.name}: ${v === null ? '—' : this.format(v)}`);
      rows.push(row);
    }
    this.tip.replaceChildren(...rows);
    this.tip.hidden = false;
    const left = x + 14 + this.tip.offsetWidth > this.canvas.clientWidth ? x - 14 - this.tip.offsetWidth : x + 14;
    this.tip.style.left = this.canvas.offsetLeft + left + 'px';
    this.tip.style.top = this.canvas.offsetTop + 10 + 'px';
  }

  onUp() {
    if (!this.drag) return;
    const {x0, x1} = this.drag;
    this.drag = null;
    this.draw();
    if (Math.abs(x1 - x0) < 5 || !this.scale || !this.opts.onZoom) return;
    const {ex, pw} = this.scale;
    const toT = (x) => ex.x0 + (Math.min(Math.max(x, PAD.left), PAD.left + pw) - PAD.left) / pw * (ex.x1 - ex.x0);
    const a = toT(Math.min(x0, x1)), b = toT(Math.max(x0, x1));
    if (b > a) this.opts.onZoom(a, b);
  }
}

window.LineChart = LineChart;
window.formatElapsed = formatElapsed;
