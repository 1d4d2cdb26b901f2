#!/usr/bin/env bash
# Debian packages setupcam needs: fonts that give the simulated table (vision/synth)
# more tile art and, with --with-browser, Chromium for the dashboard's browser tests.
# Idempotent: installs only what is missing, runs `apt-get update` only when it must
# install something, prints nothing when everything is present, and never fails the
# run: without root (or without apt) it warns once and the simulator falls back to
# whatever fonts the machine has (or to drawn shapes and Hershey fonts).
set -uo pipefail

PACKAGES=(
  fonts-dejavu-core
  fonts-dejavu-extra
  fonts-liberation2
  fonts-freefont-ttf
  fonts-urw-base35
  fonts-noto-core
  fonts-crosextra-carlito
)
if [ "${1:-}" = "--with-browser" ]; then
  PACKAGES+=(chromium)
fi

missing=()
if command -v dpkg >/dev/null 2>&1; then
  for pkg in "${PACKAGES[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
  done
else
  missing=("${PACKAGES[@]}")
fi
[ "${#missing[@]}" -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setupcam: not root (or no apt-get): cannot install ${missing[*]};" \
    "install them yourself (the simulator falls back to the fonts present)" >&2
  exit 0
fi

echo "setupcam: installing Debian packages: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get update -qq >/dev/null; then
  echo "setupcam: apt-get update failed; skipping ${missing[*]}" >&2
  exit 0
fi
# Install one by one, so a package missing from this Debian release skips only itself.
for pkg in "${missing[@]}"; do
  apt-get install -y -qq "$pkg" >/dev/null 2>&1 \
    || echo "setupcam: could not install $pkg (skipped)" >&2
done
exit 0
