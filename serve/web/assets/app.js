// The editors' page: check an article against the archive, show each
// match and, side by side, the article and the archived one with their
// shared passages marked. Plain DOM, no libraries.
"use strict";

const $ = (id) => document.getElementById(id);
let info = { keep_text: false, token_required: false };
let lastText = "";

function show(el, on) { el.hidden = !on; }

function error(msg) {
  $("error").textContent = msg || "";
  show($("error"), !!msg);
}

function headers(write) {
  const h = { "Content-Type": "application/json" };
  const tok = $("token").value.trim();
  if (write && tok) h["Authorization"] = "Bearer " + tok;
  return h;
}

async function call(method, path, body, write) {
  const res = await fetch(path, { method, headers: headers(write), body: body === undefined ? undefined : JSON.stringify(body) });
  if (res.status === 204) return { status: 204 };
  let data = null;
  try { data = await res.json(); } catch (e) { data = { error: res.status + " " + res.statusText }; }
  if (!res.ok) throw new Error(data && data.error ? data.error : res.status + " " + res.statusText);
  data.status = res.status;
  return data;
}

async function loadInfo() {
  try {
    info = await call("GET", "v1/info");
    $("info").textContent = "存档 archive: " + info.documents + " documents · analyzer " + info.analyzer +
      (info.keep_text ? "" : " · texts not kept: matches show keywords only");
    show($("token-row"), info.token_required);
  } catch (e) { error(e.message); }
}

function text(el, s) { el.textContent = s; return el; }

function node(tag, cls, s) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (s !== undefined) el.textContent = s;
  return el;
}

function request(add) {
  const body = { text: $("text").value };
  if ($("title").value.trim()) body.title = $("title").value.trim();
  if ($("id").value.trim()) body.id = $("id").value.trim();
  const q = [];
  if (add) q.push("add=true");
  if (info && info.reuse) q.push("reuse=true");
  return call("POST", "v1/check" + (q.length ? "?" + q.join("&") : ""), body, add);
}

async function check(add) {
  error("");
  if (!$("text").value.trim()) { error("请先粘贴文章 Paste an article first."); $("text").focus(); return; }
  const buttons = [$("check"), $("add")];
  buttons.forEach((b) => (b.disabled = true));
  show($("compare"), false);
  try {
    lastText = $("text").value;
    const r = await request(add);
    render(r);
    loadInfo();
  } catch (e) {
    error(e.message);
  } finally {
    buttons.forEach((b) => (b.disabled = false));
  }
}

function render(r) {
  const v = $("verdict");
  const list = $("matches");
  list.replaceChildren();
  v.className = "";
  if (r.too_short) {
    text(v, "太短，无法比对 Too short to check: " + r.too_short);
  } else if (r.matches.length) {
    v.className = "dup";
    text(v, "存档中有 " + r.matches.length + " 篇相似文章 · " + r.matches.length + (r.matches.length === 1 ? " near-duplicate" : " near-duplicates") + " in the archive" +
      (r.archived === "different" ? " · " + refusedNote(r) : ""));
  } else if (r.verdict === "archived") {
    text(v, "已在存档中 Already in the archive under this id");
  } else if (r.archived === "different") {
    v.className = "dup";
    text(v, refusedNote(r));
  } else if (reused(r).length) {
    v.className = "reuse";
    const n = reused(r).length;
    text(v, "部分转载 " + n + (n === 1 ? " archived article shares" : " archived articles share") + " passages with it (partial reuse)" + (r.added ? " · added to the archive as " + r.id : ""));
  } else {
    v.className = "new";
    text(v, "未发现重复 No near-duplicate" + (r.added ? " · added to the archive as " + r.id : ""));
  }
  r.matches.forEach((m, i) => list.appendChild(matchItem(m, i)));
  reused(r).forEach((m) => list.appendChild(reuseItem(m)));
  show($("result"), true);
  if (list.firstChild) select(r.matches.length ? r.matches[0] : reused(r)[0], list.firstChild);
}

// reused returns the partial-reuse matches of a check that are not
// near-duplicates listed already.
function reused(r) {
  if (!r.reuse) return [];
  const dup = new Set(r.matches.map((m) => m.id));
  return r.reuse.matches.filter((m) => !dup.has(m.id));
}

function pct(x) { return Math.round(x * 100) + "%"; }

function reuseItem(m) {
  const li = node("li", "reuse");
  li.dataset.id = m.id;
  const head = node("div", "match-head");
  head.appendChild(node("span", "badge reuse", "部分转载 partial reuse"));
  head.appendChild(node("span", "title", m.title || "(no title)"));
  head.appendChild(node("code", "id", m.id));
  li.appendChild(head);
  li.appendChild(node("div", "nums", pct(m.here) + " of this article is in it · " + pct(m.there) + " of it is in this article" +
    (m.estimated ? " (estimated: its text is not kept)" : " · " + m.passages.length + (m.passages.length === 1 ? " passage" : " passages"))));
  const actions = node("div", "actions");
  const view = node("button", "", "对照 Compare side by side");
  view.type = "button";
  view.addEventListener("click", () => select(m, li, true));
  actions.appendChild(view);
  li.appendChild(actions);
  return li;
}

