package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const mitText = `The MIT License (MIT)

Copyright (c) 2013 Someone

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies of
the Software, and to permit persons to whom the Software is furnished to do so,
subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS
FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR
COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER
IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN
CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
`

const bsd2Text = `Copyright (c) 2020, Someone
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
`

const bsd3Clause = `
3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.
`

const iscText = `ISC License

Copyright (c) 2004-2010 by Someone

Permission to use, copy, modify, and/or distribute this software for any
purpose with or without fee is hereby granted, provided that the above
copyright notice and this permission notice appear in all copies.

THE SOFTWARE IS PROVIDED "AS IS" AND THE AUTHOR DISCLAIMS ALL WARRANTIES
WITH REGARD TO THIS SOFTWARE INCLUDING ALL IMPLIED WARRANTIES OF
MERCHANTABILITY AND FITNESS. IN NO EVENT SHALL THE AUTHOR BE LIABLE FOR
ANY SPECIAL, DIRECT, INDIRECT, OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES
WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS, WHETHER IN AN
ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS ACTION, ARISING OUT OF
OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THIS SOFTWARE.
`

// bsd3Text is bsd2Text with the third clause before the disclaimer.
var bsd3Text = strings.Replace(bsd2Text, "\nTHIS SOFTWARE", bsd3Clause+"\nTHIS SOFTWARE", 1)

// repoFile reads a file of the repository (the test runs in
// internal/notice).
func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// commented is text as a Go source file's comment, reflowed.
func commented(text string) string {
	var b strings.Builder
	for _, w := range strings.Fields(text) {
		b.WriteString("// " + w + "\n")
	}
	return b.String()
}

