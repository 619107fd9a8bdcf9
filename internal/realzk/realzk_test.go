package realzk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStartStop(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	dir := t.TempDir()
	s, err := Start(dir, Options{ExtraConfig: map[string]string{"4lw.commands.whitelist": "ruok,srvr"}})
	if err != nil {
		t.Fatal(err)
	}
	pid := s.Pid()
	out, err := FourLetterWord(s.Addr(), "ruok", 2*time.Second)
	if err != nil || out != "imok" {
		t.Fatalf("ruok = %q, %v", out, err)
	}
	if mode, err := Mode(s.Addr(), 2*time.Second); err != nil || mode != "standalone" {
		t.Fatalf("Mode = %q, %v; want standalone", mode, err)
	}
	out, err = FourLetterWord(s.Addr(), "envi", 2*time.Second)
	if err != nil || !strings.Contains(out, "not in the whitelist") {
		t.Fatalf("envi = %q, %v", out, err)
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "zoo.cfg"))
	if err != nil || !strings.Contains(string(cfg), "forceSync=no\n") {
		t.Fatalf("zoo.cfg: %s %v", cfg, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := groupGone(pid); err != nil {
		t.Fatal(err)
	}
	if _, err := FourLetterWord(s.Addr(), "ruok", time.Second); err == nil {
		t.Fatal("server still answers after Stop")
	}
}

func TestStartOwnDir(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	s, err := Start("", Options{ForceSync: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := s.Dir()
	cfg, err := os.ReadFile(filepath.Join(dir, "zoo.cfg"))
	if err != nil || !strings.Contains(string(cfg), "forceSync=yes\n") {
		t.Fatalf("zoo.cfg: %s %v", cfg, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("dir %s not removed: %v", dir, err)
	}
}

func TestLaunchReturnsBeforeServing(t *testing.T) {
	if ok, reason := Available(); !ok {
		t.Skip(reason)
	}
	s, err := Launch("", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop() })
	if s.Started().IsZero() || time.Since(s.Started()) > StartTimeout {
		t.Fatalf("Started() = %v", s.Started())
	}
	if err := s.Exited(); err != nil {
		t.Fatalf("Exited() right after Launch: %v", err)
	}
	// Launch did not wait for the server; it must still come up.
	deadline := time.Now().Add(StartTimeout)
	if err := poll(deadline, s.Exited, func() error { return serving(s.Addr()) }); err != nil {
		t.Fatalf("launched server never served: %v", err)
	}
	pid, dir := s.Pid(), s.Dir()
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := groupGone(pid); err != nil {
		t.Fatal(err)
	}
	if err := s.Exited(); !errors.Is(err, errExited) {
		t.Fatalf("Exited() after Stop = %v, want errExited", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("dir %s not removed: %v", dir, err)
	}
}
