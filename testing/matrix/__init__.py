"""The one matrix planner: features x shards -> legs, balanced by recorded durations.

Below both crcr (the CRCR handler's dispatch plan and its legs) and tools (the shard matrix
command and runner), which both load its sharding pytest plugin (plugin.py), so neither
reaches up into the other. No torch; pytest in plugin.py alone.
"""