func TestClassify(t *testing.T) {
	goroot, err := goCmd("", nil, "env", "GOROOT")
	if err != nil {
		t.Fatal(err)
	}
	goLicense, err := os.ReadFile(filepath.Join(strings.TrimSpace(goroot), "LICENSE"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"zkraft's LICENSE", repoFile(t, "LICENSE"), "Apache-2.0"},
		{"Go's LICENSE", string(goLicense), "BSD-3-Clause"},
		{"MIT", mitText, "MIT"},
		{"MIT in comments", commented(mitText), "MIT"},
		{"MIT with CRLF", strings.ReplaceAll(mitText, "\n", "\r\n"), "MIT"},
		{"BSD-2-Clause", bsd2Text, "BSD-2-Clause"},
		{"BSD-3-Clause", bsd3Text, "BSD-3-Clause"},
		{"ISC", iscText, "ISC"},
		{"ISC, and instead of and/or", strings.Replace(iscText, "and/or", "and", 1), "ISC"},
	} {
		got, err := classify(c.text)
		if err != nil || got != c.want {
			t.Errorf("%s: classify = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct{ name, text string }{
		{"empty", ""},
		{"no license", "All rights reserved. Do not copy."},
		{"MIT without its notice clause", strings.Replace(mitText, "The above copyright notice and this permission notice shall be included", "", 1)},
		{"JSON license", strings.Replace(mitText, "subject to the following conditions:", "subject to the following conditions:\n\nThe Software shall be used for Good, not Evil.", 1)},
		{"BSD-4-Clause", strings.Replace(bsd3Text, "3. Neither", "4. All advertising materials mentioning features or use of this software must display an acknowledgement.\n3. Neither", 1)},
		{"BSD with a fourth clause after the disclaimer", bsd2Text + strings.Repeat("You must also send the author a postcard for every copy. ", 20)},
		{"Apache and MIT in one file", repoFile(t, "LICENSE") + mitText},
		{"MIT and ISC in one file", mitText + iscText},
		{"the Apache header alone", "Licensed under the Apache License, Version 2.0 (the \"License\"); you may not use this file except in compliance with the License."},
	} {
		if got, err := classify(c.text); !errors.Is(err, errUnknownLicense) {
			t.Errorf("%s: classify = %q, %v; want errUnknownLicense", c.name, got, err)
		}
	}
}

// TestClassifyModuleCache classifies the license files the module cache
// holds for the modules NOTICE lists, as the versions there word them
// (skipped for those not in the cache).
func TestClassifyModuleCache(t *testing.T) {
	gomodcache, err := goCmd("", nil, "env", "GOMODCACHE")
	if err != nil {
		t.Fatal(err)
	}
	dir := strings.TrimSpace(gomodcache)
	for _, c := range []struct{ module, want string }{
		{"github.com/hashicorp/raft@v1.7.3", "MPL-2.0"},
		{"github.com/hashicorp/raft-wal@v0.4.1", "MPL-2.0"}, // the newer MPL layout
		{"github.com/hashicorp/go-uuid@v1.0.3", "MPL-2.0"},
		{"github.com/prometheus/client_golang@v1.23.2", "Apache-2.0"},
		{"github.com/coreos/go-systemd@v0.0.0-20191104093116-d3cd4ed1dbcf", "Apache-2.0"}, // not indented
		{"github.com/mattn/go-isatty@v0.0.14", "MIT"},                                     // one long line
		{"github.com/beorn7/perks@v1.0.1", "MIT"},                                         // no title
		{"github.com/go-zookeeper/zk@v1.0.4", "BSD-3-Clause"},
		{"software.sslmate.com/src/go-pkcs12@v0.7.4", "BSD-3-Clause"},
		{"go.yaml.in/yaml/v2@v2.4.2", "Apache-2.0 AND MIT"}, // LICENSE and LICENSE.libyaml
	} {
		mdir := filepath.Join(dir, c.module)
		if _, err := os.Stat(mdir); err != nil {
			t.Logf("skipped %s: not in the module cache", c.module)
			continue
		}
		if got, err := moduleLicense(mdir); err != nil || got != c.want {
			t.Errorf("%s: moduleLicense = %q, %v; want %q", c.module, got, err, c.want)
		}
	}
}

func TestModuleLicenseFiles(t *testing.T) {
	write := func(dir, name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	if _, err := moduleLicense(dir); !errors.Is(err, errNoLicense) {
		t.Errorf("no license file: err = %v, want errNoLicense", err)
	}
	// A directory named like a license file, a README and a NOTICE are not license files.
	if err := os.Mkdir(filepath.Join(dir, "licenses"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(dir, "README.md", "MIT")
	write(dir, "NOTICE", "Copyright 2026 Someone")
	if _, err := moduleLicense(dir); !errors.Is(err, errNoLicense) {
		t.Errorf("no license file: err = %v, want errNoLicense", err)
	}
	write(dir, "LICENSE.md", mitText)
	write(dir, "COPYING", bsd2Text)
	write(dir, "LICENSE-MIT", mitText)
	if got, err := moduleLicense(dir); err != nil || got != "BSD-2-Clause AND MIT" {
		t.Errorf("moduleLicense = %q, %v; want BSD-2-Clause AND MIT", got, err)
	}
	write(dir, "LICENCE.txt", "All rights reserved.")
	if got, err := moduleLicense(dir); !errors.Is(err, errUnknownLicense) || !strings.Contains(err.Error(), "LICENCE.txt") {
		t.Errorf("with an unknown LICENCE.txt: moduleLicense = %q, %v; want errUnknownLicense naming the file", got, err)
	}
	ns, err := moduleNotices(dir)
	if err != nil || len(ns) != 1 || ns[0].name != "NOTICE" {
		t.Errorf("moduleNotices = %v, %v; want NOTICE", ns, err)
	}
}

func TestRender(t *testing.T) {
	var b bytes.Buffer
	render(&b, []string{"linux/amd64", "windows/arm64"}, "BSD-3-Clause", []module{
		{Path: "example.com/a", Version: "v1.0.0", License: "MIT"},
		{Path: "example.com/mpl/v2", Version: "v2.1.0", License: "MPL-2.0",
			Notices: []notice{{"NOTICE.txt", "Copyright 2022 Example\n\n"}}},
	})
	out := b.String()
	for _, want := range []string{
		"zkraft\nCopyright 2026 the zkraft authors\n",
		"the Go standard library (BSD-3-Clause, Copyright The Go Authors)",
		"release platforms,\nlinux/amd64 windows/arm64;\n",
		"\nexample.com/a       v1.0.0  MIT\n",
		"\nexample.com/mpl/v2  v2.1.0  MPL-2.0  source: go mod download example.com/mpl/v2@v2.1.0\n",
		"The modules marked MPL-2.0 are used unmodified.",
		"\n==> example.com/mpl/v2 v2.1.0: NOTICE.txt <==\n\nCopyright 2022 Example\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("NOTICE lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasSuffix(out, "Example\n") {
		t.Errorf("NOTICE does not end with its last notice and one newline:\n%q", out[len(out)-40:])
	}

	b.Reset()
	render(&b, []string{"linux/amd64"}, "BSD-3-Clause", []module{{Path: "example.com/a", Version: "v1.0.0", License: "MIT"}})
	if out := b.String(); strings.Contains(out, "MPL-2.0") || strings.Contains(out, "Notices of the modules") {
		t.Errorf("NOTICE without MPL-2.0 modules or notices has their paragraphs:\n%s", out)
	}
}

func TestMakefilePlatforms(t *testing.T) {
	got, err := makefilePlatforms(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "linux/amd64") {
		t.Errorf("PLATFORMS = %q, want a list with linux/amd64", got)
	}
}

// TestNoticeUpToDate regenerates NOTICE from go.mod and the module cache,
// offline, and compares it with the committed file.
func TestNoticeUpToDate(t *testing.T) {
	var b bytes.Buffer
	err := run("", []string{"GOPROXY=off"}, &b)
	if errors.Is(err, errModuleMissing) {
		t.Skipf("NOTICE not checked: a module the binaries link is not in the module cache (go mod download fills it): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), repoFile(t, "NOTICE"); got != want {
		t.Errorf("NOTICE is stale: run go run ./internal/notice > NOTICE\n%s", firstDiff(want, got))
	}
}

// firstDiff shows the first line where the committed and the generated
// NOTICE differ.
func firstDiff(committed, generated string) string {
	c, g := strings.Split(committed, "\n"), strings.Split(generated, "\n")
	for i := 0; i < max(len(c), len(g)); i++ {
		if i >= len(c) || i >= len(g) || c[i] != g[i] {
			line := func(l []string) string {
				if i < len(l) {
					return l[i]
				}
				return "(end of file)"
			}
			return fmt.Sprintf("first difference at line %d:\n\tcommitted: %s\n\tgenerated: %s", i+1, line(c), line(g))
		}
	}
	return ""
}
