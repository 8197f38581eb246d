#!/bin/sh
# Runs a tessera command with every GPU hidden and expects it to fail with a message saying a GPU is needed.
# usage: expect_no_gpu.sh TESSERA_BINARY ARGS...
out=$(CUDA_VISIBLE_DEVICES=-1 "$@" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -eq 0 ]; then echo "expected a non-zero exit status, got 0"; exit 1; fi
echo "$out" | grep -q -e "no CUDA GPU" -e "built without CUDA" || { echo "expected a message about the missing GPU"; exit 1; }
echo "ok: exit status $rc"
