#!/bin/sh
# The README's settings table is the one railmpi_info generates from the settings table.
# Usage: readme_settings.sh <railmpi_info> <README.md>
set -u
info=$1 readme=$2
missing=0
"$info" --markdown | while IFS= read -r line; do
  grep -qxF -- "$line" "$readme" || { echo "README.md lacks: $line"; exit 1; }
done || exit 1
echo "README settings table matches railmpi_info --markdown"
