"""The config contract: one reading and one writing of configs/*.yaml for every tool.

models (the format), modes (the bucket enum), load (the YAML reader: models with file:line
errors and where each part was written), errors (file:line), comments (reasons in YAML
comments), paths (${REPO_ROOT}/${TORCH_ROOT}), features (configs/ -> features), runs
(target names and the pytest command), edit (the writer: comment-preserving edits),
capabilities (the backend's table). See README.md.

PYTEST_DONT_REWRITE (plugin code, not tests: testing/README.md "Start-up cost")
"""
