package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
)

var (
	// errModuleMissing is returned when a module the binaries link is not
	// in the module cache and could not be fetched.
	errModuleMissing = errors.New("module not in the module cache")
	// errNoLicense is returned for a module without a license file.
	errNoLicense = errors.New("no license file")
	// errReplaced is returned for a linked module that go.mod replaces.
	errReplaced = errors.New("notice does not handle replaced modules")
)

// header is the project's own notice, as the Apache License's appendix
// suggests, before the list of modules.
const header = `zkraft
Copyright 2026 the zkraft authors

Licensed under the Apache License, Version 2.0 (the "License"); you may
not use zkraft except in compliance with the License. The License is in
the file LICENSE, and at http://www.apache.org/licenses/LICENSE-2.0.
Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
`

// module is one third-party module the binaries link.
type module struct {
	Path, Version string
	// Dir is where its source is in the module cache.
	Dir string
	// License is its SPDX license expression.
	License string
	// Notices are its NOTICE files' contents, in file name order.
	Notices []notice
}

type notice struct{ name, text string }

func main() {
	platforms := flag.String("platforms", "", "space-separated GOOS/GOARCH list (default: the Makefile's PLATFORMS)")
	flag.Parse()
	if err := run(*platforms, nil, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "notice:", err)
		os.Exit(1)
	}
}

