// gpuwatch serve: #/ the runs list (app.js has the helpers): a row per run with what runs are
// compared by (duration, GPUs, mean utilization, energy, final loss, steps/s, verdict), sortable
// by any column; new runs and a recording run's progress appear without a reload.
'use strict';

// Each run's summary (/api/runs/ID/summary: its report's numbers and verdict), read once for a
// finished run and again for a recording one; at most SUMMARY_FETCHES at once, newest first, so
// a store of many long runs fills in row by row without holding every server worker.
const SUMMARY_FETCHES = 2;
const summaries = new Map(); // id → summary, or an Error
const summaryRead = new Map(); // id → {at: Date.now(), status} when read
// A recording run's summary is read again at most this often (its report costs the server).
const LIVE_SUMMARY_PERIOD_MS = 15000;
// How often the list is read again (one small request: the runs' facts, no samples).
const LIST_PERIOD_MS = 3000;

const sum = (r) => summaries.get(r.id);
const summaryValue = (r, f) => { const s = sum(r); return s && !(s instanceof Error) ? f(s) : null; };
const VERDICT_ORDER = {ok: 0, info: 1, warning: 2, critical: 3};

const RUN_COLUMNS = [
  {key: 'name', text: 'name', value: (r) => r.name || ''},
  {key: 'id', text: 'id', value: (r) => r.id},
  {key: 'status', text: 'status', value: (r) => r.status},
  {key: 'start', text: 'start', value: (r) => r.start || ''},
  {key: 'duration_s', text: 'duration', num: true, value: (r) => r.duration_s || 0},
  {key: 'gpus', text: 'GPUs', num: true, value: (r) => (r.gpus || []).length},
  {key: 'util', text: 'mean util', num: true, value: (r) => summaryValue(r, (s) => s.util_percent_mean)},
  {key: 'energy', text: 'energy', num: true, value: (r) => summaryValue(r, (s) => s.energy_joules)},
  {key: 'loss', text: 'final loss', num: true, value: (r) => summaryValue(r, (s) => s.final_loss)},
  {key: 'steps', text: 'steps/s', num: true, value: (r) => summaryValue(r, (s) => s.steps_per_s)},
  {key: 'verdict', text: 'verdict', value: (r) => summaryValue(r, (s) => VERDICT_ORDER[s.verdict] ?? -1)},
  {key: 'command', text: 'command', value: (r) => fmtCommand(r.command)},
];

const listState = {sort: 'start', dir: -1, q: '', status: '', selected: new Set()};

// The summary columns' cells of a run ("…" while its summary is read).
function summaryCells(r) {
  const s = sum(r);
  if (!s) return [0, 1, 2, 3, 4].map(() => el('td', {class: 'num muted'}, '…'));
  if (s instanceof Error) return [0, 1, 2, 3, 4].map(() => el('td', {class: 'num muted', title: s.message}, '—'));
  const cause = s.verdict === null ? 'a long run: judged on its page' : s.root_cause
    ? `${s.root_cause.summary}${s.root_cause.suggestion ? '\nNext: ' + s.root_cause.suggestion : ''}` : 'nothing to act on';
  return [el('td', {class: 'num'}, s.util_percent_mean === null ? '—' : `${fmtNumber(s.util_percent_mean, 0)} %`),
    el('td', {class: 'num'}, fmtEnergy(s.energy_joules)), el('td', {class: 'num'}, fmtSignificant(s.final_loss)),
    el('td', {class: 'num'}, fmtSignificant(s.steps_per_s, 3)),
    el('td', {title: cause}, s.verdict === null ? el('span', {class: 'muted'}, 'on its page')
      : el('span', {class: `badge verdict-${s.verdict}`}, s.verdict))];
}

function runRow(r, update) {
  const box = el('input', {type: 'checkbox', checked: listState.selected.has(r.id), 'aria-label': `select ${r.name || r.id}`,
    onclick: (e) => e.stopPropagation(),
    onchange: (e) => { e.target.checked ? listState.selected.add(r.id) : listState.selected.delete(r.id); update(); }});
  return el('tr', {dataset: {runId: r.id}, class: r.live ? 'live' : null, onclick: () => { location.hash = `#/run/${r.id}`; }},
    el('td', {}, box), el('td', {}, r.name || el('span', {class: 'muted'}, '(none)')),
    el('td', {class: 'mono'}, r.id), el('td', {}, statusBadge(r.status)),
    el('td', {}, fmtStart(r.start)), el('td', {class: 'num'}, fmtDuration(r.duration_s)),
    el('td', {class: 'num', title: (r.gpus || []).map((g) => `${g.gpu}: ${g.name}`).join('\n')}, (r.gpus || []).length),
    summaryCells(r), el('td', {class: 'cmd', title: fmtCommand(r.command)}, fmtCommand(r.command)));
}

