// Command notice writes zkraft's NOTICE file: the project's own notice,
// then one line per third-party Go module linked into the zkraft
// commands, with its version and license, then the NOTICE files those
// modules carry (the Apache License's section 4(d) asks that they travel
// with the binaries). It is a build tool: nothing in zkraft imports it.
//
//	go run ./internal/notice > NOTICE
//
// The modules are those `go list -deps ./cmd/...` reaches for each
// platform in the Makefile's PLATFORMS (the release platforms), built
// as the releases are (CGO_ENABLED=0): what the shipped binaries link,
// not the whole build list, so modules that only tests use (testify,
// goleak, chromedp, porcupine) are left out. -platforms overrides the
// list.
//
// Each module's license files (LICENSE, LICENCE, COPYING, UNLICENSE and
// names beginning with them, such as LICENSE.md or LICENSE.libyaml) are
// read from the module cache and identified by the key phrases of the
// canonical texts (see classify). A module with several license files
// gets their identifiers joined with AND, in file name order. notice
// fails, writing nothing, when a module has no license file or one whose
// license it cannot identify, or when go.mod replaces a linked module
// (NOTICE says the MPL-2.0 modules are used unmodified): that module must
// be looked at by a person before it ships.
//
// It lives in the main module, not in internal/tools (a module of its own
// for pinned tools), so that `go test ./...`, and so make test, runs its
// test; it needs nothing beyond the standard library.
//
// The test in this package regenerates NOTICE and compares it with the
// committed file, so `make test` fails when go.mod changes what the
// binaries link without NOTICE following. The test runs offline
// (GOPROXY=off) and is skipped when a module is missing from the module
// cache (`go mod download` fills it).
package main
