"use strict";
// Placeholder until the pages land: lists the runs.
fetch("/api/runs" + location.search).then((r) => r.json()).then((d) => {
  document.getElementById("app").textContent = d.runs.map((r) => r.name || r.id).join(", ");
});