// refusedNote says why an article was not added: the archive holds a
// different article under its id (the answer's archived: "different").
function refusedNote(r) {
  return "未添加 Not added: the archive holds a different article under the id " + r.id + " (delete it first to replace it)";
}

function matchItem(m, i) {
  const li = node("li");
  li.dataset.id = m.id;
  const head = node("div", "match-head");
  head.appendChild(node("span", "badge" + (m.exact ? " exact" : ""), m.exact ? "完全重复 exact duplicate" : "近似重复 near duplicate"));
  head.appendChild(node("span", "title", m.title || "(no title)"));
  head.appendChild(node("code", "id", m.id));
  li.appendChild(head);
  li.appendChild(node("div", "nums",
    "distance " + m.distance + " · similarity " + m.similarity.toFixed(3) + " · content similarity " + m.content.toFixed(2)));
  li.appendChild(node("div", "kw", "共同关键词 shared keywords: " + (m.shared_keywords.length ? m.shared_keywords.slice(0, 20).join("、") : "—")));
  const actions = node("div", "actions");
  const view = node("button", "", "对照 Compare side by side");
  view.type = "button";
  view.addEventListener("click", () => select(m, li, true));
  actions.appendChild(view);
  const del = node("button", "danger", "从存档删除 Delete from archive");
  del.type = "button";
  del.addEventListener("click", () => remove(m, li, del));
  actions.appendChild(del);
  li.appendChild(actions);
  return li;
}

// select shows the article and match m side by side; focus moves there
// when the editor asked for it (not when the first match is shown by
// itself), so that a keyboard user lands on the passages.
async function select(m, li, focus) {
  document.querySelectorAll("#matches li").forEach((x) => { x.classList.remove("selected"); x.removeAttribute("aria-current"); });
  if (li) { li.classList.add("selected"); li.setAttribute("aria-current", "true"); }
  text($("compare-title"), "— " + (m.title || m.id));
  try {
    const p = await call("POST", "v1/passages", { text: lastText, id: m.id });
    fill($("side-a"), p.article.length ? p.article : [{ text: lastText }]);
    if (p.text_kept) {
      fill($("side-b"), p.archived);
      text($("compare-note"), Math.round(p.shared * 100) + "% of this article is in passages the archived one has (marked).");
    } else {
      $("side-b").replaceChildren(node("p", "muted", "存档未保存正文 The archive keeps no text for this article: shared keywords: " + ((m.shared_keywords || []).join("、") || "—")));
      text($("compare-note"), "");
    }
    text($("side-b-title"), "存档 Archived: " + (p.title || p.id));
    show($("compare"), true);
    if (focus) $("compare-heading").focus();
  } catch (e) { error(e.message); }
}

function fill(el, segs) {
  el.replaceChildren();
  for (const s of segs) {
    el.appendChild(s.shared ? node("mark", "", s.text) : document.createTextNode(s.text));
  }
}

// remove deletes a match from the archive on a second press of its
// button (the first asks for it: no modal dialog).
async function remove(m, li, button) {
  if (!button.dataset.armed) {
    button.dataset.armed = "1";
    button.textContent = "再按一次确认删除 Press again to delete " + m.id;
    setTimeout(() => { delete button.dataset.armed; button.textContent = "从存档删除 Delete from archive"; }, 8000);
    return;
  }
  try {
    await call("DELETE", "v1/documents/" + encodeURIComponent(m.id), undefined, true);
    // The focused button goes with its match: focus moves to the next
    // match's first button, or to the verdict, which says what is left.
    const next = li.nextElementSibling || li.previousElementSibling;
    li.remove();
    show($("compare"), false);
    const left = $("matches").children.length;
    const v = $("verdict");
    v.className = left ? "dup" : "new";
    text(v, "已删除 Deleted " + m.id + " · " + (left ? left + (left === 1 ? " near-duplicate" : " near-duplicates") + " left in the archive" : "no near-duplicate left in the archive"));
    if (next) next.querySelector("button").focus(); else v.focus();
    loadInfo();
  } catch (e) { error(e.message); }
}

// decode reads a dropped or chosen file: UTF-8, else GBK (GB18030).
async function decode(file) {
  const buf = await file.arrayBuffer();
  try { return new TextDecoder("utf-8", { fatal: true }).decode(buf); } catch (e) { return new TextDecoder("gb18030").decode(buf); }
}

async function load(file) {
  if (!file) return;
  try {
    $("text").value = (await decode(file)).replace(/^\uFEFF/, "");
    if (!$("id").value) $("id").value = file.name;
    $("text").focus();
  } catch (e) { error(e.message); }
}

document.addEventListener("DOMContentLoaded", () => {
  loadInfo();
  $("check-form").addEventListener("submit", (e) => { e.preventDefault(); check(false); });
  $("add").addEventListener("click", () => check(true));
  $("text").addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); check(false); } });
  $("file").addEventListener("change", (e) => load(e.target.files[0]));
  const drop = $("drop");
  drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); load(e.dataTransfer.files[0]); });
});
