// Command mkrelease packs binaries already built for each platform into
// the release archives that `make release` publishes, and writes their
// checksums. It is a build tool: nothing in zkraft imports it.
//
//	go run ./internal/mkrelease -version V -time RFC3339 -out dist [-doc README.md]... STAGEDIR...
//
// Each STAGEDIR is named GOOS-GOARCH and holds that platform's binaries.
// For each one mkrelease writes dist/zkraft-V-GOOS-GOARCH.tar.gz (a .zip
// for windows) whose single top-level directory, zkraft-V-GOOS-GOARCH/,
// holds the binaries (mode 0755) and the -doc files (0644). It then writes
// dist/SHA256SUMS, one "digest  name" line per archive in name order, as
// sha256sum -c reads it.
//
// The archives depend only on the files' contents, the version and the
// -time given: every entry carries that time, owner 0 and a fixed mode,
// entries are in name order, and the gzip header carries no name or time.
// Binaries built from the same commit with the same Go release and the
// same build time (make release BUILD_TIME=...) give byte-identical
// archives.
package main
