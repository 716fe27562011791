#!/usr/bin/env bash
# benchledger device run: build llama.cpp's llama-server with CUDA, generate a random-weight Llama-3.1-8B-shaped
# q8_0 target + 1-layer draft, run `benchledger bench` (base vs draft-model speculation) at several
# concurrencies, record into a scratch copy of the ledger, tar the run folder + record into $OUT.
# Re-runnable on a warm machine: a finished build (.devbuild/) and generated models (/tmp/models) are reused.
# Env: OUT (required), BUDGET (seconds for the whole script, default 525), MODE=cpu for the local dry run.
set -euo pipefail
export PYTHONUNBUFFERED=1
T0=$(date +%s)
BUDGET=${BUDGET:-525}
MODE=${MODE:-gpu}
REPO=$(pwd)
OUT=${OUT:?OUT must be set}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/device.log") 2>&1
el() { echo $(( $(date +%s) - T0 )); }
step() { echo "[$(el)s] $*"; }
left() { echo $(( BUDGET - $(el) )); }

RID=${RID:-h200-llama-cpp-llama-3.1-8b-shape-random-q8-0-draft-1l-k4}
MODELS=${MODELS:-/tmp/models}
BUILD=${BUILD:-$REPO/.devbuild}
LEDGER=/tmp/ledger-scratch
K=${K:-4}
PRESET=${PRESET:-llama-3.1-8b}
WTYPE=${WTYPE:-q8_0}

