"""Result files every layer shares: the outcome vocabulary, JUnit XML, whole-file writes.

Standard library only, so the callback client (crcr), the shard runner, the selection
pipeline and the pytest plugin all import it without pulling in torch or pytest.
"""
