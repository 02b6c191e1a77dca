"""CRCR downstream integration: dispatch handler, callback client, relay/HUD emulator.

Public surface: `crcr.api` (report functions), `crcr.client.CallbackClient`,
`crcr.errors.CrcrError`. Everything else is an implementation module.
"""
