"""External dependencies of the monorepo, called once from WORKSPACE."""

load("@rules_python//python:pip.bzl", "pip_parse")
load("//tools/build/private:npm_binary.bzl", "npm_binary")

def oot_ci_dependencies():
    # All Python packages (torch 2.13.0+cpu included), hash-pinned; see third_party/.
    # Under --config=torch-2.14.1 every target takes its packages from the next core's lock.
    pip_parse(
        name = "pydeps",
        requirements_lock = "//third_party:requirements_lock.txt",
        alternates = {"@//third_party:torch_2_14_1": "pydeps_torch_2_14_1"},
    )

    # The same requirements with torch 2.14.1 (a CUDA build, several GB): fetched only when
    # a build selects it.
    pip_parse(
        name = "pydeps_torch_2_14_1",
        requirements_lock = "//third_party:requirements_torch_2_14_1_lock.txt",
    )

    # buildifier (BUILD/.bzl formatter) for //:lint, from its npm package's prebuilt binaries.
    npm_binary(
        name = "buildifier",
        package = "@bazel/buildifier",
        version = "8.2.1",
        sha256 = "b96ea9b13003036c801f52bee6f9b0314738f8432e5cb9d814c89f59292604ee",
        binary_pattern = "buildifier-linux_{arch}",
    )