// run writes NOTICE to w. platforms is the Makefile's PLATFORMS when
// empty; env is added to the go command's environment.
func run(platforms string, env []string, w io.Writer) error {
	root, err := moduleRoot(env)
	if err != nil {
		return err
	}
	if platforms == "" {
		if platforms, err = makefilePlatforms(filepath.Join(root, "Makefile")); err != nil {
			return err
		}
	}
	mods, err := linkedModules(root, strings.Fields(platforms), env)
	if err != nil {
		return err
	}
	goroot, err := goCmd(root, env, "env", "GOROOT")
	if err != nil {
		return err
	}
	std, err := moduleLicense(strings.TrimSpace(goroot))
	if err != nil {
		return fmt.Errorf("the Go standard library (%s): %w", strings.TrimSpace(goroot), err)
	}
	var bad []string
	for i := range mods {
		m := &mods[i]
		if m.License, err = moduleLicense(m.Dir); err != nil {
			bad = append(bad, fmt.Sprintf("%s %s (%s): %v", m.Path, m.Version, m.Dir, err))
			continue
		}
		if m.Notices, err = moduleNotices(m.Dir); err != nil {
			return err
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("licenses not identified, look at these modules' license files (and extend licenseRules if the license is acceptable):\n\t%s", strings.Join(bad, "\n\t"))
	}
	var b bytes.Buffer
	render(&b, strings.Fields(platforms), std, mods)
	_, err = w.Write(b.Bytes())
	return err
}

// render writes NOTICE: the header, one line per module, where the
// MPL-2.0 modules' source is, then the modules' own NOTICE files.
func render(w io.Writer, platforms []string, stdLicense string, mods []module) {
	fmt.Fprint(w, header)
	fmt.Fprintf(w, `
Third-party software
--------------------

The zkraft commands (the binaries built from ./cmd/...) are built with
the Go standard library (%s, Copyright The Go Authors) and
link the Go modules below, each under its own license, whose text is in
the module's LICENSE file. The list covers the release platforms,
%s;
modules that only zkraft's tests use are left out. It is generated from
go.mod by go run ./internal/notice > NOTICE, and make test checks it.

`, stdLicense, strings.Join(platforms, " "))
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	mpl := false
	for _, m := range mods {
		line := fmt.Sprintf("%s\t%s\t%s", m.Path, m.Version, m.License)
		if strings.Contains(m.License, "MPL-2.0") {
			mpl = true
			line += "\tsource: go mod download " + m.Path + "@" + m.Version
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
	if mpl {
		fmt.Fprint(w, `
The modules marked MPL-2.0 are used unmodified. Their Source Code Form
is available from their module path at the version listed: the command
shown fetches it into the Go module cache, through any module proxy or
from the origin repository (the public proxy serves it as
https://proxy.golang.org/MODULE/@v/VERSION.zip).
`)
	}
	var withNotice []module
	for _, m := range mods {
		if len(m.Notices) > 0 {
			withNotice = append(withNotice, m)
		}
	}
	if len(withNotice) == 0 {
		return
	}
	fmt.Fprint(w, `
Notices of the modules
----------------------

The NOTICE files the modules above carry, as they carry them.
`)
	for _, m := range withNotice {
		for _, n := range m.Notices {
			fmt.Fprintf(w, "\n==> %s %s: %s <==\n\n%s\n", m.Path, m.Version, n.name, strings.TrimRight(n.text, "\n\t "))
		}
	}
}

// moduleRoot is the main module's directory.
func moduleRoot(env []string) (string, error) {
	gomod, err := goCmd("", env, "env", "GOMOD")
	if err != nil {
		return "", err
	}
	gomod = strings.TrimSpace(gomod)
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the zkraft module (go env GOMOD is empty)")
	}
	return filepath.Dir(gomod), nil
}

var platformsLine = regexp.MustCompile(`(?m)^PLATFORMS\s*:?=\s*(.+)$`)

// makefilePlatforms reads the Makefile's PLATFORMS = line.
func makefilePlatforms(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	m := platformsLine.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("%s has no PLATFORMS = line (give -platforms)", path)
	}
	return strings.TrimSpace(string(m[1])), nil
}

// linkedModules lists the modules other than the main module that the
// packages under ./cmd/ import, directly or not, on any of platforms,
// sorted by path.
func linkedModules(root string, platforms []string, env []string) ([]module, error) {
	if len(platforms) == 0 {
		return nil, errors.New("no platforms")
	}
	const format = `{{with .Module}}{{if not .Main}}{{.Path}}	{{.Version}}	{{.Dir}}	{{with .Replace}}{{.Path}} {{.Version}}{{end}}{{end}}{{end}}`
	seen := map[string]module{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return nil, fmt.Errorf("platform %q is not GOOS/GOARCH", p)
		}
		out, err := goCmd(root, append(slices.Clone(env), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0"),
			"list", "-deps", "-f", format, "./cmd/...")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		sc := bufio.NewScanner(strings.NewReader(out))
		for sc.Scan() {
			if sc.Text() == "" {
				continue
			}
			f := strings.Split(sc.Text(), "\t")
			if len(f) != 4 {
				return nil, fmt.Errorf("go list printed %q", sc.Text())
			}
			if f[3] != "" {
				// NOTICE says the MPL-2.0 modules are used unmodified
				// and where their source is: a replacement needs a
				// person to say what it is.
				return nil, fmt.Errorf("%w: %s %s => %s", errReplaced, f[0], f[1], f[3])
			}
			if f[2] == "" {
				return nil, fmt.Errorf("%w: %s %s", errModuleMissing, f[0], f[1])
			}
			seen[f[0]+" "+f[1]] = module{Path: f[0], Version: f[1], Dir: f[2]}
		}
	}
	var mods []module
	for _, m := range seen {
		mods = append(mods, m)
	}
	slices.SortFunc(mods, func(a, b module) int {
		return strings.Compare(a.Path+" "+a.Version, b.Path+" "+b.Version)
	})
	return mods, nil
}

var (
	licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|unlicense)([-._].*)?$`)
	noticeFile  = regexp.MustCompile(`(?i)^notice(\.(txt|md))?$`)
)

// moduleLicense identifies the license of the module in dir from its
// license files: their identifiers joined with AND.
func moduleLicense(dir string) (string, error) {
	names, err := filesMatching(dir, licenseFile)
	if err != nil {
		return "", err
	}
	if len(names) == 0 {
		return "", errNoLicense
	}
	var ids []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return "", err
		}
		id, err := classify(string(b))
		if err != nil {
			return "", fmt.Errorf("%s: %w", n, err)
		}
		if !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return strings.Join(ids, " AND "), nil
}

// moduleNotices reads the module's NOTICE files.
func moduleNotices(dir string) ([]notice, error) {
	names, err := filesMatching(dir, noticeFile)
	if err != nil {
		return nil, err
	}
	var ns []notice
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		ns = append(ns, notice{name: n, text: string(b)})
	}
	return ns, nil
}

// filesMatching lists dir's regular files whose names match re, sorted.
func filesMatching(dir string, re *regexp.Regexp) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && re.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// goCmd runs the go command in dir with env added, giving its stdout.
func goCmd(dir string, env []string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "module lookup disabled") || strings.Contains(msg, "cannot find module") {
			// One line per missing import: the first few say which.
			var lines []string
			for _, l := range strings.Split(msg, "\n") {
				if !strings.HasPrefix(l, "go: downloading ") {
					lines = append(lines, l)
				}
			}
			if len(lines) > 3 {
				lines = append(lines[:3], fmt.Sprintf("(and %d more)", len(lines)-3))
			}
			return "", fmt.Errorf("%w: go %s: %s", errModuleMissing, args[0], strings.Join(lines, "\n"))
		}
		return "", fmt.Errorf("go %s: %v: %s", strings.Join(args, " "), err, msg)
	}
	return string(out), nil
}
