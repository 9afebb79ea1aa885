// The token visualizer page: sends the text to /api/encode and draws each tokenizer's tokens as
// coloured spans. Text only ever enters the document through text nodes (textContent), never as
// HTML. The view state (tokenizers, special-token policy, text) lives in the URL's #fragment, so
// a copied link reproduces the view; the text there is deflate-compressed and base64url-encoded.
"use strict";

const SLICE = 3000; // token spans drawn per animation frame
const $ = (id) => document.getElementById(id);
let generation = 0; // bumps on every request: late answers and stale renders stop
let timer = null;

function visible(text) {
  // whitespace made visible: a middle dot for a space, arrows for tabs and newlines
  return text.replace(/ /g, "\u00b7").replace(/\t/g, "\u2192\t").replace(/\r/g, "\u240d").replace(/\n/g, "\u21b5\n");
}

function addText(parent, text, showWs) {
  if (!showWs || !/[ \t\r\n]/.test(text)) {
    parent.appendChild(document.createTextNode(text));
    return;
  }
  for (const piece of text.split(/([ \t\r\n]+)/)) {
    if (!piece) continue;
    if (/^[ \t\r\n]+$/.test(piece)) {
      const ws = document.createElement("span");
      ws.className = "ws";
      ws.textContent = visible(piece);
      parent.appendChild(ws);
    } else {
      parent.appendChild(document.createTextNode(piece));
    }
  }
}

function tokenSpan(item, index, showWs) {
  const span = document.createElement("span");
  span.className = item.special ? "tok special" : "tok c" + (index % 8);
  span.dataset.i = String(index);
  span.dataset.id = String(item.id);
  for (const [kind, value] of item.parts) {
    if (kind === "t") {
      addText(span, value, showWs);
    } else {
      const inner = document.createElement("span");
      inner.className = kind === "b" ? "bytes" : "notext";
      inner.textContent = value;
      span.appendChild(inner);
    }
  }
  return span;
}

function statsLine(r) {
  const per = (x) => (x === null ? "–" : x.toFixed(2));
  return `${r.count} tokens · ${r.chars} chars · ${r.bytes} bytes · ${per(r.chars_per_token)} chars/token · ${per(r.bytes_per_token)} bytes/token`;
}

function render(results, gen) {
  const views = $("views");
  views.replaceChildren();
  const showWs = $("whitespace").checked;
  const jobs = [];
  for (const r of results) {
    const view = document.createElement("div");
    view.className = "view";
    view.dataset.name = r.name;
    view.dataset.count = String(r.count);
    const h = document.createElement("h2");
    h.textContent = r.name;
    const stats = document.createElement("span");
    stats.className = "stats";
    stats.textContent = statsLine(r);
    h.appendChild(stats);
    const box = document.createElement("div");
    box.className = "tokens";
    view.append(h, box);
    views.appendChild(view);
    jobs.push({ r, box, at: 0, index: 0 });
  }
  keepResults(results);
  const step = () => {
    if (gen !== generation) return;
    let busy = false;
    for (const job of jobs) {
      const end = Math.min(job.at + SLICE, job.r.items.length);
      const frag = document.createDocumentFragment();
      for (; job.at < end; job.at++) {
        const item = job.r.items[job.at];
        if ("gap" in item) {
          const gap = document.createElement("span");
          gap.className = "gap";
          addText(gap, item.gap, showWs);
          frag.appendChild(gap);
        } else {
          frag.appendChild(tokenSpan(item, job.index++, showWs));
        }
      }
      job.box.appendChild(frag);
      if (job.at < job.r.items.length) busy = true;
    }
    if (busy) requestAnimationFrame(step);
    else views.dataset.rendered = String(gen);
  };
  step();
}

function showError(message) {
  const views = $("views");
  views.replaceChildren();
  const div = document.createElement("div");
  div.className = "view error";
  div.textContent = message;
  views.appendChild(div);
}

function selected() {
  return Array.from($("pick").selectedOptions).map((o) => o.value);
}

async function update() {
  const gen = ++generation;
  const names = selected();
  const text = $("text").value;
  writeHash(names, text);
  if (!names.length) {
    showError("Pick one or more tokenizers.");
    return;
  }
  $("status").textContent = "encoding…";
  let answer;
  try {
    const response = await fetch("/api/encode", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text, tokenizers: names, special: $("special").checked ? "match" : "text" }),
    });
    answer = await response.json();
    if (!response.ok) throw new Error(answer.error || response.statusText);
  } catch (e) {
    if (gen === generation) {
      $("status").textContent = "";
      showError(String(e.message || e));
    }
    return;
  }
  if (gen !== generation) return;
  $("status").textContent = "";
  render(answer.results, gen);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(update, 120);
}

