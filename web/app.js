// gpuwatch serve: the pages (runs list, a run, runs compared), routed by the URL fragment.
// The API is docs/serve.md; ?token=X on the page URL is passed on to every request.
'use strict';

const TOKEN = new URLSearchParams(location.search).get('token');
const GPU_COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2',
  '#17becf', '#7f7f7f', '#bcbd22'];
const RUN_COLORS = ['#1f6fc5', '#d3262f', '#2ca02c', '#ff7f0e'];
const HOST_COLOR = '#444c56';
const MARKER_COLORS = {epoch: '#7a5cc2', phase: '#1d8a4a', xid: '#c0392b', gpu_lost: '#c0392b'};
// Charted first, in this order; the run's other metrics go under "More metrics".
const PRIMARY = ['gpu_util_percent', 'mem_used_bytes', 'power_watts', 'temp_gpu_celsius',
  'sm_active_percent', 'sm_occupancy_percent', 'tensor_active_percent', 'dram_bw_util_percent',
  'fp64_active_percent', 'fp32_active_percent', 'fp16_active_percent'];

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

function setCrumbs(...parts) {
  document.getElementById('crumbs').replaceChildren(...parts.flatMap((p, i) => i ? [' / ', p] : [p]));
}

// ---- charts shared by the run and compare pages -----------------------------------------------

// A group of charts over one time axis: dragging across any chart zooms all of them (each
// refetches its series for the span), double-click zooms out. `axis` ({xFormat, xSteps}) is
// for an x that is not seconds (compare by epoch).
class ChartGroup {
  constructor(axis = {}) { this.items = []; this.span = null; this.axis = axis; }

  // load(from, to, points) resolves to the chart's series list.
  add(container, {metric, title, display, legend, load, markers}) {
    const canvas = el('canvas', {class: 'chart', dataset: {metric, points: '0'}});
    const box = el('div', {class: 'chart-box'},
      el('div', {class: 'chart-head'}, el('h3', {}, title), el('div', {class: 'legend'}, legend.map(([color, text]) => legendItem(color, text)))),
      canvas);
    container.append(box);
    const chart = new window.LineChart(canvas, {
      // Axis ticks get the decimals their step needs, the tooltip the display's.
      format: (v, step) => fmtNumber(v, step ? Math.max(0, Math.ceil(-Math.log10(step))) : (display ? display.decimals : 1))
        + (display && display.unit ? ' ' + display.unit : ''),
      onZoom: (a, b) => this.zoom([a, b]),
      onReset: () => this.zoom(null),
      ...this.axis,
    });
    const item = {metric, chart, load, markers: markers || [], display};
    this.items.push(item);
    return this.refresh(item);
  }

