// Live updates of /ui/live: the server sends the runs in flight (event `runs`, JSON) on every
// change; this rewrites the table's rows with the same cells the server renders. Text goes in
// through textContent only, never as HTML.
(function () {
  "use strict";
  var table = document.getElementById("live-runs");
  var status = document.getElementById("live-status");
  if (!table || !window.EventSource) { return; }
  var body = table.tBodies[0];

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    if (cls) { e.className = cls; }
    return e;
  }

  function link(href, text, code) {
    var a = el("a");
    a.href = href;
    a.appendChild(code ? el("code", text) : document.createTextNode(text));
    return a;
  }

  function row(r) {
    var p = r.progress;
    var tr = el("tr");
    tr.setAttribute("data-run", r.id);
    var th = el("th", "#" + r.id);
    th.scope = "row";
    tr.appendChild(th);
    var krate = el("td");
    krate.appendChild(link("/ui/repos/" + r.repo + "/crates/" + encodeURIComponent(r.crate), r.crate));
    tr.appendChild(krate);
    var commit = el("td");
    if (r.commit) {
      commit.appendChild(link("/ui/repos/" + r.repo + "/commits/" + r.commit, r.commit.slice(0, 10), true));
    }
    tr.appendChild(commit);
    tr.appendChild(el("td", p.phase, "phase"));
    tr.appendChild(el("td", p.generation, "num"));
    tr.appendChild(el("td", p.executions, "num"));
    tr.appendChild(el("td", p.covered + " / " + p.goals, "num"));
    var bar = el("progress", Math.round(100 * p.search_fraction) + "%");
    bar.max = 1;
    bar.value = p.search_fraction;
    var search = el("td");
    search.appendChild(bar);
    tr.appendChild(search);
    tr.appendChild(el("td", p.elapsed_s + " s", "num"));
    return tr;
  }

  var source = new EventSource(table.getAttribute("data-events"));
  source.addEventListener("runs", function (e) {
    var runs = JSON.parse(e.data);
    while (body.firstChild) { body.removeChild(body.firstChild); }
    runs.forEach(function (r) { body.appendChild(row(r)); });
    status.textContent = runs.length + " runs in flight (live, updated " +
      new Date().toLocaleTimeString() + ").";
  });
  source.onerror = function () {
    status.textContent = "Live updates interrupted; retrying.";
  };
}());
