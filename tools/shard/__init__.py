"""Shard planning and sharded test execution.

Modules, one concern each:
  store      -- the versioned timings file (load, merge, atomic save)
  ingest     -- durations from JUnit XML and the plugin's JSON summary
  request    -- which shard this process runs (CLI options, env, Bazel protocol)
  plugin     -- pytest plugin: balanced shard selection + progress journal
  journal    -- the per-run progress journal (what started, what finished)
  outcomes   -- pure rerun / flaky / crash classification
  junit      -- merging the JUnit XML of several attempts
  runner     -- supervisor: crash rerun of the remainder, test-level reruns
  leg        -- CI leg retry decision and wrapper
The planning itself (LPT bucketing, node ids, the feature x shard matrix) lives below, in
testing/matrix, which the CRCR handler plans through too.
"""
