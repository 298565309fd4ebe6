// gpuwatch serve: the pages (runs list, a run, runs compared), routed by the URL fragment.
// The API is docs/serve.md; ?token=X on the page URL is passed on to every request.
'use strict';

const TOKEN = new URLSearchParams(location.search).get('token');
// GPU i's colour: the plots' palette (/api/info's gpu_colors, render/plot/style.cpp: Okabe & Ito's
// colour-blind-safe set), so that a GPU has one colour on the page and in every picture; past
// the palette, the colours repeat dashed. Grey until /api/info answered (an older server).
let GPU_COLORS = ['#555555'];
const RUN_COLORS = ['#0072b2', '#e69f00', '#009e73', '#d55e00'];
const HOST_COLOR = '#444c56';
// Kinds of events drawn as markers, with their colour and rank (chart.js: lower ranks' labels
// are drawn first). Other kinds (job_gpus, signal, advisory, step, log ...) are the recorder's
// own bookkeeping or drawn as curves: not markers.
const MARKERS = {
  epoch: {color: '#7a5cc2', rank: 0}, phase: {color: '#1d8a4a', rank: 1}, mark: {color: '#6b7480', rank: 2},
  xid: {color: '#c0392b', rank: 1}, gpu_lost: {color: '#c0392b', rank: 1},
  ecc_double_bit: {color: '#c0392b', rank: 1},
};
// Charted first, in this order (the charts that show the run's problem go before them, run.js);
// the run's other metrics, and those of these that stayed at zero, go under "More metrics".
const PRIMARY = ['gpu_util_percent', 'mem_used_bytes', 'power_watts', 'sm_clock_mhz', 'temp_gpu_celsius',
  'sm_active_percent', 'sm_occupancy_percent', 'tensor_active_percent', 'dram_bw_util_percent'];
// Under "More metrics" (not even fetched) unless the report shows a value above zero: on most
// trainings (bf16) they stay at zero.
const PRIMARY_WHEN_USED = ['fp64_active_percent', 'fp32_active_percent', 'fp16_active_percent'];

let page = {cleanup: []}; // the current page's resources, released on navigation

// ---- helpers ---------------------------------------------------------------------------------

function apiUrl(path, params = {}) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, v);
  if (TOKEN) q.set('token', TOKEN);
  const s = q.toString();
  return path + (s ? '?' + s : '');
}

async function api(path, params) {
  const res = await fetch(apiUrl(path, params));
  let body = null;
  try { body = await res.json(); } catch (e) { /* not JSON */ }
  if (!res.ok || !body) {
    throw new Error(`${path}: ${(body && body.error) || res.status + ' ' + res.statusText}`);
  }
  return body;
}

function showError(err) {
  const box = document.getElementById('error');
  box.textContent = err ? String(err.message || err) : '';
  box.hidden = !err;
}