  async refresh(item) {
    const [from, to] = this.span || [undefined, undefined];
    try {
      item.chart.setData(await item.load(from, to, item.chart.plotWidth()), item.markers, this.span);
    } catch (e) {
      showError(e);
    }
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

function eventMarkers(events) {
  return (events || []).filter((e) => e.kind in MARKER_COLORS).map((e) => ({
    t: e.t, color: MARKER_COLORS[e.kind],
    label: e.kind === 'epoch' ? (e.message ? `epoch ${e.message}` : 'epoch ends') : e.kind === 'phase' ? (e.message || 'end') : e.kind,
  }));
}

function seriesParams(metric, from, to, points) {
  return {...(metric === undefined ? {} : {metric}), from: from === undefined ? undefined : from.toFixed(3),
    to: to === undefined ? undefined : to.toFixed(3), points};
}

// ---- #/ the runs list -------------------------------------------------------------------------

const RUN_COLUMNS = [
  {key: 'name', text: 'name', value: (r) => r.name || ''},
  {key: 'id', text: 'id', value: (r) => r.id},
  {key: 'status', text: 'status', value: (r) => r.status},
  {key: 'start', text: 'start', value: (r) => r.start || ''},
  {key: 'duration_s', text: 'duration', num: true, value: (r) => r.duration_s || 0},
  {key: 'gpus', text: 'GPUs', num: true, value: (r) => (r.gpus || []).length},
  {key: 'command', text: 'command', value: (r) => fmtCommand(r.command)},
];

const listState = {sort: 'start', dir: -1, q: '', status: '', selected: new Set()};

async function showRuns(main) {
  setCrumbs('runs');
  const {runs} = await api('/api/runs');
  const search = el('input', {type: 'search', placeholder: 'search by name', value: listState.q});
  const status = el('select', {},
    ['', 'recording', 'finished', 'interrupted'].map((s) => el('option', {value: s}, s || 'any status')));
  status.value = listState.status;
  const compare = el('button', {type: 'button'}, 'compare');
  const tbody = el('tbody');
  const headRow = el('tr', {}, el('th', {}, ''));
  const tableEl = el('table', {id: 'runs'}, el('thead', {}, headRow), tbody);

  const render = () => {
    const q = listState.q.toLowerCase();
    const col = RUN_COLUMNS.find((c) => c.key === listState.sort);
    const shown = runs
      .filter((r) => (!q || (r.name || '').toLowerCase().includes(q)) && (!listState.status || r.status === listState.status))
      .sort((a, b) => {
        const x = col.value(a), y = col.value(b);
        return (x < y ? -1 : x > y ? 1 : 0) * listState.dir;
      });
    headRow.replaceChildren(el('th', {}, ''), ...RUN_COLUMNS.map((c) => el('th', {
      class: 'sortable' + (c.num ? ' num' : ''), title: 'sort by ' + c.text,
      onclick: () => {
        listState.dir = listState.sort === c.key ? -listState.dir : (c.num || c.key === 'start' ? -1 : 1);
        listState.sort = c.key;
        render();
      },
    }, c.text, listState.sort === c.key ? el('span', {class: 'arrow'}, listState.dir > 0 ? ' ▲' : ' ▼') : '')));
    tbody.replaceChildren(...shown.map((r) => {
      const box = el('input', {type: 'checkbox', checked: listState.selected.has(r.id),
        onclick: (e) => e.stopPropagation(),
        onchange: (e) => { e.target.checked ? listState.selected.add(r.id) : listState.selected.delete(r.id); update(); }});
      return el('tr', {dataset: {runId: r.id}, class: r.live ? 'live' : null,
        onclick: () => { location.hash = `#/run/${r.id}`; }},
      el('td', {}, box), el('td', {}, r.name || el('span', {class: 'muted'}, '(none)')),
      el('td', {class: 'mono'}, r.id), el('td', {}, statusBadge(r.status)),
      el('td', {}, fmtStart(r.start)), el('td', {class: 'num'}, fmtDuration(r.duration_s)),
      el('td', {class: 'num', title: (r.gpus || []).map((g) => `${g.gpu}: ${g.name}`).join('\n')}, (r.gpus || []).length),
      el('td', {class: 'cmd', title: fmtCommand(r.command)}, fmtCommand(r.command)));
    }));
    if (!shown.length) tbody.append(el('tr', {}, el('td', {colspan: 8, class: 'muted'}, 'No runs match.')));
  };
  const update = () => {
    for (const id of [...listState.selected]) if (!runs.some((r) => r.id === id)) listState.selected.delete(id);
    const n = listState.selected.size;
    compare.disabled = n < 2 || n > 4;
    compare.textContent = n ? `compare (${n})` : 'compare';
  };
  search.addEventListener('input', () => { listState.q = search.value; render(); });
  status.addEventListener('change', () => { listState.status = status.value; render(); });
  compare.addEventListener('click', () => {
    // Oldest first: the oldest selected run is compare's baseline A.
    const ids = runs.filter((r) => listState.selected.has(r.id))
      .sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : 0)).map((r) => r.id);
    location.hash = `#/compare/${ids.join(',')}`;
  });
  main.replaceChildren(
    el('div', {class: 'toolbar'}, search, status, compare,
      el('span', {class: 'hint'}, `${runs.length} runs · pick 2 to 4 to compare (the oldest is the baseline)`)),
    tableEl);
  render();
  update();
}

// ---- #/run/ID ---------------------------------------------------------------------------------

