// gpuwatch serve: a run's training beside its GPUs: a chart per logged scalar name (train and
// val overlaid: "loss" and "val_loss" on one), steps/s, samples/s (with a logged batch_size), the
// share of each step spent waiting for data; and the x axis switched between time, step and epoch.
// From /api/runs/ID/training (reduced to what is drawn) and, while live, the stream's events.
'use strict';

// Colours of the curves of one chart: the first name (train) dark, the next (val) vermillion.
const CURVE_COLORS = ['#1d232b', '#d55e00', '#7a5cc2', '#009e73', '#0072b2', '#b8a000'];
// The prefixes and suffixes that tell a split apart: "val_loss", "train/loss", "loss_val".
const SPLIT_RE = /^(train|training|val|valid|validation|eval|test)[_/.]|[_/.](train|val|valid|eval|test)$/;

const curveGroup = (name) => name.replace(SPLIT_RE, '') || name;

// Scalar names grouped by what they measure, in order of first name.
function groupScalars(scalars) {
  const groups = new Map();
  for (const s of scalars) {
    const key = curveGroup(s.name);
    if (!groups.has(key)) groups.set(key, []);
    groups.get(key).push(s.name);
  }
  return [...groups].map(([key, names]) => ({key, names}));
}

// The colour of a chart's i-th curve name.
const curveColor = (i) => CURVE_COLORS[Math.max(0, i) % CURVE_COLORS.length];

// The charts of one or more training answers (/api/runs/ID/training; compare has one per run):
// a chart per scalar group, loss first (a run is judged by it), then the rates (steps/s first,
// as the API orders them). pick(answer) gives an answer's series of the chart, each name's
// index in `names` telling the curve apart (train solid or dark, val next).
function trainingSpecs(answers) {
  const byName = (list) => [...new Map(list.map((x) => [x.name, x])).values()];
  const scalars = byName(answers.flatMap((a) => a.scalars));
  const groups = groupScalars(scalars).sort((a, b) => (b.key === 'loss') - (a.key === 'loss'));
  const specs = groups.map((g) => ({metric: `training.${g.key}`, title: g.key, display: null, names: g.names,
    pick: (d) => d.scalars.filter((s) => g.names.includes(s.name))}));
  for (const r of byName(answers.flatMap((a) => a.rates))) {
    const display = {unit: r.unit === '%' ? '%' : '', divisor: 1, decimals: r.unit === '%' ? 1 : 2};
    specs.push({metric: `training.${r.name}`, title: `${r.label} (${r.unit})`, display, names: [r.name],
      pick: (d) => d.rates.filter((x) => x.name === r.name)});
  }
  return specs;
}

// Whether a training answer has anything to draw (a run without annotations has not).
const hasTraining = (answer) => !!answer && (answer.scalars.length > 0 || answer.rates.length > 0);

async function trainingCharts(view, container) {
  const data = sharedFetch((from, to, points) => api(`${view.path}/training`, seriesParams(undefined, from, to, points)));
  let first;
  try {
    first = await data(undefined, undefined, chartPoints());
  } catch (e) {
    return; // an older server: no training charts
  }
  view.training = {steps: {t: [...first.steps.t], v: [...first.steps.v]}, batchSize: first.batch_size, lastStep: null, data, container, late: {}};
  view.stepsPerS = wholeRunRate(view.training.steps);
  await addTrainingCharts(view, first);
}

// Charts for the scalar names and rates of a /training answer that have none yet: all of them
// at load; while live, those first logged after the page opened.
function addTrainingCharts(view, answer) {
  const tr = view.training;
  return Promise.all(trainingSpecs([answer]).filter((c) => !view.group.find(c.metric)).map((c) => view.group.add(tr.container, {
    metric: c.metric, title: c.title, display: c.display, legend: c.names.map((n, i) => [curveColor(i), n]),
    load: async (from, to, points) => c.pick(await tr.data(from, to, points)).map((s) => ({
      name: s.name, color: curveColor(c.names.indexOf(s.name)), t: s.t, v: s.v})),
  })));
}

// A name logged, or a rate measurable, only after the page opened: its chart from a fresh
// /training answer (addLate's pace; the stream's next events append to it). `last`: the run
// ended, so at once (its promise returned).
function addLateTrainingCharts(view, last = false) {
  const tr = view.training;
  const add = () => api(`${view.path}/training`, seriesParams(undefined, undefined, undefined, chartPoints()))
    .then((answer) => addTrainingCharts(view, answer));
  if (last) return add();
  addLate(tr.late, add);
  return undefined;
}

