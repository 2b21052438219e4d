#!/usr/bin/env python3
"""Times the whole process against the parse-and-write round trip of the same input.

Builds the release binaries, generates the inputs, then runs the function and the round
trip alternately, RUNS times each, and reports median wall times, their ratio and peak
memory (/usr/bin/time -f %M). Then renders the 10,000-binding items from 100 manifest files
(`render`, the Argo CD mode) against the KRM mode on the same items. The cases: N
bindings reaching their pods, all conflicting (`worst`), the first run (no variant labels
yet, flow-list args; also with `workloadPolicy: Ignore`), and one chart in N namespaces
(`shared-labels`, 1,000, 2,000 and 5,000 namespaces under `selectorScope` Pool and Binding).
Last, the admission guard's cost: the same inputs with and without `admissionGuard`, run
alternately, their wall and CPU (user + system) seconds and peak memory.
Usage:
python3 benches/compare.py [RUNS]
"""
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE = os.path.join(ROOT, "target", "release")
FUNCTION = os.path.join(RELEASE, "render-inference-identity")
ROUNDTRIP = os.path.join(RELEASE, "examples", "roundtrip")
GENERATE = os.path.join(RELEASE, "examples", "generate")


def timed(command, input_path):
    """Wall seconds and peak resident KiB of one run, output discarded."""
    command = command if isinstance(command, list) else [command]
    with open(input_path or os.devnull, "rb") as stdin, tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(
            ["/usr/bin/time", "-f", "%e %M", "-o", report.name, *command],
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )
        seconds, kib = report.read().split()[-2:]
    return float(seconds), int(kib)


def timed_cpu(input_path):
    """Wall seconds, CPU seconds (user + system) and peak resident KiB of one run of the function."""
    with open(input_path, "rb") as stdin, tempfile.NamedTemporaryFile("r") as report:
        subprocess.run(
            ["/usr/bin/time", "-f", "%e %U %S %M", "-o", report.name, FUNCTION],
            stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
        )
        wall, user, system, kib = report.read().split()[-4:]
    return float(wall), float(user) + float(system), int(kib)


def guard_cost(workdir, runs):
    """Each input without and with the admission guard, alternately: medians and peaks."""
    print(f"{'guard':<13} {'off s':>6} {'on s':>6} {'off cpu':>7} {'on cpu':>7} {'off MB':>7} {'on MB':>7}")
    for name, args in [("10k", ["10000"]), ("20k", ["20000"]), ("2k-shared", ["2000", "shared-labels"]),
                       ("5k-shared", ["5000", "shared-labels"])]:
        paths = []
        for suffix, extra in (("off", []), ("on", ["admissionGuard={}"])):
            path = os.path.join(workdir, f"{name}-guard-{suffix}.yaml")
            with open(path, "wb") as out:
                subprocess.run([GENERATE, *args, *extra], stdout=out, check=True)
            paths.append(path)
        samples = ([], [])
        for _ in range(runs):
            for i, path in enumerate(paths):
                samples[i].append(timed_cpu(path))
        (off_s, off_cpu, off_kib), (on_s, on_cpu, on_kib) = [
            (statistics.median(s[0] for s in runs_), statistics.median(s[1] for s in runs_),
             max(s[2] for s in runs_)) for runs_ in samples]
        print(f"{name:<13} {off_s:>6.2f} {on_s:>6.2f} {off_cpu:>7.2f} {on_cpu:>7.2f} "
              f"{off_kib / 1024:>7.0f} {on_kib / 1024:>7.0f}")


def alternate(first, second, runs):
    """Runs two (command, input) pairs alternately: their median seconds and peak KiB."""
    times, mems = ([], []), ([], [])
    for _ in range(runs):
        for i, (command, input_path) in enumerate((first, second)):
            s, m = timed(command, input_path)
            times[i].append(s)
            mems[i].append(m)
    return [(statistics.median(t), max(m)) for t, m in zip(times, mems)]


def measure(input_path, runs):
    (rt_s, rt_kib), (fn_s, fn_kib) = alternate((ROUNDTRIP, input_path), (FUNCTION, input_path), runs)
    return fn_s, rt_s, fn_kib, rt_kib


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    subprocess.run(["cargo", "build", "--release", "--locked", "--bin", "render-inference-identity",
                    "--example", "roundtrip", "--example", "generate"], cwd=ROOT, check=True)
    workdir = tempfile.mkdtemp(prefix="rii-bench-")
    cases = [("10k", ["10000"]), ("20k", ["20000"]), ("10k-worst", ["10000", "worst"]),
             ("10k-first", ["10000", "first-run"]),
             ("10k-first-ign", ["10000", "first-run", "workloadPolicy=Ignore"]),
             ("1k-shared", ["1000", "shared-labels"]), ("2k-shared", ["2000", "shared-labels"]),
             ("5k-shared", ["5000", "shared-labels"]),
             ("1k-shared-b", ["1000", "shared-labels", "selectorScope=Binding"]),
             ("2k-shared-b", ["2000", "shared-labels", "selectorScope=Binding"]),
             ("5k-shared-b", ["5000", "shared-labels", "selectorScope=Binding"])]
    results = {}
    print(f"{'input':<13} {'MB':>6} {'function s':>10} {'roundtrip s':>11} {'ratio':>6} "
          f"{'fn MB':>7} {'fn x in':>7} {'rt MB':>7} {'rt x in':>7}")
    for name, args in cases:
        path = os.path.join(workdir, f"{name}.yaml")
        with open(path, "wb") as out:
            subprocess.run([GENERATE, *args], stdout=out, check=True)
        size = os.path.getsize(path)
        fn_s, rt_s, fn_kib, rt_kib = measure(path, runs)
        results[name] = fn_s
        print(f"{name:<13} {size / 1e6:>6.1f} {fn_s:>10.2f} {rt_s:>11.2f} {fn_s / rt_s:>6.2f} "
              f"{fn_kib / 1024:>7.0f} {fn_kib * 1024 / size:>7.1f} {rt_kib / 1024:>7.0f} "
              f"{rt_kib * 1024 / size:>7.1f}")
    print(f"20k / 10k function time: {results['20k'] / results['10k']:.2f}; "
          f"2k / 1k shared-labels: {results['2k-shared'] / results['1k-shared']:.2f}; "
          f"5k / 2k: {results['5k-shared'] / results['2k-shared']:.2f}")

    # render (Argo CD) on the 10k items in 100 files, against the KRM mode on the same items.
    files = os.path.join(workdir, "files")
    subprocess.run([GENERATE, "10000", "files", files], check=True)
    render = [FUNCTION, "render", "--trust-domain", "example.org",
              "--transition-time", "2026-01-01T00:00:00Z", files]
    krm_input = os.path.join(workdir, "10k.yaml")
    (render_s, render_kib), (krm_s, krm_kib) = alternate((render, None), (FUNCTION, krm_input), runs)
    print(f"render 10k in 100 files: {render_s:.2f} s, {render_kib / 1024:.0f} MB; "
          f"KRM mode {krm_s:.2f} s, {krm_kib / 1024:.0f} MB; ratio {render_s / krm_s:.2f}")
    guard_cost(workdir, runs)


if __name__ == "__main__":
    main()