async function showRun(main, id) {
  setCrumbs(el('a', {href: '#/'}, 'runs'), id);
  // The report of a long run takes longest: the charts are drawn without waiting for it.
  const reportPromise = api(`/api/runs/${encodeURIComponent(id)}/report`).catch((e) => e);
  // The advisories: the advisor over the run's latest window (`gpuwatch status`).
  const statusPromise = api(`/api/runs/${encodeURIComponent(id)}/status`).catch((e) => e);
  const detail = await api(`/api/runs/${encodeURIComponent(id)}`);
  const run = detail.run;
  setCrumbs(el('a', {href: '#/'}, 'runs'), run.name || run.id);
  const statusCell = el('dd', {}, statusBadge(run.status));
  const headStatus = el('span', {}, statusBadge(run.status));
  const durationCell = el('dd', {}, fmtDuration(run.duration_s));
  const fact = (k, v, cls) => el('div', {}, el('dt', {}, k), v instanceof Node ? v : el('dd', {class: cls}, v));
  const facts = el('dl', {class: 'facts'},
    fact('name', run.name || '—'), fact('id', run.id, 'mono'), fact('host', run.host || '—'),
    fact('start', fmtStart(run.start)), fact('duration', durationCell), fact('status', statusCell),
    fact('exit code', run.exit_code === null || run.exit_code === undefined ? '—' : run.exit_code),
    fact('interval', run.interval_s ? `${run.interval_s} s` : '—'),
    fact('GPUs', (detail.devices || []).map((d) => `${d.gpu}: ${d.name}`).join(', ') || '—'),
    fact('cwd', run.cwd || '—', 'mono'), fact('command', fmtCommand(run.command), 'cmd mono'));
  const progress = el('div', {class: 'progress', hidden: true});
  const charts = el('div', {class: 'charts'});
  const more = el('div', {class: 'charts'});
  const group = new ChartGroup();
  const markers = eventMarkers(detail.events);
  const devices = detail.devices || [];
  const legend = devices.map((d) => [gpuColor(d.gpu), `GPU ${d.gpu}`]);

  const addChart = (container, m) => group.add(container, {
    metric: m.name, display: m.display, markers,
    title: `${m.label || m.name} (${(m.display && m.display.unit) || m.unit || ''})`, legend,
    load: async (from, to, points) => {
      const s = await api(`/api/runs/${encodeURIComponent(id)}/series`, seriesParams(m.name, from, to, points));
      const div = (s.display && s.display.divisor) || 1;
      return s.devices.map((d) => ({name: `GPU ${d.gpu}`, color: gpuColor(d.gpu), t: d.t,
        v: d.v.map((x) => x === null ? null : x / div)}));
    },
  });
  const metrics = detail.metrics || [];
  const primary = metrics.filter((m) => PRIMARY.includes(m.name))
    .sort((a, b) => PRIMARY.indexOf(a.name) - PRIMARY.indexOf(b.name));
  const others = metrics.filter((m) => !PRIMARY.includes(m.name));
  const moreBox = others.length ? el('details', {}, el('summary', {}, `More metrics (${others.length})`), more) : '';
  if (moreBox) {
    moreBox.addEventListener('toggle', () => {
      if (moreBox.open && !more.childElementCount) others.forEach((m) => addChart(more, m));
    }, {once: false});
  }

  const reportBox = el('section', {}, el('p', {class: 'muted'}, 'Reading the report…'));
  const hostBox = el('section', {});
  main.replaceChildren(
    el('h1', {}, run.name || run.id, ' ', headStatus), facts, progress,
    el('h2', {}, 'Timelines ', el('span', {class: 'hint'}, '· drag across a chart to zoom, double-click to zoom out')),
    primary.length || others.length ? charts : el('p', {class: 'muted'}, 'No device metrics in this run.'), moreBox,
    hostBox, reportBox);
  const reportShown = Promise.all([reportPromise, statusPromise]).then(([report, status]) => {
    if (report instanceof Error) {
      showError(report); // the run without its report: the charts stay
      reportBox.replaceChildren();
    } else {
      reportBox.replaceChildren(reportSections(report, status instanceof Error ? null : status, id, metrics));
    }
  });
  await Promise.all([...primary.map((m) => addChart(charts, m)), hostCharts(hostBox, id, group, markers), reportShown]);
  if (run.live && main.isConnected) followLive(id, group, metrics, {progress, durationCell, statuses: [statusCell, headStatus]});
}

