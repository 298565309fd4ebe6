// gpuwatch serve: the run page's sections from its report: load balance, memory per GPU,
// advisories, phases and epochs.
'use strict';

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

