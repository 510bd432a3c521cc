// trainjobs console: live refresh of the jobs list and of a job, log streaming, cancel confirmation.
// Plain JavaScript shipped with the package; no network beyond this server.
"use strict";
(function () {
  const REFRESH_MS = 2000;

  let latest = 0;  // answers that arrive out of order never overwrite a newer one

  function refresh(el, query, done) {
    const url = el.dataset.liveSrc + (query || "");
    const ticket = ++latest;
    fetch(url, { headers: { "Accept": "text/html" } })
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); })
      .then(function (html) {
        if (ticket !== latest) { return; }
        el.innerHTML = html;
        el.dataset.query = query || "";
        markLive(true);
        if (done) { done(); }
      })
      .catch(function () { markLive(false); });
  }

  function markLive(ok) {
    document.querySelectorAll(".live").forEach(function (s) { s.classList.toggle("stale", !ok); });
  }

  function liveList() {
    const rows = document.getElementById("job-rows");
    const form = document.querySelector("form[data-live-form]");
    if (!rows || !form) { return; }
    const page = form.querySelector("input[name=page]");
    // The first page is the default: its query names no page, so a filter's URL stays as the user wrote it.
    const query = function () {
      const params = new URLSearchParams(new FormData(form));
      if (params.get("page") === "1") { params.delete("page"); }
      return "?" + params.toString();
    };
    const apply = function () {
      if (page) { page.value = "1"; }  // a changed filter starts again from the newest jobs
      history.replaceState(null, "", query());
      refresh(rows, query());
    };
    form.addEventListener("change", apply);
    form.addEventListener("input", apply);
    form.addEventListener("submit", function (e) { e.preventDefault(); apply(); });
    setInterval(function () { refresh(rows, query()); }, REFRESH_MS);
  }

  function liveJob() {
    const box = document.getElementById("job-live");
    if (!box || box.hasAttribute("data-done")) { return; }
    // Checked on the fragment just drawn: a job cancelled elsewhere (or here, while CANCELLING) loses its
    // Cancel button at once; the refresh stops when the job has ended.
    function settle() {
      const state = box.querySelector("#job-state");
      const now = state ? state.textContent.trim() : "";
      if (["CANCELLING", "SUCCEEDED", "FAILED", "CANCELLED"].indexOf(now) >= 0) {
        const cancel = document.querySelector("form[data-confirm]");
        if (cancel) { cancel.remove(); }
      }
      if (["SUCCEEDED", "FAILED", "CANCELLED"].indexOf(now) >= 0) { clearInterval(timer); }
    }
    const timer = setInterval(function () { refresh(box, "", settle); }, REFRESH_MS);
  }

  function logs() {
    const pre = document.getElementById("log");
    if (!pre) { return; }
    const status = document.getElementById("log-status");
    const pick = document.getElementById("log-replica");
    let source = null;
    function open() {
      if (source) { source.close(); }
      pre.textContent = "";
      const replica = pick ? pick.value : "";
      source = new EventSource(pre.dataset.src + (replica ? "?replica=" + encodeURIComponent(replica) : ""));
      status.textContent = "streaming";
      source.addEventListener("line", function (e) {
        const atEnd = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
        pre.appendChild(document.createTextNode(e.data + "\n"));
        if (atEnd) { pre.scrollTop = pre.scrollHeight; }
      });
      source.addEventListener("end", function (e) {
        status.textContent = e.data;
        source.close();
      });
      source.onerror = function () { status.textContent = "disconnected"; source.close(); };
    }
    if (pick) { pick.addEventListener("change", open); }
    open();
  }

  function confirmations() {
    document.querySelectorAll("form[data-confirm]").forEach(function (form) {
      form.addEventListener("submit", function (e) {
        if (!window.confirm(form.dataset.confirm)) { e.preventDefault(); }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    liveList(); liveJob(); logs(); confirmations();
  });
})();
