#!/usr/bin/env bash
# Where gpuwatch's resident memory goes while it records: per mapping, in KiB.
set -u
GW=${1:-gpuwatch}
"$GW" record --interval 0.1 --no-summary -- sleep 6 2>/dev/null &
sleep 4
pid=$(pgrep -n -f "record --interval 0.1 --no-summary -- sleep 6")
grep -E "VmHWM|VmRSS|RssAnon|RssFile" /proc/$pid/status
awk '/^[0-9a-f]+-[0-9a-f]+ /{name=($6==""?"[anon]":$6)} /^Rss:/{rss[name]+=$2} END{for(n in rss) if (rss[n]>=100) printf "%8d KiB  %s\n", rss[n], n}' /proc/$pid/smaps | sort -rn | head -12
wait
