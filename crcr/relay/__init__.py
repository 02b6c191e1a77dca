"""Local stand-in for the PyTorch CRCR relay and HUD (protocol doc §2-§5).

`RelayEmulator` serves the real callback endpoint on 127.0.0.1 with the
relay's pipeline (OIDC, allowlist level, rate limit, dispatch record, state
machine, HUD forward) plus emulator-only endpoints under /_emulator/.
"""
