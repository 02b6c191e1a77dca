"""Repository rule: a hash-pinned lock installed into one site dir, plus BUILD targets.

Steps (each failure reports the command and its output):
  1. resolve the host interpreter (no machine path is committed; it is found at fetch time);
  2. write venv/bin/python3 + a hand-written pyvenv.cfg (python -m venv would embed the
     output_base, which would leak into every test's cache key);
  3. pip install --require-hashes --no-deps --only-binary=:all: --no-compile --target site;
  4. byte-compile with unchecked-hash .pyc (pip's .pyc embed mtimes: every re-fetch would
     change digests and miss the caches); files for newer Pythons (exit 1) are left as is;
  5. gen_build.py writes BUILD.bazel and requirements.bzl from the installed dist-infos.
Set RULES_PYTHON_REPO_DEBUG=1 to see each command's output.
"""

def _run(rctx, args, what, timeout = 1800, ok_codes = [0]):
    rctx.report_progress(what)
    res = rctx.execute(args, timeout = timeout, quiet = rctx.os.environ.get("RULES_PYTHON_REPO_DEBUG") != "1")
    if res.return_code not in ok_codes:
        fail("pip_repository(%s): %s failed (exit %d)\ncommand: %s\nstdout:\n%s\nstderr:\n%s" % (
            rctx.name,
            what,
            res.return_code,
            " ".join([str(a) for a in args]),
            res.stdout,
            res.stderr,
        ))
    return res.stdout

def _host_python(rctx):
    found = rctx.which(rctx.attr.python_interpreter)
    if not found:
        fail("pip_repository(%s): '%s' not found on PATH; install Python 3.11" % (rctx.name, rctx.attr.python_interpreter))

    # Resolve shims (pyenv and friends) to the real executable, so the runtime does not
    # depend on PATH at test time.
    out = _run(rctx, [found, "-c", "import os, sys; print(os.path.realpath(sys.executable)); print(sys.base_prefix); print('%d.%d.%d' % sys.version_info[:3])"], "resolving the host interpreter")
    exe, home, version = out.strip().split("\n")
    return struct(exe = exe, home = home, version = version)

def _pip_repository_impl(rctx):
    py = _host_python(rctx)
    lock = rctx.path(rctx.attr.requirements_lock)
    gen_build = rctx.path(rctx.attr._gen_build)

    rctx.symlink(py.exe, "venv/bin/python3")
    rctx.file("venv/pyvenv.cfg", "home = %s/bin\ninclude-system-site-packages = false\nversion = %s\n" % (py.home, py.version))

    _run(rctx, [
        py.exe,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--require-hashes",
        "--only-binary=:all:",
        "--no-compile",
        "--target",
        "site",
        "-r",
        lock,
    ], "pip install (hash-pinned lock)", timeout = rctx.attr.timeout)
    _run(rctx, [py.exe, "-m", "compileall", "-q", "-j", "0", "--invalidation-mode", "unchecked-hash", "site"], "byte-compiling site-packages", ok_codes = [0, 1])
    _run(rctx, [
        py.exe,
        gen_build,
        "--site",
        "site",
        "--lock",
        lock,
        "--repo",
        rctx.name,
        "--interpreter",
        py.exe,
    ] + ["--alternate=%s=%s" % item for item in rctx.attr.alternates.items()], "generating BUILD")

pip_repository = repository_rule(
    implementation = _pip_repository_impl,
    doc = "Installs a hash-pinned requirements lock into one site dir and exposes it as py/cc targets.",
    attrs = {
        "requirements_lock": attr.label(mandatory = True, allow_single_file = True, doc = "pip-compile --generate-hashes lock file."),
        "python_interpreter": attr.string(default = "python3.11", doc = "Host interpreter name looked up on PATH."),
        "timeout": attr.int(default = 3600, doc = "Seconds allowed for pip install."),
        "alternates": attr.string_dict(doc = "{config_setting label: repository}: under that setting, site_packages and the torch C++ targets come from that repository (another pip_repository) instead."),
        "_gen_build": attr.label(default = "//python/private:gen_build.py", allow_single_file = True),
    },
    environ = ["PATH", "RULES_PYTHON_REPO_DEBUG", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONFIG_FILE"],
)
