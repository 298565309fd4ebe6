// gpuwatch serve: #/run/ID, a run's page (app.js has the helpers, verdict.js the card at its top,
// run_report.js its report's sections, training.js its training charts and x axes).
'use strict';

async function showRun(main, id) {
  setCrumbs(el('a', {href: '#/'}, 'runs'), id);
  const path = `/api/runs/${encodeURIComponent(id)}`;
  // The report of a long run takes longest: the charts are drawn without waiting for it.
  const judged = () => Promise.all([api(`${path}/report`).catch((e) => e), api(`${path}/status`).catch((e) => e)]);
  const judging = judged();
  const detail = await api(path);
  const run = detail.run;
  setCrumbs(el('a', {href: '#/'}, 'runs'), run.name || run.id);
  const view = {id, path, detail, run, group: new ChartGroup(), metrics: detail.metrics || [],
    devices: detail.devices || [], ui: runFacts(detail)};
  view.group.markers = eventMarkers(detail.events);
  const charts = el('div', {class: 'charts', id: 'charts'});
  const more = el('div', {class: 'charts'});
  const card = el('section', {class: 'verdict', id: 'verdict'}, el('p', {class: 'muted'}, 'Judging the run…'));
  const reportBox = el('section', {}, el('p', {class: 'muted'}, 'Reading the report…'));
  const hostBox = el('section', {});
  const axisBox = el('span', {});
  const moreBox = el('details', {id: 'more-metrics', hidden: true}, el('summary', {}, 'More metrics'), more);
  Object.assign(view, {charts, more, moreBox, card, reportBox, hostBox});
  main.replaceChildren(
    el('h1', {}, run.name || run.id, ' ', view.ui.headStatus), card, view.ui.progress,
    el('h2', {}, 'Timelines ', axisBox, el('span', {class: 'hint'}, ' · drag across a chart to zoom, double-click to zoom out')),
    charts, moreBox, hostBox, reportBox, el('h2', {}, 'Run'), view.ui.facts);

  const {primary, others} = splitMetrics(view.metrics);
  view.others = others;
  moreBox.addEventListener('toggle', () => { if (moreBox.open) drawMore(view); });
  showMore(view);
  // The training's charts before the GPUs' (a run is judged by its loss first); the charts that
  // show the run's problem go before both when the report has come (orderCharts).
  const trainingSet = el('div', {class: 'chart-set'}), gpuSet = el('div', {class: 'chart-set'});
  charts.append(trainingSet, gpuSet);
  view.gpuSet = gpuSet;
  const training = trainingCharts(view, trainingSet);
  const gpu = Promise.all(primary.map((m) => addGpuChart(view, gpuSet, m)));
  const shown = judging.then((answers) => showJudgement(view, answers));
  await Promise.all([training, gpu, hostCharts(hostBox, view), shown]);
  axisBox.replaceChildren(axisSelect(view));
  showStepsPerS(view);
  showMore(view);
  if (run.live && main.isConnected) followLive(view, judged);
}

// The charted metrics first (PRIMARY's order), the others under "More metrics".
function splitMetrics(metrics) {
  const primary = metrics.filter((m) => PRIMARY.includes(m.name)).sort((a, b) => PRIMARY.indexOf(a.name) - PRIMARY.indexOf(b.name));
  return {primary, others: metrics.filter((m) => !PRIMARY.includes(m.name))};
}

// Points to ask for before a chart knows its width: a chart's at this window's width (two to a
// row on a wide screen, one on a narrow one).
function chartPoints() {
  const w = window.innerWidth;
  return Math.max(200, Math.round(w > 1200 ? w / 2 : w));
}

function drawMore(view) {
  for (const m of view.others) if (!view.group.find(m.name)) addGpuChart(view, view.more, m);
}

function showMore(view) {
  const n = view.others.filter((m) => !view.group.find(m.name)).length + view.more.childElementCount;
  view.moreBox.hidden = !n;
  view.moreBox.querySelector('summary').textContent = `More metrics (${n})`;
}

function addGpuChart(view, container, m) {
  const legend = view.devices.map((d) => [gpuColor(d.gpu), `GPU ${d.gpu}`]);
  return view.group.add(container, {
    metric: m.name, display: m.display,
    title: `${m.label || m.name} (${(m.display && m.display.unit) || m.unit || ''})`, legend,
    load: async (from, to, points) => {
      const s = await api(`${view.path}/series`, seriesParams(m.name, from, to, points));
      const div = (s.display && s.display.divisor) || 1;
      return s.devices.map((d) => ({name: `GPU ${d.gpu}`, color: gpuColor(d.gpu), dash: gpuDashed(d.gpu), t: d.t,
        v: d.v.map((x) => x === null ? null : x / div)}));
    },
  });
}

