package bidi

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// Errors of the commands.
var (
	// ErrCommand wraps an error a command answered.
	ErrCommand = errors.New("bidi: command failed")
	// ErrException wraps a JavaScript exception script.evaluate reported.
	ErrException = errors.New("bidi: script threw")
	// ErrClosed says the connection to the browser is gone.
	ErrClosed = errors.New("bidi: connection closed")
)

// Browser is a headless Firefox with one BiDi session and one tab.
type Browser struct {
	// Name says which browser runs (path and version).
	Name    string
	cmd     *exec.Cmd
	dir     string
	conn    *websocket.Conn
	tab     string // the top-level browsing context
	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan message
	done    chan struct{}
}

// message is a BiDi message: a command's answer or an event.
type message struct {
	ID      *int64          `json:"id"`
	Type    string          `json:"type"`
	Result  json.RawMessage `json:"result"`
	Error   string          `json:"error"`
	Message string          `json:"message"`
}

// Start starts Firefox at path and opens a session on its tab.
func Start(ctx context.Context, path string) (*Browser, error) {
	dir, err := os.MkdirTemp("", "zkraft-firefox-")
	if err != nil {
		return nil, err
	}
	cmd, addr, err := startFirefox(ctx, path, dir)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	b := &Browser{Name: describe(path), cmd: cmd, dir: dir, pending: map[int64]chan message{}, done: make(chan struct{})}
	if err := b.open(ctx, addr); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// open connects to the BiDi server at addr, starts a session and finds
// the tab.
func (b *Browser) open(ctx context.Context, addr string) error {
	conn, _, err := websocket.Dial(ctx, addr+"/session", nil)
	if err != nil {
		return err
	}
	conn.SetReadLimit(64 << 20) // screenshots
	b.conn = conn
	go b.read()
	if _, err := b.call(ctx, "session.new", map[string]any{"capabilities": map[string]any{}}); err != nil {
		return err
	}
	res, err := b.call(ctx, "browsingContext.getTree", map[string]any{"maxDepth": 0})
	if err != nil {
		return err
	}
	var tree struct {
		Contexts []struct {
			Context string `json:"context"`
		} `json:"contexts"`
	}
	if err := json.Unmarshal(res, &tree); err != nil || len(tree.Contexts) == 0 {
		return fmt.Errorf("%w: no tab in %s", ErrCommand, res)
	}
	b.tab = tree.Contexts[0].Context
	return nil
}

// read routes every answer to its caller until the connection closes.
func (b *Browser) read() {
	defer close(b.done)
	for {
		_, data, err := b.conn.Read(context.Background())
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(data, &m) != nil || m.ID == nil {
			continue // an event: none is subscribed to
		}
		b.mu.Lock()
		ch := b.pending[*m.ID]
		delete(b.pending, *m.ID)
		b.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// call sends one command and waits for its answer.
func (b *Browser) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan message, 1)
	b.mu.Lock()
	b.nextID++
	id := b.nextID
	b.pending[id] = ch
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.pending, id)
		b.mu.Unlock()
	}()
	req, err := json.Marshal(map[string]any{"id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if err := b.conn.Write(ctx, websocket.MessageText, req); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if m.Type == "error" {
			return nil, fmt.Errorf("%w: %s: %s: %s", ErrCommand, method, m.Error, m.Message)
		}
		return m.Result, nil
	case <-b.done:
		return nil, ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Navigate loads url in the tab and waits for the page's load event.
func (b *Browser) Navigate(ctx context.Context, url string) error {
	_, err := b.call(ctx, "browsingContext.navigate", map[string]any{"context": b.tab, "url": url, "wait": "complete"})
	return err
}

// Eval evaluates expression in the page, awaiting it when it is a
// promise, and decodes its value's JSON (JSON.stringify's, in the page)
// into out; undefined decodes as null.
func (b *Browser) Eval(ctx context.Context, expression string, out any) error {
	wrapped := "Promise.resolve((" + expression + ")).then(v => v === undefined ? \"null\" : JSON.stringify(v))"
	res, err := b.call(ctx, "script.evaluate", map[string]any{
		"expression": wrapped, "target": map[string]any{"context": b.tab}, "awaitPromise": true,
	})
	if err != nil {
		return err
	}
	var r struct {
		Type   string `json:"type"`
		Result struct {
			Value string `json:"value"`
		} `json:"result"`
		ExceptionDetails struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return err
	}
	if r.Type == "exception" {
		return fmt.Errorf("%w: %s", ErrException, r.ExceptionDetails.Text)
	}
	return json.Unmarshal([]byte(r.Result.Value), out)
}

// Screenshot returns a PNG of the tab's viewport.
func (b *Browser) Screenshot(ctx context.Context) ([]byte, error) {
	res, err := b.call(ctx, "browsingContext.captureScreenshot", map[string]any{"context": b.tab, "origin": "document"})
	if err != nil {
		return nil, err
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(res, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Close ends the session, stops Firefox and removes its profile.
func (b *Browser) Close() {
	if b.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		b.call(ctx, "session.end", map[string]any{})
		cancel()
		b.conn.CloseNow()
	}
	b.cmd.Process.Kill()
	b.cmd.Wait()
	os.RemoveAll(b.dir)
}

// Poll evaluates expression every 50 ms until its value is truthy (not
// false, null, 0 or ""), then decodes it into out; ctx bounds the wait.
func (b *Browser) Poll(ctx context.Context, expression string, out any) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		var v json.RawMessage
		err := b.Eval(ctx, expression, &v)
		if err == nil && len(v) > 0 && string(v) != "false" && string(v) != "null" && string(v) != "0" && string(v) != `""` {
			return json.Unmarshal(v, out)
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return errors.Join(ctx.Err(), err)
			}
			return fmt.Errorf("%w: %s was still %s", ctx.Err(), expression, v)
		case <-tick.C:
		}
	}
}
