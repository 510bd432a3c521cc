#!/usr/bin/env bash
# System programs some tests drive for real: zsh and fish (shell completion), Debian's chromium
# and chromium-driver (the console's browser tests; never a downloaded browser); and what builds
# the YAML reader's C path (provider/document/_reader.c): a C compiler and libyaml's headers.
# Installed with apt-get when missing and this is root on a Debian-like machine; otherwise the
# tests that need them say which program is missing (and trainjobs reads YAML in Python alone).
# Quiet when everything is there. Run it before scripts/setup.sh, which builds the C path.
set -uo pipefail
wanted=(zsh fish chromium chromedriver:chromium-driver)  # program[:its Debian package]
missing=()
for entry in "${wanted[@]}"; do
  program="${entry%%:*}"
  command -v "$program" >/dev/null 2>&1 || missing+=("${entry#*:}")
done
command -v cc >/dev/null 2>&1 || missing+=(gcc libc6-dev)
[ -f /usr/include/yaml.h ] || missing+=(libyaml-dev)
[ "${#missing[@]}" -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: ${missing[*]} not installed (needs root and apt-get): the tests that drive them will skip" >&2
  case " ${missing[*]} " in *" libyaml-dev "*|*" gcc "*)
    echo "setup: without a C compiler and libyaml-dev the YAML reader's C path is not built: trainjobs reads" \
         "YAML in Python alone, and tests/test_native_reader.py fails until they are installed" >&2 ;;
  esac
  exit 0
fi
echo "setup: installing ${missing[*]} with apt-get"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >/tmp/trainjobs-apt.log 2>&1; then
  echo "setup: apt-get could not install ${missing[*]} (see /tmp/trainjobs-apt.log): the tests that drive them will skip" >&2
fi
exit 0