// The run's facts, below the charts: who ran what, where, when.
function runFacts(detail) {
  const run = detail.run;
  const ui = {statusCell: el('dd', {}, statusBadge(run.status)), headStatus: el('span', {}, statusBadge(run.status)),
    durationCell: el('dd', {}, fmtDuration(run.duration_s)), exitCell: el('dd', {}, run.exit_code ?? '—'),
    progress: el('div', {class: 'progress', id: 'progress', hidden: true})};
  const fact = (k, v, cls) => el('div', {}, el('dt', {}, k), v instanceof Node ? v : el('dd', {class: cls}, v));
  ui.facts = el('dl', {class: 'facts'},
    fact('name', run.name || '—'), fact('id', run.id, 'mono'), fact('host', run.host || '—'),
    fact('start', fmtStart(run.start)), fact('duration', ui.durationCell), fact('status', ui.statusCell),
    fact('exit code', ui.exitCell), fact('interval', run.interval_s ? `${run.interval_s} s` : '—'),
    fact('GPUs', (detail.devices || []).map((d) => `${d.gpu}: ${d.name}`).join(', ') || '—'),
    fact('cwd', run.cwd || '—', 'mono'), fact('command', fmtCommand(run.command), 'cmd mono'));
  return ui;
}

// The report and status arrived (or again, while live): the card, the charts' order and
// reference lines, the report's sections.
function showJudgement(view, [report, status]) {
  if (!view.reportBox.isConnected) return;
  if (report instanceof Error) {
    showError(report); // the run without its report: the charts stay
    view.reportBox.replaceChildren();
    view.card.replaceChildren(el('p', {class: 'muted'}, 'No verdict: the report could not be read.'));
    return;
  }
  const st = status instanceof Error ? null : status;
  view.report = report;
  view.status = st;
  view.card.replaceChildren(...verdictCard(view, report, st));
  view.reportBox.replaceChildren(reportSections(report, st, view.id, view.metrics));
  orderCharts(view, report, st);
  referenceLines(view, report);
}

// The charts that show the run's problem first; those that stayed at zero on every GPU (FP64 on
// a training in bf16) under "More metrics".
function orderCharts(view, report, status) {
  const wanted = problemMetrics(rootCauses((status && status.advisories) || report.advisories || []));
  const devs = report.devices || [];
  const most = (name) => Math.max(-Infinity, ...devs.map((d) => ((d.metrics || {})[name] || {}).max ?? -Infinity));
  // The precision pipes a run used, among the charts (run.js draws them only now).
  for (const m of view.others.filter((x) => PRIMARY_WHEN_USED.includes(x.name) && most(x.name) > 0)) {
    view.others = view.others.filter((x) => x !== m);
    if (!view.group.find(m.name)) addGpuChart(view, view.gpuSet, m);
  }
  for (const metric of [...wanted].reverse()) {
    const item = view.group.find(metric);
    if (item && view.charts.contains(item.box)) view.charts.prepend(item.box);
  }
  // A GPU metric that stayed at zero, or had no value, on every GPU.
  const gpuMetric = (name) => view.metrics.some((m) => m.name === name);
  for (const item of view.group.items) {
    const idle = devs.length && gpuMetric(item.metric) && !(most(item.metric) > 0);
    if (idle && view.charts.contains(item.box) && !wanted.includes(item.metric)) view.more.append(item.box);
  }
  showMore(view);
}

// Capacity, limit and maximum lines, in each chart's display unit.
function referenceLines(view, report) {
  const most = (name) => Math.max(-Infinity, ...(report.devices || []).map((d) => ((d.metrics || {})[name] || {}).max)
    .filter((v) => v !== undefined && v !== null));
  const capacity = Math.max(-Infinity, ...view.devices.map((d) => d.mem_total_bytes || -Infinity));
  const refs = {mem_used_bytes: [capacity, 'capacity'], power_watts: [most('power_limit_watts'), 'power limit'],
    sm_clock_mhz: [most('sm_clock_max_mhz'), 'max clock'], mem_clock_mhz: [most('mem_clock_max_mhz'), 'max clock']};
  for (const [metric, [v, label]] of Object.entries(refs)) {
    const item = view.group.find(metric);
    if (!item || !isFinite(v) || v <= 0) continue;
    const d = item.display || {divisor: 1, decimals: 0, unit: ''};
    item.chart.setRefs([{v: v / (d.divisor || 1), label: `${label} ${fmtDisplay(v, {...d, decimals: 0})}`}]);
  }
}

// The host's CPU and memory and the command's own CPU, RSS and reads (/api/runs/ID/host, every
// metric in one answer), in the run's chart group so they zoom with the GPUs' charts.
async function hostCharts(box, view) {
  const hostData = sharedFetch((from, to, points) => api(`${view.path}/host`, seriesParams(undefined, from, to, points)));
  const first = await hostData(undefined, undefined, chartPoints());
  // Only the metrics without a chart: all at load; while live, those whose first value came
  // later (the CPU's share needs two readings of /proc/stat).
  const missing = first.metrics.filter((m) => !view.group.find(`host.${m.metric}`));
  if (!missing.length) return;
  if (!view.hostCharts) {
    view.hostCharts = el('div', {class: 'charts'});
    box.replaceChildren(el('h2', {}, 'Host'), view.hostCharts);
  }
  await Promise.all(missing.map((m) => view.group.add(view.hostCharts, {
    metric: `host.${m.metric}`, display: m.display,
    title: `${m.label} (${m.display.unit || m.unit})`, legend: [[HOST_COLOR, 'host']],
    load: async (from, to, points) => {
      const h = (await hostData(from, to, points)).metrics.find((x) => x.metric === m.metric);
      const div = (m.display && m.display.divisor) || 1;
      return h ? [{name: 'host', color: HOST_COLOR, t: h.t, v: h.v.map((x) => x === null ? null : x / div)}] : [];
    },
  })));
}

