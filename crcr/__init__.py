"""CRCR downstream integration: the callback client (`callback_client/`), dispatch validation and plan
(`dispatch/`), upstream at a SHA (`upstream/`), the results warehouse (`warehouse/`), the
relay/HUD emulator (`relay/`) and the dispatch handler (`handler/`); see crcr/README.md.

Public surface: `crcr.callback_client.api` (report functions), `crcr.callback_client.client.CallbackClient`,
`crcr.callback_client.errors.CrcrError`. Everything else is an implementation module.
"""
