"""runfiles_listing: the files each given binary runs with, one `label<TAB>path` line each.

A test that imports a program's module with its own sys.path hides a dependency the program
lacks (`bazel run` then dies on ModuleNotFoundError); with this listing the test can run the
module over exactly the program's own first-party runfiles.
"""

def _runfiles_listing_impl(ctx):
    lines = []
    for target in ctx.attr.binaries:
        for f in target[DefaultInfo].default_runfiles.files.to_list():
            lines.append("%s\t%s" % (target.label, f.short_path))
    out = ctx.actions.declare_file(ctx.label.name + ".tsv")
    ctx.actions.write(out, "\n".join(sorted(lines)) + "\n")
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

runfiles_listing = rule(
    implementation = _runfiles_listing_impl,
    attrs = {"binaries": attr.label_list(mandatory = True)},
    doc = "Writes <name>.tsv: one `label<TAB>runfiles-relative path` line per file of each binary.",
)