step "start mode=$MODE budget=${BUDGET}s rid=$RID"
# 1. Python packages (wheels carried in .devrun/whl) -------------------------------------------------------
if [ "$MODE" = gpu ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
    .devrun/whl/*.whl
  export PYTHONPATH=/tmp/site:$REPO/src
  PY=python3
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem,power.limit \
    --format=csv | tee /tmp/nvidia-smi.csv
  nvidia-smi > /tmp/nvidia-smi.txt 2>&1 || true
  ls /usr/local/cuda/lib64 2>/dev/null | grep -c cublas || true
  nvcc --version | tail -2
else
  PY=${PY:-python3}
  export PYTHONPATH=$REPO/src
fi
$PY -c "import benchledger.cli, gguf, pydantic; print('python ok', pydantic.VERSION)"
step "python ready"

# 2. Models (background; overlaps the build) --------------------------------------------------------------
GEN_PID=
if [ ! -f "$MODELS/manifest.json" ]; then
  mkdir -p "$MODELS"
  ( timeout 400 $PY scripts/random_shape_gguf.py --out "$MODELS" --preset "$PRESET" ${LAYERS:+--layers $LAYERS} \
      --wtype "$WTYPE" --deep-scale 0 --seed 1234 --manifest "$MODELS/manifest.json.part" \
      && mv "$MODELS/manifest.json.part" "$MODELS/manifest.json" ) > "$OUT/gen.log" 2>&1 &
  GEN_PID=$!
  step "model generation started (pid $GEN_PID)"
fi

# 3. llama-server build -----------------------------------------------------------------------------------
SERVER=$BUILD/build/bin/llama-server
if [ "$MODE" = gpu ] && [ ! -x "$SERVER" ]; then
  mkdir -p "$BUILD"
  if [ ! -f "$BUILD/src/CMakeLists.txt" ]; then
    rm -rf "$BUILD/src" && mkdir -p "$BUILD/src"
    tar xzf .devrun/llama.cpp-trim.tar.gz -C "$BUILD/src" --strip-components=1
  fi
  if [ ! -f "$BUILD/build/build.ninja" ]; then
    EXTRA=()
    if [ ! -f /usr/local/cuda/include/cublas_v2.h ]; then
      # no cuBLAS in the toolkit: use the pip wheel's (nvidia-cublas) through a shim folder of unversioned links
      H=$(find / -xdev -name cublas_v2.h -path '*nvidia*' 2>/dev/null | head -1 || true)
      L=$(find / -xdev -name 'libcublas.so.*' -path '*nvidia*' 2>/dev/null | head -1 || true)
      step "toolkit has no cublas_v2.h; pip cuBLAS: header=$H lib=$L"
      if [ -n "$H" ] && [ -n "$L" ]; then
        mkdir -p /tmp/cublas-shim
        for f in "$(dirname "$L")"/libcublas*.so.*; do b=$(basename "$f"); ln -sf "$f" "/tmp/cublas-shim/${b%%.so.*}.so"; done
        export LD_LIBRARY_PATH=$(dirname "$L"):${LD_LIBRARY_PATH:-}
        EXTRA=(-DCMAKE_LIBRARY_PATH=/tmp/cublas-shim "-DCMAKE_CUDA_FLAGS=-I$(dirname "$H")" "-DCMAKE_CXX_FLAGS=-I$(dirname "$H")")
      fi
    fi
    timeout 120 cmake "${EXTRA[@]}" -S "$BUILD/src" -B "$BUILD/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DGGML_NATIVE=OFF -DGGML_CUDA_NCCL=OFF \
      -DGGML_CUDA_FA_QUANTS=f16-f16 -DGGML_CCACHE=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
      -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_BUILD_UI=OFF \
      -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_COMMIT=xllamacpp-2026.10.11549-sdist \
      > "$OUT/cmake.log" 2>&1 || { tail -40 "$OUT/cmake.log"; exit 2; }
    step "configured"
  fi
  BT=$(( $(left) - 150 ))
  [ "$BT" -gt 30 ] || { step "no time left to build"; exit 3; }
  step "building llama-server (limit ${BT}s)"
  if ! timeout "$BT" ninja -C "$BUILD/build" -j16 llama-server > "$OUT/build.log" 2>&1; then
    tail -30 "$OUT/build.log"; step "build stopped (rerun continues it)"; exit 3
  fi
  step "built: $(grep -c 'Building' "$OUT/build.log") compile steps"
elif [ "$MODE" = cpu ]; then
  SERVER=${SERVER_CPU:?SERVER_CPU must name a CPU llama-server}
fi
"$SERVER" --version 2>&1 | tail -4
if [ "$MODE" = gpu ]; then "$SERVER" --list-devices 2>&1 | tail -4; fi

if [ -n "$GEN_PID" ]; then
  wait "$GEN_PID" || { tail -20 "$OUT/gen.log"; step "model generation failed"; exit 4; }
fi
step "models ready: $(ls -la "$MODELS" | tr '\n' ' ')"

# 4. Bench ------------------------------------------------------------------------------------------------
R=$(left)
if [ "$MODE" = gpu ]; then
  # worst case = launches (~60 s) + warmups (~20 s) + points x MAXS, inside R - 20
  if   [ "$R" -ge 240 ]; then CONC=1,4,16,32; NPTS=4
  elif [ "$R" -ge 150 ]; then CONC=1,4,16;    NPTS=3
  else step "only ${R}s left: bench skipped (rerun continues)"; exit 5; fi
  MAXS=$(( (R - 110) / NPTS )); [ "$MAXS" -le 75 ] || MAXS=75
  if [ "$MAXS" -ge 60 ]; then NP=96; elif [ "$MAXS" -ge 40 ]; then NP=64; else NP=32; fi
  NGL="-ngl 99"; NGLD="-ngld 99"; PAR=32; CTX=32768
else
  CONC=${CONC:-1,4}; NP=${NP:-8}; MAXS=${MAXS:-60}; NGL=""; NGLD=""; PAR=4; CTX=4096
fi
rm -rf "$LEDGER" && cp -r "$REPO/ledger" "$LEDGER" && rm -rf "$LEDGER/runs/$RID" "$LEDGER/benchmarks/$RID.md"
COMMON="--host 127.0.0.1 $NGL --parallel $PAR -c $CTX --metrics -a llama-shape-random"
BASE_CMD="$SERVER -m $MODELS/target.gguf --port 18081 $COMMON"
SPEC_CMD="$SERVER -m $MODELS/target.gguf --port 18082 $COMMON -md $MODELS/draft.gguf $NGLD --spec-type draft-simple --spec-draft-n-max $K --spec-draft-n-min 0"
step "bench: c=$CONC num_prompts=$NP max_seconds=$MAXS (left ${R}s)"
set +e
timeout $(( R - 20 )) $PY -m benchledger bench \
  --arm base=http://127.0.0.1:18081 --arm spec=http://127.0.0.1:18082 \
  --launch "base=$BASE_CMD" --launch "spec=$SPEC_CMD" --spec "spec=draft-model:$K" \
  -c "$CONC" --num-prompts "$NP" --max-seconds "$MAXS" --warmup 2 --input-tokens 128 --output-tokens 128 \
  --timeout 120 --record --ledger "$LEDGER" --record-id "$RID" --record-model "$PRESET-shape-random" \
  --record-engine llama-cpp --record-accelerator nvidia-h200 --json > "$OUT/bench.json" 2> "$OUT/bench.err"
BRC=$?
set -e
step "bench rc=$BRC"
tail -5 "$OUT/bench.err" || true

# 5. Pack -------------------------------------------------------------------------------------------------
RUN="$LEDGER/runs/$RID"
if [ -d "$RUN" ]; then
  cp "$MODELS/manifest.json" "$RUN/model-manifest.json"
  cp "$REPO/.devrun/device.sh" "$RUN/device.sh"
  if [ -f /tmp/nvidia-smi.csv ]; then cp /tmp/nvidia-smi.csv /tmp/nvidia-smi.txt "$RUN/"; fi
  if [ -f "$BUILD/build/CMakeCache.txt" ]; then
    grep -E '^(GGML_CUDA|CMAKE_CUDA_ARCHITECTURES|CMAKE_BUILD_TYPE|GGML_NATIVE|LLAMA_BUILD_COMMIT|CMAKE_CUDA_COMPILER_VERSION|CMAKE_CXX_COMPILER_VERSION)' \
      "$BUILD/build/CMakeCache.txt" > "$RUN/build-config.txt" || true
    nvcc --version >> "$RUN/build-config.txt" 2>&1 || true
  fi
  du -sh "$RUN"; find "$RUN" -type f | head -50 | xargs ls -la
  tar czf "$OUT/run.tgz" -C "$LEDGER" "runs/$RID" $( [ -f "$LEDGER/benchmarks/$RID.md" ] && echo "benchmarks/$RID.md" )
  ls -la "$OUT/run.tgz"
fi
step "done"
exit $BRC
