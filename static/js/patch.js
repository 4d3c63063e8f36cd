// A `delta` from the table (docs/protocol.md) applied to the state this page holds: generic,
// knowing no game's rules. The server says what changed; this only puts it in place.

const isObject = (value) => value !== null && typeof value === "object";

/**
 * The state `delta` leads to from `state`, or null when it does not start from `state`'s
 * version (a gap: ask for a `sync`). `state` itself is left as it was (the frame compares
 * the old and new states): what a change reaches into is copied, the rest is shared.
 */
export function applyDelta(state, delta) {
  if (!state || delta.from !== state.v) return null;
  const next = { ...state };
  delete next.log; // only a full state carries the game log
  const copied = new Set([next]);
  const own = (parent, key) => {
    let child = parent[key];
    if (!copied.has(child)) {
      child = Array.isArray(child) ? child.slice() : { ...child };
      copied.add(child);
      parent[key] = child;
    }
    return child;
  };
  for (const path of delta.gone || []) {
    let node = next;
    for (const key of path.slice(0, -1)) node = own(node, key);
    delete node[path[path.length - 1]];
  }
  const merge = (target, patch) => {
    for (const [key, value] of Object.entries(patch)) {
      // An object patches the object or list there (keys are then indexes); anything
      // else replaces what was there.
      if (isObject(value) && !Array.isArray(value) && isObject(target[key])) merge(own(target, key), value);
      else target[key] = value;
    }
  };
  merge(next, delta.patch);
  next.v = delta.v;
  next.events = delta.events;
  return next;
}
