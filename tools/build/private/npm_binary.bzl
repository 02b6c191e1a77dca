"""Repository rule: one prebuilt binary out of an npm package tarball, hash-pinned.

Some tools (buildifier) ship per-platform binaries inside their npm package. `npm pack`
fetches the tarball through the machine's own npm configuration (no registry is written
here), the tarball's sha256 is checked against the pin, and the binary for this host is
exposed as `@<name>//:bin`.
"""

_ARCH = {"amd64": "amd64", "x86_64": "amd64", "aarch64": "arm64", "arm64": "arm64"}

def _fail(rctx, what, res):
    fail("npm_binary(%s): %s failed (exit %d)\n%s%s" % (rctx.name, what, res.return_code, res.stdout, res.stderr))

def _npm_binary_impl(rctx):
    npm = rctx.which("npm")
    if not npm:
        fail("npm_binary(%s): npm not found on PATH; install Node.js and npm (Debian: apt-get install -y npm)" % rctx.name)
    spec = "%s@%s" % (rctx.attr.package, rctx.attr.version)
    rctx.report_progress("npm pack " + spec)
    res = rctx.execute([npm, "pack", "--silent", spec], timeout = 600)
    if res.return_code != 0:
        _fail(rctx, "npm pack " + spec, res)
    tarball = res.stdout.strip().split("\n")[-1]
    res = rctx.execute(["sha256sum", tarball])
    if res.return_code != 0:
        _fail(rctx, "sha256sum", res)
    got = res.stdout.split(" ")[0]
    if got != rctx.attr.sha256:
        fail("npm_binary(%s): %s has sha256 %s, the pin says %s" % (rctx.name, spec, got, rctx.attr.sha256))
    rctx.extract(tarball, stripPrefix = "package")
    rctx.delete(tarball)

    machine = rctx.execute(["uname", "-m"]).stdout.strip()
    arch = _ARCH.get(machine)
    if not arch or rctx.os.name.lower().find("linux") < 0:
        fail("npm_binary(%s): no binary for %s/%s in %s" % (rctx.name, rctx.os.name, machine, spec))
    binary = rctx.attr.binary_pattern.format(arch = arch)
    rctx.file("BUILD.bazel", 'exports_files(["{b}"])\n\nalias(\n    name = "bin",\n    actual = "{b}",\n    visibility = ["//visibility:public"],\n)\n'.format(b = binary))

npm_binary = repository_rule(
    implementation = _npm_binary_impl,
    doc = "A hash-pinned npm package tarball's prebuilt binary for this host, as @<name>//:bin.",
    attrs = {
        "package": attr.string(mandatory = True),
        "version": attr.string(mandatory = True),
        "sha256": attr.string(mandatory = True, doc = "sha256 of the package tarball `npm pack` fetches"),
        "binary_pattern": attr.string(mandatory = True, doc = "path inside the package, {arch} = amd64|arm64"),
    },
)
