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

// The compare page's x axes: each run's time since its start, its step counter or its epochs;
// step and epoch are offered when every run has them (annotations.md).
const ALIGNMENTS = {
  time: {axis: {}, hint: 'aligned by time since each run\'s start'},
  step: {axis: STEP_AXIS, missing: 'not every run counted its steps',
    hint: 'x: each run\'s step counter (the time before its first step left out)'},
  epoch: {axis: EPOCH_AXIS, missing: 'not every run has epoch marks',
    hint: 'x: epochs since each run\'s first epoch mark, each epoch stretched to one unit'},
};

// Run r's seconds on the x axis `mode` ({toX, toT}), and the seconds that have a place on it
// [from, to]: none before a run's first step or epoch mark.
function runAlignment(r, mode) {
  if (mode === 'step') {
    const t = r.training.steps.t;
    return {...r.steps, from: t[0], to: t[t.length - 1]};
  }
  if (mode === 'epoch') return {...r.epochs, from: r.epochs.start, to: Infinity};
  return {toX: (t) => t, toT: (x) => x, from: -Infinity, to: Infinity};
}

// A span zoomed to (in x units) as run r's own seconds; the whole run when none.
function alignedSpan(r, from, to) {
  return from === undefined ? [undefined, undefined] : [Math.max(0, r.align.toT(from)), Math.max(0, r.align.toT(to))];
}

// Run r's line (seconds) on the x axis: the points outside the seconds that have a place on it
// left out or, with `clamp`, put at its ends (a loss logged after the last step counted, or
// before the first, belongs to that step: the recorder reads the counter about once a second).
function alignedLine(r, t, v, clamp = false) {
  const {from, to, toX} = r.align;
  const keep = t.map((_, i) => i).filter((i) => clamp || (t[i] >= from && t[i] <= to));
  return {t: keep.map((i) => toX(Math.min(to, Math.max(from, t[i])))), v: keep.map((i) => v[i])};
}

// The compare, each run's detail and its training curves (null from an older server, which has
// no /training), read at once.
async function loadCompare(ids) {
  const trainingOf = (id) => sharedFetch((from, to, points) =>
    api(`/api/runs/${encodeURIComponent(id)}/training`, seriesParams(undefined, from, to, points)));
  const reads = ids.map(trainingOf);
  const [cmp, ...answers] = await Promise.all([
    api('/api/compare', {runs: ids.join(',')}),
    ...ids.map((id) => api(`/api/runs/${encodeURIComponent(id)}`)),
    ...reads.map((read) => read(undefined, undefined, chartPoints()).catch(() => null)),
  ]);
  const runs = ids.map((id, i) => {
    const detail = answers[i], training = answers[ids.length + i];
    return {id, detail, training, trainingData: reads[i], label: (cmp.runs[i] || {}).label || String.fromCharCode(65 + i),
      name: detail.run.name || detail.run.id, color: RUN_COLORS[i % RUN_COLORS.length],
      epochs: epochAxis(detail.events, detail.run.duration_s), steps: training && stepAxis(training.steps)};
  });
  return {cmp, runs};
}

async function showCompare(main, idList, align) {
  const ids = idList.split(',').filter(Boolean);
  setCrumbs(el('a', {href: '#/'}, 'runs'), 'compare');
  const {cmp, runs} = await loadCompare(ids);
  const modes = ['time', 'step', 'epoch'].filter((m) => m === 'time' || runs.every((r) => (m === 'step' ? r.steps : r.epochs)));
  const mode = modes.includes(align) ? align : 'time';
  const charts = el('div', {class: 'charts'});
  const displayOf = (name) => {
    for (const r of runs) {
      const m = (r.detail.metrics || []).find((x) => x.name === name);
      if (m) return m;
    }
    return null;
  };
  const root = el('div', {id: 'compare', dataset: {runs: ids.join(',')}});
  root.append(
    el('h1', {}, 'Compare ', runs.map((r, i) => [i ? ' · ' : '', el('a', {href: `#/run/${r.id}`}, `${r.label} ${r.name}`)])),
    table(['run', 'name', 'id', 'start', 'status', 'compared span'], runs.map((r, i) => {
      const c = cmp.runs[i] || {};
      return [el('b', {style: {color: r.color}}, r.label), r.name, {text: r.id, class: 'mono'}, fmtStart(r.detail.run.start),
        statusBadge(r.detail.run.status), `${fmtNumber(c.window_from_s)}–${fmtNumber(c.window_to_s)} s of ${fmtNumber(c.end_s)} s`];
    })),
    el('p', {class: 'muted'}, cmp.direction || ''),
    el('h2', {}, 'Statistics'), compareTable(cmp, runs, displayOf),
    el('h2', {id: 'timelines'}, 'Timelines ', alignSelect(ids, modes, mode), el('span', {class: 'hint'}, ` · ${ALIGNMENTS[mode].hint}`
      + '; each GPU line folds the run\'s GPUs as compare does (named per chart); drag to zoom')),
    trainingNote(runs), charts);
  main.replaceChildren(root);
  if (align && align !== mode) showError(`aligned by time: ${ALIGNMENTS[align].missing} (annotations.md)`);
  for (const r of runs) r.align = runAlignment(r, mode);
  const group = new ChartGroup(ALIGNMENTS[mode].axis);
  const trainingSet = el('div', {class: 'chart-set', id: 'compare-training'}), gpuSet = el('div', {class: 'chart-set'});
  charts.append(trainingSet, gpuSet);
  charts.dataset.align = mode;
  await Promise.all([compareTraining(group, trainingSet, runs), compareGpus(group, gpuSet, runs, cmp)]);
}

