"""py_wheel: packages the main-repository files of py_library deps into a .whl.

A subset of rules_python's py_wheel: distribution, version, deps, strip_path_prefixes,
requires, extra_requires, entry_points, python_tag, abi, platform, summary, license,
python_requires, extra_distinfo_files. One difference: `license` is written as core metadata 2.4's
License-Expression (PEP 639), and an extra dist-info file under `licenses/` is declared as a
License-File, so a wheel carries its license text where installers look for it.
"""

def _packaged_files(ctx):
    files = []
    for dep in ctx.attr.deps:
        info = dep[DefaultInfo]
        for f in info.files.to_list() + info.default_runfiles.files.to_list():
            if f.owner and f.owner.workspace_name == "" and f not in files:
                files.append(f)
    return files

def _wheel_path(f, prefixes):
    path = f.short_path
    for prefix in prefixes:
        if path.startswith(prefix):
            return path[len(prefix):]
    return path

def _py_wheel_impl(ctx):
    name = "%s-%s-%s-%s-%s.whl" % (
        ctx.attr.distribution.replace("-", "_"),
        ctx.attr.version,
        ctx.attr.python_tag,
        ctx.attr.abi,
        ctx.attr.platform,
    )
    out = ctx.actions.declare_file(name)
    files = _packaged_files(ctx)
    args = ctx.actions.args()
    args.add("--distribution", ctx.attr.distribution)
    args.add("--version", ctx.attr.version)
    args.add("--tag", "%s-%s-%s" % (ctx.attr.python_tag, ctx.attr.abi, ctx.attr.platform))
    args.add("--summary", ctx.attr.summary)
    args.add("--license", ctx.attr.license)
    args.add("--python-requires", ctx.attr.python_requires)
    args.add("--out", out)
    for f in files:
        args.add("--file", "%s=%s" % (_wheel_path(f, ctx.attr.strip_path_prefixes), f.path))
    for req in ctx.attr.requires:
        args.add("--requires", req)
    for extra, reqs in ctx.attr.extra_requires.items():
        for req in reqs:
            args.add("--extra-requires", "%s:%s" % (extra, req))
    inputs = list(files)
    for target, name in ctx.attr.extra_distinfo_files.items():
        for f in target.files.to_list():
            inputs.append(f)
            args.add("--extra-distinfo-file", "%s=%s" % (name, f.path))
    for group, specs in ctx.attr.entry_points.items():
        for spec in specs:
            args.add("--entry-point", "%s:%s" % (group, spec))
    ctx.actions.run(
        inputs = inputs,
        outputs = [out],
        executable = ctx.executable._wheelmaker,
        arguments = [args],
        mnemonic = "PyWheel",
        progress_message = "Building wheel %s" % name,
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

py_wheel = rule(
    implementation = _py_wheel_impl,
    doc = "Builds a wheel from the main-repository files (sources and data) of `deps`.",
    attrs = {
        "distribution": attr.string(mandatory = True, doc = "Distribution name, e.g. torch-spyre."),
        "version": attr.string(mandatory = True, doc = "PEP 440 version."),
        "deps": attr.label_list(doc = "py_library targets whose files are packaged."),
        "strip_path_prefixes": attr.string_list(doc = "Path prefixes removed from file paths inside the wheel."),
        "requires": attr.string_list(doc = "Requires-Dist lines."),
        "extra_requires": attr.string_list_dict(doc = "extra -> its Requires-Dist lines (Provides-Extra)."),
        "entry_points": attr.string_list_dict(doc = "group -> ['name = module:func', ...]"),
        "python_tag": attr.string(default = "py3"),
        "abi": attr.string(default = "none"),
        "platform": attr.string(default = "any"),
        "summary": attr.string(default = ""),
        "license": attr.string(default = "", doc = "License metadata (an SPDX expression)."),
        "python_requires": attr.string(default = "", doc = "Requires-Python, e.g. >=3.11."),
        "extra_distinfo_files": attr.label_keyed_string_dict(
            allow_files = True,
            doc = "file -> its name inside the .dist-info directory (licenses/LICENSE: a License-File).",
        ),
        "_wheelmaker": attr.label(default = "//python/private:wheelmaker", executable = True, cfg = "exec"),
    },
)