// -- the shareable link ---------------------------------------------------------------------

function toBase64Url(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function pipeBytes(bytes, stream) {
  const piped = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(piped).arrayBuffer());
}

let hashWrite = 0;
async function writeHash(names, text) {
  const mine = ++hashWrite;
  const packed = await pipeBytes(new TextEncoder().encode(text), new CompressionStream("deflate-raw"));
  if (mine !== hashWrite) return;
  const params = new URLSearchParams();
  params.set("t", names.join(","));
  if ($("special").checked) params.set("sp", "1");
  params.set("z", toBase64Url(packed));
  history.replaceState(null, "", "#" + params.toString());
  document.body.dataset.hash = String(mine);
}

async function readHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const state = { names: null, text: null, special: params.get("sp") === "1" };
  if (params.has("t")) state.names = params.get("t").split(",").filter(Boolean);
  if (params.has("z")) {
    try {
      const bytes = await pipeBytes(fromBase64Url(params.get("z")), new DecompressionStream("deflate-raw"));
      state.text = new TextDecoder().decode(bytes);
    } catch (e) {
      state.text = null;
      $("status").textContent = "the link's text could not be read";
    }
  }
  return state;
}

// -- hover details ------------------------------------------------------------------------

function showTip(event) {
  const span = event.target.closest(".tok");
  const tip = $("tip");
  document.querySelectorAll(".tok.hot").forEach((t) => t.classList.remove("hot"));
  if (!span) {
    tip.hidden = true;
    return;
  }
  const view = span.closest(".view");
  const r = view && view._result;
  span.classList.add("hot");
  let item = null;
  if (r) item = r.tokens[Number(span.dataset.i)];
  const lines = [`id ${span.dataset.id} · token #${span.dataset.i}`];
  if (item) {
    lines.push(`token ${JSON.stringify(item.token)}`);
    const hex = [];
    for (const [kind, value] of item.parts) {
      if (kind === "b") hex.push(value);
      if (kind === "t") for (const b of new TextEncoder().encode(value)) hex.push(b.toString(16).toUpperCase().padStart(2, "0"));
    }
    if (hex.length) lines.push(`bytes ${hex.join(" ")}`);
  }
  tip.textContent = lines.join("\n");
  tip.hidden = false;
  tip.style.left = Math.min(event.clientX + 12, window.innerWidth - 300) + "px";
  tip.style.top = event.clientY + 16 + "px";
}

function keepResults(results) {
  // each view keeps its tokens (without gaps) for the hover details
  document.querySelectorAll(".view").forEach((view, i) => {
    if (results[i]) view._result = { tokens: results[i].items.filter((it) => !("gap" in it)) };
  });
}

async function start() {
  const response = await fetch("/api/tokenizers");
  const info = await response.json();
  const state = await readHash();
  const pick = $("pick");
  const wanted = new Set(state.names || info.default);
  for (const name of info.tokenizers) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name;
    option.selected = wanted.has(name);
    pick.appendChild(option);
  }
  $("special").checked = state.special;
  $("text").value = state.text !== null ? state.text : "Hello world! Tokens are how a language model reads text: 日本語, code,   spaces.";
  for (const id of ["text"]) $(id).addEventListener("input", schedule);
  for (const id of ["pick", "special", "whitespace"]) $(id).addEventListener("change", update);
  $("views").addEventListener("mouseover", showTip);
  $("views").addEventListener("mouseleave", () => ($("tip").hidden = true));
  $("share").addEventListener("click", async () => {
    await writeHash(selected(), $("text").value);
    try {
      await navigator.clipboard.writeText(location.href);
      $("status").textContent = "link copied";
    } catch (e) {
      $("status").textContent = "copy the address bar: it holds the link";
    }
  });
  const area = $("text");
  area.addEventListener("dragover", (e) => {
    e.preventDefault();
    area.classList.add("drop");
  });
  area.addEventListener("dragleave", () => area.classList.remove("drop"));
  area.addEventListener("drop", async (e) => {
    e.preventDefault();
    area.classList.remove("drop");
    const file = e.dataTransfer.files[0];
    if (file) {
      area.value = await file.text();
      update();
    }
  });
  update();
}

start();