// The host's CPU and memory and the command's own CPU, RSS and reads (/api/runs/ID/host, every
// metric in one answer), in the run's chart group so they zoom with the GPUs' charts. Drawn as
// stored: they do not grow with a live run.
async function hostCharts(box, id, group, markers) {
  let last = {key: null, answer: null};
  const hostData = (from, to, points) => {
    const key = `${from}|${to}|${points}`;
    if (last.key !== key) {
      last = {key, answer: api(`/api/runs/${encodeURIComponent(id)}/host`, seriesParams(undefined, from, to, points))};
    }
    return last.answer;
  };
  const first = await hostData(undefined, undefined, 600);
  if (!first.metrics.length) return;
  const charts = el('div', {class: 'charts'});
  box.replaceChildren(el('h2', {}, 'Host'), charts);
  await Promise.all(first.metrics.map((m) => group.add(charts, {
    metric: `host.${m.metric}`, display: m.display, markers,
    title: `${m.label} (${m.display.unit || m.unit})`, legend: [[HOST_COLOR, 'host']],
    load: async (from, to, points) => {
      const h = (await hostData(from, to, points)).metrics.find((x) => x.metric === m.metric);
      const div = (m.display && m.display.divisor) || 1;
      return h ? [{name: m.label, color: HOST_COLOR, t: h.t, v: h.v.map((x) => x === null ? null : x / div)}] : [];
    },
  })));
}

// Appends /api/live's samples to the charts until the run ends.
function followLive(id, group, metrics, ui) {
  // From the last time the charts have, so nothing recorded in between is lost.
  let since = 0;
  for (const item of group.items) {
    for (const series of item.chart.series) {
      if (series.t.length) since = Math.max(since, series.t[series.t.length - 1]);
    }
  }
  const source = new EventSource(apiUrl('/api/live', {run: id, since: String(since)}));
  page.cleanup.push(() => source.close());
  source.addEventListener('samples', (ev) => {
    const data = JSON.parse(ev.data);
    let last = 0;
    for (const dev of data.devices || []) {
      for (const [key, values] of Object.entries(dev.values || {})) {
        const item = group.find(key);
        if (!item) continue;
        const name = `GPU ${dev.gpu}`;
        const existing = item.chart.series.find((s) => s.name === name);
        const after = existing && existing.t.length ? existing.t[existing.t.length - 1] : -Infinity;
        const div = (item.display && item.display.divisor) || 1;
        const keep = dev.t.map((t, i) => i).filter((i) => dev.t[i] > after); // skip what /series gave
        item.chart.append(name, gpuColor(dev.gpu), keep.map((i) => dev.t[i]),
          keep.map((i) => values[i] === null ? null : values[i] / div));
      }
      if (dev.t.length) last = Math.max(last, dev.t[dev.t.length - 1]);
    }
    if (last) ui.durationCell.textContent = fmtDuration(last);
    const p = data.progress;
    if (p) {
      ui.progress.hidden = false;
      ui.progress.textContent = ['epoch ' + (p.epoch ?? '—'), 'step ' + (p.step ?? '—'),
        'loss ' + (p.loss === null || p.loss === undefined ? '—' : p.loss)].join(' · ');
    }
  });
  source.addEventListener('end', (ev) => {
    source.close();
    let status = 'finished';
    try { status = JSON.parse(ev.data).status || status; } catch (e) { /* keep the default */ }
    for (const cell of ui.statuses) cell.replaceChildren(statusBadge(status));
    ui.progress.append(` · run ${status}`);
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) showError('live updates: the connection closed');
  };
}

// `metrics`: the run's metric descriptors (/api/runs/ID), whose labels and display formats are
// the catalogue's (docs/metrics.md); a metric the run has no values of falls back to its name.
function describe(metrics, name) {
  return (metrics || []).find((m) => m.name === name)
    || {name, label: name, unit: '', display: {unit: '', divisor: 1, decimals: 1}};
}

function reportSections(report, status, id, metrics) {
  const out = [el('h2', {}, 'Load balance'), loadBalance(report, describe(metrics, 'gpu_util_percent'))];
  if ((report.devices || []).length > 1) {
    out.push(el('h2', {}, 'Memory per GPU ', el('span', {class: 'hint'}, '· one scale for all; dashed: the GPU\'s mean')),
      memoryGrid(id, report, describe(metrics, 'mem_used_bytes')));
  }
  const span = status && status.window_s ? el('span', {class: 'hint'}, ` · over the last ${fmtDuration(status.window_s)}`) : '';
  out.push(el('h2', {}, 'Advisories', span), advisories(report, status));
  out.push(el('h2', {}, 'Phases'), segmentTable(report.phases, 'phase', metrics));
  out.push(el('h2', {}, 'Epochs'), segmentTable(report.epochs, 'epoch', metrics));
  return el('section', {}, out);
}

