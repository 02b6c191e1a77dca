"""The CRCR callback client: report a job's `in_progress`/`completed` to the relay.

This package is the `crcr-callback` wheel (//crcr:client_wheel) whole: it imports nothing of
crcr outside itself (only `testing.results`, shipped in oot-ci-results), so it installs alone.
Public surface: `crcr.callback_client.api` (report functions), `crcr.callback_client.client.CallbackClient`,
`crcr.callback_client.errors.CrcrError` (the room's exception root); its command line is
`crcr-callback` (`__main__.py`, `python -m crcr.callback_client`).
"""
