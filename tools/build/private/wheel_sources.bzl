"""wheel_sources: a package's files with their import root renamed; oot_wheel: a wheel of them."""

load("@rules_python//python:packaging.bzl", "py_wheel")

def _wheel_sources_impl(ctx):
    renames = ctx.attr.renames
    args = ctx.actions.args()
    out_dir = "%s/%s" % (ctx.label.package, ctx.label.name) if ctx.label.package else ctx.label.name
    args.add("--out-dir", "%s/%s" % (ctx.bin_dir.path, out_dir))
    for old, new in sorted(renames.items()):
        args.add("--rename", "%s=%s" % (old, new))
    outs = []
    for f in ctx.files.srcs:
        dest = f.short_path
        first, sep, rest = dest.partition("/")
        renamed = renames.get(first, first) + sep + rest
        out = ctx.actions.declare_file("%s/%s" % (ctx.label.name, renamed))
        outs.append(out)
        args.add("%s=%s" % (f.path, dest))
    ctx.actions.run(
        inputs = ctx.files.srcs,
        outputs = outs,
        executable = ctx.executable._tool,
        arguments = [args],
        mnemonic = "RenameImportRoot",
        progress_message = "Renaming import roots for %s" % ctx.label,
    )
    return [DefaultInfo(files = depset(outs))]

wheel_sources = rule(
    implementation = _wheel_sources_impl,
    doc = """Copies `srcs` under `<name>/`, each at its workspace path with the first path part
renamed by `renames`, and rewrites the Python ones (tools/build/private/import_root.py):
imports, module-path strings and comments follow the new name. py_wheel then packages them
with `strip_path_prefixes = ["<package>/<name>/"]`.""",
    attrs = {
        "srcs": attr.label_list(allow_files = True, doc = "Files to ship (Python sources and package data)."),
        "renames": attr.string_dict(doc = "Import root -> installed name, e.g. {\"testing\": \"oot_ci_testing\"}."),
        "_tool": attr.label(default = "//tools/build/private:import_root", executable = True, cfg = "exec"),
    },
)

# One version, one license (its text in LICENSE), one Python for every wheel of this repository, and the installed
# name of the `testing` import root (no top-level `testing` in site-packages).
WHEEL_VERSION = "0.1.0"
WHEEL_LICENSE = "BSD-3-Clause"

# The repository's LICENSE in every wheel: <dist>.dist-info/licenses/LICENSE, named by a
# License-File line beside License-Expression (PEP 639).
WHEEL_LICENSE_FILES = {"//:LICENSE": "licenses/LICENSE"}
WHEEL_PYTHON = ">=3.11"
WHEEL_RENAMES = {"testing": "oot_ci_testing"}

def oot_wheel(
        name,
        distribution,
        srcs,
        summary,
        requires = [],
        extra_requires = {},
        entry_points = {},
        visibility = None):
    """A pure-Python wheel of `srcs` (imports renamed by WHEEL_RENAMES), plus `<name>_file`,
    a filegroup that puts the .whl into a test's runfiles.

    Args:
      name: the py_wheel target.
      distribution: the distribution name (e.g. oot-ci-testing).
      srcs: Python sources and package data, at their workspace paths.
      summary: the one-line Summary.
      requires: Requires-Dist lines, each with bounds.
      extra_requires: extra -> its Requires-Dist lines (what `dist[extra]` adds).
      entry_points: group -> ["name = module:attr", ...], with installed module names.
      visibility: of the wheel and its filegroup.
    """
    wheel_sources(name = name + "_sources", srcs = srcs, renames = WHEEL_RENAMES)
    prefix = "%s/%s_sources/" % (native.package_name(), name)
    py_wheel(
        name = name,
        distribution = distribution,
        entry_points = entry_points,
        extra_requires = extra_requires,
        extra_distinfo_files = WHEEL_LICENSE_FILES,
        license = WHEEL_LICENSE,
        python_requires = WHEEL_PYTHON,
        requires = requires,
        strip_path_prefixes = [prefix],
        summary = summary,
        version = WHEEL_VERSION,
        visibility = visibility,
        deps = [":" + name + "_sources"],
    )
    native.filegroup(name = name + "_file", srcs = [":" + name], visibility = visibility)
