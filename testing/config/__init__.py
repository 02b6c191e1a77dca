"""The config contract: one reading and one editing of configs/*.yaml for every tool.

models (the format), load (YAML -> models with file:line errors), paths
(${REPO_ROOT}/${TORCH_ROOT}), features (configs/ -> features and generated target
names), edit (comment-preserving edits), capabilities (the backend's table).
See README.md.
"""
