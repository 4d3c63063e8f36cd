"""Dingo Online: the server for the four-player card game Dingo."""
