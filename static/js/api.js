// HTTP calls to the server and what the browser remembers between visits.

export class ApiError extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

async function request(method, url, body) {
  let res;
  try {
    res = await fetch(url, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError("The server cannot be reached. Check your connection and try again.", 0);
  }
  const text = await res.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!res.ok) {
    throw new ApiError(errorMessage(data) || `The server answered ${res.status}.`, res.status);
  }
  return data;
}

function errorMessage(data) {
  if (!data) return "";
  const d = data.detail ?? data.message ?? data.reason ?? data.error;
  if (typeof d === "string") return d;
  if (d && typeof d.message === "string") return d.message;
  if (Array.isArray(d) && d.length) return d.map((e) => e.msg || String(e)).join("; ");
  return "";
}

export const getJSON = (url) => request("GET", url);
export const postJSON = (url, body) => request("POST", url, body ?? {});

// ---- local memory: your name, and your seat token per table -------------------

const NAME_KEY = "dingo.name";
const TABLE_PREFIX = "dingo.table.";
const tableKey = (id) => `${TABLE_PREFIX}${id}`;

export function savedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; }
}

export function saveName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* private mode: not remembered */ }
}

/** What this browser holds for a table: {token, seat, name, host_token?, at} or null
 * (`at`: when it was last remembered, in ms, for "Your tables" on the home page). */
export function tableMemory(id) {
  try { return JSON.parse(localStorage.getItem(tableKey(id)) || "null"); } catch { return null; }
}

export function rememberTable(id, data) {
  const merged = { ...(tableMemory(id) || {}), ...data, at: Date.now() };
  try { localStorage.setItem(tableKey(id), JSON.stringify(merged)); } catch { /* not kept */ }
  return merged;
}

/** Forget ``keys`` of a table's memory (its last visit, `at`, stays as it was). */
export function forgetKeys(id, keys) {
  const mem = tableMemory(id);
  if (!mem) return;
  for (const key of keys) delete mem[key];
  try { localStorage.setItem(tableKey(id), JSON.stringify(mem)); } catch { /* not kept */ }
}

export function forgetSeat(id) {
  forgetKeys(id, ["token", "seat"]);
}

export function forgetTable(id) {
  try { localStorage.removeItem(tableKey(id)); } catch { /* nothing kept */ }
}

/** The tables this browser holds a seat or the host role at ({id, ...memory}), the one
 * visited last first. */
export function heldTables() {
  const held = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith(TABLE_PREFIX)) continue;
      const id = key.slice(TABLE_PREFIX.length);
      const mem = tableMemory(id);
      if (mem && (mem.token || mem.host_token)) held.push({ ...mem, id });
    }
  } catch { /* storage unreadable: none */ }
  return held.sort((a, b) => (b.at || 0) - (a.at || 0));
}

// ---- the history's last search, for the records' way back to it (this tab only) ------

const HISTORY_KEY = "dingo.history";

/** Remember the history's search ("?player=ann&offset=20", or ""): a match opened from it
 * leads back to the same list, not to every match. */
export function rememberHistory(search) {
  try { sessionStorage.setItem(HISTORY_KEY, search); } catch { /* not kept */ }
}

/** The history as this tab last searched it. */
export function historyHref() {
  let search = "";
  try { search = sessionStorage.getItem(HISTORY_KEY) || ""; } catch { /* none kept */ }
  return `/history${search.startsWith("?") ? search : ""}`;
}

/** The table id in a pasted link or code ("https://x/t/abc", "/t/abc", "abc"). */
export function tableIdFrom(text) {
  const s = String(text || "").trim();
  if (!s) return "";
  const m = s.match(/\/t\/([A-Za-z0-9_-]+)/);
  if (m) return m[1];
  return /^[A-Za-z0-9_-]{3,64}$/.test(s) ? s : "";
}
