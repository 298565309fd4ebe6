// gpuwatch serve: #/compare/ID,ID, runs compared (app.js has the helpers).
'use strict';

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

