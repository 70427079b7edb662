// fairpool's dashboard: the page's figures, tables, texts and charts updated in place
// from the page's data URL every few seconds (no reload). The server renders the same
// data first (fairpool/web/pages.py); this only fills the elements it made.
(function () {
  "use strict";
  const body = document.body;
  const root = body.dataset.root;
  const source = body.dataset.source;
  const charts = {};
  const EVERY = 2000;

  function cell(value, link) {
    const td = document.createElement("td");
    value = value === null || value === undefined ? "" : value;
    if (link && value !== "") {
      const a = document.createElement("a");
      a.href = root + "/" + link.replace("{}", encodeURIComponent(String(value)));
      a.textContent = String(value);
      td.appendChild(a);
    } else {
      td.textContent = String(value);
    }
    return td;
  }

  function render(page) {
    for (const [key, value] of Object.entries(page.figures || {})) {
      document.querySelectorAll('[data-figure="' + key + '"]').forEach((e) => {
        e.textContent = String(value);
      });
    }
    for (const [key, value] of Object.entries(page.texts || {})) {
      document.querySelectorAll('[data-text="' + key + '"]').forEach((e) => {
        e.textContent = value;
      });
    }
    for (const [key, table] of Object.entries(page.tables || {})) {
      const tbody = document.querySelector("#table-" + key + " tbody");
      if (!tbody) continue;
      const links = table.links || {};
      tbody.replaceChildren(...table.rows.map((row) => {
        const tr = document.createElement("tr");
        row.forEach((value, k) => tr.appendChild(cell(value, links[String(k)])));
        return tr;
      }));
    }
    for (const [key, chart] of Object.entries(page.charts || {})) {
      const canvas = document.getElementById("chart-" + key);
      if (!canvas || typeof Chart === "undefined") continue;
      if (!charts[key]) {
        charts[key] = new Chart(canvas, {
          type: chart.type,
          data: { labels: chart.labels, datasets: chart.datasets },
          options: { animation: false, responsive: true, maintainAspectRatio: false },
        });
      } else {
        charts[key].data.labels = chart.labels;
        charts[key].data.datasets = chart.datasets;
        charts[key].update("none");
      }
    }
  }

  async function poll() {
    try {
      const response = await fetch(source, { cache: "no-store" });
      if (response.ok) {
        render(await response.json());
        body.dataset.updates = String(Number(body.dataset.updates) + 1);
        document.querySelectorAll("[data-updated]").forEach((e) => {
          e.textContent = new Date().toLocaleTimeString();
        });
      }
    } catch (err) {
      // the pool is restarting or gone: try again at the next turn
    }
    setTimeout(poll, EVERY);
  }

  render(JSON.parse(document.getElementById("page-data").textContent));
  setTimeout(poll, EVERY);
})();
