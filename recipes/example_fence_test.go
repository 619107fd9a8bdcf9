package recipes_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/zkraft/zkraft/recipes"
)

// fencedFile is a file that one process owns and writes on behalf of lock
// holders, guarded by a Fence. The Fence's mark lives in the file itself:
// its first line is the token of the last accepted write, written with the
// data in one atomic rename, so a restarted process rebuilds its Fence
// from the file and still refuses the holders it refused before.
type fencedFile struct {
	path  string
	fence *recipes.Fence
}

// openFencedFile opens path, reading the mark left by the last write.
func openFencedFile(path string) (*fencedFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &fencedFile{path: path, fence: new(recipes.Fence)}, nil
	}
	if err != nil {
		return nil, err
	}
	line, _, _ := strings.Cut(string(data), "\n")
	mark, err := recipes.ParseToken(line)
	if err != nil {
		return nil, err
	}
	return &fencedFile{path: path, fence: recipes.NewFence(mark)}, nil
}

// Write replaces the file's contents if t is not older than the last
// accepted token.
func (f *fencedFile) Write(t recipes.Token, body string) error {
	return f.fence.Do(t, func() error {
		tmp, err := os.CreateTemp(filepath.Dir(f.path), ".fenced-*")
		if err != nil {
			return err
		}
		defer os.Remove(tmp.Name()) // a no-op once renamed
		if _, err := tmp.WriteString(t.String() + "\n" + body); err != nil {
			tmp.Close()
			return err
		}
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return err
		}
		if err := tmp.Close(); err != nil {
			return err
		}
		return os.Rename(tmp.Name(), f.path)
	})
}

// A lock holder that stalled past its session timeout must not overwrite
// what the next holder wrote: the file's owner refuses its old token, even
// after a restart.
func Example_fencedFile() {
	connect, stop := barrierExampleServer() // an in-process zkraft server
	defer stop()
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "fenced")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	file, err := openFencedFile(filepath.Join(dir, "report.txt"))
	if err != nil {
		panic(err)
	}

	first := recipes.NewLock(connect(), "/app/report")
	if err := first.Lock(ctx); err != nil {
		panic(err)
	}
	old, err := first.Token(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("first writes:", file.Write(old, "report by first"))
	first.Unlock(ctx) // here by choice; a paused holder loses it to expiry

	second := recipes.NewLock(connect(), "/app/report")
	if err := second.Lock(ctx); err != nil {
		panic(err)
	}
	tok, err := second.Token(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("second writes:", file.Write(tok, "report by second"))
	second.Unlock(ctx)

	err = file.Write(old, "late report by first")
	fmt.Println("first writes late:", errors.Is(err, recipes.ErrStaleToken))

	restarted, err := openFencedFile(filepath.Join(dir, "report.txt"))
	if err != nil {
		panic(err)
	}
	err = restarted.Write(old, "late report by first")
	fmt.Println("after a restart:", errors.Is(err, recipes.ErrStaleToken))
	data, _ := os.ReadFile(filepath.Join(dir, "report.txt"))
	_, body, _ := strings.Cut(string(data), "\n")
	fmt.Println("file:", body)
	// Output:
	// first writes: <nil>
	// second writes: <nil>
	// first writes late: true
	// after a restart: true
	// file: report by second
}

// tokenHeader carries a writer's fencing token to the HTTP service.
const tokenHeader = "Fencing-Token"

// fencedService is an HTTP service that stores one value and takes PUTs
// only with a fencing token no older than the last one it accepted: 409
// Conflict for a stale token, 400 for a missing or malformed one.
type fencedService struct {
	fence recipes.Fence
	mu    sync.Mutex
	value string
}

func (s *fencedService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tok, err := recipes.ParseToken(r.Header.Get(tokenHeader))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	err = s.fence.Do(tok, func() error {
		s.mu.Lock()
		s.value = string(body)
		s.mu.Unlock()
		return nil
	})
	if errors.Is(err, recipes.ErrStaleToken) {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// put sends body to the service with the writer's token.
func put(c *http.Client, url string, tok recipes.Token, body string) int {
	req, err := http.NewRequest(http.MethodPut, url, strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	req.Header.Set(tokenHeader, tok.String())
	resp, err := c.Do(req)
	if err != nil {
		panic(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// An elected leader sends its token with every request; the service
// refuses a deposed leader that has not noticed yet.
func Example_fencedHTTPService() {
	connect, stop := barrierExampleServer() // an in-process zkraft server
	defer stop()
	ctx := context.Background()
	svc := &fencedService{}
	srv := httptest.NewServer(svc) // on 127.0.0.1
	defer srv.Close()              // also closes srv.Client()'s connections

	a := recipes.NewElection(connect(), "/app/leader")
	if err := a.Campaign(ctx); err != nil {
		panic(err)
	}
	tokA, err := a.Token(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("a leads, PUT:", put(srv.Client(), srv.URL, tokA, "config from a"))
	a.Resign(ctx) // here by choice; a paused leader loses it to expiry

	b := recipes.NewElection(connect(), "/app/leader")
	if err := b.Campaign(ctx); err != nil {
		panic(err)
	}
	tokB, err := b.Token(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println("b leads, PUT:", put(srv.Client(), srv.URL, tokB, "config from b"))
	fmt.Println("a, deposed, PUT:", put(srv.Client(), srv.URL, tokA, "stale config from a"))
	fmt.Println("no token, PUT:", put(srv.Client(), srv.URL, 0, "anything"))
	b.Resign(ctx)
	svc.mu.Lock()
	fmt.Println("value:", svc.value)
	svc.mu.Unlock()
	// Output:
	// a leads, PUT: 204
	// b leads, PUT: 204
	// a, deposed, PUT: 409
	// no token, PUT: 400
	// value: config from b
}
