#!/bin/sh
# Prints the Debian packages of the given sections of deploy/debian-packages.txt (run, test), one line.
set -eu
list="$(dirname "$0")/debian-packages.txt"
for section in "$@"; do
  sed -n "/^\[$section\]/,/^\[/p" "$list" | sed -e 's/#.*//' -e '/^\[/d' -e 's/[[:space:]]//g' -e '/^$/d'
done | tr '\n' ' ' | sed 's/ $//'
echo
