"""The one matrix planner: features x shards -> legs, balanced by recorded durations.

Below both crcr (the CRCR handler's dispatch plan) and tools (the shard matrix command and
the sharding pytest plugin), so neither reaches up into the other. No torch, no pytest.
"""
