"""Several ``dingo serve`` processes as one service (``REDIS_URL``): see docs/cluster.md.

- ``app.cluster.client``: the Redis client settings and ``RedisUnavailable``.
- ``app.cluster.lease``: one owner per table, with fencing tokens the log checks.
- ``app.cluster.ownership``: the leases of this process's tables, for ``TableManager``
  (create, ``locate``, takeover, failover sweep, handover on stop).
- ``app.cluster.caps``: connection caps and rate limits that hold across processes.

Nothing here is imported when ``REDIS_URL`` is unset.
"""
