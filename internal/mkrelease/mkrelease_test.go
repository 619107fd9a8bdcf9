package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const stamp = "2026-03-04T05:06:07Z"

// stage writes a fake build: one GOOS-GOARCH directory per platform with
// its binaries, and a README.
func stage(t *testing.T) (root string, args []string) {
	root = t.TempDir()
	write := func(name, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"linux-amd64", "windows-arm64"} {
		exe := ""
		if strings.HasPrefix(p, "windows") {
			exe = ".exe"
		}
		for _, b := range []string{"zkserver", "zkcli", "zkbench"} {
			write(filepath.Join(root, "build", p, b+exe), b+" for "+p)
		}
	}
	write(filepath.Join(root, "README.md"), "# zkraft\n")
	out := filepath.Join(root, "dist")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	return root, []string{"-version", "v1.2.3", "-time", stamp, "-out", out,
		"-doc", filepath.Join(root, "README.md"),
		filepath.Join(root, "build", "linux-amd64"), filepath.Join(root, "build", "windows-arm64")}
}

// member is one archive entry as a listing shows it.
type member struct {
	name string
	mode os.FileMode
	body string
	time time.Time
}

func (m member) String() string {
	return fmt.Sprintf("%s %v %q %s", m.name, m.mode, m.body, m.time.UTC().Format(time.RFC3339))
}

func readTarGz(t *testing.T, file string) []string {
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	if gz.Name != "" || !gz.ModTime.IsZero() {
		t.Errorf("gzip header carries name %q, time %v", gz.Name, gz.ModTime)
	}
	var got []string
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(tr)
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" {
			t.Errorf("%s: owner %d/%d %q/%q, want 0", h.Name, h.Uid, h.Gid, h.Uname, h.Gname)
		}
		got = append(got, member{h.Name, h.FileInfo().Mode(), string(body), h.ModTime}.String())
	}
}

func readZip(t *testing.T, file string) []string {
	zr, err := zip.OpenReader(file)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var got []string
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(rc)
		rc.Close()
		got = append(got, member{f.Name, f.Mode(), string(body), f.Modified}.String())
	}
	return got
}

func TestArchiveLayout(t *testing.T) {
	root, args := stage(t)
	if err := run(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(root, "dist")
	d := "zkraft-v1.2.3-linux-amd64"
	want := []string{
		d + "/ drwxr-xr-x \"\" " + stamp,
		d + "/zkbench -rwxr-xr-x \"zkbench for linux-amd64\" " + stamp,
		d + "/zkcli -rwxr-xr-x \"zkcli for linux-amd64\" " + stamp,
		d + "/zkserver -rwxr-xr-x \"zkserver for linux-amd64\" " + stamp,
		d + "/README.md -rw-r--r-- \"# zkraft\\n\" " + stamp,
	}
	if got := readTarGz(t, filepath.Join(dist, d+".tar.gz")); !slices.Equal(got, want) {
		t.Errorf("%s.tar.gz:\n%s\nwant:\n%s", d, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	w := "zkraft-v1.2.3-windows-arm64"
	want = []string{
		w + "/ drwxr-xr-x \"\" " + stamp,
		w + "/zkbench.exe -rwxr-xr-x \"zkbench for windows-arm64\" " + stamp,
		w + "/zkcli.exe -rwxr-xr-x \"zkcli for windows-arm64\" " + stamp,
		w + "/zkserver.exe -rwxr-xr-x \"zkserver for windows-arm64\" " + stamp,
		w + "/README.md -rw-r--r-- \"# zkraft\\n\" " + stamp,
	}
	if got := readZip(t, filepath.Join(dist, w+".zip")); !slices.Equal(got, want) {
		t.Errorf("%s.zip:\n%s\nwant:\n%s", w, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	files, _ := os.ReadDir(dist)
	var names []string
	for _, f := range files {
		names = append(names, f.Name())
	}
	if want := []string{"SHA256SUMS", d + ".tar.gz", w + ".zip"}; !slices.Equal(names, want) {
		t.Errorf("dist holds %q, want %q", names, want)
	}
}

func TestSHA256SUMS(t *testing.T) {
	root, args := stage(t)
	if err := run(args, io.Discard); err != nil {
		t.Fatal(err)
	}
	dist := filepath.Join(root, "dist")
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(sums), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("SHA256SUMS has %d lines, want 2:\n%s", len(lines), sums)
	}
	for _, line := range lines {
		sum, name, ok := strings.Cut(line, "  ")
		want, err := fileSum(filepath.Join(dist, name))
		if !ok || err != nil || sum != want || len(sum) != 64 {
			t.Errorf("line %q: file's digest %s (%v)", line, want, err)
		}
	}
}

// Packing the same files with the same time twice gives the same bytes;
// another time gives other bytes.
func TestArchivesReproducible(t *testing.T) {
	root, args := stage(t)
	dist := filepath.Join(root, "dist")
	sums := func() []byte {
		t.Helper()
		if err := run(args, io.Discard); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	first := sums()
	later := time.Now().Add(time.Hour)
	for _, f := range []string{"README.md", "build/linux-amd64/zkcli"} {
		if err := os.Chtimes(filepath.Join(root, f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	if second := sums(); !bytes.Equal(first, second) {
		t.Errorf("second run's sums differ:\n%s\nfirst:\n%s", second, first)
	}
	args[3] = "2026-03-04T05:06:08Z"
	if third := sums(); bytes.Equal(first, third) {
		t.Error("a different -time gave the same archives")
	}
}

func TestArgumentErrors(t *testing.T) {
	root, args := stage(t)
	empty := filepath.Join(root, "build", "linux-386")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want error
	}{
		{"no stage", args[:8], errUsage},
		{"bad time", append([]string{"-time", "yesterday"}, args[2:]...), errUsage},
		{"no version", args[2:], errUsage},
		{"not GOOS-GOARCH", append(args[:8:8], filepath.Join(root, "build")), errPlatformDir},
		{"empty stage", append(args[:8:8], empty), errNoBinaries},
	} {
		if err := run(tc.args, io.Discard); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}
