#!/usr/bin/env bash
# Runs on the GPU machine: report, compare, plot, import and record
# --generate-graphs/--compare-with on real training-shaped runs (issue 3).
# Packs the store and outputs into $OUT/issue3.tar.gz so pictures can also be drawn on a machine with fonts.
set -uo pipefail
source "$(dirname "$0")/common.sh"
export PYTHONUNBUFFERED=1
step() { echo; echo "### $*"; }

step "machine"; date -u; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader

# Everything but a few files goes to $WORK, packed into one tarball at the end.
WORK="$OUT/work"; mkdir -p "$WORK"
export GPUWATCH_STORE="$WORK/runs.db"

step "record adamw: 8 GiB state, 24 steps of 0.7 s compute + 0.3 s input stall"
"$GW" record --interval 0.1 --name adamw --no-summary --output-dir "$WORK/seed" --generate-graphs -- \
  python3 scripts/gpu-verify/train_like.py --state-gib 8 > "$WORK/adamw.jsonl"
echo "exit status: $?"; ls -la "$WORK/seed"

step "record adamwprune: the same with 7.4 GiB state (0.6 GiB less), compared with adamw at the end"
"$GW" record --interval 0.1 --name adamwprune --no-summary --compare-with adamw -- \
  python3 scripts/gpu-verify/train_like.py --state-gib 7.4 > "$WORK/adamwprune.jsonl"
echo "exit status: $?"

step "record dropper: 8 GiB state + a 4 GiB cache freed half-way"
"$GW" record --interval 0.1 --name dropper -- \
  python3 scripts/gpu-verify/train_like.py --state-gib 8 --drop-at 0.5 > "$WORK/dropper.jsonl"
echo "exit status: $?"

step "report adamwprune (markdown)"; "$GW" report adamwprune --format markdown
"$GW" report adamw --format json > "$WORK/report_adamw.json"
"$GW" report adamwprune --format json > "$WORK/report_adamwprune.json"
"$GW" report dropper --format json > "$WORK/report_dropper.json"

step "compare adamw adamwprune --warmup 6 (model loading and CUDA start-up take ~5 s)"
"$GW" compare adamw adamwprune --warmup 6
"$GW" compare adamw adamwprune --warmup 6 --format json > "$WORK/compare.json"

step "plot (this machine has no fonts set up: text may be missing; shapes and exit status count)"
for kind in timeline per-gpu balance histogram; do
  "$GW" plot adamwprune --kind "$kind" -o "$WORK/plot_$kind.png"; echo "$kind: exit $?"
done
"$GW" plot adamw adamwprune -o "$WORK/plot_compare.svg"; echo "compare: exit $?"

step "export, then import and report the file"
"$GW" export adamw --format json > "$WORK/adamw_export.json"
"$GW" export adamw --format multi-json > "$WORK/adamw_multi.json"
head -c 20000 "$WORK/adamw_export.json" > "$WORK/adamw_truncated.json"
for f in adamw_export.json adamw_multi.json adamw_truncated.json; do
  "$GW" import "$WORK/$f" --name "imported-$f"; echo "import $f: exit $?"
done
"$GW" report "$WORK/adamw_truncated.json" | head -20
"$GW" runs

step "pack"
cp "$WORK"/seed/*_plot.png "$OUT/" 2>/dev/null
tar -C "$WORK" -czf "$OUT/issue3.tar.gz" . && rm -rf "$WORK"
ls -la "$OUT"
