// gpuwatch serve: the verdict card at the top of a run's page: what is wrong and what to do
// next, then the numbers a run is judged by (per-GPU utilization, balance, energy, steps/s,
// final loss). From the report and status the page reads anyway (/api/runs/ID/report, /status).
'use strict';

// The advisories nothing else explains, in the advisor's order (the verdict names the root
// cause first, docs/advisor.md).
function rootCauses(advisories) {
  const roots = advisories.filter((a) => !a.explained_by);
  return roots.length ? roots : advisories.slice(0, 1);
}

// Which charts show a cause, by the advisory's id.
const PROBLEM_METRICS = [
  [/^throttle\.power/, ['sm_clock_mhz', 'power_watts']],
  [/^throttle\.thermal/, ['temp_gpu_celsius', 'sm_clock_mhz']],
  [/^memory\./, ['mem_used_bytes']],
  [/^util\.input_bound/, ['gpu_util_percent', 'training.data_wait_percent', 'host.tree_cpu_percent']],
  [/^util\.(host|launch)_bound/, ['gpu_util_percent', 'host.tree_cpu_percent']],
  [/^util\.tensor_idle/, ['tensor_active_percent', 'gpu_util_percent']],
  [/^util\./, ['gpu_util_percent', 'sm_active_percent']],
  [/^balance\./, ['gpu_util_percent']],
  [/^pcie\./, ['pcie_rx_bytes_per_sec', 'pcie_tx_bytes_per_sec']],
  [/^job\.hung/, ['gpu_util_percent', 'training.steps_per_s']],
];

function problemMetrics(causes) {
  const out = [];
  for (const a of causes) {
    const hit = PROBLEM_METRICS.find(([re]) => re.test(a.id || ''));
    for (const m of hit ? hit[1] : []) if (!out.includes(m)) out.push(m);
  }
  return out;
}

// The card's children.
function verdictCard(view, report, status) {
  const verdict = (status && status.verdict) || report.verdict || 'ok';
  const causes = rootCauses((status && status.advisories) || report.advisories || []);
  const head = el('div', {class: 'verdict-head'}, el('span', {class: `badge verdict-${verdict}`, id: 'verdict-word'}, verdict));
  if (causes.length) {
    const a = causes[0];
    const where = a.gpu === null || a.gpu === undefined ? '' : `GPU ${a.gpu}: `;
    head.append(el('div', {}, el('b', {class: 'cause'}, where + (a.summary || a.id)),
      a.suggestion ? el('div', {class: 'next'}, 'Next: ', a.suggestion) : '',
      causes.length > 1 ? el('div', {class: 'hint'}, `and ${causes.length - 1} other cause${causes.length > 2 ? 's' : ''} (advisories below)`) : ''));
  } else {
    head.append(el('div', {}, el('b', {}, 'Nothing to act on'), el('div', {class: 'hint'}, 'no advisory over this run')));
  }
  return [head, el('div', {class: 'verdict-numbers'}, verdictNumbers(view, report))];
}

function verdictNumbers(view, report) {
  const cell = (label, value, id) => el('div', {class: 'vnum', id}, el('span', {class: 'vlabel'}, label), el('b', {}, value));
  const lb = (report.load_balance || []).find((x) => x.metric === 'gpu_util_percent');
  const scalars = (report.training && report.training.scalars) || [];
  const loss = scalars.find((s) => s.name === 'loss') || scalars.find((s) => /(^|[_/])loss$/.test(s.name) && !/^val/.test(s.name));
  const rate = view.stepsPerS;
  return [
    el('div', {class: 'vnum gpu-bars'}, el('span', {class: 'vlabel'}, 'mean GPU utilization'), utilBars(report, lb)),
    cell('balance', lb ? `CV ${fmtNumber(lb.cv_percent)} % · ${lb.quality}${lb.straggler_gpu !== null && lb.straggler_gpu !== undefined ? ` · straggler GPU ${lb.straggler_gpu}` : ''}` : '—'),
    cell('energy', fmtEnergy(report.total_energy_joules)),
    cell('steps/s', rate === undefined || rate === null ? '—' : fmtSignificant(rate, 3), 'steps-per-s'),
    cell(loss ? `final ${loss.name}` : 'final loss', loss ? fmtSignificant(loss.last) : '—', 'final-loss'),
  ];
}

// One small bar per GPU in its colour, the mean written beside it.
function utilBars(report, lb) {
  return el('div', {}, (report.devices || []).map((d) => {
    const mean = ((d.metrics || {}).gpu_util_percent || {}).mean;
    const straggler = lb && lb.straggler_gpu === d.gpu;
    return el('div', {class: 'mini-bar'}, el('span', {class: 'mini-label'}, `GPU ${d.gpu}${straggler ? ' ⚑' : ''}`),
      el('span', {class: 'bar'}, el('span', {style: {width: `${Math.max(0, Math.min(100, mean || 0))}%`, background: gpuColor(d.gpu)}})),
      el('span', {class: 'num'}, mean === undefined || mean === null ? '—' : `${fmtNumber(mean, 0)} %`));
  }));
}

// The card's steps/s, once the training's answer (or a live step) gave it.
function showStepsPerS(view) {
  const cell = view.card.querySelector('#steps-per-s b');
  if (cell && view.stepsPerS !== null && view.stepsPerS !== undefined) cell.textContent = fmtSignificant(view.stepsPerS, 3);
}
