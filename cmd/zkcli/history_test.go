package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestJavaDecode checks redo's number parsing against Integer.decode.
func TestJavaDecode(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "7": 7, "010": 8, "0x1f": 31, "0X1F": 31, "#10": 16, "-3": -3, "+4": 4} {
		if got, err := javaDecode(in); err != nil || got != want {
			t.Errorf("javaDecode(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "x", "0x", "08", "1.5", "--1", "99999999999"} {
		if _, err := javaDecode(in); err == nil || err.Error() != fmt.Sprintf("For input string: \"%s\"", in) {
			t.Errorf("javaDecode(%q): error %v", in, err)
		}
	}
}

// TestCmdHistory checks the numbered history: history's window of the
// last ten lines and the current one, and redo's checks and recording.
func TestCmdHistory(t *testing.T) {
	h := newCmdHistory()
	var b bytes.Buffer
	h.list(&b)
	if b.String() != "0 - null\n" {
		t.Errorf("empty history: %q", b.String())
	}
	for i := 0; i < 12; i++ {
		h.add(fmt.Sprintf("ls /%d", i))
		h.count++
	}
	h.add("redo 3")
	words, err := h.redo("3")
	if err != nil || !reflect.DeepEqual(words, []string{"ls", "/3"}) || h.lines[12] != "ls /3" {
		t.Errorf("redo 3: %q, %v; line 12 %q", words, err, h.lines[12])
	}
	h.count++
	h.add("history")
	b.Reset()
	h.list(&b)
	want := "3 - ls /3\n4 - ls /4\n5 - ls /5\n6 - ls /6\n7 - ls /7\n8 - ls /8\n9 - ls /9\n" +
		"10 - ls /10\n11 - ls /11\n12 - ls /3\n13 - history\n"
	if b.String() != want {
		t.Errorf("history:\n%s\nwant\n%s", b.String(), want)
	}
	h.count++
	h.lines[h.count] = "redo 1"
	h.count++
	for arg, wantErr := range map[string]error{"-1": errRedoRange, "15": errRedoRange, "99": errRedoRange, "14": errRedoRedo} {
		if _, err := h.redo(arg); !errors.Is(err, wantErr) {
			t.Errorf("redo %s: %v, want %v", arg, err, wantErr)
		}
	}
}

// TestPrepareHistory checks the history file: created owner-only, cut to
// its last lines when it grew past the limit, and kept as it is
// otherwise.
func TestPrepareHistory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h")
	if err := prepareHistory(path, 3); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() != 0 {
		t.Fatalf("new history file: %v, %v", st, err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 && os.PathSeparator == '/' {
		t.Errorf("history file mode %v, want owner-only", perm)
	}
	os.WriteFile(path, []byte("a\nb\n\nc\n"), 0o600)
	if err := prepareHistory(path, 3); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "a\nb\n\nc\n" {
		t.Errorf("history within the limit changed: %q", b)
	}
	os.WriteFile(path, []byte("a\nb\nc\nd\ne\n"), 0o644)
	if err := prepareHistory(path, 3); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "c\nd\ne\n" {
		t.Errorf("history cut to %q, want the last three lines", b)
	}
}

// TestKeepInHistory checks which lines the recall history keeps.
func TestKeepInHistory(t *testing.T) {
	for line, want := range map[string]bool{
		"ls /": true, "  ": false, "addauth digest u:p": false, " addauth digest u:p": false, "addauthx": true, "\"": true,
	} {
		if got := keepInHistory(line); got != want {
			t.Errorf("keepInHistory(%q) = %v", line, got)
		}
	}
}

// TestHistoryFileLocation checks ZKCLI_HISTORY and the default file.
func TestHistoryFileLocation(t *testing.T) {
	t.Setenv("ZKCLI_HISTORY", "/tmp/x")
	if got := historyFile(); got != "/tmp/x" {
		t.Errorf("ZKCLI_HISTORY=/tmp/x: %q", got)
	}
	t.Setenv("ZKCLI_HISTORY", "")
	if got := historyFile(); got != "" {
		t.Errorf("ZKCLI_HISTORY empty: %q", got)
	}
	os.Unsetenv("ZKCLI_HISTORY")
	if got := historyFile(); !strings.HasSuffix(got, ".zkcli_history") {
		t.Errorf("default history file %q", got)
	}
}