// Reads the summaries the rows lack (a recording run's again each time), then calls `done`.
function fetchSummaries(runs, done) {
  // Read again: a recording run's now and then, and a run's whose status changed (it ended).
  const stale = (r, read) => read.status !== r.status || (r.live && Date.now() - read.at > LIVE_SUMMARY_PERIOD_MS);
  const queue = runs.filter((r) => !summaryRead.has(r.id) || stale(r, summaryRead.get(r.id)));
  for (const r of queue) summaryRead.set(r.id, {at: Date.now(), status: r.status});
  const worker = async () => {
    for (let r = queue.shift(); r; r = queue.shift()) {
      summaries.set(r.id, await api(`/api/runs/${encodeURIComponent(r.id)}/summary`).catch((e) => e));
      done();
    }
  };
  return Promise.all(Array.from({length: SUMMARY_FETCHES}, worker));
}

async function showRuns(main) {
  setCrumbs('runs');
  let {runs} = await api('/api/runs');
  const search = el('input', {type: 'search', placeholder: 'search by name', value: listState.q});
  const status = el('select', {}, ['', 'recording', 'finished', 'interrupted'].map((s) => el('option', {value: s}, s || 'any status')));
  status.value = listState.status;
  const compare = el('button', {type: 'button'}, 'compare');
  const count = el('span', {class: 'hint'});
  const tbody = el('tbody');
  const headRow = el('tr');
  const tableEl = el('table', {id: 'runs'}, el('thead', {}, headRow), tbody);

  const render = () => {
    const q = listState.q.toLowerCase();
    const col = RUN_COLUMNS.find((c) => c.key === listState.sort);
    // Runs without a value (a summary not read yet) last, whichever the direction.
    const cmp = (x, y) => (x === null ? 1 : y === null ? -1 : (x < y ? -1 : x > y ? 1 : 0) * listState.dir);
    const shown = runs.filter((r) => (!q || (r.name || '').toLowerCase().includes(q)) && (!listState.status || r.status === listState.status))
      .sort((a, b) => cmp(col.value(a), col.value(b)));
    headRow.replaceChildren(el('th', {}, ''), ...RUN_COLUMNS.map((c) => el('th', {
      class: 'sortable' + (c.num ? ' num' : ''), title: 'sort by ' + c.text, dataset: {sort: c.key},
      onclick: () => {
        listState.dir = listState.sort === c.key ? -listState.dir : (c.num || c.key === 'start' ? -1 : 1);
        listState.sort = c.key;
        render();
      },
    }, c.text, listState.sort === c.key ? el('span', {class: 'arrow'}, listState.dir > 0 ? ' ▲' : ' ▼') : '')));
    tbody.replaceChildren(...shown.map((r) => runRow(r, update)));
    if (!shown.length) tbody.append(el('tr', {}, el('td', {colspan: RUN_COLUMNS.length + 1, class: 'muted'}, 'No runs match.')));
    count.textContent = `${runs.length} runs · pick 2 to 4 to compare (the oldest is the baseline)`;
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
  main.replaceChildren(el('div', {class: 'toolbar'}, search, status, compare, count), el('div', {class: 'table-wrap'}, tableEl));
  render();
  update();
  fetchSummaries(runs, render);
  followRuns(main, (next) => {
    const grew = next.some((r) => r.live || !runs.some((x) => x.id === r.id && x.status === r.status));
    runs = next;
    render();
    update();
    if (grew) fetchSummaries(runs, render);
  });
}

// The list read again every LIST_PERIOD_MS while it is shown: new runs appear, a recording
// run's duration and status move.
function followRuns(main, onRuns) {
  let busy = false;
  const timer = setInterval(async () => {
    if (!main.isConnected) { clearInterval(timer); return; }
    if (busy) return;
    busy = true;
    try {
      onRuns((await api('/api/runs')).runs);
    } catch (e) {
      showError(e);
    } finally {
      busy = false;
    }
  }, LIST_PERIOD_MS);
  page.cleanup.push(() => clearInterval(timer));
}
