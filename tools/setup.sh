#!/usr/bin/env bash
# Installs what building and testing npuc needs, from Debian packages only.
# Idempotent: installs nothing when everything is already there.
set -euo pipefail

need=()
have_cmd() { command -v "$1" >/dev/null 2>&1; }
have_cmd cc || need+=(build-essential)
have_cmd make || need+=(make)
have_cmd cmake || need+=(cmake)
have_cmd ninja || need+=(ninja-build)
have_cmd clang || need+=(clang)
# libFuzzer and the sanitizer runtimes for clang
if have_cmd clang; then
  if ! echo 'int LLVMFuzzerTestOneInput(const char*d,unsigned long n){(void)d;(void)n;return 0;}' |
       clang -x c -fsanitize=fuzzer,address -o /dev/null - >/dev/null 2>&1; then
    need+=(libclang-rt-dev)
  fi
else
  need+=(libclang-rt-dev)
fi
# The embedded build and its QEMU example (docs/embedded.md): the Arm
# bare-metal cross compiler, newlib for it, and QEMU's Cortex-M55 board.
have_cmd arm-none-eabi-gcc || need+=(gcc-arm-none-eabi)
if have_cmd arm-none-eabi-gcc; then
  [ -n "$(arm-none-eabi-gcc -mcpu=cortex-m55 -mthumb -mfloat-abi=hard -print-file-name=libc.a 2>/dev/null |
          grep /)" ] || need+=(libnewlib-arm-none-eabi)
else
  need+=(libnewlib-arm-none-eabi)
fi
have_cmd qemu-system-arm || need+=(qemu-system-arm)
# The HTML report test (tests/test_val_html_chromium.sh) renders the
# validation report in headless Chromium to prove the page lays out.
have_cmd chromium || need+=(chromium)

if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${need[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if have_cmd sudo; then sudo="sudo"; else
    echo "setup: need root (or sudo) to install: ${need[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}"
