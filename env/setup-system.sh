#!/usr/bin/env bash
# System packages from Debian: chromium for the real-browser test of the built site, bubblewrap,
# the sandbox every grading kernel runs in (autograder/sandbox.py), and slurm-wlm with munge, the
# one-node Slurm cluster the sharded-grading test starts
# (tests/tooling/autograder/test_shard_slurm.py).
set -euo pipefail
missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v bwrap >/dev/null || missing+=(bubblewrap)
command -v slurmctld >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
if [ ${#missing[@]} = 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "setup: ${missing[*]} missing and apt-get is not usable here; the browser test fails" \
       "without chromium, grading refuses to run without bubblewrap, and the Slurm test fails" \
       "without slurm-wlm and munge" >&2
  exit 0
fi
echo "setup: installing Debian's ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
