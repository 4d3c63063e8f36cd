// The "not found" page (status 404): any unknown address, or a link to a table
// that is not open (/t/{code}), which names the code and searches the history for it.
const path = location.pathname;
const table = /^\/t\/([^/]+)\/?$/.exec(path);
const decoded = (text) => { try { return decodeURIComponent(text); } catch { return text; } };
if (table) {
  const code = decoded(table[1]);
  document.title = "No such table · Dingo Online";
  document.getElementById("page-missing").hidden = true;
  document.getElementById("table-missing").hidden = false;
  document.getElementById("table-code").textContent = code;
  document.getElementById("missing-hint").textContent = "If its match finished, its scores are in the match history.";
  const link = document.getElementById("history-link");
  link.href = `/history?table=${encodeURIComponent(code)}`;
  link.textContent = "Look for its match";
} else {
  document.getElementById("page-path").textContent = decoded(path);
}
