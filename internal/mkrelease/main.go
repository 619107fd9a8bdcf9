package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var (
	// errUsage is returned for missing or malformed arguments.
	errUsage = errors.New("usage: mkrelease -version V -time RFC3339 -out DIR [-doc FILE]... GOOS-GOARCH-DIR...")
	// errPlatformDir is returned for a stage directory not named GOOS-GOARCH.
	errPlatformDir = errors.New("stage directory is not named GOOS-GOARCH")
	// errNoBinaries is returned for a stage directory without files.
	errNoBinaries = errors.New("stage directory holds no binaries")
)

// release is what one run packs.
type release struct {
	version string
	mtime   time.Time
	out     string
	docs    []string
	stages  []string
}

// docList collects the repeated -doc flag.
type docList []string

func (d *docList) String() string     { return strings.Join(*d, ",") }
func (d *docList) Set(v string) error { *d = append(*d, v); return nil }

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "mkrelease:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	r, err := parseArgs(args)
	if err != nil {
		return err
	}
	names, err := r.pack()
	if err != nil {
		return err
	}
	if err := writeSums(r.out, names); err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintln(stdout, filepath.Join(r.out, n))
	}
	fmt.Fprintln(stdout, filepath.Join(r.out, "SHA256SUMS"))
	return nil
}

func parseArgs(args []string) (*release, error) {
	fs := flag.NewFlagSet("mkrelease", flag.ContinueOnError)
	var r release
	var stamp string
	fs.StringVar(&r.version, "version", "", "version in the archive names")
	fs.StringVar(&stamp, "time", "", "build time (RFC 3339) given to every entry")
	fs.StringVar(&r.out, "out", "dist", "directory the archives and SHA256SUMS go to")
	fs.Var((*docList)(&r.docs), "doc", "file added beside the binaries (repeatable)")
	if err := fs.Parse(args); err != nil {
		return nil, fmt.Errorf("%w: %v", errUsage, err)
	}
	r.stages = fs.Args()
	if r.version == "" || len(r.stages) == 0 || strings.ContainsAny(r.version, `/\ `) {
		return nil, errUsage
	}
	t, err := time.Parse(time.RFC3339, stamp)
	if err != nil {
		return nil, fmt.Errorf("%w: -time: %v", errUsage, err)
	}
	r.mtime = t.UTC().Truncate(time.Second)
	return &r, nil
}

// pack writes one archive per stage directory and returns their names.
func (r *release) pack() ([]string, error) {
	var names []string
	for _, stage := range r.stages {
		name, err := r.packOne(stage)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", stage, err)
		}
		names = append(names, name)
	}
	return names, nil
}

func (r *release) packOne(stage string) (string, error) {
	goos, goarch, ok := strings.Cut(filepath.Base(filepath.Clean(stage)), "-")
	if !ok || goos == "" || goarch == "" {
		return "", errPlatformDir
	}
	entries, err := r.entries(stage)
	if err != nil {
		return "", err
	}
	dir := "zkraft-" + r.version + "-" + goos + "-" + goarch
	name, write := dir+".tar.gz", writeTarGz
	if goos == "windows" {
		name, write = dir+".zip", writeZip
	}
	f, err := os.Create(filepath.Join(r.out, name))
	if err != nil {
		return "", err
	}
	if err := write(f, dir, entries, r.mtime); err != nil {
		f.Close()
		return "", err
	}
	return name, f.Close()
}

// entries lists the stage's binaries and then the docs, each group in
// name order.
func (r *release) entries(stage string) ([]entry, error) {
	files, err := os.ReadDir(stage)
	if err != nil {
		return nil, err
	}
	var bins []entry
	for _, f := range files {
		if f.Type().IsRegular() {
			bins = append(bins, entry{name: f.Name(), src: filepath.Join(stage, f.Name()), mode: 0o755})
		}
	}
	if len(bins) == 0 {
		return nil, errNoBinaries
	}
	docs := make([]entry, 0, len(r.docs))
	for _, d := range r.docs {
		docs = append(docs, entry{name: filepath.Base(d), src: d, mode: 0o644})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].name < docs[j].name })
	return append(bins, docs...), nil
}
