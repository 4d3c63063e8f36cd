// The "no such table" page: name the code from the link and search the history for it.
const code = decodeURIComponent(location.pathname.split("/").pop() || "");
if (code) {
  document.getElementById("table-code").textContent = code;
  document.getElementById("history-link").href = `/history?table=${encodeURIComponent(code)}`;
}