// el('td', {class: 'num'}, 'text', childNode...)
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(e.dataset, v);
    // Styles through the CSSOM: the page's CSP forbids style attributes.
    else if (k === 'style') Object.assign(e.style, v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

// A table from headers ([text] or [{text, num}]) and rows of cells (text, Node, or {text, class}).
function table(headers, rows, attrs = {}) {
  const head = el('tr', {}, headers.map((h) => el('th', {class: h.num ? 'num' : null}, h.text || h)));
  const body = rows.map((r) => el('tr', {}, r.map((c) => (c && typeof c === 'object' && !(c instanceof Node))
    ? el('td', {class: c.class}, c.text) : el('td', {}, c))));
  return el('table', attrs, el('thead', {}, head), el('tbody', {}, body));
}

const num = (text, cls = '') => ({text, class: ('num ' + cls).trim()});

function fmtNumber(v, decimals = 1) {
  if (v === null || v === undefined || !isFinite(v)) return '—';
  return Number(v).toLocaleString('en-US', {minimumFractionDigits: decimals, maximumFractionDigits: decimals});
}

// A value with about `digits` significant digits, for numbers of any size (a loss of 0.000123,
// a rate of 1234.5): "0.000123", "1,235".
function fmtSignificant(v, digits = 4) {
  if (v === null || v === undefined || !isFinite(v)) return '—';
  if (v === 0) return '0';
  const decimals = Math.max(0, Math.min(8, digits - 1 - Math.floor(Math.log10(Math.abs(v)))));
  return fmtNumber(v, decimals);
}

// Joules as people read them: "812 J", "41.2 kJ", "3.43 kWh".
function fmtEnergy(j) {
  if (j === null || j === undefined || !isFinite(j)) return '—';
  if (j >= 3.6e6) return `${fmtSignificant(j / 3.6e6, 3)} kWh`;
  if (j >= 1e4) return `${fmtSignificant(j / 1e3, 3)} kJ`;
  return `${fmtNumber(j, 0)} J`;
}

// A stored value shown in its display unit (value / divisor, decimals).
function fmtDisplay(v, display, withUnit = true) {
  if (v === null || v === undefined) return '—';
  const d = display || {divisor: 1, decimals: 1, unit: ''};
  const s = fmtNumber(v / (d.divisor || 1), d.decimals);
  return withUnit && d.unit ? `${s} ${d.unit}` : s;
}

function fmtDuration(s) {
  if (s === null || s === undefined) return '—';
  if (s < 60) return `${s.toFixed(1)} s`;
  return window.formatElapsed(s, 1);
}

function fmtStart(iso) {
  if (!iso) return '—';
  const d = new Date(iso);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

const fmtCommand = (c) => Array.isArray(c) ? c.join(' ') : (c || '');
const statusBadge = (s) => el('span', {class: `status status-${s}`}, s);
const gpuColor = (i) => GPU_COLORS[i % GPU_COLORS.length];
const gpuDashed = (i) => i >= GPU_COLORS.length && GPU_COLORS.length > 1;

function setCrumbs(...parts) {
  document.getElementById('crumbs').replaceChildren(...parts.flatMap((p, i) => i ? [' / ', p] : [p]));
}

// ---- charts shared by the run and compare pages -----------------------------------------------

// A group of charts over one x axis: dragging across any chart zooms all of them (each
// refetches its series for the span), double-click zooms out; the charts share a crosshair.
// `axis` ({xFormat, xSteps}) is for an x that is not seconds (compare by epoch). On a run's page
// the x axis may be steps or epochs instead of time: setMapping({toX, toT, xFormat, xSteps})
// maps each series' seconds on draw (the series are kept in seconds), and null goes back to time.
let syncKeys = 0;

class ChartGroup {
  constructor(axis = {}) {
    this.items = []; this.span = null; this.axis = axis; this.mapping = null; this.markers = [];
    this.syncKey = `group-${++syncKeys}`;
  }

  // load(from, to, points) resolves to the chart's series list, in seconds.
  add(container, {metric, title, display, legend, load, markers}) {
    const canvas = el('canvas', {class: 'chart', dataset: {metric, points: '0'}});
    const box = el('div', {class: 'chart-box', dataset: {metric}},
      el('div', {class: 'chart-head'}, el('h3', {}, title), el('div', {class: 'legend'}, legend.map(([color, text]) => legendItem(color, text)))),
      canvas);
    container.append(box);
    const m = this.mapping;
    const chart = new window.LineChart(canvas, {
      // Axis ticks get the decimals their step needs, the tooltip the display's.
      format: (v, step) => (step ? fmtNumber(v, Math.max(0, Math.ceil(-Math.log10(step))))
        : display ? fmtNumber(v, display.decimals) : fmtSignificant(v))
        + (display && display.unit ? ' ' + display.unit : ''),
      onZoom: (a, b) => this.zoom(this.mapping ? [this.mapping.toT(a), this.mapping.toT(b)] : [a, b]),
      onReset: () => this.zoom(null),
      syncKey: this.syncKey,
      ...this.axis,
      ...(m ? {xFormat: m.xFormat, xSteps: m.xSteps} : {}),
    });
    const item = {metric, chart, load, box, markers: markers || this.markers, display, raw: []};
    this.items.push(item);
    return this.refresh(item);
  }

  async refresh(item) {
    const [from, to] = this.span || [undefined, undefined];
    try {
      item.raw = await item.load(from, to, item.chart.plotWidth());
      this.draw(item);
    } catch (e) {
      showError(e);
    }
  }

  // The item's series (seconds) drawn on the group's x axis.
  draw(item) {
    const map = this.mapping;
    const x = (ts) => map ? ts.map(map.toX) : ts;
    const series = item.raw.map((s) => ({...s, t: x(s.t)}));
    const markers = item.markers.map((mk) => ({...mk, t: map ? map.toX(mk.t) : mk.t}));
    const span = this.span && map ? this.span.map(map.toX) : this.span;
    item.chart.setData(series, markers, span);
  }

  setMapping(mapping) {
    this.mapping = mapping;
    for (const item of this.items) {
      item.chart.setAxis(mapping ? mapping.xFormat : this.axis.xFormat, mapping ? mapping.xSteps : this.axis.xSteps);
      this.draw(item);
    }
  }

  // Live: points (seconds) appended to one series of an item; nulls left out, so a slow
  // metric read every few ticks is one line, not dots.
  append(item, name, style, t, v) {
    const keep = t.map((_, i) => i).filter((i) => v[i] !== null && v[i] !== undefined);
    if (!keep.length) return;
    let s = item.raw.find((x) => x.name === name);
    if (!s) { s = {name, ...style, t: [], v: []}; item.raw.push(s); }
    const after = s.t.length ? s.t[s.t.length - 1] : -Infinity;
    for (const i of keep) if (t[i] > after) { s.t.push(t[i]); s.v.push(v[i]); }
    item.dirty = true;
  }

  // New markers (live events) on every chart.
  addMarkers(list) {
    if (!list.length) return;
    this.markers.push(...list);
    for (const item of this.items) { if (item.markers !== this.markers) item.markers.push(...list); item.dirty = true; }
  }

  // Redraws what append() or addMarkers() changed: once per live event, not once per series.
  flush() {
    for (const item of this.items) if (item.dirty) { item.dirty = false; this.draw(item); }
  }

  zoom(span) {
    this.span = span;
    return Promise.all(this.items.map((i) => this.refresh(i)));
  }

  find(metric) { return this.items.find((i) => i.metric === metric); }
}

function legendItem(color, text) {
  return el('span', {}, el('i', {style: {background: color}}), text);
}

// The run's events as markers: an epoch's start "epoch N", a phase's start its name, a mark its
// text, a device event its kind; ends (an epoch or phase without a name) as lines without a label.
// An imported seed file's training_metadata ({"epoch": 1, "phase": "training"}, stored as a
// mark, docs/import.md) gives its epochs and phases where they change.
function eventMarkers(events) {
  const out = [];
  const seen = {epoch: undefined, phase: undefined};
  for (const e of events || []) {
    const meta = e.kind === 'mark' ? seedMetadata(e.message) : null;
    if (meta) {
      for (const kind of ['epoch', 'phase']) {
        if (meta[kind] === undefined || meta[kind] === null || String(meta[kind]) === seen[kind]) continue;
        seen[kind] = String(meta[kind]);
        out.push(eventMarker({t: e.t, kind, message: seen[kind]}));
      }
    } else if (e.kind in MARKERS) {
      out.push(eventMarker(e));
    }
  }
  return out;
}

function eventMarker(e) {
  const style = MARKERS[e.kind];
  const end = (e.kind === 'epoch' || e.kind === 'phase') && !e.message;
  const text = e.kind === 'epoch' ? `epoch ${e.message}` : e.kind === 'phase' || e.kind === 'mark' ? e.message
    : e.gpu === null || e.gpu === undefined ? e.kind : `${e.kind} GPU ${e.gpu}`;
  return {t: e.t, color: style.color, rank: end ? 3 : style.rank,
    label: end ? '' : text.length > 28 ? text.slice(0, 27) + '…' : text};
}

// A mark holding a seed file's training_metadata object, or null.
function seedMetadata(message) {
  if (!message || message[0] !== '{') return null;
  try {
    const m = JSON.parse(message);
    return m && typeof m === 'object' && ('epoch' in m || 'phase' in m) ? m : null;
  } catch (e) {
    return null;
  }
}

// While live, charts for series first seen after the page opened: add() (a fresh answer and the
// charts it lacks) runs one at a time and at most every LATE_CHARTS_MS, so that a series the
// server does not list yet costs a request every few seconds, not one per event.
const LATE_CHARTS_MS = 3000;
function addLate(state, add) {
  const now = Date.now();
  if (state.pending || now < (state.nextAt || 0)) return;
  state.nextAt = now + LATE_CHARTS_MS;
  state.pending = add().catch(showError).finally(() => { state.pending = null; });
}

// fetch(from, to, points) shared by the charts of one answer: the last request's answer is
// reused for the same request, and a whole-run answer of at least as many points for a whole-run
// request within SHARED_FETCH_MS (the first read, made before the charts know their width, then
// serves them all; later, a live run's zoom-out reads it again).
const SHARED_FETCH_MS = 3000;

function sharedFetch(fetch) {
  let last = null;
  return (from, to, points) => {
    const whole = from === undefined && to === undefined;
    const reuse = last && last.from === from && last.to === to && (whole
      ? last.points >= points && Date.now() - last.at < SHARED_FETCH_MS : last.points === points);
    if (!reuse) last = {from, to, points, at: Date.now(), answer: fetch(from, to, points)};
    return last.answer;
  };
}

function seriesParams(metric, from, to, points) {
  return {...(metric === undefined ? {} : {metric}), from: from === undefined ? undefined : from.toFixed(3),
    to: to === undefined ? undefined : to.toFixed(3), points};
}

const EPOCH_AXIS = {
  xSteps: [0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000],
  xFormat: (x, step) => `epoch ${step < 1 ? x.toFixed(step < 0.25 ? 2 : 1) : Math.round(x)}`,
};

// A run's time mapped onto epochs, from its `epoch` events: the k-th mark starts x = k, the
// run's end closes the last epoch; null without marks.
function epochAxis(events, endS) {
  // An epoch event with no message ends an epoch (epoch_end, annotations.md): not a new one.
  const marks = (events || []).filter((e) => e.kind === 'epoch' && e.message).map((e) => e.t).sort((a, b) => a - b);
  if (!marks.length) return null;
  const bounds = [...marks, Math.max(endS || 0, marks[marks.length - 1])];
  const width = (k) => bounds[k + 1] - bounds[k] || 1e-9; // two marks at once: an empty epoch
  const last = bounds.length - 2;
  const toX = (t) => {
    let k = 0;
    while (k < last && t >= bounds[k + 1]) k++;
    return k + (t - bounds[k]) / width(k);
  };
  const toT = (x) => {
    const k = Math.max(0, Math.min(last, Math.floor(x)));
    return Math.max(0, bounds[k] + (x - k) * width(k));
  };
  return {start: bounds[0], toX, toT};
}


// ---- routing ----------------------------------------------------------------------------------

async function route() {
  for (const f of page.cleanup) f();
  page = {cleanup: []};
  showError(null);
  // Each route draws into a fresh element, so a slow page left behind draws nowhere visible.
  const main = el('div', {}, el('p', {class: 'muted'}, 'Loading…'));
  document.getElementById('main').replaceChildren(main);
  let m;
  try {
    const hash = decodeURIComponent(location.hash.replace(/^#/, '')) || '/';
    if ((m = /^\/run\/([^/]+)$/.exec(hash))) await showRun(main, m[1]);
    else if ((m = /^\/compare\/([^/]+?)(?:\/(time|step|epoch))?$/.exec(hash))) await showCompare(main, m[1], m[2]);
    else await showRuns(main);
  } catch (e) {
    if (!main.isConnected) return; // a page left behind: its error is not this page's
    showError(e);
    if (main.querySelector('p.muted') && main.childElementCount === 1) main.replaceChildren();
  }
}

// The header's links (serve --link NAME=URL: the fleet's Grafana dashboard, say), and whether
// this server also has /metrics.
function showLinks(info) {
  const links = (info.links || []).map((l) => el('a', {href: l.url, target: '_blank', rel: 'noopener noreferrer'}, l.name));
  if (info.metrics) links.push(el('a', {href: apiUrl('/metrics'), title: 'Prometheus text of every GPU'}, '/metrics'));
  document.getElementById('links').replaceChildren(...links);
}

async function start() {
  try {
    const info = await api('/api/info');
    if (Array.isArray(info.gpu_colors) && info.gpu_colors.length) GPU_COLORS = info.gpu_colors;
    showLinks(info);
  } catch (e) {
    // An older server without /api/info: no links, grey GPUs.
  }
  window.addEventListener('hashchange', route);
  route();
}

window.addEventListener('DOMContentLoaded', start);
