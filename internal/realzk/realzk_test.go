package realzk

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	if err := syscall.Kill(-pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process group %d still there: %v", pid, err)
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
