#!/bin/sh
# Check the build libraries with pkg-config before anything compiles.
# Arguments: name:minimum-version:debian-package, as PKGS in the Makefile.
# Prints one line per missing library, naming the Debian package that
# brings it, and exits 1 when any is missing.
status=0
for p in "$@"; do
	name=${p%%:*}
	rest=${p#*:}
	version=${rest%%:*}
	package=${rest#*:}
	if ! pkg-config --atleast-version="$version" "$name" 2>/dev/null; then
		echo "missing library: $name >= $version" \
			"(install the Debian package $package, or run 'make deps')" >&2
		status=1
	fi
done
exit $status
