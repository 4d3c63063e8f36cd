// The table's WebSocket: connects, says hello with the seat token (in the
// first message, never in the URL), and reconnects by itself with exponential
// backoff after a drop. The server answers every hello with the full state,
// so a reconnect is also a resync.

const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 15000;
/** How long a ping may go unanswered before the socket counts as dead. */
const PONG_WAIT_MS = 5000;

// Close codes after which reconnecting would not help (see docs/protocol.md).
const FINAL_CODES = {
  1008: "The server refused this connection.",
  4001: "This seat was opened in another window or tab.",
  4404: "This table does not exist (or no longer exists).",
  4410: "This table was closed after a long time without players.",
};

export class Connection {
  /**
   * @param {string} tableId
   * @param {{hello: () => object, onMessage: (msg: object) => void,
   *          onStatus: (status: {state: string, retryIn?: number, reason?: string, code?: number}) => void}} handlers
   */
  constructor(tableId, { hello, onMessage, onStatus }) {
    this.url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/${encodeURIComponent(tableId)}`;
    this.hello = hello;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.stopped = false;
    this.probing = null;  // the timer of an unanswered ping
    window.addEventListener("online", () => this.retryNow());
    window.addEventListener("offline", () => this.drop());
  }

  open() {
    clearTimeout(this.timer);
    this.timer = null;
    this.stopped = false;
    this.onStatus({ state: this.attempt ? "reconnecting" : "connecting" });
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      ws.send(JSON.stringify(this.hello()));
    });
    ws.addEventListener("message", (e) => {
      if (this.ws === ws) this.heard();
      let msg;
      try { msg = JSON.parse(e.data); } catch { return; }
      if (msg.type === "pong") return;
      if (msg.type === "welcome") {
        this.attempt = 0;
        this.onStatus({ state: "open" });
      }
      this.onMessage(msg);
    });
    ws.addEventListener("close", (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      if (FINAL_CODES[e.code]) {
        this.stopped = true;
        this.onStatus({ state: "stopped", code: e.code, reason: FINAL_CODES[e.code] });
        return;
      }
      this.schedule();
    });
  }

  schedule() {
    const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.attempt) * (0.85 + Math.random() * 0.3);
    this.attempt += 1;
    const due = Date.now() + delay;
    this.onStatus({ state: "lost", retryAt: due });
    this.timer = setTimeout(() => this.open(), delay);
  }

  /** The device lost its network: the socket is as good as gone, though a browser may keep
   * it open, silent, until TCP gives up minutes later (meanwhile a move would wait on
   * "Sending…" and the page would say "Connected"). Drop it and go on as after a close;
   * "online" retries at once. */
  drop() {
    const ws = this.ws;
    if (!ws || this.stopped) return;
    this.heard();
    this.ws = null;
    ws.close();
    this.schedule();
  }

  /** Is the socket alive? A page that waits long for an answer asks: the server answers a
   * ping at once, however busy the table (a bot thinking, a table moving between
   * processes), so only a dead socket leaves it unanswered, and is dropped. */
  probe() {
    const ws = this.ws;
    if (!ws || this.probing || !this.isOpen) return;
    this.probing = setTimeout(() => {
      this.probing = null;
      if (this.ws === ws) this.drop();
    }, PONG_WAIT_MS);
    ws.send(JSON.stringify({ type: "ping" }));
  }

  /** Something came on the socket: it is alive. */
  heard() {
    clearTimeout(this.probing);
    this.probing = null;
  }

  /** Reconnect at once (the network came back, or the user asked). */
  retryNow() {
    if (this.ws || this.stopped) return;
    this.open();
  }

  /** Resume after a final close (e.g. take the seat back from another tab). */
  restart() {
    this.attempt = 0;
    this.open();
  }

  /** Close for good, without reconnecting (the page is about to reload). */
  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close();
  }

  get isOpen() {
    return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN);
  }

  send(msg) {
    if (!this.isOpen) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
}