// Steps per second from the first step counted to the last.
function wholeRunRate(steps) {
  const n = steps.t.length;
  if (n < 2) return null;
  const dt = steps.t[n - 1] - steps.t[0], ds = steps.v[n - 1] - steps.v[0];
  return dt > 0 && ds >= 0 ? ds / dt : null;
}

// A parsed "log" event's message: "loss=0.53 lr=0.001".
function logValues(message) {
  const out = [];
  for (const pair of (message || '').split(' ')) {
    const eq = pair.indexOf('=');
    const v = eq > 0 ? Number(pair.slice(eq + 1)) : NaN;
    if (isFinite(v)) out.push([pair.slice(0, eq), v]);
  }
  return out;
}

// Seconds between two steps/s points drawn live: the counter is stored once a second.
const LIVE_RATE_MIN_S = 2;

// A live event's annotations into the training charts: each scalar onto its chart, steps/s
// from the step counter.
function trainingEvents(view, events) {
  const tr = view.training;
  if (!tr) return;
  const group = view.group;
  let late = false;
  for (const e of events) {
    if (e.kind === 'log') {
      for (const [name, v] of logValues(e.message)) {
        const item = group.find(`training.${curveGroup(name)}`);
        if (!item) { late = true; continue; }
        const i = Math.max(0, item.raw.findIndex((s) => s.name === name));
        group.append(item, name, {color: CURVE_COLORS[i % CURVE_COLORS.length]}, [e.t], [v]);
      }
    } else if (e.kind === 'step' && isFinite(Number(e.message))) {
      const step = Number(e.message);
      tr.steps.t.push(e.t);
      tr.steps.v.push(step);
      const prev = tr.lastStep;
      if (!prev) { tr.lastStep = {t: e.t, step}; continue; }
      if (e.t - prev.t < LIVE_RATE_MIN_S) continue;
      const item = group.find('training.steps_per_s');
      if (!item) late = true;
      if (item && step >= prev.step) group.append(item, 'steps_per_s', {color: CURVE_COLORS[0]}, [e.t], [(step - prev.step) / (e.t - prev.t)]);
      tr.lastStep = {t: e.t, step};
    }
  }
  if (late) addLateTrainingCharts(view);
  view.stepsPerS = wholeRunRate(tr.steps) ?? view.stepsPerS;
  showStepsPerS(view);
}

// Time mapped onto the step counter (interpolated between its readings), and back; null when
// the counter has fewer than two readings or goes back (a loop that counts each epoch from 0).
function stepAxis(steps) {
  const {t, v} = steps;
  if (t.length < 2 || v.some((x, i) => i && x < v[i - 1])) return null;
  const interp = (xs, ys, x) => {
    if (x <= xs[0]) return ys[0];
    if (x >= xs[xs.length - 1]) return ys[ys.length - 1];
    let lo = 0, hi = xs.length - 1;
    while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (xs[mid] <= x) lo = mid; else hi = mid; }
    const w = xs[hi] - xs[lo];
    return w > 0 ? ys[lo] + (ys[hi] - ys[lo]) * (x - xs[lo]) / w : ys[lo];
  };
  return {toX: (x) => interp(t, v, x), toT: (x) => interp(v, t, x), ...STEP_AXIS};
}

// The ticks of an x axis in steps (the run page's and compare's).
const STEP_AXIS = {
  xSteps: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6],
  xFormat: (x) => `step ${fmtNumber(x, 0)}`,
};

// The select of the x axis: time always, step when the run counted its steps, epoch when it
// marked its epochs.
function axisSelect(view) {
  const select = el('select', {id: 'xaxis', title: 'x axis'}, el('option', {value: 'time'}, 'x: time'));
  const steps = view.training && stepAxis(view.training.steps);
  const epochs = epochAxis(view.detail.events, view.run.duration_s);
  if (steps) select.append(el('option', {value: 'step'}, 'x: step'));
  if (epochs) select.append(el('option', {value: 'epoch'}, 'x: epoch'));
  if (select.options.length < 2) return '';
  select.addEventListener('change', () => {
    const mode = select.value;
    // Read again at each change: a live run's counter grew meanwhile.
    const map = mode === 'step' ? stepAxis(view.training.steps)
      : mode === 'epoch' ? {...epochAxis(view.detail.events, view.run.duration_s), ...EPOCH_AXIS} : null;
    view.group.setMapping(map);
  });
  return select;
}
