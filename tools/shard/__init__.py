"""Shard planning and sharded test execution.

Modules, one concern each:
  ingest     -- durations from JUnit XML and the plugin's JSON summary
  plugin     -- the runner's pytest plugin: progress journal, XPASS kept in the JUnit
  journal    -- the per-run progress journal (what started, what finished)
  outcomes   -- pure rerun / flaky / crash classification
  junit      -- merging the JUnit XML of several attempts
  runner     -- supervisor: crash rerun of the remainder, test-level reruns
  leg        -- CI leg retry decision and wrapper
The planning itself (LPT bucketing, node ids, the feature x shard matrix), the timings
file, which shard a process runs and the sharding pytest plugin live below, in
testing/matrix, which the CRCR handler plans and shards its legs through too.
"""
