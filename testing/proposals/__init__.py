"""Config-change proposals: the one home of the edits a run, an audit or a tool proposes to
the configs and of the unified diff they are shown as (README.md)."""