const BANDS = 'bands: excellent < 5 %, good < 10 %, fair < 20 %, poor ≥ 20 %';

function loadBalance(report, util) {
  const lb = (report.load_balance || []).find((x) => x.metric === 'gpu_util_percent');
  if (!lb) return el('p', {class: 'muted'}, 'No load balance: it needs two or more of the job\'s GPUs.');
  const gpus = (report.job_gpus && report.job_gpus.gpus) || lb.per_gpu_mean.map((_, i) => i);
  const rows = lb.per_gpu_mean.map((mean, i) => {
    const gpu = gpus[i] === undefined ? i : gpus[i];
    return el('div', {class: 'bar-row'},
      el('span', {}, `GPU ${gpu}`, lb.straggler_gpu === gpu ? ' ⚑' : ''),
      el('div', {class: 'bar', title: fmtDisplay(mean, util.display)},
        el('span', {style: {width: `${Math.max(0, Math.min(100, mean))}%`, background: gpuColor(gpu)}})),
      el('span', {class: 'num'}, fmtDisplay(mean, util.display)));
  });
  return el('div', {class: 'balance'},
    el('div', {}, `Mean ${util.label} per GPU · CV `, el('b', {}, `${fmtNumber(lb.cv_percent)} %`), ' ',
      el('b', {class: `quality-${lb.quality}`}, lb.quality),
      lb.straggler_gpu !== null && lb.straggler_gpu !== undefined ? ` · straggler GPU ${lb.straggler_gpu} (⚑)` : '',
      el('span', {class: 'hint'}, ` · ${BANDS}`)),
    rows);
}