// The select of the x axis, a link of its own like every other view (#/compare/A,B/step);
// nothing when time is the only choice.
function alignSelect(ids, modes, mode) {
  if (modes.length < 2) return '';
  const select = el('select', {id: 'align', title: 'align the runs by'}, modes.map((m) => el('option', {value: m}, `by ${m}`)));
  select.value = mode;
  select.addEventListener('change', () => { location.hash = `#/compare/${ids.join(',')}/${select.value}`; });
  return select;
}

// One line for the runs without training data (no steps, no logged scalars), instead of charts.
function trainingNote(runs) {
  const without = runs.filter((r) => !hasTraining(r.training));
  if (!without.length) return '';
  const names = without.map((r) => `${r.label} ${r.name}`).join(', ');
  return el('p', {class: 'muted', id: 'no-training'}, without.length === runs.length
    ? 'No training curves: no run logged steps or scalars (annotations.md).'
    : `No training curves for ${names}: it logged no steps or scalars (annotations.md).`);
}

// The training's charts of the run page (training.js), each run's curves overlaid in its colour;
// a split's second curve (val_loss beside loss) dashed.
function compareTraining(group, container, runs) {
  const trained = runs.filter((r) => hasTraining(r.training));
  return Promise.all(trainingSpecs(trained.map((r) => r.training)).map((c) => group.add(container, {
    metric: c.metric, display: c.display,
    title: c.names.length > 1 ? `${c.title} (${c.names.slice(1).join(', ')} dashed)` : c.title,
    legend: trained.map((r) => [r.color, `${r.label} ${r.name}`]),
    load: async (from, to, points) => (await Promise.all(trained.map(async (r) => {
      const d = await r.trainingData(...alignedSpan(r, from, to), points);
      return c.pick(d).map((s) => ({name: `${r.label} ${r.name} · ${s.name}`, color: r.color,
        dash: c.names.indexOf(s.name) > 0, ...alignedLine(r, s.t, s.v, true)}));
    }))).flat(),
  })));
}

// The GPUs' metrics every run has, each run's GPUs folded into one line as compare folds them.
function compareGpus(group, container, runs, cmp) {
  const shared = (runs[0].detail.metrics || []).filter((m) => PRIMARY.includes(m.name) &&
    runs.every((r) => (r.detail.metrics || []).some((x) => x.name === m.name)));
  return Promise.all(shared.map((m) => {
    const agg = ((cmp.metrics || []).find((x) => x.metric === m.name) || {}).aggregation || 'mean over GPUs';
    const foldName = agg.startsWith('sum') ? 'sum' : agg.startsWith('max') ? 'max' : 'mean';
    return group.add(container, {
      metric: m.name, display: m.display,
      title: `${m.label || m.name} (${(m.display && m.display.unit) || m.unit}) — ${foldName} over GPUs`,
      legend: runs.map((r) => [r.color, `${r.label} ${r.name}`]),
      load: (from, to, points) => Promise.all(runs.map(async (r) => {
        const s = await api(`/api/runs/${encodeURIComponent(r.id)}/series`, seriesParams(m.name, ...alignedSpan(r, from, to), points));
        const div = (s.display && s.display.divisor) || 1;
        const line = foldDevices(s.devices, s.from, s.to, points, FOLDS[foldName]);
        const v = line.v.map((x) => x === null ? null : x / div);
        return {name: `${r.label} ${r.name}`, color: r.color, ...alignedLine(r, line.t, v)};
      })),
    });
  }));
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