// Seconds between two readings of the report and status while live: a long run's report takes
// about a second of the server's.
const LIVE_REPORT_PERIOD_MS = 10000;

// One stream (/api/live) drives every panel while the run records: the GPUs' and the host's
// charts, the markers and the training curves grow from its samples and events; the card, the
// tables and the advisories are read again at most every LIVE_REPORT_PERIOD_MS and at the end.
function followLive(view, judged) {
  let since = 0;
  for (const item of view.group.items) {
    if (!item.metric.startsWith('training.')) for (const s of item.raw) if (s.t.length) since = Math.max(since, s.t[s.t.length - 1]);
  }
  const source = new EventSource(apiUrl('/api/live', {run: view.id, since: String(since)}));
  page.cleanup.push(() => source.close());
  let lastJudged = Date.now();
  const rejudge = () => { lastJudged = Date.now(); judged().then((a) => showJudgement(view, a)); };
  source.addEventListener('samples', (ev) => {
    const data = JSON.parse(ev.data);
    const last = appendLive(view, data);
    if (last) view.ui.durationCell.textContent = fmtDuration(last);
    showProgress(view.ui.progress, data.progress);
    if (Date.now() - lastJudged > LIVE_REPORT_PERIOD_MS) rejudge();
  });
  source.addEventListener('end', (ev) => {
    source.close();
    let end = {status: 'finished'};
    try { end = JSON.parse(ev.data); } catch (e) { /* keep the default */ }
    for (const cell of [view.ui.statusCell, view.ui.headStatus]) cell.replaceChildren(statusBadge(end.status || 'finished'));
    view.ui.exitCell.textContent = end.exit_code ?? '—';
    if (end.duration_s) view.ui.durationCell.textContent = fmtDuration(end.duration_s);
    view.ui.progress.hidden = false;
    view.ui.progress.append(` · run ${end.status || 'finished'}`);
    lastLateCharts(view);
    rejudge();
  });
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) showError('live updates: the connection closed');
  };
}

// A live event's samples and events into the charts; the last time it covers.
function appendLive(view, data) {
  const group = view.group;
  let last = 0;
  for (const dev of data.devices || []) {
    for (const [key, values] of Object.entries(dev.values || {})) {
      const item = group.find(key);
      const div = item && item.display ? item.display.divisor || 1 : 1;
      if (item) group.append(item, `GPU ${dev.gpu}`, {color: gpuColor(dev.gpu), dash: gpuDashed(dev.gpu)}, dev.t, values.map((v) => v === null ? null : v / div));
    }
    if (dev.t.length) last = Math.max(last, dev.t[dev.t.length - 1]);
  }
  const host = data.host || {t: [], values: {}};
  for (const [key, values] of Object.entries(host.values || {})) {
    const item = group.find(`host.${key}`);
    if (!item) addLateHostCharts(view);
    const div = item && item.display ? item.display.divisor || 1 : 1;
    if (item) group.append(item, 'host', {color: HOST_COLOR}, host.t, values.map((v) => v === null ? null : v / div));
  }
  const events = data.events || [];
  group.addMarkers(eventMarkers(events));
  trainingEvents(view, events);
  group.flush();
  return last;
}

// The host's first samples arrived after the page opened: its charts from a fresh /host answer
// (one request at a time; the stream's next samples append to them).
// The run ended: charts still missing (a series whose first values came while a late-chart
// request waited out LATE_CHARTS_MS) from one last answer each, after any request in flight.
function lastLateCharts(view) {
  view.lateHost = view.lateHost || {};
  Promise.resolve(view.lateHost.pending).then(() => hostCharts(view.hostBox, view)).catch(showError);
  const tr = view.training;
  if (tr) Promise.resolve(tr.late.pending).then(() => addLateTrainingCharts(view, true)).catch(showError);
}

function addLateHostCharts(view) {
  view.lateHost = view.lateHost || {};
  addLate(view.lateHost, () => hostCharts(view.hostBox, view));
}

// "epoch 3 · step 4,200 · loss 0.2513": numbers as people read them.
function showProgress(box, p) {
  if (!p || (p.epoch === null && p.step === null && p.loss === null)) return;
  box.hidden = false;
  box.textContent = ['epoch ' + (p.epoch ?? '—'), 'step ' + (p.step === null || p.step === undefined ? '—' : fmtNumber(p.step, 0)),
    'loss ' + fmtSignificant(p.loss)].join(' · ');
}
