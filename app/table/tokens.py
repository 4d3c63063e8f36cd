"""Secrets of a table: ids, seat tokens and their hashes.

A seat token is the only proof of holding a seat, so it has 192 random bits,
lives only in the player's browser, and the server keeps nothing but its
SHA-256 (in memory and in the table's log), compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_table_id() -> str:
    """Short (11 characters) but unguessable: 64 random bits, URL-safe."""
    return secrets.token_urlsafe(8)


def new_token() -> str:
    return secrets.token_urlsafe(24)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def same_hash(a: str | None, b: str | None) -> bool:
    """Constant-time comparison of two token hashes (``None`` matches nothing)."""
    return a is not None and b is not None and hmac.compare_digest(a, b)