// Seed 001's per-GPU memory breakdown: a small chart per GPU on one y scale, with its
// time-weighted mean (the report's) dashed, laid out 1×2, 2×2, 2×3, 2×4, then rows of four.
function memoryGrid(id, report, memory) {
  const devices = report.devices;
  const columns = devices.length <= 2 ? devices.length : devices.length <= 4 ? 2 : devices.length <= 6 ? 3 : 4;
  const grid = el('div', {class: 'memory-grid', style: {gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))`}});
  const shown = memory.display;
  const gib = shown.divisor || 1;
  const stat = (d, k) => ((d.metrics || {}).mem_used_bytes || {})[k];
  const top = Math.max(...devices.map((d) => stat(d, 'max') || 0)) / gib;
  const boxes = devices.map((d) => {
    const canvas = el('canvas', {class: 'chart small', dataset: {metric: 'mem_used_bytes', gpu: String(d.gpu), points: '0'}});
    const mean = stat(d, 'mean');
    const box = el('div', {class: 'chart-box'}, el('div', {class: 'chart-head'},
      el('h3', {}, `GPU ${d.gpu}`),
      el('span', {class: 'hint'}, mean === undefined || mean === null ? 'no memory samples'
        : `mean ${fmtDisplay(mean, shown)} · max ${fmtDisplay(stat(d, 'max'), shown)}`)), canvas);
    grid.append(box);
    return {d, canvas, mean};
  });
  // After the boxes are in the page, so that the charts know their width.
  requestAnimationFrame(async () => {
    const charts = boxes.map((b) => ({...b, chart: new window.LineChart(b.canvas, {
      format: (v, step) => fmtNumber(v, step ? Math.max(0, Math.ceil(-Math.log10(step))) : shown.decimals)
        + (shown.unit ? ' ' + shown.unit : ''),
      yRange: [0, top > 0 ? top * 1.05 : 1]})}));
    try {
      const s = await api(`/api/runs/${encodeURIComponent(id)}/series`,
        seriesParams('mem_used_bytes', undefined, undefined, charts[0].chart.plotWidth()));
      for (const c of charts) {
        const line = s.devices.find((x) => x.gpu === c.d.gpu) || {t: [], v: []};
        const series = [{name: `GPU ${c.d.gpu}`, color: gpuColor(c.d.gpu), t: line.t,
          v: line.v.map((x) => x === null ? null : x / gib)}];
        if (c.mean !== undefined && c.mean !== null && line.t.length) {
          series.push({name: 'mean', color: '#888', dash: true, t: [line.t[0], line.t[line.t.length - 1]],
            v: [c.mean / gib, c.mean / gib]});
        }
        c.chart.setData(series, []);
      }
    } catch (e) {
      showError(e);
    }
  });
  return grid;
}

// The advisor over the run's latest window (/api/runs/ID/status, advisor.md's objects); without
// it, the `advisory` events a `record --advise` run stored.
function advisories(report, status) {
  let list = status ? status.advisories : null;
  if (!Array.isArray(list)) {
    list = (report.events || []).filter((e) => e.kind === 'advisory').map((e) => {
      const m = /^\[(\w+)\]\s*(.*)$/.exec(e.message || '');
      return {severity: m ? m[1] : '', gpu: e.gpu, summary: m ? m[2] : e.message, suggestion: ''};
    });
  }
  if (!list.length) return el('p', {class: 'muted'}, 'No advisories.');
  return table(['severity', 'GPU', 'summary', 'suggestion'], list.map((a) => [
    {text: a.severity || '—', class: `sev-${a.severity}`},
    a.gpu === null || a.gpu === undefined ? 'run' : a.gpu,
    (a.id ? a.id + ': ' : '') + (a.summary || ''), a.suggestion || '']));
}

// Phases or epochs: label, occurrences, duration, and per GPU the mean of each metric below,
// headed by its label and display unit ("GPU utilization % mean").
const SEGMENT_METRICS = ['gpu_util_percent', 'mem_used_bytes', 'power_watts'];

function segmentTable(list, what, metrics) {
  if (!list || !list.length) return el('p', {class: 'muted'}, `No ${what}s annotated.`);
  const mean = (d, k) => (d[k] && d[k].mean !== undefined ? d[k].mean : null);
  const perGpu = (seg, m) => (seg.devices || []).map((d) => fmtDisplay(mean(d, m.name), m.display, false)).join(' / ');
  const gpus = `GPU ${(list[0].devices || []).map((d) => d.gpu).join(' / ')}`;
  const shown = SEGMENT_METRICS.map((name) => describe(metrics, name));
  const title = (m) => `${m.label}${m.display.unit ? ' ' + m.display.unit : ''} mean (${gpus})`;
  return table([what, {text: 'occurrences', num: true}, {text: 'duration', num: true}, ...shown.map(title)],
    list.map((s) => [s.label + (s.merged_labels ? ` (${s.merged_labels} labels)` : ''), num(s.occurrences),
      num(fmtDuration(s.duration_s)), ...shown.map((m) => perGpu(s, m))]));
}

// ---- #/compare/ID,ID --------------------------------------------------------------------------

// How compare folds a metric over GPUs ("mean over GPUs", "sum over GPUs", "max over GPUs").
const FOLDS = {
  sum: (xs) => xs.reduce((a, b) => a + b, 0),
  max: (xs) => Math.max(...xs),
  mean: (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
};

// One line from a run's per-GPU series, as compare folds them: per pixel column each GPU's mean
// there, else its latest reading (up to its own last sample), folded over the GPUs; a column
// where every GPU's value is null (a gap) breaks the line.
function foldDevices(devices, from, to, points, fold) {
  const cols = new Map(); // column → {t, sums: Map(gpu → [sum, n]), gap}
  const lastCol = new Map();
  for (const d of devices) {
    for (let i = 0; i < d.t.length; i++) {
      const c = Math.min(points - 1, Math.floor((d.t[i] - from) / ((to - from) || 1) * points));
      if (!cols.has(c)) cols.set(c, {t: d.t[i], sums: new Map()});
      lastCol.set(d.gpu, c);
      const col = cols.get(c);
      const acc = col.sums.get(d.gpu) || [0, 0];
      if (d.v[i] !== null) col.sums.set(d.gpu, [acc[0] + d.v[i], acc[1] + 1]);
      else if (!acc[1]) col.sums.set(d.gpu, [0, 0]);
    }
  }
  const latest = new Map();
  const t = [], v = [];
  for (const c of [...cols.keys()].sort((a, b) => a - b)) {
    const col = cols.get(c);
    for (const [gpu, [sum, n]] of col.sums) latest.set(gpu, n ? sum / n : null);
    const vals = [...latest].filter(([gpu, x]) => x !== null && c <= lastCol.get(gpu)).map(([, x]) => x);
    t.push(col.t);
    v.push(vals.length ? fold(vals) : null);
  }
  return {t, v};
}

async function showCompare(main, idList, align) {
  const ids = idList.split(',').filter(Boolean);
  setCrumbs(el('a', {href: '#/'}, 'runs'), 'compare');
  const [cmp, ...details] = await Promise.all([
    api('/api/compare', {runs: ids.join(',')}),
    ...ids.map((id) => api(`/api/runs/${encodeURIComponent(id)}`)),
  ]);
  const runs = details.map((d, i) => ({id: ids[i], detail: d, label: (cmp.runs[i] || {}).label || String.fromCharCode(65 + i),
    name: d.run.name || d.run.id, color: RUN_COLORS[i % RUN_COLORS.length]}));
  const root = el('div', {id: 'compare', dataset: {runs: ids.join(',')}});
  const charts = el('div', {class: 'charts'});
  for (const r of runs) r.epochs = epochAxis(r.detail.events, r.detail.run.duration_s);
  // By epoch only when every run marked its epochs (annotations.md).
  const alignSelect = runs.every((r) => r.epochs) ? el('select', {id: 'align', title: 'align the runs by'},
    el('option', {value: 'time'}, 'by time'), el('option', {value: 'epoch'}, 'by epoch')) : null;
  const alignHint = el('span', {class: 'hint'});
  const cmpMetric = (name) => (cmp.metrics || []).find((m) => m.metric === name);
  const displayOf = (name) => {
    for (const r of runs) {
      const m = (r.detail.metrics || []).find((x) => x.name === name);
      if (m) return m;
    }
    return null;
  };
  root.append(
    el('h1', {}, 'Compare ', runs.map((r, i) => [i ? ' · ' : '', el('a', {href: `#/run/${r.id}`}, `${r.label} ${r.name}`)])),
    table(['run', 'name', 'id', 'start', 'status', 'compared span'], runs.map((r, i) => {
      const c = cmp.runs[i] || {};
      return [el('b', {style: {color: r.color}}, r.label), r.name, {text: r.id, class: 'mono'}, fmtStart(r.detail.run.start),
        statusBadge(r.detail.run.status), `${fmtNumber(c.window_from_s)}–${fmtNumber(c.window_to_s)} s of ${fmtNumber(c.end_s)} s`];
    })),
    el('p', {class: 'muted'}, cmp.direction || ''),
    el('h2', {}, 'Statistics'), compareTable(cmp, runs, displayOf),
    el('h2', {}, 'Timelines ', alignSelect || '', alignHint), charts);
  main.replaceChildren(root);

  const shared = (runs[0].detail.metrics || []).filter((m) => PRIMARY.includes(m.name) &&
    runs.every((r) => (r.detail.metrics || []).some((x) => x.name === m.name)));
  const draw = (mode) => {
    const byEpoch = mode === 'epoch';
    alignHint.textContent = byEpoch
      ? ' · x: epochs since each run\'s first epoch mark, each epoch stretched to one unit; each line folds the run\'s GPUs as compare does; drag to zoom'
      : ' · aligned by time since each run\'s start; each line folds the run\'s GPUs as compare does (named per chart); drag to zoom';
    const group = new ChartGroup(byEpoch ? EPOCH_AXIS : {});
    charts.replaceChildren();
    charts.dataset.align = mode;
    return Promise.all(shared.map((m) => {
      const agg = (cmpMetric(m.name) || {}).aggregation || 'mean over GPUs';
      const foldName = agg.startsWith('sum') ? 'sum' : agg.startsWith('max') ? 'max' : 'mean';
      return group.add(charts, {
        metric: m.name, display: m.display,
        title: `${m.label || m.name} (${(m.display && m.display.unit) || m.unit}) — ${foldName} over GPUs`,
        legend: runs.map((r) => [r.color, `${r.label} ${r.name}`]),
        load: (from, to, points) => Promise.all(runs.map(async (r) => {
          // By epoch, the span zoomed to (in epochs) is each run's own span of time.
          const [a, b] = byEpoch && from !== undefined ? [r.epochs.toT(from), r.epochs.toT(to)] : [from, to];
          const s = await api(`/api/runs/${encodeURIComponent(r.id)}/series`, seriesParams(m.name, a, b, points));
          const div = (s.display && s.display.divisor) || 1;
          const line = foldDevices(s.devices, s.from, s.to, points, FOLDS[foldName]);
          let t = line.t, v = line.v.map((x) => x === null ? null : x / div);
          if (byEpoch) { // the time before the first epoch mark has no place on this axis
            const keep = t.map((x, i) => i).filter((i) => t[i] >= r.epochs.start);
            t = keep.map((i) => r.epochs.toX(line.t[i]));
            v = keep.map((i) => v[i]);
          }
          return {name: `${r.label} ${r.name}`, color: r.color, t, v};
        })),
      });
    }));
  };
  // A link of its own, like every other view: #/compare/A,B/epoch.
  if (alignSelect) {
    alignSelect.value = align === 'epoch' ? 'epoch' : 'time';
    alignSelect.addEventListener('change', () => { location.hash = `#/compare/${ids.join(',')}/${alignSelect.value}`; });
  } else if (align === 'epoch') {
    showError('aligned by time: not every run has epoch marks (annotations.md)');
  }
  await draw(alignSelect ? alignSelect.value : 'time');
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

function compareTable(cmp, runs, displayOf) {
  const rows = [];
  const sentences = [];
  for (const m of cmp.metrics || []) {
    const desc = displayOf(m.metric);
    const display = desc ? desc.display : m.unit === 'B' ? {unit: 'MiB', divisor: 1048576, decimals: 1}
      : {unit: m.unit, divisor: 1, decimals: 2};
    const byLabel = Object.fromEntries((m.runs || []).map((r) => [r.label, r]));
    const base = byLabel[cmp.baseline] || (m.runs || [])[0] || {};
    for (const d of m.differences || []) {
      const other = byLabel[d.label] || {};
      const pct = (x) => (x === null || x === undefined ? '—' : `${fmtNumber(x, 1)} %`);
      rows.push([(desc && desc.label) || m.metric, m.aggregation, m.better, d.label,
        num(fmtDisplay(base.mean, display)), num(fmtDisplay(other.mean, display)),
        num(fmtDisplay(d.delta, display)), num(pct(d.delta_percent)),
        num(`${fmtDisplay(d.ci_low, display, false)} to ${fmtDisplay(d.ci_high, display, false)}`),
        num(d.ci_low_percent === null || d.ci_low_percent === undefined ? '—' : `${pct(d.ci_low_percent)} to ${pct(d.ci_high_percent)}`),
        {text: d.real ? 'yes' : 'no', class: d.real ? 'real-yes' : 'real-no'}]);
      if (d.sentence) sentences.push(el('li', {class: d.real ? 'real-yes' : 'real-no'}, d.sentence));
    }
  }
  if (!rows.length) return el('p', {class: 'muted'}, 'No metric in common.');
  const base = cmp.baseline || 'A';
  return el('div', {},
    table(['metric', 'across GPUs', 'better', 'run', {text: `${base} mean`, num: true}, {text: 'run mean', num: true},
      {text: `run − ${base}`, num: true}, {text: '%', num: true}, {text: '95 % interval', num: true},
      {text: '95 % interval %', num: true}, 'real'], rows),
    el('ul', {class: 'sentences'}, sentences),
    (cmp.notes || []).length ? el('ul', {class: 'hint'}, cmp.notes.map((n) => el('li', {}, n))) : '');
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
    else if ((m = /^\/compare\/([^/]+?)(?:\/(time|epoch))?$/.exec(hash))) await showCompare(main, m[1], m[2]);
    else await showRuns(main);
  } catch (e) {
    if (!main.isConnected) return; // a page left behind: its error is not this page's
    showError(e);
    if (main.querySelector('p.muted') && main.childElementCount === 1) main.replaceChildren();
  }
}

// The header's links (serve --link NAME=URL: the fleet's Grafana dashboard, say), and whether
// this server also has /metrics.
async function showLinks() {
  try {
    const info = await api('/api/info');
    const links = (info.links || []).map((l) => el('a', {href: l.url, target: '_blank', rel: 'noopener noreferrer'}, l.name));
    if (info.metrics) links.push(el('a', {href: apiUrl('/metrics'), title: 'Prometheus text of every GPU'}, '/metrics'));
    document.getElementById('links').replaceChildren(...links);
  } catch (e) {
    // An older server without /api/info: no links.
  }
}

window.addEventListener('hashchange', route);
showLinks();
route();
