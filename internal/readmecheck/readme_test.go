package readmecheck

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// readme is the file whose ```go blocks must compile.
const readme = "../../README.md"

// imports maps each package name a block may use to its import path.
var imports = map[string]string{
	"context":     "context",
	"errors":      "errors",
	"fmt":         "fmt",
	"log":         "log",
	"os":          "os",
	"testing":     "testing",
	"time":        "time",
	"zk":          "github.com/go-zookeeper/zk",
	"integration": "github.com/zkraft/zkraft/integration",
	"recipes":     "github.com/zkraft/zkraft/recipes",
	"server":      "github.com/zkraft/zkraft/server",
	"session":     "github.com/zkraft/zkraft/session",
	"wire":        "github.com/zkraft/zkraft/wire",
}

var (
	errWholeFile = errors.New("a whole file (package clause) is not supported; write the block as declarations or statements")
	errNoGo      = errors.New("neither declarations nor statements")
	errUnclosed  = errors.New("``` block not closed")
)

// block is one ```go block: its first line's number in README.md and its text.
type block struct {
	line int
	text string
}

// goBlocks returns the ```go blocks of the markdown file, in order.
func goBlocks(file string) ([]block, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var blocks []block
	var cur *block
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		fence := strings.HasPrefix(strings.TrimSpace(line), "```")
		switch {
		case cur != nil && fence:
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case fence && strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "```")) == "go":
			cur = &block{line: n + 1}
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: %w", file, cur.line-1, errUnclosed)
	}
	return blocks, sc.Err()
}

// complete turns a block into the source of a file of package
// readmecheck_test, as doc.go describes.
func complete(b block, readmePath string) (string, error) {
	const pkg = "package readmecheck_test\n"
	pos := fmt.Sprintf("//line %s:%d\n", readmePath, b.line)
	if f, err := parser.ParseFile(token.NewFileSet(), "", b.text, parser.PackageClauseOnly); err == nil && f.Name != nil {
		return "", errWholeFile
	}
	if f, err := parser.ParseFile(token.NewFileSet(), "", pkg+b.text, 0); err == nil {
		return pkg + importsFor(f) + pos + b.text, nil
	}
	body := "func _() {\n" + pos + b.text + "}\n"
	f, err := parser.ParseFile(token.NewFileSet(), "", pkg+body, 0)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errNoGo, err)
	}
	return pkg + importsFor(f) + body, nil
}

// importsFor is the import declaration for the table's packages that the
// file names without declaring them.
func importsFor(f *ast.File) string {
	seen := map[string]bool{}
	for _, id := range f.Unresolved {
		if path, ok := imports[id.Name]; ok {
			seen[path] = true
		}
	}
	paths := make([]string, 0, len(seen))
	for p := range seen {
		paths = append(paths, fmt.Sprintf("\t%q\n", p))
	}
	sort.Strings(paths)
	if len(paths) == 0 {
		return "\n"
	}
	return "\nimport (\n" + strings.Join(paths, "") + ")\n\n"
}

// TestREADMEGoBlocksCompile completes every ```go block of README.md and
// runs go vet over them in this package's directory through an -overlay.
func TestREADMEGoBlocksCompile(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is not on PATH (%v): cannot vet README.md's blocks", err)
	}
	blocks, err := goBlocks(readme)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatalf("%s has no ```go block; is this the right file?", readme)
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	readmePath, err := filepath.Abs(readme)
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	replace := map[string]string{}
	for i, b := range blocks {
		src, err := complete(b, readmePath)
		if err != nil {
			t.Errorf("README.md:%d: %v", b.line, err)
			continue
		}
		name := fmt.Sprintf("readme_block%d_test.go", i+1)
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		replace[filepath.Join(dir, name)] = filepath.Join(tmp, name)
	}
	overlay, _ := json.Marshal(map[string]any{"Replace": replace})
	if err := os.WriteFile(filepath.Join(tmp, "overlay.json"), overlay, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(goTool, "vet", "-overlay", filepath.Join(tmp, "overlay.json"), ".").CombinedOutput()
	if err != nil {
		t.Fatalf("README.md's ```go blocks do not compile as written (completed as internal/readmecheck/doc.go says):\n%s", out)
	}
	t.Logf("go vet passed on %d blocks", len(blocks))
}

// TestComplete pins the completion rules doc.go states.
func TestComplete(t *testing.T) {
	decl := block{line: 7, text: "func TestX(t *testing.T) {\n\t_ = zk.FlagEphemeral\n}\n"}
	src, err := complete(decl, "/r/README.md")
	want := "package readmecheck_test\n\nimport (\n\t\"github.com/go-zookeeper/zk\"\n\t\"testing\"\n)\n\n//line /r/README.md:7\n" + decl.text
	if err != nil || src != want {
		t.Errorf("declarations: %v\n%s\nwant:\n%s", err, src, want)
	}
	stmts := block{line: 9, text: "d := time.Second\n_ = d\n"}
	src, err = complete(stmts, "/r/README.md")
	want = "package readmecheck_test\n\nimport (\n\t\"time\"\n)\n\nfunc _() {\n//line /r/README.md:9\n" + stmts.text + "}\n"
	if err != nil || src != want {
		t.Errorf("statements: %v\n%s\nwant:\n%s", err, src, want)
	}
	if _, err := complete(block{text: "package main\n\nfunc main() {}\n"}, "R"); !errors.Is(err, errWholeFile) {
		t.Errorf("whole file: %v, want %v", err, errWholeFile)
	}
	if _, err := complete(block{text: "make test\n"}, "R"); !errors.Is(err, errNoGo) {
		t.Errorf("shell: %v, want %v", err, errNoGo)
	}
}
